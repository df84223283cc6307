//! Messaging: every rendered text and error of both contracts and the exact
//! inbox records each send writes, pinned as golden files; idempotent ids,
//! the admission bound, stdin messages.

use crate::common::{TempDir, copy_store, repo, run, snapshot, snapshot_settings};
use serde_json::Value;

fn transcript(store: &TempDir, commands: &[&[&str]], inboxes: &[&str]) -> String {
    let s = store.path().to_str().unwrap();
    let mut out = String::new();
    for args in commands {
        let mut argv = vec!["--store", s];
        argv.extend_from_slice(args);
        let r = run(&argv);
        out.push_str(&format!("$ dsh-agents {}\n{}", args.join(" "), r.stdout));
        if !r.stderr.is_empty() {
            out.push_str(&format!("[stderr] {}", r.stderr));
        }
        out.push_str(&format!("[exit {}]\n", r.code));
    }
    for dir in inboxes {
        out.push_str(&format!("== {dir}/inbox.jsonl\n"));
        out.push_str(
            &std::fs::read_to_string(store.path().join("_no-cwd").join(dir).join("inbox.jsonl"))
                .unwrap_or_else(|_| "(none)\n".into()),
        );
    }
    out
}

fn team() -> TempDir {
    copy_store(&repo().join("testdata/stores/team"), "msg")
}

#[test]
fn v2_send_message_texts_errors_and_records() {
    let store = team();
    let commands: &[&[&str]] = &[
        &[
            "send-message",
            "reviewer/checker",
            "Run the tests again",
            "--as",
            "lead-1",
        ],
        &[
            "send-message",
            "lead",
            "Tests pass",
            "--as",
            "chk-0001",
            "--json",
        ],
        &[
            "send-message",
            "kid-0001",
            "By id, listed by id",
            "--as",
            "rev-0001",
        ],
        &[
            "send-message",
            "batch/step/fix",
            "Deep target",
            "--as",
            "anon-0001",
        ],
        &[
            "call",
            "send_message",
            r#"{"agent":"reviewer","message":"via call","extra":1}"#,
            "--as",
            "fix-0001",
        ],
        &["send-message", "lead-1", "to myself", "--as", "lead-1"],
        &["send-message", "nobody", "x", "--as", "lead-1"],
        &["send-message", "scout", "x", "--as", "lead-1"],
        &["send-message", "outside", "x", "--as", "lead-1"],
        &["send-message", "broken", "x", "--as", "lead-1"],
        &["send-message", "unreadable", "x", "--as", "lead-1"],
        &["send-message", "reviewer", "x", "--as", "sct-0001"],
        &[
            "call",
            "send_message",
            r#"{"agent":"reviewer"}"#,
            "--as",
            "lead-1",
        ],
        &[
            "call",
            "send_message",
            r#"{"agent":1,"message":2}"#,
            "--as",
            "lead-1",
        ],
    ];
    let text = transcript(
        &store,
        commands,
        &["chk-0001", "lead-1", "kid-0001", "fix-0001", "rev-0001"],
    );
    snapshot_settings(Some(store.path())).bind(|| insta::assert_snapshot!("messaging.v2", text));
}

#[test]
fn v1_and_seed_002_texts_errors_and_records() {
    let store = team();
    let commands: &[&[&str]] = &[
        &[
            "--contract",
            "v1",
            "send-message",
            "rev-0001",
            "Continue with the tests",
            "--as",
            "lead-1",
        ],
        &[
            "--contract",
            "v1",
            "call",
            "send_message",
            r#"{"subagent_id":"anon-0001","message":"via call"}"#,
            "--as",
            "lead-1",
        ],
        &[
            "--contract",
            "v1",
            "send-message",
            "chk-0001",
            "grandchild",
            "--as",
            "lead-1",
        ],
        &[
            "--contract",
            "v1",
            "send-message",
            "sct-0001",
            "one-shot",
            "--as",
            "lead-1",
        ],
        &[
            "--contract",
            "v1",
            "send-message",
            "ext-0001",
            "external",
            "--as",
            "lead-1",
        ],
        &[
            "--contract",
            "v1",
            "send-message",
            "unr-0001",
            "unreadable",
            "--as",
            "lead-1",
        ],
        &[
            "--contract",
            "v1",
            "send-message",
            "nope",
            "unknown",
            "--as",
            "lead-1",
        ],
        &[
            "--contract",
            "v1",
            "call",
            "send_message",
            "{}",
            "--as",
            "lead-1",
        ],
        &[
            "subagent-send-message",
            "chk-0001",
            "from my parent",
            "--as",
            "rev-0001",
        ],
        &[
            "call",
            "subagent_send_message",
            r#"{"agent_id":"rev-0001","message":"not mine"}"#,
            "--as",
            "anon-0001",
        ],
        &[
            "subagent-parent-message",
            "Progress: half done",
            "--as",
            "stp-0001",
        ],
        &[
            "subagent-parent-message",
            "Steer the parent",
            "--mode",
            "steer",
            "--as",
            "fix-0001",
        ],
        &[
            "call",
            "subagent_parent_message",
            r#"{"message":"from a one-shot","mode":"followup"}"#,
            "--as",
            "sct-0001",
        ],
        &[
            "call",
            "subagent_parent_message",
            r#"{"message":"x","mode":"loud"}"#,
            "--as",
            "sct-0001",
        ],
        &["subagent-parent-message", "   ", "--as", "sct-0001"],
        &["subagent-parent-message", "no parent", "--as", "lead-1"],
        &["followup", "rev-0001", "Operator follow-up"],
        &["steer", "rev-0", "Operator steer"],
        &["inbox", "rev-0001", "--json"],
    ];
    let text = transcript(
        &store,
        commands,
        &[
            "rev-0001",
            "anon-0001",
            "chk-0001",
            "bat-0001",
            "stp-0001",
            "lead-1",
        ],
    );
    snapshot_settings(Some(store.path())).bind(|| insta::assert_snapshot!("messaging.v1", text));
}

#[test]
fn idempotent_ids_write_once() {
    let store = team();
    let s = store.path().to_str().unwrap();
    let send = || {
        run([
            "--store",
            s,
            "send-message",
            "reviewer",
            "once",
            "--as",
            "lead-1",
            "--id",
            "msg-42",
            "--json",
        ])
    };
    let first = send();
    assert_eq!(
        first.stdout, "{\"messageId\":\"msg-42\"}\n",
        "{}",
        first.stderr
    );
    let inbox = store.path().join("_no-cwd/rev-0001/inbox.jsonl");
    let before = std::fs::read(&inbox).unwrap();
    let again = send();
    assert_eq!(
        (again.code, again.stdout.as_str()),
        (0, first.stdout.as_str()),
        "same receipt"
    );
    assert_eq!(
        std::fs::read(&inbox).unwrap(),
        before,
        "nothing written twice"
    );
    let other = run([
        "--store", s, "followup", "rev-0001", "twice", "--id", "msg-43",
    ]);
    assert_eq!(other.code, 0);
    assert_eq!(std::fs::read_to_string(&inbox).unwrap().lines().count(), 2);
}

#[test]
fn a_full_inbox_rejects_and_changes_nothing() {
    let store = team();
    let s = store.path().to_str().unwrap();
    for i in 0..2 {
        let r = run([
            "--store",
            s,
            "--max-pending",
            "2",
            "followup",
            "rev-0001",
            &format!("m{i}"),
        ]);
        assert_eq!(r.code, 0, "{}", r.stderr);
    }
    let before = snapshot(store.path());
    let r = run([
        "--store",
        s,
        "--max-pending",
        "2",
        "send-message",
        "reviewer",
        "third",
        "--as",
        "lead-1",
    ]);
    assert_eq!(r.code, 1);
    assert_eq!(
        r.stderr,
        "Error: the inbox of agent \"reviewer\" is full (2 pending messages, limit 2); the message was not delivered\n"
    );
    let r = run([
        "--store",
        s,
        "--max-pending",
        "2",
        "--contract",
        "v1",
        "send-message",
        "rev-0001",
        "third",
        "--as",
        "lead-1",
    ]);
    assert_eq!(
        r.stderr,
        "Error: subagent \"rev-0001\" inbox is full (2 pending messages, limit 2); the message was not accepted\n"
    );
    assert!(
        before == snapshot(store.path()),
        "a rejected send writes nothing"
    );
    // Claiming frees room.
    let r = run(["--store", s, "claim", "--as", "rev-0001"]);
    assert_eq!(r.code, 0);
    let r = run([
        "--store",
        s,
        "--max-pending",
        "2",
        "followup",
        "rev-0001",
        "fits again",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

#[test]
fn stdin_messages_of_any_size_and_utf8() {
    let store = team();
    let s = store.path().to_str().unwrap();
    let big: String = "ü😀 line\n".repeat(200_000);
    let r = crate::common::cmd()
        .args(["--store", s, "followup", "rev-0001", "-"])
        .write_stdin(big.clone())
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let inbox = std::fs::read_to_string(store.path().join("_no-cwd/rev-0001/inbox.jsonl")).unwrap();
    let rec: Value = serde_json::from_str(inbox.lines().next().unwrap()).unwrap();
    assert_eq!(rec["content"][0]["text"].as_str().unwrap(), big);
    let r = crate::common::cmd()
        .args(["--store", s, "followup", "rev-0001", "-"])
        .write_stdin(vec![0xff, 0xfe])
        .output()
        .unwrap();
    assert_eq!(r.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&r.stderr).contains("not valid UTF-8"));
}

#[test]
fn claim_takes_next_step_input_and_one_unparked_turn() {
    let store = team();
    let s = store.path().to_str().unwrap();
    for (cmd, text) in [
        ("followup", "turn 1"),
        ("followup", "turn 2"),
        ("steer", "step a"),
        ("steer", "step b"),
    ] {
        assert_eq!(run(["--store", s, cmd, "rev-0001", text]).code, 0);
    }
    let texts = |r: &crate::common::Run| -> Vec<String> {
        let v: Value = serde_json::from_str(&r.stdout).unwrap();
        v.as_array()
            .unwrap()
            .iter()
            .map(|m| m["content"][0]["text"].as_str().unwrap().to_string())
            .collect()
    };
    let pending = || -> Value {
        let trees: Value =
            serde_json::from_str(&run(["--store", s, "--json", "tree", "rev-0001"]).stdout)
                .unwrap();
        trees[0]["members"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == "rev-0001")
            .unwrap()["pending"]
            .clone()
    };
    assert_eq!(pending(), 4, "tree shows the pending count");
    let r = run(["--store", s, "claim", "--as", "rev-0001"]);
    assert_eq!(texts(&r), ["step a", "step b", "turn 1"]);
    assert_eq!(pending(), 1);
    let r = run(["--store", s, "claim", "--as", "rev-0001"]);
    assert_eq!(texts(&r), ["turn 2"]);
    let r = run(["--store", s, "claim", "--as", "rev-0001"]);
    assert_eq!(r.stdout, "[]\n");
}

#[test]
fn the_inbox_is_never_written_through_a_symlink() {
    let store = team();
    let outside = crate::common::temp_dir("victim");
    let victim = outside.path().join("victim.jsonl");
    std::fs::write(&victim, "").unwrap();
    std::os::unix::fs::symlink(&victim, store.path().join("_no-cwd/rev-0001/inbox.jsonl")).unwrap();
    assert_at!(store.path(), &["followup", "rev-0001", "x"], @r#"
        $ dsh-agents followup rev-0001 x
        --- stderr
        Error: [STORE]/_no-cwd/rev-0001/inbox.jsonl: refusing to follow a symbolic link
        --- exit: 3
    "#);
    assert_eq!(std::fs::read(&victim).unwrap(), b"");
    // An inbox that is a directory is a clear error too.
    std::fs::create_dir(store.path().join("_no-cwd/chk-0001/inbox.jsonl")).unwrap();
    assert_at!(store.path(), &["followup", "chk-0001", "x"], @r#"
        $ dsh-agents followup chk-0001 x
        --- stderr
        Error: [STORE]/_no-cwd/chk-0001/inbox.jsonl: is a directory, not a file
        --- exit: 3
    "#);
}

#[test]
fn the_scan_cache_follows_a_growing_log() {
    let store = team();
    let s = store.path().to_str().unwrap();
    let dir = store.path().join("_no-cwd/rev-0001");
    let send = || {
        run([
            "--store",
            s,
            "send-message",
            "reviewer",
            "x",
            "--as",
            "lead-1",
        ])
    };
    assert_eq!(send().code, 0);
    assert!(
        dir.join("scan.cache").is_file(),
        "a send leaves a scan cache"
    );
    // DSH appends a later descriptor: the last one wins, read from the cache on.
    let log = dir.join("session.jsonl");
    let mut text = std::fs::read_to_string(&log).unwrap();
    let next_seq = text.lines().count() - 1;
    text.push_str(&format!(
        "{{\"type\":\"subagent/descriptor\",\"seq\":{next_seq},\"time\":5,\"data\":{{\"version\":2,\"mode\":\"one-shot\",\"provider\":\"spawn\"}}}}\n"
    ));
    let mut f = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
    std::io::Write::write_all(&mut f, text.lines().last().unwrap().as_bytes()).unwrap();
    std::io::Write::write_all(&mut f, b"\n").unwrap();
    drop(f);
    let send_args = ["send-message", "reviewer", "x", "--as", "lead-1"];
    let refused = assert_at!(store.path(), &send_args, @r#"
        $ dsh-agents send-message reviewer x --as lead-1
        --- stderr
        Error: agent "reviewer" is a one-shot subagent and cannot receive messages; the message was not delivered
        --- exit: 1
    "#);
    // A cache that lies about the file is never trusted over the log.
    std::fs::write(dir.join("scan.cache"), r#"{"dev":0,"ino":0,"offset":0}"#).unwrap();
    let again = crate::common::run_in(store.path(), &send_args);
    assert_eq!(again.blob(&send_args), refused.blob(&send_args));
}

#[test]
fn a_replace_after_a_cached_scan_is_checked_against_the_whole_log() {
    let store = team();
    let s = store.path().to_str().unwrap();
    let send = || {
        run([
            "--store",
            s,
            "send-message",
            "reviewer",
            "x",
            "--as",
            "lead-1",
        ])
    };
    assert_eq!(send().code, 0);
    let log = store.path().join("_no-cwd/rev-0001/session.jsonl");
    let append = |line: String| {
        let mut f = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
        std::io::Write::write_all(&mut f, format!("{line}\n").as_bytes()).unwrap();
    };
    let next = || std::fs::read_to_string(&log).unwrap().lines().count() - 1;
    // A valid replace of the prompt message (seq 3) keeps the agent readable.
    let seq = next();
    append(format!(
        r#"{{"type":"user/message","seq":{seq},"time":9,"data":{{"content":[{{"type":"text","text":"compacted"}}],"source":{{"kind":"user"}},"role":"user","id":"c1"}},"surfaceOp":{{"op":"replace","start":3,"end":3}},"sourceEventSeqs":[3]}}"#
    ));
    let r = send();
    assert_eq!(r.code, 0, "{}", r.stderr);
    // A replace of a range that is not on the surface makes the log unreadable.
    let seq = next();
    append(format!(
        r#"{{"type":"user/message","seq":{seq},"time":9,"data":{{"content":[],"source":{{"kind":"user"}},"role":"user","id":"c2"}},"surfaceOp":{{"op":"replace","start":3,"end":3}},"sourceEventSeqs":[3]}}"#
    ));
    append(
        r#"{"type":"turn/start","seq":SEQ,"time":9,"data":{"turn":2}}"#
            .replace("SEQ", &next().to_string()),
    );
    append(
        r#"{"type":"turn/end","seq":SEQ,"time":9,"data":{"turn":2,"reason":{"kind":"completed"}}}"#
            .replace("SEQ", &next().to_string()),
    );
    let r = send();
    assert_eq!(r.code, 1);
    assert!(
        r.stderr
            .contains("has unavailable history: its session log cannot be read"),
        "{}",
        r.stderr
    );
}
