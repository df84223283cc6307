//! Compaction never removes what recovery and interrupts still need: a
//! `serve` killed right after a claim that compacted the inbox reruns that
//! input in a completed turn, and the newest interrupt keeps its identity
//! and its parking through compaction.

use crate::common::{copy_store, repo, run_in};
use std::path::Path;

fn big_steers(s: &Path, agent: &str, n: usize) {
    let big = "y".repeat(5000);
    for i in 0..n {
        let r = run_in(s, &["steer", agent, &format!("{i} {big}")]);
        assert_eq!(r.code, 0, "{}", r.stderr);
    }
}

fn serve(s: &Path, handler: &Path, fault: Option<&str>) -> std::process::Output {
    let mut c = crate::common::cmd();
    c.args([
        "--store",
        s.to_str().unwrap(),
        "serve",
        "--as",
        "rev-0001",
        "--once",
        "--quiet",
        "--",
    ])
    .arg(handler);
    if let Some(f) = fault {
        c.env("DSH_AGENTS_FAULT", f);
    }
    c.output().unwrap()
}

#[test]
fn a_serve_killed_after_a_compacting_claim_reruns_its_input() {
    let store = copy_store(&repo().join("testdata/stores/team"), "rerun");
    let s = store.path();
    let dir = s.join("_no-cwd/rev-0001");
    // 60 large next-step messages and one small next-turn: the turn that
    // claims them consumes most of the inbox, so its claim compacts it.
    big_steers(s, "rev-0001", 60);
    // Not keyed (`--id`): compaction keeps keyed messages anyway.
    let r = run_in(s, &["followup", "rev-0001", "THE-ONE"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let out = s.join("handler.out");
    let handler = s.join("handler.sh");
    std::fs::write(&handler, format!("#!/bin/sh\ncat >> {}\n", out.display())).unwrap();
    std::fs::set_permissions(
        &handler,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let before = std::fs::metadata(dir.join("inbox.jsonl")).unwrap().len();
    let listed: serde_json::Value =
        serde_json::from_str(&run_in(s, &["--json", "inbox", "rev-0001"]).stdout).unwrap();
    let the_one = listed["nextTurn"][0]["id"].as_str().unwrap().to_string();
    // The process dies after the claim, before the handler ran.
    let crashed = serve(s, &handler, Some("serve-after-claim"));
    assert!(!crashed.status.success());
    let after = std::fs::metadata(dir.join("inbox.jsonl")).unwrap().len();
    assert!(
        after < before / 4,
        "the claim compacted the inbox: {before} -> {after}"
    );
    assert!(!out.exists(), "the handler never ran");
    // A new serve reruns the claimed input, in a turn that completes.
    let r = serve(s, &handler, None);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let ran = std::fs::read_to_string(&out).unwrap();
    assert_eq!(
        ran.matches("THE-ONE").count(),
        1,
        "the claimed message ran once"
    );
    let log = run_in(s, &["--json", "log", "rev-0001"]).stdout;
    let endings: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("\"turn-end\""))
        .map(|l| {
            if l.contains("\"completed\"") {
                "completed"
            } else {
                "other"
            }
        })
        .collect();
    assert_eq!(endings.last(), Some(&"completed"), "{log}");
    // `trace` reports the rerun that completed, not the interrupted first turn.
    let t = run_in(s, &["--json", "trace", "--to", "rev-0001", &the_one]);
    assert_eq!(t.code, 0, "{}", t.stderr);
    let t: serde_json::Value = serde_json::from_str(&t.stdout).unwrap();
    assert_eq!(t["status"], "delivered", "{t}");
    assert_eq!(t["transcript"]["ending"], "completed", "{t}");
}

#[test]
fn compaction_keeps_the_newest_interrupt_where_it_stands() {
    let store = copy_store(&repo().join("testdata/stores/team"), "interrupt-compact");
    let s = store.path();
    let dir = s.join("_no-cwd/rev-0001");
    // An interrupt (the agent held live meanwhile), then newer messages: it
    // does not park the queue.
    let live = std::fs::File::create(dir.join("live.lock")).unwrap();
    live.lock().unwrap();
    let r = run_in(s, &["interrupt", "rev-0001"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    live.unlock().unwrap();
    let interrupt_line = std::fs::read_to_string(dir.join("inbox.jsonl")).unwrap();
    assert!(interrupt_line.contains("\"interrupt\""));
    big_steers(s, "rev-0001", 60);
    let r = run_in(s, &["claim", "--as", "rev-0001"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let compacted = std::fs::read_to_string(dir.join("inbox.jsonl")).unwrap();
    assert!(
        compacted.len() < 100_000,
        "compacted: {} bytes",
        compacted.len()
    );
    assert!(
        compacted.contains(interrupt_line.trim_end()),
        "the newest interrupt was kept: {compacted}"
    );
    let view = run_in(s, &["inbox", "rev-0001"]).stdout;
    assert!(!view.contains("parked"), "{view}");
    // One that parks the queue still parks it after compaction.
    let r = run_in(s, &["followup", "rev-0001", "parked one"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    big_steers(s, "rev-0001", 60);
    live.lock().unwrap();
    run_in(s, &["interrupt", "rev-0001"]);
    live.unlock().unwrap();
    let parking = std::fs::read_to_string(dir.join("inbox.jsonl")).unwrap();
    let parking = parking.lines().last().unwrap().to_string();
    let v: serde_json::Value =
        serde_json::from_str(&run_in(s, &["--json", "inbox", "rev-0001"]).stdout).unwrap();
    assert_eq!(v["parked"], true);
    for m in v["nextStep"].as_array().unwrap() {
        // Compaction surveys a large inbox again only once it grew by a
        // quarter; forget the last survey, so this cancel may compact.
        let _ = std::fs::remove_file(dir.join("inbox.surveyed"));
        let r = run_in(
            s,
            &["cancel", "--to", "rev-0001", m["id"].as_str().unwrap()],
        );
        assert_eq!(r.code, 0, "{}", r.stderr);
    }
    let compacted = std::fs::read_to_string(dir.join("inbox.jsonl")).unwrap();
    assert!(
        compacted.len() < 100_000,
        "compacted: {} bytes",
        compacted.len()
    );
    let lines: Vec<&str> = compacted.lines().collect();
    let at = lines
        .iter()
        .position(|l| *l == parking)
        .expect("the parking interrupt was kept");
    let last_message = lines
        .iter()
        .rposition(|l| l.contains("\"type\":\"message\""))
        .unwrap();
    assert!(
        at > last_message,
        "it still stands after every message: {compacted}"
    );
    let view = run_in(s, &["inbox", "rev-0001"]).stdout;
    assert!(
        view.contains("next-turn: 1 pending (parked by an interrupt)"),
        "{view}"
    );
}
