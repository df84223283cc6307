//! Crash faults: a writer killed at every stage of an append leaves an inbox
//! that reads correctly and that the next append repairs; a lock held by a
//! dead process never blocks anyone.

use crate::common::{cmd, copy_store, repo, run, wait_until_locked};
use serde_json::Value;
use std::time::{Duration, Instant};

fn texts(path: &std::path::Path) -> (Vec<String>, bool) {
    let raw = std::fs::read_to_string(path).unwrap();
    let mut out = Vec::new();
    for line in raw.lines() {
        let v: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("unparsable record {line:?}: {e}"));
        out.push(v["content"][0]["text"].as_str().unwrap_or("").to_string());
    }
    (out, raw.ends_with('\n'))
}

#[test]
fn a_writer_killed_at_any_stage_of_an_append_loses_nothing_acknowledged() {
    for (stage, doomed_survives) in [
        ("after-lock", false),
        ("mid-record", false),
        ("before-sync", true),
    ] {
        let store = copy_store(&repo().join("testdata/stores/team"), stage);
        let s = store.path().to_str().unwrap();
        assert_eq!(
            run(["--store", s, "followup", "rev-0001", "acked 1"]).code,
            0
        );
        let out = cmd()
            .args(["--store", s, "followup", "rev-0001", "doomed"])
            .env("DSH_AGENTS_FAULT", stage)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            None,
            "{stage}: the writer died by a signal"
        );
        // Readers still see every acknowledged record.
        let r = run(["--store", s, "--json", "inbox", "rev-0001"]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert!(r.stdout.contains("acked 1"), "{stage}");
        // The next writer repairs whatever was left and appends whole.
        assert_eq!(
            run(["--store", s, "followup", "rev-0001", "acked 2"]).code,
            0
        );
        let (texts, terminated) = texts(&store.path().join("_no-cwd/rev-0001/inbox.jsonl"));
        assert!(terminated, "{stage}");
        let want: Vec<&str> = if doomed_survives {
            vec!["acked 1", "doomed", "acked 2"]
        } else {
            vec!["acked 1", "acked 2"]
        };
        assert_eq!(texts, want, "{stage}");
        let r = run(["--store", s, "check"]);
        assert!(!r.stdout.contains("inbox"), "{stage}: {}", r.stdout);
    }
}

#[test]
fn a_lock_held_by_a_dead_process_blocks_nobody() {
    let store = copy_store(&repo().join("testdata/stores/team"), "deadlock");
    let s = store.path().to_str().unwrap();
    let mut holder = crate::common::reaped(
        std::process::Command::new(assert_cmd::cargo::cargo_bin!("dsh-agents"))
            .args(["--store", s, "followup", "rev-0001", "held"])
            .env("DSH_AGENTS_FAULT", "hold-lock")
            .spawn()
            .unwrap(),
    );
    let lock = store.path().join("_no-cwd/rev-0001/inbox.lock");
    wait_until_locked(&lock);
    let r = run([
        "--store",
        s,
        "--lock-timeout",
        "0.3",
        "followup",
        "rev-0001",
        "blocked",
    ]);
    assert_eq!(r.code, 3);
    assert_eq!(
        r.stderr,
        format!(
            "Error: timed out after 0.3s waiting for the lock on {}\n",
            lock.display()
        )
    );
    holder.kill().unwrap();
    holder.wait().unwrap();
    // The dead holder's lock is free: the next writer gets it (how fast is
    // a claim for benchmarks, not a timed assertion on a loaded machine).
    let r = run([
        "--store",
        s,
        "--lock-timeout",
        "60",
        "followup",
        "rev-0001",
        "after the holder died",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let (texts, _) = texts(&store.path().join("_no-cwd/rev-0001/inbox.jsonl"));
    assert_eq!(texts, ["after the holder died"]);
}

/// `serve` killed at each write point of a turn, then restarted: every
/// acknowledged message ends up in a turn that completed, exactly once
/// outside interrupted turns, none is left claimed without a completed turn,
/// and `check` finds nothing wrong with the log.
#[test]
fn serve_killed_at_each_write_point_loses_nothing() {
    use std::os::unix::fs::PermissionsExt;
    for stage in [
        "serve-after-turn-start",
        "serve-after-claim",
        "mid-handler",
        "serve-before-turn-end",
    ] {
        let store = copy_store(&repo().join("testdata/stores/team"), stage);
        let s = store.path().to_str().unwrap();
        let handler = store.path().join("h.sh");
        let seen = store.path().join("seen.log");
        std::fs::write(
            &handler,
            "#!/bin/sh\ncat >> \"$SEEN\"; echo >> \"$SEEN\"; [ -n \"$NAP\" ] && sleep 30; exit 0\n",
        )
        .unwrap();
        std::fs::set_permissions(&handler, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(
            run(["--store", s, "followup", "rev-0001", "precious"]).code,
            0
        );
        let mut first = std::process::Command::new(assert_cmd::cargo::cargo_bin!("dsh-agents"));
        first
            .args(["--store", s, "serve", "--as", "rev-0001", "--once", "--"])
            .arg(&handler)
            .env("SEEN", &seen)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        if stage == "mid-handler" {
            first.env("NAP", "1");
            let mut child = crate::common::reaped(first.spawn().unwrap());
            let deadline = Instant::now() + Duration::from_secs(120);
            while !std::fs::read_to_string(&seen)
                .unwrap_or_default()
                .contains("precious")
            {
                assert!(Instant::now() < deadline, "the handler started");
                std::thread::sleep(Duration::from_millis(20));
            }
            child.kill().unwrap();
            child.wait().unwrap();
        } else {
            let status = first.env("DSH_AGENTS_FAULT", stage).status().unwrap();
            assert_eq!(status.code(), None, "{stage}: serve died");
        }
        let r = cmd()
            .args(["--store", s, "serve", "--as", "rev-0001", "--once", "--"])
            .arg(&handler)
            .env("SEEN", &seen)
            .output()
            .unwrap();
        assert_eq!(
            r.status.code(),
            Some(0),
            "{stage}: {}",
            String::from_utf8_lossy(&r.stderr)
        );
        let log =
            std::fs::read_to_string(store.path().join("_no-cwd/rev-0001/session.jsonl")).unwrap();
        let events: Vec<Value> = log
            .lines()
            .skip(1)
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        // Each turn's input and ending.
        let mut turns: Vec<(Vec<String>, String)> = Vec::new();
        for e in &events {
            match e["type"].as_str() {
                Some("turn/start") => turns.push((Vec::new(), String::new())),
                Some("user/message") => {
                    if let Some(t) = turns.last_mut() {
                        t.0.push(
                            e["data"]["content"][0]["text"]
                                .as_str()
                                .unwrap_or("")
                                .into(),
                        );
                    }
                }
                Some("turn/end") => {
                    if let Some(t) = turns.last_mut() {
                        t.1 = e["data"]["reason"]["kind"].as_str().unwrap_or("").into();
                    }
                }
                _ => {}
            }
        }
        let completed = turns
            .iter()
            .filter(|t| t.1 == "completed" && t.0.iter().any(|m| m == "precious"))
            .count();
        assert_eq!(completed, 1, "{stage}: {turns:?}");
        assert!(
            turns
                .iter()
                .filter(|t| t.0.iter().any(|m| m == "precious"))
                .all(|t| t.1 == "completed" || t.1 == "interrupted"),
            "{stage}: {turns:?}"
        );
        let inbox = run(["--store", s, "inbox", "rev-0001"]);
        assert!(
            inbox
                .stdout
                .starts_with("next-step: 0 pending\nnext-turn: 0 pending"),
            "{stage}: {}",
            inbox.stdout
        );
        let check = run(["--store", s, "check"]);
        assert!(
            !check.stdout.contains("rev-0001"),
            "{stage}: {}",
            check.stdout
        );
    }
}
