//! Resident agents end to end: `serve` runs small shell handlers, messages
//! wake them, steers are claimed at the next step, interrupts stop a turn
//! and park the queue, and `list-agents` shows the statuses throughout.

use crate::common::{TempDir, copy_store, repo, run};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const HANDLER: &str = r#"#!/bin/sh
echo $$ >> "$HANDLER_LOG.pids"
input=$(cat)
texts=$(printf '%s' "$input" | tr -d '\n' | sed 's/"text":"/\n/g' | sed -n '2,$p' | sed 's/".*//' | tr '\n' '|')
echo "$DSH_AGENT $DSH_TURN $texts" >> "$HANDLER_LOG"
case "$input" in
  *nap*) sleep 1 ;;
  *sleep*) sleep 30; echo "woke from sleep" >> "$HANDLER_LOG" ;;
esac
"#;

/// A `serve` the test started, and the handler log its turns write: when
/// it drops, the server is killed and so is every handler it started
/// (each leads its own process group), also those of a server the test
/// killed mid-turn on purpose.
struct Served(Child, PathBuf);

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
        kill_handlers(&self.1);
    }
}

/// Kill the process group of every handler that logged to `log`.
fn kill_handlers(log: &Path) {
    let pids = std::fs::read_to_string(log.with_extension("log.pids")).unwrap_or_default();
    for pid in pids
        .lines()
        .filter(|p| p.bytes().all(|b| b.is_ascii_digit()) && !p.is_empty())
    {
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{pid}")])
            .stderr(Stdio::null())
            .status();
    }
}

fn serve(store: &Path, agent: &str, handler: &Path, log: &Path) -> Served {
    let child = Command::new(assert_cmd::cargo::cargo_bin!("dsh-agents"))
        .args([
            "--store",
            store.to_str().unwrap(),
            "serve",
            "--as",
            agent,
            "--grace-ms",
            "300",
            "--",
            handler.to_str().unwrap(),
        ])
        .env("HANDLER_LOG", log)
        .env_remove("DSH_AGENT")
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    Served(child, log.to_path_buf())
}

fn eventually(what: &str, mut f: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while Instant::now() < deadline {
        if f() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("timed out waiting for: {what}");
}

fn ok(store: &Path, args: &[&str]) -> String {
    let mut argv = vec!["--store", store.to_str().unwrap()];
    argv.extend_from_slice(args);
    let r = run(&argv);
    assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
    r.stdout
}

fn handler_lines(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

fn log_events(store: &Path, dir: &str) -> Vec<Value> {
    std::fs::read_to_string(store.join("_no-cwd").join(dir).join("session.jsonl"))
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn setup(tag: &str) -> (TempDir, PathBuf, PathBuf) {
    let store = copy_store(&repo().join("testdata/stores/team"), tag);
    let handler = store.path().join("handler.sh");
    std::fs::write(&handler, HANDLER).unwrap();
    std::fs::set_permissions(
        &handler,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let log = store.path().join("handler.log");
    (store, handler, log)
}

#[test]
fn a_served_team_works_end_to_end() {
    let (store, handler, log) = setup("e2e");
    let s = store.path();
    let _reviewer = serve(s, "rev-0001", &handler, &log);
    let _checker = serve(s, "chk-0001", &handler, &log);
    eventually("both agents live", || {
        let out = ok(s, &["list-agents", "--as", "lead-1"]);
        out.contains("reviewer [running]") && out.contains("reviewer/checker [running]")
    });
    assert!(
        ok(s, &["--contract", "v1", "list-agents", "--as", "lead-1"]).contains("rev-0001 [idle]")
    );

    // A message to an idle agent runs one turn.
    assert_eq!(
        ok(
            s,
            &[
                "send-message",
                "reviewer/checker",
                "hello checker",
                "--as",
                "lead-1"
            ]
        ),
        "message delivered to agent reviewer/checker\n"
    );
    eventually("the checker's turn", || {
        handler_lines(&log)
            .iter()
            .any(|l| l.starts_with("chk-0001 2 ") && l.contains("hello checker"))
    });
    eventually("the checker's turn ends", || {
        log_events(s, "chk-0001")
            .last()
            .is_some_and(|e| e["type"] == "turn/end" && e["data"]["reason"]["kind"] == "completed")
    });
    let ev = log_events(s, "chk-0001");
    let tail: Vec<&str> = ev[ev.len() - 3..]
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    assert_eq!(tail, ["turn/start", "user/message", "turn/end"]);
    assert_eq!(
        ev[ev.len() - 2]["data"]["content"][1]["text"],
        "hello checker"
    );
    assert_eq!(
        handler_lines(&log)
            .iter()
            .filter(|l| l.starts_with("chk-0001"))
            .count(),
        1,
        "exactly one turn"
    );

    // A steer to a running agent is claimed at its next step.
    ok(
        s,
        &["send-message", "reviewer", "take a nap", "--as", "lead-1"],
    );
    eventually("reviewer running", || {
        ok(s, &["--contract", "v1", "list-agents", "--as", "lead-1"]).contains("rev-0001 [running]")
    });
    assert!(ok(s, &["list-agents", "--as", "lead-1"]).contains("reviewer [running]"));
    ok(
        s,
        &[
            "send-message",
            "reviewer",
            "steer while napping",
            "--as",
            "lead-1",
        ],
    );
    let inbox: Value = serde_json::from_str(&ok(s, &["--json", "inbox", "rev-0001"])).unwrap();
    assert_eq!(
        inbox["nextStep"].as_array().unwrap().len(),
        1,
        "a working target is steered"
    );
    eventually("the steer's turn", || {
        handler_lines(&log)
            .iter()
            .any(|l| l.contains("steer while napping"))
    });
    let lines = handler_lines(&log);
    let nap = lines.iter().position(|l| l.contains("take a nap")).unwrap();
    let steer = lines
        .iter()
        .position(|l| l.contains("steer while napping"))
        .unwrap();
    assert!(
        steer > nap,
        "claimed after the running turn, at the next step"
    );

    // interrupt_agent stops a sleeping handler; the queued message is parked.
    eventually("reviewer idle", || {
        ok(s, &["--contract", "v1", "list-agents", "--as", "lead-1"]).contains("rev-0001 [idle]")
    });
    ok(
        s,
        &["send-message", "reviewer", "go to sleep", "--as", "lead-1"],
    );
    eventually("sleeping", || {
        handler_lines(&log)
            .iter()
            .any(|l| l.contains("go to sleep"))
    });
    ok(s, &["followup", "rev-0001", "queued first"]);
    assert_eq!(
        ok(s, &["interrupt-agent", "reviewer", "--as", "lead-1"]),
        "interrupt requested for agent reviewer\n"
    );
    eventually("the turn ends interrupted", || {
        log_events(s, "rev-0001").last().is_some_and(|e| {
            e["type"] == "turn/end" && e["data"]["reason"]["kind"] == "interrupted"
        })
    });
    // Had serve waited for the handler, it would have woken first.
    assert!(
        !handler_lines(&log)
            .iter()
            .any(|l| l.contains("woke from sleep")),
        "the sleeping handler was stopped, not waited for"
    );
    assert!(
        ok(s, &["inbox", "rev-0001"]).contains("next-turn: 1 pending (parked by an interrupt)")
    );
    std::thread::sleep(Duration::from_millis(600));
    assert!(
        !handler_lines(&log)
            .iter()
            .any(|l| l.contains("queued first")),
        "a parked message does not run"
    );
    // The checker (a descendant of the reviewer) kept running.
    assert!(ok(s, &["list-agents", "--as", "lead-1"]).contains("reviewer/checker [running]"));

    // A later message runs both, in FIFO order.
    ok(
        s,
        &[
            "send-message",
            "reviewer",
            "later message",
            "--as",
            "lead-1",
        ],
    );
    eventually("both ran", || {
        handler_lines(&log)
            .iter()
            .any(|l| l.contains("later message"))
    });
    let lines = handler_lines(&log);
    let first = lines
        .iter()
        .position(|l| l.contains("queued first"))
        .expect("the parked message ran");
    let later = lines
        .iter()
        .position(|l| l.contains("later message"))
        .unwrap();
    assert!(first < later, "FIFO: {lines:?}");
}

#[test]
fn serve_holds_the_agent_exclusively_and_a_crash_releases_it() {
    let (store, handler, log) = setup("excl");
    let s = store.path();
    let mut first = serve(s, "rev-0001", &handler, &log);
    eventually("live", || {
        ok(s, &["list-agents", "--as", "lead-1"]).contains("reviewer [running]")
    });
    let r = run([
        "--store",
        s.to_str().unwrap(),
        "serve",
        "--as",
        "rev-0001",
        "--",
        "true",
    ]);
    assert_eq!(r.code, 3);
    assert!(
        r.stderr.contains(&format!("pid {}", first.0.id())),
        "{}",
        r.stderr
    );
    // Killed mid-turn: the lock dies with the process; the next server
    // closes the open turn as DSH's crash repair would.
    ok(s, &["followup", "rev-0001", "go to sleep"]);
    eventually("sleeping", || {
        handler_lines(&log)
            .iter()
            .any(|l| l.contains("go to sleep"))
    });
    first.0.kill().unwrap();
    first.0.wait().unwrap();
    assert!(ok(s, &["list-agents", "--as", "lead-1"]).contains("reviewer [inactive]"));
    assert_eq!(
        log_events(s, "rev-0001").last().unwrap()["type"],
        "user/message",
        "the turn was left open"
    );
    // DSH's crash-repair rules accept a log that ends inside a turn.
    assert!(
        ok(s, &["--contract", "v1", "list-agents", "--as", "lead-1"])
            .contains("rev-0001 [ready] — Review the diff")
    );
    assert!(
        !run(["--store", s.to_str().unwrap(), "check"])
            .stdout
            .contains("rev-0001/session.jsonl")
    );
    let r = run([
        "--store",
        s.to_str().unwrap(),
        "serve",
        "--as",
        "rev-0001",
        "--once",
        "--",
        "true",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    // The crashed turn is closed as interrupted, and its claimed input runs
    // again in a new turn.
    let ends: Vec<(String, String)> = log_events(s, "rev-0001")
        .iter()
        .filter(|e| e["type"] == "turn/end")
        .map(|e| {
            (
                e["data"]["turn"].to_string(),
                e["data"]["reason"]["kind"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let n = ends.len();
    assert_eq!(
        ends[n - 2..]
            .iter()
            .map(|e| e.1.as_str())
            .collect::<Vec<_>>(),
        ["interrupted", "completed"],
        "{ends:?}"
    );
    let reran = log_events(s, "rev-0001")
        .iter()
        .filter(|e| e["type"] == "user/message" && e["data"]["content"][0]["text"] == "go to sleep")
        .count();
    assert_eq!(reran, 2, "recorded in the crashed turn and in the rerun");
    // The repaired log still lists and reads cleanly.
    assert_eq!(
        run(["--store", s.to_str().unwrap(), "check"])
            .stdout
            .matches("rev-0001")
            .count(),
        0
    );
}

#[test]
fn interrupt_rules() {
    let (store, handler, log) = setup("intr");
    let s = store.path();
    let _reviewer = serve(s, "rev-0001", &handler, &log);
    eventually("live", || {
        ok(s, &["list-agents", "--as", "lead-1"]).contains("reviewer [running]")
    });
    let err = |args: &[&str]| {
        let mut argv = vec!["--store", s.to_str().unwrap()];
        argv.extend_from_slice(args);
        let r = run(&argv);
        assert_eq!(r.code, 1, "{args:?}: {}", r.stdout);
        r.stderr
    };
    assert_eq!(
        err(&["interrupt-agent", "lead", "--as", "lead-1"]),
        "Error: agent \"lead\" cannot interrupt itself\n"
    );
    assert_eq!(
        err(&["interrupt-agent", "reviewer", "--as", "anon-0001"]),
        "Error: agent \"reviewer\" is not a descendant of agent \"anon-0001\"\n"
    );
    assert_eq!(
        err(&["interrupt-agent", "lead", "--as", "rev-0001"]),
        "Error: agent \"lead\" is not a descendant of agent \"reviewer\"\n"
    );
    assert_eq!(
        err(&[
            "--contract",
            "v1",
            "interrupt-agent",
            "lead-1",
            "--as",
            "lead-1"
        ]),
        "Error: agent \"lead-1\" cannot interrupt itself\n"
    );
    assert_eq!(
        err(&[
            "--contract",
            "v1",
            "interrupt-agent",
            "rev-0001",
            "--as",
            "anon-0001"
        ]),
        "Error: subagent \"rev-0001\" is not a live descendant of agent \"anon-0001\"\n"
    );
    assert_eq!(
        err(&[
            "--contract",
            "v1",
            "call",
            "interrupt_agent",
            "{}",
            "--as",
            "lead-1"
        ]),
        "Error: invalid arguments: missing required property \"agent_id\"\n"
    );
    // Not live, or absent: an accepted no-op that writes nothing.
    let before = crate::common::snapshot_without_caches(s);
    assert_eq!(
        ok(
            s,
            &["interrupt-agent", "reviewer/checker", "--as", "lead-1"]
        ),
        "interrupt requested for agent reviewer/checker\n"
    );
    assert_eq!(
        ok(
            s,
            &[
                "--contract",
                "v1",
                "interrupt-agent",
                "anon-0001",
                "--as",
                "rev-0001"
            ]
        ),
        "interrupt requested for agent anon-0001\n"
    );
    // A v2 name that is no member is not an absent member: a typo is an
    // error, never an interrupt that reads as made.
    assert_eq!(
        err(&["interrupt-agent", "reviwer", "--as", "lead-1"]),
        "Error: no agent named \"reviwer\" in the caller's subagent tree, and no session with that id; nothing was interrupted\n"
    );
    // The id prefix `tree` shows for an unnamed member is accepted (idle:
    // an accepted no-op).
    assert_eq!(
        ok(s, &["interrupt-agent", "anon-000", "--as", "lead-1"]),
        "interrupt requested for agent anon-000\n"
    );
    // The operator is told when an interrupt reaches nobody (exit 1).
    assert_eq!(
        err(&["interrupt", "reviewer/checker"]),
        "Error: agent chk-0001 is not running: no DSH process or serve holds it, so there is no turn to stop; nothing was written\n"
    );
    assert!(
        before == crate::common::snapshot_without_caches(s),
        "no-ops write nothing but the scan cache"
    );
    // Deeper descendants may be interrupted by any ancestor (v1 ancestry at any depth).
    assert_eq!(
        ok(
            s,
            &[
                "--contract",
                "v1",
                "interrupt-agent",
                "rev-0001",
                "--as",
                "lead-1"
            ]
        ),
        "interrupt requested for agent rev-0001\n"
    );
    // An external execution stops for good: later messages are rejected.
    assert_eq!(
        ok(s, &["interrupt", "ext-0001"]),
        "interrupt requested for agent ext-0001\n"
    );
    let r = run([
        "--store",
        s.to_str().unwrap(),
        "followup",
        "ext-0001",
        "more",
    ]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("agent \"ext-0001\" cannot run a turn: it is an external execution"),
        "{}",
        r.stderr
    );
    assert!(s.join("_no-cwd/ext-0001/inbox.stopped").exists());
}

#[test]
fn wait_agent_semantics() {
    let store = copy_store(&repo().join("testdata/stores/team"), "wait");
    let s = store.path().to_str().unwrap().to_string();
    let wait = |extra: &[&str]| {
        let mut argv = vec![
            "--store",
            s.as_str(),
            "wait-agent",
            "--as",
            "rev-0001",
            "--timeout-ms",
            "10000",
        ];
        argv.extend_from_slice(extra);
        let start = Instant::now();
        let r = run(&argv);
        (r, start.elapsed())
    };
    ok(store.path(), &["steer", "rev-0001", "pending input"]);
    // Pending input returns at once: not timed out (the timeout is 10 s).
    let (r, _) = wait(&["--call", "c1"]);
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (0, "{\"timedOut\":false}\n"),
        "{}",
        r.stderr
    );
    // The same root call already reported it: the next wait blocks until new input.
    let s2 = s.clone();
    let waiter = std::thread::spawn(move || {
        let start = Instant::now();
        let r = run([
            "--store",
            s2.as_str(),
            "wait-agent",
            "--as",
            "rev-0001",
            "--timeout-ms",
            "10000",
            "--call",
            "c1",
        ]);
        (r, start.elapsed())
    });
    std::thread::sleep(Duration::from_millis(700));
    assert!(
        !waiter.is_finished(),
        "deduped within one call: still waiting"
    );
    ok(
        store.path(),
        &[
            "followup",
            "rev-0001",
            "next-turn input does not end a wait",
        ],
    );
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        !waiter.is_finished(),
        "next-turn input does not end the wait"
    );
    ok(store.path(), &["steer", "rev-0001", "new input"]);
    let (r, took) = waiter.join().unwrap();
    // Not timed out: the steer ended it.
    assert_eq!(r.stdout, "{\"timedOut\":false}\n", "{}", r.stderr);
    let _ = took;
    // A fresh root call sees pending input again; no call id never dedupes.
    assert_eq!(wait(&["--call", "c2"]).0.stdout, "{\"timedOut\":false}\n");
    assert_eq!(wait(&[]).0.stdout, "{\"timedOut\":false}\n");
    // `call wait_agent` reports under the root call `DSH_CALL_ID` names, as
    // `wait-agent --call` does: its wait record carries that call.
    let r = crate::common::run_env(
        [
            "--store",
            s.as_str(),
            "call",
            "wait_agent",
            r#"{"timeout_ms":10000}"#,
            "--as",
            "rev-0001",
        ],
        &[("DSH_CALL_ID", "c3")],
    );
    assert_eq!(r.stdout, "{\"timedOut\":false}\n", "{}", r.stderr);
    let inbox = std::fs::read_to_string(store.path().join("_no-cwd/rev-0001/inbox.jsonl")).unwrap();
    assert!(
        inbox
            .lines()
            .any(|l| l.contains("\"type\":\"wait\"") && l.contains("\"call\":\"c3\"")),
        "{inbox}"
    );
    // Nothing pending for this call: the timeout is a normal result.
    let (r, took) = wait(&["--call", "c2", "--poll"]);
    assert_eq!((r.code, r.stdout.as_str()), (0, "{\"timedOut\":true}\n"));
    assert!(took >= Duration::from_secs(10));
    // Argument validation; v1 has no wait_agent.
    let r = run([
        "--store",
        s.as_str(),
        "wait-agent",
        "--as",
        "rev-0001",
        "--timeout-ms",
        "5",
    ]);
    assert_eq!(r.code, 2, "a usage error on the command line: {}", r.stderr);
    assert!(r.stderr.contains("10000..=3600000"), "{}", r.stderr);
    // Through `call` it is the tool's own error, as the model sees it.
    let r = run([
        "--store",
        s.as_str(),
        "call",
        "wait_agent",
        r#"{"timeout_ms":5}"#,
        "--as",
        "rev-0001",
    ]);
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (
            1,
            "Error: invalid arguments: \"timeout_ms\" must be an integer from 10000 through 3600000\n"
        )
    );
    let r = run([
        "--store",
        s.as_str(),
        "call",
        "wait_agent",
        r#"{"timeout_ms":"soon"}"#,
        "--as",
        "rev-0001",
    ]);
    assert_eq!(
        r.stderr,
        "Error: invalid arguments: \"timeout_ms\" must be an integer\n"
    );
    let r = run([
        "--store",
        s.as_str(),
        "--contract",
        "v1",
        "wait-agent",
        "--as",
        "rev-0001",
    ]);
    assert_eq!(r.code, 2);
    // Waiting consumes nothing.
    let inbox: Value =
        serde_json::from_str(&ok(store.path(), &["--json", "inbox", "rev-0001"])).unwrap();
    assert_eq!(inbox["nextStep"].as_array().unwrap().len(), 2);
}

#[test]
fn ctrl_c_ends_a_wait_with_an_error() {
    let store = copy_store(&repo().join("testdata/stores/team"), "sigint");
    let child = crate::common::reaped(
        Command::new(assert_cmd::cargo::cargo_bin!("dsh-agents"))
            .args([
                "--store",
                store.path().to_str().unwrap(),
                "wait-agent",
                "--as",
                "rev-0001",
                "--timeout-ms",
                "60000",
            ])
            .env_remove("DSH_CALL_ID")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    std::thread::sleep(Duration::from_millis(400));
    crate::common::signal(child.id(), rustix::process::Signal::INT);
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(130),
        "128 + SIGINT, as shells expect"
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "Error: wait_agent was cancelled\n"
    );
    assert!(out.stdout.is_empty(), "not a timedOut result");
}

#[test]
fn ctrl_c_stops_serve_cleanly() {
    let (store, handler, log) = setup("ctrlc");
    let s = store.path();
    let mut served = serve(s, "rev-0001", &handler, &log);
    eventually("live", || {
        ok(s, &["list-agents", "--as", "lead-1"]).contains("reviewer [running]")
    });
    ok(s, &["followup", "rev-0001", "go to sleep"]);
    eventually("sleeping", || {
        handler_lines(&log)
            .iter()
            .any(|l| l.contains("go to sleep"))
    });
    crate::common::signal(served.0.id(), rustix::process::Signal::INT);
    let status = served.0.wait().unwrap();
    assert_eq!(status.code(), Some(130), "a clean stop, 128 + SIGINT");
    let last = log_events(s, "rev-0001").last().unwrap().clone();
    assert_eq!(
        last["data"]["reason"],
        serde_json::json!({"kind": "aborted", "reason": {"kind": "user"}})
    );
    assert!(
        !s.join("_no-cwd/rev-0001/live.json").exists(),
        "live.json removed"
    );
    assert!(ok(s, &["list-agents", "--as", "lead-1"]).contains("reviewer [inactive]"));
}

/// DSH keeps the whole inbox on an interrupt: input steered into a working
/// agent just before the interrupt runs nothing on its own; the next message
/// unparks, and its turn takes the parked input first.
#[test]
fn an_interrupt_parks_steered_input_until_the_next_message() {
    let (store, handler, log) = setup("park");
    let s = store.path();
    let _reviewer = serve(s, "rev-0001", &handler, &log);
    eventually("reviewer live", || {
        ok(s, &["--contract", "v1", "list-agents", "--as", "lead-1"]).contains("rev-0001 [idle]")
    });
    ok(s, &["followup", "rev-0001", "go to sleep"]);
    eventually("sleeping", || {
        handler_lines(&log)
            .iter()
            .any(|l| l.contains("go to sleep"))
    });
    ok(s, &["steer", "rev-0001", "steered while asleep"]);
    ok(s, &["interrupt", "rev-0001"]);
    eventually("the turn ends interrupted", || {
        log_events(s, "rev-0001").last().is_some_and(|e| {
            e["type"] == "turn/end" && e["data"]["reason"]["kind"] == "interrupted"
        })
    });
    std::thread::sleep(Duration::from_millis(800));
    assert!(
        !handler_lines(&log)
            .iter()
            .any(|l| l.contains("steered while asleep")),
        "parked input does not run on its own: {:?}",
        handler_lines(&log)
    );
    let inbox = ok(s, &["inbox", "rev-0001"]);
    assert!(
        inbox.starts_with("next-step: 1 pending\nnext-turn: 0 pending (parked by an interrupt)"),
        "{inbox}"
    );
    ok(s, &["followup", "rev-0001", "wake up"]);
    eventually("the unparked turn", || {
        handler_lines(&log).iter().any(|l| l.contains("wake up"))
    });
    let lines = handler_lines(&log);
    let turn = lines.iter().find(|l| l.contains("wake up")).unwrap();
    assert!(
        turn.ends_with(" steered while asleep|wake up"),
        "one turn, parked input first: {lines:?}"
    );
}

/// `serve` checks its handler before claiming anything, logs each turn on
/// stderr, and `--once` fails when a turn did not complete.
#[test]
fn serve_is_honest_about_its_turns() {
    let store = copy_store(&repo().join("testdata/stores/team"), "honest");
    let s = store.path();
    ok(s, &["followup", "rev-0001", "do it"]);
    let before = crate::common::snapshot(s);
    let r = run([
        "--store",
        s.to_str().unwrap(),
        "serve",
        "--as",
        "rev-0001",
        "--once",
        "--",
        "./no-such-handler",
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("the handler \"./no-such-handler\" is not an executable file"),
        "{}",
        r.stderr
    );
    assert!(
        before == crate::common::snapshot(s),
        "a typo claims nothing"
    );
    let r = run([
        "--store",
        s.to_str().unwrap(),
        "serve",
        "--as",
        "rev-0001",
        "--once",
        "--",
        "false",
    ]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains("dsh-agents serve rev-0001: turn 2 [")
            && r.stderr
                .contains("] failed (command exited with exit status: 1)"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr
            .contains("Error: serve: 1 of 1 turn(s) did not complete"),
        "{}",
        r.stderr
    );
    ok(s, &["followup", "rev-0001", "again"]);
    let r = run([
        "--store",
        s.to_str().unwrap(),
        "serve",
        "--as",
        "rev-0001",
        "--once",
        "--quiet",
        "--",
        "true",
    ]);
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
}

#[test]
fn a_handing_list_a_dead_bridge_left_is_not_believed_once_serve_holds_the_agent() {
    // A DSH process and its bridge were SIGKILLed mid-hand-off: their
    // `inbox.handing` stays. In-flight state belongs to a live bridge only:
    // with `serve` holding the agent, the listed message is pending, and
    // `cancel` may withdraw it.
    let (store, handler, log) = setup("stalehand");
    let s = store.path();
    let _served = serve(s, "rev-0001", &handler, &log);
    ok(s, &["followup", "rev-0001", "sleep now"]);
    eventually("the first turn running", || {
        handler_lines(&log).iter().any(|l| l.contains("sleep now"))
    });
    ok(s, &["followup", "--id", "m-listed", "rev-0001", "later"]);
    std::fs::write(s.join("_no-cwd/rev-0001/inbox.handing"), r#"["m-listed"]"#).unwrap();
    let tree: Value = serde_json::from_str(&ok(s, &["--json", "tree"])).unwrap();
    let member = tree[0]["members"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"] == "rev-0001")
        .unwrap()
        .clone();
    assert_eq!(member["pending"], 1, "{member}");
    let inbox: Value = serde_json::from_str(&ok(s, &["--json", "inbox", "rev-0001"])).unwrap();
    assert_eq!(inbox["handing"], serde_json::json!([]), "{inbox}");
    assert_eq!(
        ok(s, &["cancel", "m-listed", "--to", "rev-0001"]),
        "canceled message m-listed (next-turn) to rev-0001\n"
    );
}

/// A `watch` the test started, its standard output's lines gathered as
/// they come; killed when dropped.
struct Watching(Child, std::sync::Arc<std::sync::Mutex<Vec<Value>>>);

impl Drop for Watching {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Watching {
    fn events(&self) -> Vec<Value> {
        self.1.lock().unwrap().clone()
    }
}

fn watch(store: &Path, args: &[&str]) -> Watching {
    use std::io::BufRead;
    let mut child = Command::new(assert_cmd::cargo::cargo_bin!("dsh-agents"))
        .args(["--store", store.to_str().unwrap(), "--json", "watch"])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let out = child.stdout.take().unwrap();
    let lines = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let gathered = lines.clone();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(out).lines().map_while(Result::ok) {
            gathered
                .lock()
                .unwrap()
                .push(serde_json::from_str(&line).unwrap_or(Value::String(line)));
        }
    });
    Watching(child, lines)
}

/// A model call of `tokens` input tokens appended to the log of an agent
/// no process holds (as its DSH process would write it).
fn spend(store: &Path, dir: &str, tokens: u64) {
    use std::io::Write;
    let path = store.join("_no-cwd").join(dir).join("session.jsonl");
    let seq = log_events(store, dir).len();
    let line = serde_json::json!({
        "type": "assistant/message", "seq": seq, "time": 5000 + seq,
        "data": {"turn": 1, "step": 1,
                 "message": {"role": "assistant", "content": [{"type": "text", "text": "ok"}],
                             "source": {"kind": "model", "provider": "mock", "model": "mock"},
                             "id": format!("call-{seq}")},
                 "usage": {"inputTokens": tokens}},
        "surfaceOp": "append"
    });
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    writeln!(f, "{line}").unwrap();
}

fn state_of(store: &Path, id: &str) -> String {
    let trees: Value = serde_json::from_str(&ok(store, &["--json", "tree", "lead-1"])).unwrap();
    trees[0]["members"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"] == id)
        .map(|m| m["state"].as_str().unwrap().to_string())
        .unwrap_or_default()
}

#[test]
fn a_spent_budget_interrupts_exactly_its_subtree_once() {
    let (store, handler, log) = setup("budget");
    let s = store.path();
    // The reviewer is in the budget's subtree, the lead above it is not.
    let _reviewer = serve(s, "rev-0001", &handler, &log);
    let _lead = serve(s, "lead-1", &handler, &log);
    eventually("both live", || {
        state_of(s, "rev-0001") == "idle" && state_of(s, "lead-1") == "idle"
    });
    ok(s, &["followup", "rev-0001", "go to sleep"]);
    ok(s, &["followup", "lead-1", "go to sleep too"]);
    eventually("both mid-turn", || {
        state_of(s, "rev-0001") == "running" && state_of(s, "lead-1") == "running"
    });
    ok(s, &["followup", "rev-0001", "queued behind"]);
    let w = watch(
        s,
        &[
            "--budget",
            "reviewer=1k,reviewer/checker=1200",
            "--on-exceed",
            "interrupt",
        ],
    );
    let kinds = |w: &Watching| -> Vec<String> {
        w.events()
            .iter()
            .map(|e| format!("{} {}", e["kind"].as_str().unwrap_or("?"), e["agent"]))
            .collect()
    };
    // 850 of 1,000: a warning, and nothing stopped.
    spend(s, "chk-0001", 850);
    eventually("the warning", || !w.events().is_empty());
    assert_eq!(kinds(&w), ["budget-warning \"rev-0001\""]);
    assert_eq!(w.events()[0]["spent"]["tokens"], 850);
    assert_eq!(state_of(s, "rev-0001"), "running");

    // 1,050: spent; the reviewer's running turn is interrupted, the lead's
    // is not.
    spend(s, "chk-0001", 200);
    eventually("the reviewer's interrupt", || {
        kinds(&w).contains(&"budget-interrupted \"rev-0001\"".to_string())
    });
    eventually("the turn ends interrupted", || {
        log_events(s, "rev-0001").last().is_some_and(|e| {
            e["type"] == "turn/end" && e["data"]["reason"]["kind"] == "interrupted"
        })
    });
    // 1,250: the checker's own budget spent, seen in a later check; the
    // reviewer is not interrupted again.
    spend(s, "chk-0001", 200);
    eventually("the checker's budget", || {
        kinds(&w).contains(&"budget-exceeded \"chk-0001\"".to_string())
    });
    assert_eq!(
        kinds(&w),
        [
            "budget-warning \"rev-0001\"",
            "budget-exceeded \"rev-0001\"",
            "budget-interrupted \"rev-0001\"",
            "budget-warning \"chk-0001\"",
            "budget-exceeded \"chk-0001\"",
        ]
    );
    assert_eq!(state_of(s, "lead-1"), "running", "outside the subtree");
    assert!(
        !log_events(s, "lead-1")
            .iter()
            .any(|e| e["data"]["reason"]["kind"] == "interrupted"),
        "the lead's turn was not interrupted"
    );
    assert!(
        ok(s, &["inbox", "rev-0001"]).contains("next-turn: 1 pending (parked by an interrupt)"),
        "nothing deleted: the queue is parked, not emptied"
    );
    // A turn that starts later in the spent subtree is interrupted in its
    // turn.
    ok(s, &["followup", "rev-0001", "go to sleep again"]);
    eventually("the later turn's interrupt", || {
        kinds(&w)
            .iter()
            .filter(|k| *k == "budget-interrupted \"rev-0001\"")
            .count()
            == 2
    });
    let turns: Vec<u64> = w
        .events()
        .iter()
        .filter(|e| e["kind"] == "budget-interrupted")
        .map(|e| e["turn"].as_u64().unwrap())
        .collect();
    assert!(turns[0] > 0 && turns[1] > turns[0], "{turns:?}");
    assert_eq!(
        state_of(s, "lead-1"),
        "running",
        "still outside the subtree"
    );
}
