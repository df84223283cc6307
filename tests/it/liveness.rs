//! Statuses follow the liveness probe: a process holding `live.lock`
//! exclusively is live; `live.json` says whether it is running a turn.

use crate::common::{copy_store, repo, run};
use std::fs::File;

/// Both contracts' listings by `lead-1`, held to one inline snapshot.
macro_rules! assert_listings {
    ($store:expr, @$want:literal) => {
        assert_each_at!($store, &[
            &["--contract", "v2", "list-agents", "--as", "lead-1"],
            &["--contract", "v1", "list-agents", "--as", "lead-1"],
        ], @$want)
    };
}

#[test]
fn statuses_follow_the_live_lock() {
    let tmp = copy_store(&repo().join("testdata/stores/team"), "live");
    let store = tmp.path().to_str().unwrap();
    let dir = tmp.path().join("_no-cwd/rev-0001");
    assert_listings!(tmp.path(), @r#"
        $ dsh-agents --contract v2 list-agents --as lead-1
        lead [inactive] — root agent
        reviewer [inactive] — Review the diff
        reviewer/checker [inactive] — Check the tests
        scout/deep [inactive] — Dig deeper
        batch/step/fix [inactive] — Fix what the step found
        anon-0001 [inactive] — Unnamed helper
        kid-0001 [inactive] — Below the unnamed helper
        escaped [inactive] — An id that needs escaping — ü
        tie-lower [inactive] — Tie, lower-case a
        tie-upper [inactive] — Tie, upper-case B
        broken [corrupt]
        unreadable [unavailable]
        --- stderr
        --- exit: 0
        $ dsh-agents --contract v1 list-agents --as lead-1
        rev-0001 [ready] — Review the diff
        anon-0001 [ready] — Unnamed helper
        ext-0001 [diagnostic: corrupt]
        task/1 ü [ready] — An id that needs escaping — ü
        tie-a [ready] — Tie, lower-case a
        Tie-b [ready] — Tie, upper-case B
        brk-0001 [diagnostic: corrupt]
        unr-0001 [diagnostic: unavailable]
        --- stderr
        --- exit: 0
    "#);

    let lock = File::create(dir.join("live.lock")).unwrap();
    lock.lock().unwrap();
    std::fs::write(
        dir.join("live.json"),
        r#"{"pid":1,"state":"running","since":0,"turn":1}"#,
    )
    .unwrap();
    assert_listings!(tmp.path(), @r#"
        $ dsh-agents --contract v2 list-agents --as lead-1
        lead [inactive] — root agent
        reviewer [running] — Review the diff
        reviewer/checker [inactive] — Check the tests
        scout/deep [inactive] — Dig deeper
        batch/step/fix [inactive] — Fix what the step found
        anon-0001 [inactive] — Unnamed helper
        kid-0001 [inactive] — Below the unnamed helper
        escaped [inactive] — An id that needs escaping — ü
        tie-lower [inactive] — Tie, lower-case a
        tie-upper [inactive] — Tie, upper-case B
        broken [corrupt]
        unreadable [unavailable]
        --- stderr
        --- exit: 0
        $ dsh-agents --contract v1 list-agents --as lead-1
        rev-0001 [running] — Review the diff
        anon-0001 [ready] — Unnamed helper
        ext-0001 [diagnostic: corrupt]
        task/1 ü [ready] — An id that needs escaping — ü
        tie-a [ready] — Tie, lower-case a
        Tie-b [ready] — Tie, upper-case B
        brk-0001 [diagnostic: corrupt]
        unr-0001 [diagnostic: unavailable]
        --- stderr
        --- exit: 0
    "#);
    std::fs::write(
        dir.join("live.json"),
        r#"{"pid":1,"state":"idle","since":0,"turn":1}"#,
    )
    .unwrap();
    assert_listings!(tmp.path(), @r#"
        $ dsh-agents --contract v2 list-agents --as lead-1
        lead [inactive] — root agent
        reviewer [running] — Review the diff
        reviewer/checker [inactive] — Check the tests
        scout/deep [inactive] — Dig deeper
        batch/step/fix [inactive] — Fix what the step found
        anon-0001 [inactive] — Unnamed helper
        kid-0001 [inactive] — Below the unnamed helper
        escaped [inactive] — An id that needs escaping — ü
        tie-lower [inactive] — Tie, lower-case a
        tie-upper [inactive] — Tie, upper-case B
        broken [corrupt]
        unreadable [unavailable]
        --- stderr
        --- exit: 0
        $ dsh-agents --contract v1 list-agents --as lead-1
        rev-0001 [idle] — Review the diff
        anon-0001 [ready] — Unnamed helper
        ext-0001 [diagnostic: corrupt]
        task/1 ü [ready] — An id that needs escaping — ü
        tie-a [ready] — Tie, lower-case a
        Tie-b [ready] — Tie, upper-case B
        brk-0001 [diagnostic: corrupt]
        unr-0001 [diagnostic: unavailable]
        --- stderr
        --- exit: 0
    "#);

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
    assert_listings!(tmp.path(), @r#"
        $ dsh-agents --contract v2 list-agents --as lead-1
        lead [inactive] — root agent
        reviewer [running] — Review the diff
        reviewer/checker [inactive] — Check the tests
        scout/deep [inactive] — Dig deeper
        batch/step/fix [inactive] — Fix what the step found
        anon-0001 [inactive] — Unnamed helper
        kid-0001 [inactive] — Below the unnamed helper
        escaped [inactive] — An id that needs escaping — ü
        tie-lower [inactive] — Tie, lower-case a
        tie-upper [inactive] — Tie, upper-case B
        unreadable [unavailable]
        --- stderr
        --- exit: 0
        $ dsh-agents --contract v1 list-agents --as lead-1
        rev-0001 [running] — Review the diff
        anon-0001 [ready] — Unnamed helper
        ext-0001 [diagnostic: corrupt]
        task/1 ü [ready] — An id that needs escaping — ü
        tie-a [ready] — Tie, lower-case a
        Tie-b [ready] — Tie, upper-case B
        unr-0001 [diagnostic: unavailable]
        --- stderr
        --- exit: 0
    "#);

    // Unlock explicitly: a program another test thread is starting may
    // share these descriptors between its fork and exec, and a close alone
    // would leave the lock held until then.
    lock.unlock().unwrap();
    brk_lock.unlock().unwrap();
    drop(lock);
    drop(brk_lock);
    // The lock file stays behind, but nobody holds it: not live.
    assert_listings!(tmp.path(), @r#"
        $ dsh-agents --contract v2 list-agents --as lead-1
        lead [inactive] — root agent
        reviewer [inactive] — Review the diff
        reviewer/checker [inactive] — Check the tests
        scout/deep [inactive] — Dig deeper
        batch/step/fix [inactive] — Fix what the step found
        anon-0001 [inactive] — Unnamed helper
        kid-0001 [inactive] — Below the unnamed helper
        escaped [inactive] — An id that needs escaping — ü
        tie-lower [inactive] — Tie, lower-case a
        tie-upper [inactive] — Tie, upper-case B
        broken [corrupt]
        unreadable [unavailable]
        --- stderr
        --- exit: 0
        $ dsh-agents --contract v1 list-agents --as lead-1
        rev-0001 [ready] — Review the diff
        anon-0001 [ready] — Unnamed helper
        ext-0001 [diagnostic: corrupt]
        task/1 ü [ready] — An id that needs escaping — ü
        tie-a [ready] — Tie, lower-case a
        Tie-b [ready] — Tie, upper-case B
        brk-0001 [diagnostic: corrupt]
        unr-0001 [diagnostic: unavailable]
        --- stderr
        --- exit: 0
    "#);
}
