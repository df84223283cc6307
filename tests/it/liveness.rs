//! Statuses follow the liveness probe: a process holding `live.lock`
//! exclusively is live; `live.json` says whether it is running a turn.

use crate::common::{copy_store, repo, run};
use std::fs::File;

fn list(store: &str, contract: &str, extra: &[&str]) -> String {
    let mut args = vec![
        "--contract",
        contract,
        "--store",
        store,
        "list-agents",
        "--as",
        "lead-1",
    ];
    args.extend_from_slice(extra);
    let r = run(&args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    r.stdout
}

#[test]
fn statuses_follow_the_live_lock() {
    let tmp = copy_store(&repo().join("testdata/stores/team"), "live");
    let store = tmp.path().to_str().unwrap();
    let dir = tmp.path().join("_no-cwd/rev-0001");
    assert!(list(store, "v2", &[]).contains("reviewer [inactive] — Review the diff"));
    assert!(list(store, "v1", &[]).contains("rev-0001 [ready] — Review the diff"));

    let lock = File::create(dir.join("live.lock")).unwrap();
    lock.lock().unwrap();
    std::fs::write(
        dir.join("live.json"),
        r#"{"pid":1,"state":"running","since":0,"turn":1}"#,
    )
    .unwrap();
    assert!(list(store, "v2", &[]).contains("reviewer [running] — Review the diff"));
    assert!(list(store, "v1", &[]).contains("rev-0001 [running] — Review the diff"));
    std::fs::write(
        dir.join("live.json"),
        r#"{"pid":1,"state":"idle","since":0,"turn":1}"#,
    )
    .unwrap();
    assert!(list(store, "v2", &[]).contains("reviewer [running] — Review the diff"));
    assert!(list(store, "v1", &[]).contains("rev-0001 [idle] — Review the diff"));

    // A target working on a turn is steered (next step) under v2; an idle
    // resident one gets its next turn; rc.8 always queues a turn.
    let send = |contract: &str, target: &str| {
        let r = run([
            "--contract",
            contract,
            "--store",
            store,
            "--json",
            "send-message",
            target,
            "x",
            "--as",
            "lead-1",
        ]);
        assert_eq!(r.code, 0, "{}", r.stderr);
    };
    send("v2", "reviewer");
    std::fs::write(
        dir.join("live.json"),
        r#"{"pid":1,"state":"running","since":0,"turn":1}"#,
    )
    .unwrap();
    send("v2", "reviewer");
    send("v1", "rev-0001");
    send("v2", "anon-0001");
    let records = |dir: &str| -> Vec<String> {
        std::fs::read_to_string(tmp.path().join("_no-cwd").join(dir).join("inbox.jsonl"))
            .unwrap()
            .lines()
            .map(|l| {
                serde_json::from_str::<serde_json::Value>(l).unwrap()["target"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect()
    };
    assert_eq!(records("rev-0001"), ["next-turn", "next-step", "next-turn"]);
    assert_eq!(
        records("anon-0001"),
        ["next-turn"],
        "a target that is not live gets its next turn"
    );

    // A live session without a descriptor is in its creation window: omitted.
    let brk = tmp.path().join("_no-cwd/brk-0001");
    let brk_lock = File::create(brk.join("live.lock")).unwrap();
    brk_lock.lock().unwrap();
    assert!(!list(store, "v2", &[]).contains("broken"));
    assert!(!list(store, "v1", &[]).contains("brk-0001"));

    // Unlock explicitly: a program another test thread is starting may
    // share these descriptors between its fork and exec, and a close alone
    // would leave the lock held until then.
    lock.unlock().unwrap();
    brk_lock.unlock().unwrap();
    drop(lock);
    drop(brk_lock);
    // The lock file stays behind, but nobody holds it: not live.
    assert!(list(store, "v2", &[]).contains("reviewer [inactive]"));
    assert!(list(store, "v1", &[]).contains("rev-0001 [ready]"));
    assert!(list(store, "v2", &[]).contains("broken [corrupt]"));
}
