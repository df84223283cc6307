//! `events --follow`: each transition a real change makes (a turn run by
//! `serve`, a stale message) is printed once, and `--exec` gets each as
//! JSON; a failing `--exec` command is reported and the stream goes on.

use crate::common::{Reaped, copy_store, reaped, repo};
use std::io::BufRead;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// `events --follow --json` and more on `store`, its lines read on a thread
/// (what it saw kept in the test run's cache, never `$HOME`'s).
fn follow(store: &std::path::Path, more: &[&str]) -> (Reaped, mpsc::Receiver<String>) {
    follow_keeping(
        store,
        more,
        &crate::common::run_dir("dsh-agents-test-cache-"),
    )
}

/// `follow`, keeping what it saw in the cache directory `cache`.
fn follow_keeping(
    store: &std::path::Path,
    more: &[&str],
    cache: &std::path::Path,
) -> (Reaped, mpsc::Receiver<String>) {
    let mut child = reaped(
        Command::new(assert_cmd::cargo::cargo_bin!("dsh-agents"))
            .args([
                "--store",
                store.to_str().unwrap(),
                "--json",
                "events",
                "--follow",
            ])
            .args(more)
            .env("DSH_AGENTS_CACHE_DIR", cache)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let (tx, rx) = mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    (child, rx)
}

/// `follow` with `--since 0`, once it printed the history the logs hold
/// (there is some): by then it has taken its first look at the tree.
fn follow_after_history(store: &std::path::Path) -> (Reaped, mpsc::Receiver<String>) {
    let history = crate::common::run([
        "--store",
        store.to_str().unwrap(),
        "--json",
        "events",
        "--since",
        "0",
    ]);
    let n = history.stdout.lines().count();
    assert!(n > 0);
    let (child, rx) = follow(store, &["--since", "0"]);
    for i in 0..n {
        next(&rx, &format!("history line {i}"));
    }
    (child, rx)
}

/// The next line, or a failure after a bound generous enough for a loaded
/// machine (a broken build, not a timing claim).
fn next(rx: &mpsc::Receiver<String>, waiting_for: &str) -> serde_json::Value {
    let line = rx
        .recv_timeout(Duration::from_secs(60))
        .unwrap_or_else(|_| panic!("no event while waiting for {waiting_for}"));
    serde_json::from_str(&line).unwrap()
}

/// Lines until one of `kind` for `agent` arrives; the ones before it.
fn until(rx: &mpsc::Receiver<String>, kind: &str, agent: &str) -> Vec<serde_json::Value> {
    let mut seen = Vec::new();
    loop {
        let e = next(rx, kind);
        let done = e["kind"] == kind && e["agent"] == agent;
        seen.push(e);
        if done {
            return seen;
        }
    }
}

#[test]
fn a_turn_is_reported_once_started_and_once_finished() {
    let store = copy_store(&repo().join("testdata/stores/team"), "events-turn");
    let s = store.path();
    // The history first (the turns the logs hold), so the follower has
    // taken its first look before anything changes.
    let (mut child, rx) = follow_after_history(s);
    let r = crate::common::run([
        "--store",
        s.to_str().unwrap(),
        "followup",
        "rev-0001",
        "one more",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let r = crate::common::run([
        "--store",
        s.to_str().unwrap(),
        "serve",
        "--as",
        "rev-0001",
        "--once",
        "--quiet",
        "--",
        "cat",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let seen = until(&rx, "turn-finished", "rev-0001");
    let started: Vec<_> = seen
        .iter()
        .filter(|e| e["kind"] == "turn-started" && e["agent"] == "rev-0001")
        .collect();
    assert_eq!(started.len(), 1, "{seen:?}");
    assert_eq!(started[0]["turn"], 2, "{seen:?}");
    assert_eq!(seen.last().unwrap()["turn"], 2);
    // Nothing else happened: no other turn is said (the follower is alive,
    // and its next look sees the same tree). A look taken while `serve`
    // held the agent saw it live: that it went back to inactive may follow.
    let mut after = Vec::new();
    while let Ok(line) = rx.recv_timeout(Duration::from_secs(2)) {
        after.push(serde_json::from_str::<serde_json::Value>(&line).unwrap());
    }
    assert!(
        after
            .iter()
            .all(|e| e["kind"] == "became" && e["agent"] == "rev-0001"),
        "{after:?}"
    );
    if let Some(last) = after.last() {
        assert_eq!(last["state"], "inactive", "{after:?}");
    }
    assert!(child.try_wait().unwrap().is_none());
}

#[test]
fn a_stale_message_is_reported_once_and_exec_gets_every_event() {
    let store = copy_store(&repo().join("testdata/stores/team"), "events-stale");
    let s = store.path();
    let got = s.join("exec-got.jsonl");
    // The first --exec fails on every event; the stream goes on.
    let cmd = format!("cat >> '{}'; exit 3", got.display());
    let (mut child, rx) = follow(s, &["--stale-after", "0s", "--exec", &cmd]);
    let r = crate::common::run([
        "--store",
        s.to_str().unwrap(),
        "--json",
        "followup",
        "rev-0001",
        "waiting",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let id = serde_json::from_str::<serde_json::Value>(&r.stdout).unwrap()["messageId"]
        .as_str()
        .unwrap()
        .to_string();
    let seen = until(&rx, "pending-stale", "rev-0001");
    assert_eq!(seen.last().unwrap()["messageId"], id.as_str());
    // Looks go on (every half second): the same message is not said again.
    assert!(rx.recv_timeout(Duration::from_secs(3)).is_err());
    child.kill().unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("failed (exit status: 3) on pending-stale of rev-0001"),
        "{stderr}"
    );
    let exec: Vec<serde_json::Value> = std::fs::read_to_string(&got)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(exec.len(), seen.len(), "{exec:?}");
    assert_eq!(exec.last().unwrap()["messageId"], id.as_str());
}

/// Following reads the trees when the store says something changed, not at
/// every look: while a pending message ages into a stale one, the idle
/// store's trees are read no more than at the start, and the aging inbox is
/// read by itself, not through the whole store.
#[test]
fn an_idle_store_is_not_read_again_while_a_message_ages() {
    let store = copy_store(&repo().join("testdata/stores/team"), "events-idle");
    let s = store.path();
    let r = crate::common::run([
        "--store",
        s.to_str().unwrap(),
        "followup",
        "rev-0001",
        "waiting",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let mut child = reaped(
        Command::new(assert_cmd::cargo::cargo_bin!("dsh-agents"))
            .args([
                "--store",
                s.to_str().unwrap(),
                "--json",
                "events",
                "--follow",
            ])
            .args(["--stale-after", "3s"])
            .env("DSH_AGENTS_DEBUG", "1")
            .env(
                "DSH_AGENTS_CACHE_DIR",
                crate::common::run_dir("dsh-agents-test-cache-"),
            )
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let stdout = child.stdout.take().unwrap();
    let mut lines = std::io::BufReader::new(stdout).lines();
    let stale = lines.next().unwrap().unwrap();
    assert!(stale.contains("pending-stale"), "{stale}");
    child.kill().unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let whole = stderr.matches("plan: whole store").count();
    // Once before the history, once as following starts (a safety read
    // comes minutes after, later than the message turns stale).
    assert!(whole <= 2, "{whole} whole reads:\n{stderr}");
    assert!(stderr.contains("plan: located"), "{stderr}");
}

/// A holder killed outright is seen going inactive without waiting for the
/// safety read (minutes away): the kernel closes the lock it held open for
/// writing, and the watch is told of that close.
#[test]
fn a_killed_holder_is_seen_going_inactive() {
    let store = copy_store(&repo().join("testdata/stores/team"), "events-kill");
    let s = store.path();
    // Once the history is printed, the follower has taken its first look,
    // and the agent is not live in it.
    let (_child, rx) = follow_after_history(s);
    let mut served = reaped(
        Command::new(assert_cmd::cargo::cargo_bin!("dsh-agents"))
            .args(["--store", s.to_str().unwrap(), "serve", "--as", "rev-0001"])
            .args(["--quiet", "--", "cat"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let became = |state: &str| loop {
        let e = next(&rx, &format!("rev-0001 became {state}"));
        if e["kind"] == "became" && e["agent"] == "rev-0001" && e["state"] == state {
            return;
        }
    };
    became("idle");
    served.kill().unwrap();
    served.wait().unwrap();
    became("inactive");
}

/// The turn `rev-0001` runs once `followup` and `serve --once` are done.
fn run_a_turn(store: &std::path::Path, text: &str) {
    let s = store.to_str().unwrap();
    let r = crate::common::run(["--store", s, "followup", "rev-0001", text]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let r = crate::common::run([
        "--store", s, "serve", "--as", "rev-0001", "--once", "--quiet", "--", "cat",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

/// The state files a follower keeps under `cache`.
fn kept_states(cache: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for store in std::fs::read_dir(cache.join("stores"))
        .into_iter()
        .flatten()
        .flatten()
    {
        for f in std::fs::read_dir(store.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            if f.file_name().to_string_lossy().starts_with("events-") {
                out.push(f.path());
            }
        }
    }
    out
}

/// A follower that stops and starts again goes on from what it saw: a turn
/// run while no follower ran is reported when the next one starts, once,
/// and a third follower reports nothing the second already did.
#[test]
fn a_restarted_follower_reports_each_transition_once() {
    let store = copy_store(&repo().join("testdata/stores/team"), "events-restart");
    let s = store.path();
    let cache = crate::common::temp_dir("events-restart-cache");
    let stop = |mut child: Reaped| {
        crate::common::signal(child.id(), rustix::process::Signal::TERM);
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(143), "{status}");
    };
    // The first follower has looked once it saved what it saw.
    let (first, _rx) = follow_keeping(s, &[], cache.path());
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while kept_states(cache.path()).is_empty() {
        assert!(std::time::Instant::now() < deadline, "no state was saved");
        std::thread::sleep(Duration::from_millis(20));
    }
    stop(first);
    // A turn while no follower runs.
    run_a_turn(s, "while nobody watched");
    let (second, rx) = follow_keeping(s, &[], cache.path());
    let seen = until(&rx, "turn-finished", "rev-0001");
    let turns: Vec<_> = seen
        .iter()
        .filter(|e| e["agent"] == "rev-0001" && e["kind"].as_str().unwrap().starts_with("turn-"))
        .map(|e| {
            (
                e["kind"].as_str().unwrap().to_string(),
                e["turn"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        turns,
        [
            ("turn-started".to_string(), 2),
            ("turn-finished".to_string(), 2)
        ],
        "{seen:?}"
    );
    stop(second);
    // The third reports the next turn, and nothing of the one before.
    let (_third, rx) = follow_keeping(s, &[], cache.path());
    run_a_turn(s, "and one more");
    let seen = until(&rx, "turn-finished", "rev-0001");
    assert!(
        seen.iter().all(|e| e["turn"] != 2),
        "turn 2 reported again: {seen:?}"
    );
    assert_eq!(seen.last().unwrap()["turn"], 3, "{seen:?}");
    // Nothing of it is in the store.
    assert!(
        crate::common::snapshot(s).iter().all(|(p, _)| p
            .file_name()
            .is_none_or(|n| !n.to_string_lossy().starts_with("events-"))),
        "a follower's state in the store"
    );
}
