//! Crash loop: senders and a serving agent killed with SIGKILL at random
//! moments while messages flow. Afterwards every acknowledged message must
//! have run in exactly one completed turn (a repeat only after an
//! interrupted, crash-repaired one), every claimed id must appear in a
//! recorded turn, nothing may stay pending, and `check` must be clean.
//!
//!   cargo build --release && cargo run --release --example crashloop -- [SENDS] [KILLS] [PAD]
//!
//! Defaults: 2,000 sends and 200 kills. PAD (default 0) adds that many bytes
//! to every message, so the inbox passes the compaction threshold early and
//! is compacted again and again under the kills (keyed messages move to
//! `inbox.keyed.jsonl`).

#![allow(clippy::unwrap_used)] // a test or a benchmark stops at its first surprise
#![allow(unsafe_code)] // `wait4` for a child's peak resident size

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn binary() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let bin = exe
        .parent()
        .and_then(Path::parent)
        .unwrap()
        .join("dsh-agents");
    assert!(
        bin.is_file(),
        "build the binary first: cargo build --release"
    );
    bin
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn main() {
    let mut argv = std::env::args().skip(1);
    let sends: usize = argv.next().map_or(2000, |a| a.parse().unwrap());
    let kills: usize = argv.next().map_or(200, |a| a.parse().unwrap());
    let pad = "p".repeat(argv.next().map_or(0, |a| a.parse().unwrap()));
    let bin = binary();
    let store = std::env::temp_dir().join(format!("dsh-crashloop-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&store);
    // `spawn` writes into an existing store only.
    std::fs::create_dir_all(&store).unwrap();
    let dsh = |args: &[&str]| {
        Command::new(&bin)
            .arg("--store")
            .arg(&store)
            .args(args)
            .output()
            .unwrap()
    };
    assert!(dsh(&["spawn", "--id", "root"]).status.success());
    assert!(
        dsh(&["spawn", "--id", "kid", "--parent", "root", "--name", "kid"])
            .status
            .success()
    );
    let handler = store.join("handler.sh");
    std::fs::write(
        &handler,
        "#!/bin/sh\ncat > /dev/null\nsleep 0.0$(( $$ % 5 ))\n",
    )
    .unwrap();
    std::fs::set_permissions(
        &handler,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let serve = || -> Child {
        Command::new(&bin)
            .arg("--store")
            .arg(&store)
            .args(["--lock-timeout", "30", "serve", "--as", "kid", "--"])
            .arg(&handler)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(std::env::temp_dir().join("dsh-crashloop-serve.log"))
                    .unwrap(),
            )
            .spawn()
            .unwrap()
    };
    let mut rng = Rng(std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
        | 1);
    let mut server = serve();
    let mut acked: HashSet<String> = HashSet::new();
    let mut killed_senders = 0;
    let mut killed_servers = 0;
    let started = Instant::now();
    let mut senders: Vec<(Child, String)> = Vec::new();
    let mut sent = 0;
    while sent < sends || !senders.is_empty() {
        while senders.len() < 4 && sent < sends {
            let id = format!("m{sent:05}");
            let child = Command::new(&bin)
                .arg("--store")
                .arg(&store)
                .args([
                    "--lock-timeout",
                    "30",
                    "--json",
                    "followup",
                    "kid",
                    &format!("message {sent} {pad}"),
                    "--id",
                    &id,
                ])
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            senders.push((child, id));
            sent += 1;
        }
        if killed_senders + killed_servers < kills
            && rng.next().is_multiple_of(sends as u64 / kills as u64 + 1)
        {
            if rng.next().is_multiple_of(2) {
                let _ = server.kill();
                let _ = server.wait();
                killed_servers += 1;
                std::thread::sleep(Duration::from_millis(rng.next() % 5));
                server = serve();
            } else if let Some((c, _)) = senders.first_mut() {
                let _ = c.kill();
                killed_senders += 1;
            }
        }
        let mut still = Vec::new();
        for (mut c, id) in senders {
            match c.try_wait().unwrap() {
                Some(st) => {
                    let out = c.wait_with_output().unwrap();
                    if st.success() && String::from_utf8_lossy(&out.stdout).contains(&id) {
                        acked.insert(id);
                    }
                }
                None => still.push((c, id)),
            }
        }
        senders = still;
        std::thread::sleep(Duration::from_millis(1));
    }
    // Drain: let the server finish, then stop it cleanly.
    let deadline = Instant::now() + Duration::from_secs(900);
    loop {
        let inbox = dsh(&["--json", "inbox", "kid"]);
        let v: serde_json::Value = serde_json::from_slice(&inbox.stdout).unwrap_or_default();
        let idle = std::fs::read_to_string(store.join("_no-cwd/kid/live.json"))
            .is_ok_and(|l| l.contains("\"idle\""));
        if (idle && v["nextTurn"].as_array().is_some_and(|a| a.is_empty()))
            || Instant::now() > deadline
        {
            break;
        }
        if server.try_wait().unwrap().is_some() {
            println!("serve exited on its own; restarting");
            server = serve();
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    // SAFETY: signalling our own child.
    unsafe { libc::kill(server.id() as i32, libc::SIGTERM) };
    let _ = server.wait();
    let log = std::fs::read_to_string(store.join("_no-cwd/kid/session.jsonl")).unwrap();
    let mut turn_ids: Vec<String> = Vec::new();
    let mut completed: HashMap<String, usize> = HashMap::new();
    let mut in_turn: HashSet<String> = HashSet::new();
    for line in log.lines().skip(1) {
        let e: serde_json::Value = serde_json::from_str(line).unwrap();
        match e["type"].as_str() {
            Some("turn/start") => turn_ids.clear(),
            Some("user/message") => {
                let id = e["data"]["id"].as_str().unwrap().to_string();
                in_turn.insert(id.clone());
                turn_ids.push(id);
            }
            Some("turn/end") if e["data"]["reason"]["kind"] == "completed" => {
                for id in &turn_ids {
                    *completed.entry(id.clone()).or_default() += 1;
                }
            }
            _ => {}
        }
    }
    let inbox = std::fs::read_to_string(store.join("_no-cwd/kid/inbox.jsonl")).unwrap_or_default();
    let mut claimed = HashSet::new();
    for line in inbox.lines() {
        let r: serde_json::Value = serde_json::from_str(line).unwrap();
        if r["type"] == "claim" {
            for id in r["ids"].as_array().unwrap() {
                claimed.insert(id.as_str().unwrap().to_string());
            }
        }
    }
    let lost: Vec<&String> = acked
        .iter()
        .filter(|id| !completed.contains_key(*id))
        .collect();
    let twice: Vec<(&String, &usize)> = completed.iter().filter(|(_, n)| **n > 1).collect();
    let unrecorded: Vec<&String> = claimed.iter().filter(|id| !in_turn.contains(*id)).collect();
    let check = dsh(&["check"]);
    println!(
        "{sends} sends ({} acknowledged), {killed_servers} serve kills, {killed_senders} sender kills in {:.1} s",
        acked.len(),
        started.elapsed().as_secs_f64()
    );
    println!("acknowledged but never in a completed turn: {}", lost.len());
    for id in lost.iter().take(5) {
        println!(
            "  {id}: in a turn {}, claimed {}",
            in_turn.contains(*id),
            claimed.contains(*id)
        );
    }
    println!("in more than one completed turn: {}", twice.len());
    println!(
        "claimed but in no recorded turn: {} (of {} claimed ids still recorded)",
        unrecorded.len(),
        claimed.len()
    );
    println!("check: {}", String::from_utf8_lossy(&check.stdout).trim());
    // What compaction did: the inbox left, and the keyed messages it moved.
    let archived = std::fs::read_to_string(store.join("_no-cwd/kid/inbox.keyed.jsonl"))
        .map_or(0, |a| a.lines().count());
    println!(
        "compaction: inbox.jsonl {} bytes at the end, {archived} keyed messages moved to inbox.keyed.jsonl",
        inbox.len()
    );
    let ok = lost.is_empty() && twice.is_empty() && unrecorded.is_empty() && check.status.success();
    if !ok {
        println!("store kept at {}", store.display());
        std::process::exit(1);
    }
    let _ = std::fs::remove_dir_all(&store);
}
