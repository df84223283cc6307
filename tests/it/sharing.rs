//! One writer per log: `serve` stops, appending nothing, when another
//! process wrote to the log it holds, and refuses a session whose
//! `.session-writer.lock` another owner holds (newer DSH).

use crate::common::{copy_store, repo, run};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn serve_stops_without_appending_after_a_foreign_write() {
    let store = copy_store(&repo().join("testdata/stores/team"), "foreign");
    let s = store.path();
    let handler = s.join("slow.sh");
    std::fs::write(&handler, "#!/bin/sh\ncat >/dev/null\nsleep 1\n").unwrap();
    std::fs::set_permissions(
        &handler,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let r = run([
        "--store",
        s.to_str().unwrap(),
        "followup",
        "rev-0001",
        "work",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let log = s.join("_no-cwd/rev-0001/session.jsonl");
    let before = std::fs::read_to_string(&log).unwrap();
    let serve = crate::common::reaped(
        Command::new(assert_cmd::cargo::cargo_bin!("dsh-agents"))
            .args([
                "--store",
                s.to_str().unwrap(),
                "serve",
                "--as",
                "rev-0001",
                "--once",
            ])
            .arg("--")
            .arg(&handler)
            .stdin(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    // Wait for the turn to start, then write as another process would.
    let t = Instant::now();
    while std::fs::read_to_string(&log).unwrap().len() == before.len() {
        assert!(
            t.elapsed() < Duration::from_secs(120),
            "serve never started a turn"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let started = std::fs::read_to_string(&log).unwrap();
    let next_seq = started.lines().count() - 1;
    let foreign = format!(
        "{{\"type\":\"session/title\",\"seq\":{next_seq},\"time\":1,\"data\":{{\"title\":\"written by another process\"}}}}\n"
    );
    std::fs::OpenOptions::new()
        .append(true)
        .open(&log)
        .unwrap()
        .write_all_ext(foreign.as_bytes());
    let out = serve.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("another process wrote to"), "{stderr}");
    // Nothing after the foreign bytes: the log still reads as one writer left it.
    let after = std::fs::read_to_string(&log).unwrap();
    assert_eq!(after, format!("{started}{foreign}"));
    let r = run(["--store", s.to_str().unwrap(), "log", "rev-0001"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

trait WriteAllExt {
    fn write_all_ext(self, bytes: &[u8]);
}

impl WriteAllExt for std::fs::File {
    fn write_all_ext(mut self, bytes: &[u8]) {
        std::io::Write::write_all(&mut self, bytes).unwrap();
    }
}

#[test]
fn serve_refuses_a_session_another_writer_owns() {
    for name in [".session-writer.lock", "session.lock"] {
        refused_while_held(name);
    }
}

fn refused_while_held(name: &str) {
    let store = copy_store(&repo().join("testdata/stores/team"), "writer-lock");
    let s = store.path();
    let lock_path = s.join("_no-cwd/rev-0001").join(name);
    let lock = std::fs::File::create(&lock_path).unwrap();
    lock.try_lock().unwrap();
    if name == "session.lock" {
        // Newer DSH's lock means live to every view.
        let tree = run(["--store", s.to_str().unwrap(), "--json", "tree", "--all"]);
        let v: serde_json::Value = serde_json::from_str(&tree.stdout).unwrap();
        let state = v
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|t| t["members"].as_array().unwrap())
            .find(|m| m["id"] == "rev-0001")
            .map(|m| m["state"].clone());
        assert_eq!(state, Some(serde_json::json!("idle")), "{}", tree.stdout);
        let v2 = run([
            "--store",
            s.to_str().unwrap(),
            "list-agents",
            "--as",
            "lead-1",
        ]);
        assert!(v2.stdout.contains("reviewer [running]"), "{}", v2.stdout);
    }
    run([
        "--store",
        s.to_str().unwrap(),
        "followup",
        "rev-0001",
        "work",
    ]);
    // Lock files may appear (they are how the refusal is decided); nothing else may.
    let files = |s: &std::path::Path| -> Vec<(std::path::PathBuf, Vec<u8>)> {
        crate::common::snapshot(s)
            .into_iter()
            .filter(|(p, _)| !p.to_string_lossy().ends_with(".lock"))
            .collect()
    };
    let before = files(s);
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
    assert_eq!(r.code, 3, "{}", r.stderr);
    assert!(
        r.stderr.contains("owned by another DSH process"),
        "{}",
        r.stderr
    );
    assert!(files(s) == before, "nothing claimed or written");
    drop(lock);
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
    assert_eq!(r.code, 0, "{}", r.stderr);
}
