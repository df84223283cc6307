//! Many processes, one inbox: nothing acknowledged is lost, records are
//! whole, and a writer killed mid-append costs nobody else anything.

use crate::common::{TempDir, copy_store, repo, run};
use serde_json::Value;
use std::collections::HashSet;
use std::process::Stdio;

fn records(store: &TempDir) -> Vec<Value> {
    let text = std::fs::read_to_string(store.path().join("_no-cwd/rev-0001/inbox.jsonl")).unwrap();
    let complete = &text[..text.rfind('\n').map_or(0, |p| p + 1)];
    complete
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad record {l:?}: {e}")))
        .collect()
}

#[test]
fn eight_processes_sending_two_hundred_messages_each() {
    let store = copy_store(&repo().join("testdata/stores/team"), "conc");
    let s = store.path().to_str().unwrap().to_string();
    let acked: Vec<Vec<String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..8)
            .map(|p| {
                let s = s.clone();
                scope.spawn(move || {
                    (0..200)
                        .map(|i| {
                            let r = run([
                                "--store",
                                &s,
                                "--json",
                                "followup",
                                "rev-0001",
                                &format!("p{p} m{i}"),
                            ]);
                            assert_eq!(r.code, 0, "{}", r.stderr);
                            let v: Value = serde_json::from_str(&r.stdout).unwrap();
                            v["messageId"].as_str().unwrap().to_string()
                        })
                        .collect()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let recs = records(&store);
    assert_eq!(recs.len(), 1600, "exactly one complete record per send");
    let ids: HashSet<&str> = recs.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), 1600, "all ids distinct");
    for id in acked.iter().flatten() {
        assert!(ids.contains(id.as_str()), "acknowledged {id} is present");
    }
    // Each sender's messages keep their order.
    for p in 0..8 {
        let mine: Vec<u32> = recs
            .iter()
            .filter_map(|r| {
                r["content"][0]["text"]
                    .as_str()?
                    .strip_prefix(&format!("p{p} m"))?
                    .parse()
                    .ok()
            })
            .collect();
        assert_eq!(mine, (0..200).collect::<Vec<_>>());
    }
    let r = run(["--store", &s, "--json", "inbox", "rev-0001"]);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        v["nextTurn"].as_array().unwrap().len(),
        1600,
        "the fold sees every pending message"
    );
}

#[test]
fn senders_killed_mid_append_lose_nothing_acknowledged() {
    let store = copy_store(&repo().join("testdata/stores/team"), "kill");
    let s = store.path().to_str().unwrap().to_string();
    let bin = assert_cmd::cargo::cargo_bin!("dsh-agents");
    let acked: Vec<String> = std::thread::scope(|scope| {
        let steady: Vec<_> = (0..3)
            .map(|p| {
                let s = s.clone();
                scope.spawn(move || {
                    (0..60)
                        .map(|i| {
                            let r = run([
                                "--store",
                                &s,
                                "--json",
                                "followup",
                                "rev-0001",
                                &format!("steady {p} {i}"),
                            ]);
                            assert_eq!(r.code, 0, "{}", r.stderr);
                            serde_json::from_str::<Value>(&r.stdout).unwrap()["messageId"]
                                .as_str()
                                .unwrap()
                                .to_string()
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        // Meanwhile, start senders with large messages and SIGKILL them at
        // staggered moments, some while they hold the lock mid-write.
        let big = "x".repeat(4 << 20);
        for k in 0..40u64 {
            let mut child = crate::common::reaped(
                std::process::Command::new(bin)
                    .args(["--store", &s, "followup", "rev-0001", "-"])
                    .stdin(Stdio::piped())
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .spawn()
                    .unwrap(),
            );
            let mut stdin = child.stdin.take().unwrap();
            let big = big.clone();
            let writer = std::thread::spawn(move || {
                use std::io::Write;
                let _ = stdin.write_all(big.as_bytes());
            });
            std::thread::sleep(std::time::Duration::from_millis(k % 7 * 3));
            let _ = child.kill();
            let _ = child.wait();
            let _ = writer.join();
        }
        steady.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    // Whatever a killed writer left, the next writer repairs it.
    let r = run(["--store", &s, "followup", "rev-0001", "after the storm"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let recs = records(&store);
    let ids: HashSet<&str> = recs.iter().map(|r| r["id"].as_str().unwrap()).collect();
    for id in &acked {
        assert!(ids.contains(id.as_str()), "acknowledged {id} survived");
    }
    let text = std::fs::read_to_string(store.path().join("_no-cwd/rev-0001/inbox.jsonl")).unwrap();
    assert!(
        text.ends_with('\n'),
        "no torn tail after a successful append"
    );
    assert_eq!(
        recs.last().unwrap()["content"][0]["text"],
        "after the storm"
    );
}

#[test]
fn a_torn_tail_is_repaired_by_the_next_writer() {
    let store = copy_store(&repo().join("testdata/stores/team"), "torn");
    let s = store.path().to_str().unwrap();
    assert_eq!(run(["--store", s, "followup", "rev-0001", "first"]).code, 0);
    let path = store.path().join("_no-cwd/rev-0001/inbox.jsonl");
    let mut bytes = std::fs::read(&path).unwrap();
    let whole = bytes.len();
    bytes.extend_from_slice(br#"{"type":"message","id":"torn","time":1,"target":"next-tu"#);
    std::fs::write(&path, &bytes).unwrap();
    // Readers ignore the torn tail.
    let r = run(["--store", s, "--json", "inbox", "rev-0001"]);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["nextTurn"].as_array().unwrap().len(), 1);
    assert_eq!(
        run(["--store", s, "followup", "rev-0001", "second"]).code,
        0
    );
    let after = std::fs::read(&path).unwrap();
    assert_eq!(
        &after[..whole],
        &bytes[..whole],
        "complete records untouched"
    );
    let text = String::from_utf8(after[whole..].to_vec()).unwrap();
    assert!(
        text.starts_with(r#"{"type":"message""#)
            && text.contains("second")
            && !text.contains("torn"),
        "{text}"
    );
}
