//! The bridge's protocol driven directly, as the plugin would and as a
//! hostile peer might: a claim waits for the agent's log, a message in
//! flight cannot be canceled, requests name nothing outside the store and
//! only what the bridge emitted, and a bad line changes nothing.

use crate::common::{TempDir, copy_store, repo, run_dir, run_in};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

/// A running `dsh-agents bridge`, killed when dropped.
struct Bridge {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<Value>,
    seen: Vec<Value>,
}

impl Drop for Bridge {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Bridge {
    fn start(store: &Path) -> Bridge {
        Bridge::start_with(store, &[])
    }

    fn start_with(store: &Path, args: &[&str]) -> Bridge {
        let mut child = Command::new(assert_cmd::cargo::cargo_bin!("dsh-agents"))
            .args(["--store", store.to_str().unwrap()])
            .args(args)
            .arg("bridge")
            .env("DSH_AGENTS_CACHE_DIR", run_dir("dsh-agents-test-cache-"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if tx.send(serde_json::from_str(&line).unwrap()).is_err() {
                    return;
                }
            }
        });
        let mut b = Bridge {
            child,
            stdin,
            lines,
            seen: Vec::new(),
        };
        b.expect("ready", |v| v["event"] == "ready");
        b
    }

    /// A bridge that holds `agent` as resident in DSH (request 1).
    fn holding(store: &Path, agent: &str) -> Bridge {
        let mut b = Bridge::start(store);
        let r = b.request(json!({"op":"created","agent":agent,"status":"idle"}), 1);
        assert_eq!(r["ok"], true, "{r}");
        b
    }

    fn send_raw(&mut self, line: &str) {
        self.stdin.write_all(line.as_bytes()).unwrap();
        self.stdin.write_all(b"\n").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Send a request and return its reply.
    fn request(&mut self, mut req: Value, n: u64) -> Value {
        req["req"] = json!(n);
        self.send_raw(&req.to_string());
        self.expect(&format!("the reply to {req}"), |v| v["reply"] == n)
    }

    /// The next line (seen before or arriving) that `pred` accepts.
    fn expect(&mut self, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.seen.iter().position(&pred) {
            return self.seen.remove(i);
        }
        loop {
            // A bound for a hung bridge, not a timing claim.
            match self.lines.recv_timeout(Duration::from_secs(60)) {
                Ok(v) if pred(&v) => return v,
                Ok(v) => self.seen.push(v),
                Err(_) => panic!("the bridge never sent {what}; it sent {:?}", self.seen),
            }
        }
    }
}

fn team() -> (TempDir, PathBuf) {
    let store = copy_store(&repo().join("testdata/stores/team"), "bridge");
    let dir = store.path().join("_no-cwd/rev-0001");
    (store, dir)
}

/// A keyed followup to rev-0001, which must be acknowledged.
fn followup(store: &Path, id: &str, text: &str) {
    let r = run_in(store, &["followup", "--id", id, "rev-0001", text]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

fn inbox(store: &Path, agent: &str) -> Value {
    let r = run_in(store, &["--json", "inbox", agent]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    serde_json::from_str(&r.stdout).unwrap()
}

fn pending_ids(store: &Path, agent: &str) -> Vec<String> {
    let v = inbox(store, agent);
    ["nextStep", "nextTurn"]
        .iter()
        .flat_map(|k| v[k].as_array().unwrap().clone())
        .map(|m| m["id"].as_str().unwrap().to_string())
        .collect()
}

/// Append events to a raw log with the next seqs, as DSH would.
fn append_events(log: &Path, events: &[Value]) {
    let text = std::fs::read_to_string(log).unwrap();
    let first = text.lines().count() as u64 - 1;
    let mut f = std::fs::OpenOptions::new().append(true).open(log).unwrap();
    for (seq, e) in (first..).zip(events) {
        let mut e = e.clone();
        e["seq"] = json!(seq);
        e["time"] = json!(2000 + seq);
        writeln!(f, "{e}").unwrap();
    }
}

fn user_message(id: &str, text: &str) -> Value {
    json!({"type":"user/message","data":{"content":[{"type":"text","text":text}],"source":{"kind":"user"},"role":"user","id":id},"surfaceOp":"append"})
}

fn wait_for(what: &str, mut f: impl FnMut() -> bool) {
    // A bound for a broken build, not a timing claim.
    for _ in 0..3000 {
        if f() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("timed out waiting for {what}");
}

#[test]
fn a_claim_waits_for_the_agents_log_and_a_lost_hand_off_is_handed_again() {
    let (store, dir) = team();
    let s = store.path();
    followup(s, "m-one", "first");
    followup(s, "m-two", "second");

    let mut b = Bridge::holding(s, "rev-0001");
    // FIFO: the oldest next-turn message is emitted; DSH queues the rest as
    // they come, so the second follows once the first is in flight.
    let d1 = b.expect("the first delivery", |v| v["event"] == "deliver");
    assert_eq!(d1["message"]["id"], "m-one");
    let d2 = b.expect("the second delivery", |v| v["event"] == "deliver");
    assert_eq!(d2["message"]["id"], "m-two");
    assert_eq!(inbox(s, "rev-0001")["handing"], json!(["m-one", "m-two"]));

    // DSH accepted both; neither is claimed before the log has it.
    for (n, id) in [(2, "m-one"), (3, "m-two")] {
        let r = b.request(json!({"op":"delivered","agent":"rev-0001","message":id}), n);
        assert_eq!(r["ok"], true, "{r}");
    }
    assert_eq!(pending_ids(s, "rev-0001"), ["m-one", "m-two"]);
    // m-one reaches the transcript; m-two is taken into a turn and the
    // process dies before its user/message (rc.8 splices it out).
    let log = dir.join("session.jsonl");
    append_events(
        &log,
        &[
            json!({"type":"turn/start","data":{"turn":2}}),
            json!({"type":"agent/inbox/spliced","data":{"target":"next-turn","start":0,"inserted":[{"role":"user","id":"m-two","content":[],"source":{"kind":"user"}}]}}),
            json!({"type":"agent/inbox/spliced","data":{"target":"next-turn","start":0,"removedCount":1,"inserted":[]}}),
            user_message("m-one", "first"),
        ],
    );
    wait_for("the claim of m-one", || {
        pending_ids(s, "rev-0001") == ["m-two"]
    });
    assert_eq!(inbox(s, "rev-0001")["handing"], json!(["m-two"]));

    // The DSH process dies: the bridge sees stdin close and lets go.
    drop(b);
    assert_eq!(pending_ids(s, "rev-0001"), ["m-two"]);
    // A new process: m-two, found nowhere the model will see it, is handed again.
    let mut b = Bridge::holding(s, "rev-0001");
    let again = b.expect("m-two handed again", |v| v["event"] == "deliver");
    assert_eq!(again["message"]["id"], "m-two");
    assert_eq!(
        again["message"]["content"],
        json!([{"type":"text","text":"second"}])
    );
}

#[test]
fn a_message_pending_in_dshs_own_inbox_is_not_handed_twice() {
    let (store, dir) = team();
    let s = store.path();
    followup(s, "m-queued", "queued");
    append_events(
        &dir.join("session.jsonl"),
        &[
            json!({"type":"agent/inbox/spliced","data":{"target":"next-turn","start":0,"inserted":[{"role":"user","id":"m-queued","content":[{"type":"text","text":"queued"}],"source":{"kind":"user"}}]}}),
        ],
    );
    let mut b = Bridge::holding(s, "rev-0001");
    wait_for("m-queued listed as being delivered", || {
        inbox(s, "rev-0001")["handing"] == json!(["m-queued"])
    });
    // A later message goes on, and the queued one was never emitted.
    followup(s, "m-later", "later");
    let d = b.expect("the later delivery", |v| v["event"] == "deliver");
    assert_eq!(d["message"]["id"], "m-later");
    assert!(
        !b.seen.iter().any(|v| v["message"]["id"] == "m-queued"),
        "{:?}",
        b.seen
    );
}

#[test]
fn a_message_in_flight_cannot_be_canceled() {
    let (store, _dir) = team();
    let s = store.path();
    followup(s, "m-race", "racing");
    let mut b = Bridge::holding(s, "rev-0001");
    b.expect("the delivery", |v| v["event"] == "deliver");
    let r = run_in(s, &["cancel", "--to", "rev-0001", "m-race"]);
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert!(r.stderr.contains("already being delivered"), "{}", r.stderr);
    assert_eq!(pending_ids(s, "rev-0001"), ["m-race"]);
    // DSH lets the agent go without having taken it: cancel works again.
    let released = b.request(json!({"op":"release","agent":"rev-0001"}), 2);
    assert_eq!(released["ok"], true);
    let r = run_in(s, &["cancel", "--to", "rev-0001", "m-race"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(pending_ids(s, "rev-0001").is_empty());
}

#[test]
fn hostile_protocol_lines_change_nothing() {
    let (store, dir) = team();
    let s = store.path();
    let outside = crate::common::temp_dir("bridge-outside");
    followup(s, "m-keep", "keep me");
    let mut b = Bridge::start(s);
    let cases = [
        // A directory of the peer's choosing is not a field the bridge takes.
        json!({"op":"hold","agent":"rev-0001","dir":outside.path()}),
        json!({"op":"created","agent":"","status":"idle"}),
        json!({"op":"hold","agent":7}),
        // Claims only for what this bridge emitted to that agent.
        json!({"op":"delivered","agent":"rev-0001","message":"m-keep"}),
        json!({"op":"failed","agent":"lead-1","message":"m-keep","error":"x"}),
        json!({"op":"launch","agent":"rev-0001"}),
    ];
    for (n, case) in cases.into_iter().enumerate() {
        let r = b.request(case.clone(), n as u64 + 1);
        assert_eq!(r["ok"], false, "{case} was accepted: {r}");
    }
    b.send_raw(&format!(
        "{{\"op\":\"hold\",\"agent\":\"{}\"}}",
        "x".repeat(100_000)
    ));
    let r = b.expect("the refusal of a long line", |v| v["reply"].is_null());
    assert!(r["error"].as_str().unwrap().contains("at most"), "{r}");
    b.send_raw("not json");
    b.expect("the refusal of a bad line", |v| v["reply"].is_null());
    // A path-like id is only a name: it is looked for inside the store, and
    // nothing is made for it.
    let r = b.request(json!({"op":"hold","agent":"../../etc"}), 50);
    assert_eq!(r["ok"], true, "{r}");
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
    let before = crate::common::snapshot(s);
    assert!(
        !dir.join("live.json").exists(),
        "a refused hold holds nothing"
    );
    assert!(before == crate::common::snapshot(s), "the store changed");
    assert_eq!(pending_ids(s, "rev-0001"), ["m-keep"]);
    // Still serving: a real agent is held and its message emitted.
    let ok = b.request(
        json!({"op":"created","agent":"rev-0001","status":"idle"}),
        99,
    );
    assert_eq!(ok["ok"], true, "{ok}");
    let d = b.expect("the delivery", |v| v["event"] == "deliver");
    assert_eq!(d["message"]["id"], "m-keep");
}

#[test]
fn the_bridge_starts_on_a_store_that_does_not_exist_yet() {
    let base = crate::common::temp_dir("bridge-fresh");
    let s = base.path().join("sessions");
    let mut b = Bridge::start(&s);
    // DSH creates a root: its directory appears only on its first write.
    let r = b.request(
        json!({"op":"created","agent":"fresh-root","status":"running"}),
        1,
    );
    assert_eq!(r["ok"], true, "{r}");
    assert!(!s.exists(), "the bridge created the store");
    let dir = s.join("_no-cwd/fresh-root");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("session.jsonl"),
        json!({"type":"session","version":0,"id":"fresh-root","createdAt":1,"delegationDepth":0})
            .to_string()
            + "\n",
    )
    .unwrap();
    wait_for("the bridge to hold the new root", || {
        run_in(&s, &["--json", "tree", "--all"])
            .stdout
            .contains("\"running\"")
    });
    let serve = run_in(&s, &["serve", "--as", "fresh-root", "--once", "--", "true"]);
    assert_eq!(serve.code, 3, "{}", serve.stderr);
    assert!(serve.stderr.contains("already live"), "{}", serve.stderr);
}

#[test]
fn the_inbox_view_writes_nothing_into_the_store() {
    let store = copy_store(&repo().join("testdata/stores/rc8-inbox"), "inbox-ro");
    let s = store.path();
    for (f, _) in crate::common::snapshot(s) {
        if f.ends_with("scan.cache") {
            std::fs::remove_file(f).unwrap();
        }
    }
    let before = crate::common::snapshot(s);
    let tree = run_in(s, &["--json", "tree", "--all"]);
    let v: Value = serde_json::from_str(&tree.stdout).unwrap();
    for t in v.as_array().unwrap() {
        for m in t["members"].as_array().unwrap() {
            let id = m["id"].as_str().unwrap();
            for args in [vec!["inbox", id], vec!["--json", "inbox", id]] {
                let r = run_in(s, &args);
                assert_eq!(r.code, 0, "{}", r.stderr);
            }
        }
    }
    assert!(
        before == crate::common::snapshot(s),
        "inbox wrote into the store"
    );
}

#[test]
fn a_root_log_dsh_cannot_reopen_is_a_problem_in_tree() {
    // Two writers (a second DSH without the plugin) leave duplicate seqs.
    let store = copy_store(&repo().join("testdata/stores/team"), "dup-seq");
    let s = store.path();
    let log = s.join("_no-cwd/lead-1/session.jsonl");
    let text = std::fs::read_to_string(&log).unwrap();
    let last = text.lines().last().unwrap().to_string();
    std::fs::write(&log, format!("{text}{last}\n")).unwrap();
    for args in [vec!["tree", "--all"], vec!["tree", "--all", "--problems"]] {
        let r = run_in(s, &args);
        let lead = r
            .stdout
            .lines()
            .find(|l| l.starts_with("lead "))
            .unwrap_or("");
        assert!(lead.contains("unavailable"), "{args:?}: {}", r.stdout);
    }
    let r = run_in(s, &["list-agents", "--as", "lead-1"]);
    assert!(
        r.stdout.starts_with("lead [unavailable] — root agent\n"),
        "{}",
        r.stdout
    );
    let r = run_in(s, &["check"]);
    assert_eq!(r.code, 3, "{}", r.stdout);
    assert!(r.stdout.contains("seq gap"), "{}", r.stdout);
}

#[test]
fn an_unnamed_grandchild_is_addressed_by_the_path_of_ids() {
    let store = crate::common::StoreBuilder::new("id-path")
        .root("top")
        .child("kid-x", 2, "top", "middle")
        .session(
            "grand-y",
            &[
                json!({"type":"session","version":0,"id":"grand-y","createdAt":3,"parentSession":"kid-x","origin":"subagent","delegationDepth":2}),
                crate::common::fixture::descriptor(0, "deep"),
            ],
        )
        .build();
    let s = store.path();
    for env in [None, Some("1")] {
        let mut c = crate::common::cmd();
        if let Some(v) = env {
            c.env("DSH_AGENTS_FULL_SCAN", v);
        }
        let out = c
            .args([
                "--store",
                s.to_str().unwrap(),
                "send-message",
                "--as",
                "top",
                "kid-x/grand-y",
                "hello",
            ])
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // A path of ids that is not a path in the tree is still refused.
        let out = crate::common::cmd()
            .args([
                "--store",
                s.to_str().unwrap(),
                "send-message",
                "--as",
                "top",
                "grand-y/kid-x",
                "x",
            ])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
    }
    assert_eq!(pending_ids(s, "grand-y").len(), 2);
    // Every command that takes an agent takes the names `tree` shows.
    for args in [
        vec!["log", "kid-x/grand-y"],
        vec!["inbox", "kid-x/grand-y"],
        vec!["log", "lead"],
    ] {
        let r = run_in(s, &args);
        assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
    }
    let r = run_in(s, &["--json", "inbox", "kid-x/grand-y"]);
    assert_eq!(
        serde_json::from_str::<Value>(&r.stdout).unwrap()["nextTurn"]
            .as_array()
            .map(Vec::len),
        Some(2)
    );
    let r = run_in(
        &repo().join("testdata/stores/rc8-cli"),
        &["log", "lead", "--last", "1"],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("· lead · root"), "{}", r.stdout);
}

#[test]
fn a_lock_timeout_is_ridden_out() {
    let (store, dir) = team();
    let s = store.path();
    followup(s, "m-late", "late");
    // Another writer keeps the inbox locked longer than the bridge waits.
    let lock = std::fs::File::open(dir.join("inbox.lock")).unwrap();
    lock.try_lock().unwrap();
    let mut b = Bridge::start_with(s, &["--lock-timeout", "0.1"]);
    let r = b.request(
        json!({"op":"created","agent":"rev-0001","status":"idle"}),
        1,
    );
    assert_eq!(r["ok"], true, "{r}");
    // Several timed-out attempts later the bridge still answers, holding the agent.
    for n in 2..5 {
        std::thread::sleep(Duration::from_millis(300));
        let r = b.request(
            json!({"op":"delivered","agent":"rev-0001","message":"m-late"}),
            n,
        );
        assert_eq!(r["ok"], false, "nothing was emitted: {r}");
    }
    assert!(
        !b.seen.iter().any(|v| v["event"] == "deliver"),
        "{:?}",
        b.seen
    );
    let serve = run_in(s, &["serve", "--as", "rev-0001", "--once", "--", "true"]);
    assert_eq!(serve.code, 3, "{}", serve.stderr);
    drop(lock);
    let d = b.expect("the delivery once the lock is free", |v| {
        v["event"] == "deliver"
    });
    assert_eq!(d["message"]["id"], "m-late");
}

#[test]
fn an_agent_whose_bridge_died_is_held_by_its_dsh_process_in_every_view() {
    let (store, dir) = team();
    let s = store.path();
    let mut b = Bridge::holding(s, "rev-0001");
    wait_for("live.json", || dir.join("live.json").exists());
    // The bridge dies; its DSH process (this test) goes on.
    let _ = b.child.kill();
    let _ = b.child.wait();
    let r = run_in(s, &["check"]);
    assert_eq!(r.code, 3, "{}", r.stdout);
    let me = std::process::id();
    assert!(
        r.stdout
            .contains(&format!("resident in DSH pid {me} without a bridge")),
        "{}",
        r.stdout
    );
    let tree = run_in(s, &["tree", "--all"]).stdout;
    let row = tree.lines().find(|l| l.contains("reviewer")).unwrap_or("");
    assert!(row.contains("unknown"), "{tree}");
    let serve = run_in(s, &["serve", "--as", "rev-0001", "--once", "--", "true"]);
    assert_eq!(serve.code, 3, "{}", serve.stderr);
    assert!(
        serve.stderr.contains(&format!("pid {me}")),
        "{}",
        serve.stderr
    );
    // A new bridge of the same DSH process takes the agent back.
    let _held = Bridge::holding(s, "rev-0001");
    let r = run_in(s, &["check"]);
    assert!(!r.stdout.contains("without a bridge"), "{}", r.stdout);
}

#[test]
fn a_cold_child_is_reached_through_its_resident_parent_and_let_go_once_delivered() {
    let (store, dir) = team();
    let s = store.path();
    followup(s, "m-cold", "cold");
    let mut b = Bridge::holding(s, "lead-1");
    let d = b.expect("the delivery through the parent", |v| {
        v["event"] == "deliver"
    });
    assert_eq!(
        (d["agent"].as_str(), d["via"].as_str()),
        (Some("rev-0001"), Some("lead-1"))
    );
    assert_eq!(d["target"], "next-turn");
    assert_eq!(d["message"]["source"]["dshAgentsMessageId"], "m-cold");
    // Held while the delivery is under way: nothing else may take it.
    assert!(dir.join("live.json").exists());
    let r = b.request(
        json!({"op":"delivered","agent":"rev-0001","message":"m-cold"}),
        2,
    );
    assert_eq!(r["ok"], true, "{r}");
    // rc.8 ran it under a new id, carrying ours in its source.
    append_events(
        &dir.join("session.jsonl"),
        &[
            json!({"type":"turn/start","data":{"turn":2}}),
            json!({"type":"user/message","data":{"content":[{"type":"text","text":"cold"}],"source":{"kind":"user","dshAgentsMessageId":"m-cold"},"role":"user","id":"rc8-new-id"},"surfaceOp":"append"}),
            json!({"type":"turn/end","data":{"turn":2,"reason":{"kind":"completed"}}}),
        ],
    );
    wait_for("the claim, and the child let go", || {
        pending_ids(s, "rev-0001").is_empty() && !dir.join("live.json").exists()
    });
    let serve = run_in(
        s,
        &[
            "serve", "--as", "rev-0001", "--once", "--quiet", "--", "true",
        ],
    );
    assert_eq!(serve.code, 0, "{}", serve.stderr);
}

/// The number of events in a raw log: the seq the next one gets.
fn next_seq(log: &Path) -> u64 {
    std::fs::read_to_string(log).unwrap().lines().count() as u64 - 1
}

fn insert(ids: &[&str]) -> Value {
    let items: Vec<Value> = ids
        .iter()
        .map(|id| json!({"role":"user","id":id,"content":[{"type":"text","text":id}],"source":{"kind":"user"}}))
        .collect();
    json!({"type":"agent/inbox/spliced","data":{"target":"next-turn","start":0,"inserted":items}})
}

fn take_first() -> Value {
    json!({"type":"agent/inbox/spliced","data":{"target":"next-turn","start":0,"removedCount":1,"inserted":[]}})
}

#[test]
fn a_bridge_started_again_says_what_the_log_proves_of_each_hand_off() {
    // rc.8 claims a message into a step (a removal splice) some events
    // before it writes the `user/message`. A bridge started again inside
    // that window must not take "not in the transcript" for "lost": it hands
    // a taken message plainly (the plugin of the process that took it
    // answers from its record), and marks only a proven drop as new.
    let (store, dir) = team();
    let s = store.path();
    followup(s, "m-dropped", "dropped");
    followup(s, "m-taken", "taken");
    let log = dir.join("session.jsonl");
    let first = next_seq(&log);
    append_events(
        &log,
        &[
            json!({"type":"turn/start","data":{"turn":2}}),
            insert(&["m-dropped", "m-taken"]),
            // seq first+2: m-dropped claimed; its turn ends without it.
            take_first(),
            json!({"type":"turn/end","data":{"turn":2,"reason":{"kind":"aborted","reason":{"kind":"user"}}}}),
            json!({"type":"turn/start","data":{"turn":3}}),
            // seq first+5: m-taken claimed, its step not started yet.
            take_first(),
        ],
    );
    let mut b = Bridge::holding(s, "rev-0001");
    let dropped = b.expect("m-dropped handed", |v| {
        v["event"] == "deliver" && v["message"]["id"] == "m-dropped"
    });
    assert_eq!(dropped["again"], json!({"drop": first + 2}));
    let taken = b.expect("m-taken handed", |v| {
        v["event"] == "deliver" && v["message"]["id"] == "m-taken"
    });
    assert_eq!(taken["again"], Value::Null);
    // The process that took m-taken writes it: claimed, never handed again.
    for (n, id) in [(2, "m-dropped"), (3, "m-taken")] {
        let r = b.request(json!({"op":"delivered","agent":"rev-0001","message":id}), n);
        assert_eq!(r["ok"], true, "{r}");
    }
    append_events(
        &log,
        &[
            json!({"type":"step/start","data":{"turn":3,"step":1}}),
            user_message("m-taken", "taken"),
        ],
    );
    wait_for("the claim of m-taken", || {
        pending_ids(s, "rev-0001") == ["m-dropped"]
    });
    // A cancel of a message taken into a step is refused: DSH may run it.
    followup(s, "m-late", "late");
    append_events(&log, &[insert(&["m-late"]), take_first()]);
    let r = run_in(s, &["cancel", "m-late", "--to", "rev-0001"]);
    assert_eq!(r.code, 2, "{}", r.stdout);
}

#[test]
fn a_cold_child_whose_copy_waits_in_dshs_inbox_is_resumed_through_its_parent_once() {
    // A DSH process queued a message in a cold child's own inbox and died
    // before running it. Only a hand-off through the parent resumes the
    // child, and a hand-off adds a copy: the queued copy is canceled in the
    // child's log first (the bridge holds the child: no DSH process does),
    // then the message goes through the parent once.
    let (store, dir) = team();
    let s = store.path();
    followup(s, "m-stuck", "stuck");
    let log = dir.join("session.jsonl");
    append_events(
        &log,
        &[
            json!({"type":"turn/start","data":{"turn":2}}),
            json!({"type":"agent/inbox/spliced","data":{"target":"next-turn","start":0,"inserted":[{"role":"user","id":"rc8-copy","content":[{"type":"text","text":"stuck"}],"source":{"kind":"user","dshAgentsMessageId":"m-stuck"}}]}}),
        ],
    );
    let cancel_at = next_seq(&log) + 1;
    let mut b = Bridge::holding(s, "lead-1");
    let d = b.expect("the delivery through the parent", |v| {
        v["event"] == "deliver"
    });
    assert_eq!(
        (d["agent"].as_str(), d["via"].as_str()),
        (Some("rev-0001"), Some("lead-1"))
    );
    assert_eq!(d["message"]["id"], "m-stuck");
    // The crashed turn closed as rc.8's repair closes it, then the cancel.
    assert_eq!(d["again"], json!({"drop": cancel_at}));
    let text = std::fs::read_to_string(&log).unwrap();
    let tail: Vec<Value> = text
        .lines()
        .rev()
        .take(2)
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(tail[1]["type"], "turn/end", "{text}");
    assert_eq!(tail[1]["data"]["reason"]["kind"], "interrupted");
    assert_eq!(
        tail[0]["data"],
        json!({"target":"next-turn","start":0,"removedCount":1,"inserted":[],"outcome":"canceled"})
    );
    assert_eq!(tail[0]["seq"], cancel_at);
    let r = run_in(s, &["--json", "inbox", "rev-0001"]);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["dsh"]["nextTurn"], json!([]), "{v}");
    // The team store has problems of its own; none is the child's.
    let r = run_in(s, &["check"]);
    assert!(!r.stdout.contains("rev-0001"), "{}", r.stdout);
}

#[test]
fn check_reports_an_acknowledged_message_that_ran_in_two_completed_turns() {
    let (store, dir) = team();
    let s = store.path();
    followup(s, "m-once", "once");
    followup(s, "m-twice", "twice");
    let turn = |n: u64, id: &str| {
        [
            json!({"type":"turn/start","data":{"turn":n}}),
            user_message(id, id),
            json!({"type":"turn/end","data":{"turn":n,"reason":{"kind":"completed"}}}),
        ]
    };
    let log = dir.join("session.jsonl");
    let before = run_in(s, &["--json", "check"]);
    append_events(
        &log,
        &[turn(2, "m-once"), turn(3, "m-twice"), turn(4, "m-twice")].concat(),
    );
    let r = run_in(s, &["--json", "check"]);
    assert_ne!(r.code, 0);
    let findings: Value = serde_json::from_str(&r.stdout).unwrap();
    let twice: Vec<&Value> = findings
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "delivered-twice")
        .collect();
    assert_eq!(twice.len(), 1, "{}\nbefore: {}", r.stdout, before.stdout);
    assert!(
        twice[0]["message"].as_str().unwrap().ends_with(": m-twice"),
        "{}",
        r.stdout
    );
}

#[test]
fn check_reports_a_message_stranded_in_dshs_inbox_of_an_agent_nothing_will_resume() {
    let (store, dir) = team();
    let s = store.path();
    followup(s, "m-queued", "queued");
    append_events(
        &dir.join("session.jsonl"),
        &[
            json!({"type":"agent/inbox/spliced","data":{"target":"next-turn","start":0,"inserted":[{"role":"user","id":"rc8-copy","content":[{"type":"text","text":"queued"}],"source":{"kind":"user","dshAgentsMessageId":"m-queued"}}]}}),
        ],
    );
    let stranded = |s: &Path| {
        let r = run_in(s, &["--json", "check"]);
        let v: Value = serde_json::from_str(&r.stdout).unwrap();
        v.as_array()
            .unwrap()
            .iter()
            .filter(|f| f["code"] == "stranded-in-dsh-inbox")
            .count()
    };
    // Nobody holds the parent: the next DSH process with the plugin runs it.
    assert_eq!(stranded(s), 0);
    // `serve` holds the parent: it resumes no DSH child, so nothing will.
    let _serve = crate::common::reaped(
        Command::new(assert_cmd::cargo::cargo_bin!("dsh-agents"))
            .args([
                "--store",
                s.to_str().unwrap(),
                "serve",
                "--as",
                "lead-1",
                "--",
                "true",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    crate::common::wait_until_locked(&s.join("_no-cwd/lead-1/live.lock"));
    assert_eq!(stranded(s), 1);
}
