//! The guarantees against a hostile store and a crashing machine: nothing
//! written outside the store through links, no hang on a special file,
//! bounded lines, ids unique across an inbox, caches that never decide,
//! compaction, and served turns that survive a crash at every write point.

use crate::common::{
    StoreBuilder, TempDir, copy_store, fixture, repo, run_in, snapshot, wait_until_locked,
};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn team() -> TempDir {
    copy_store(&repo().join("testdata/stores/team"), "guar")
}

use crate::common::mkfifo;

/// Run the binary, killing it if it has not finished within `limit`.
/// Returns its exit code, or `None` when it had to be killed.
fn run_bounded(store: &Path, args: &[&str], limit: Duration) -> (Option<i32>, String) {
    let mut child = crate::common::reaped(
        Command::new(assert_cmd::cargo::cargo_bin!("dsh-agents"))
            .arg("--store")
            .arg(store)
            .args(args)
            .env_remove("DSH_AGENT")
            .env_remove("DSH_STORE")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let mut err = String::new();
            std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
            return (status.code(), err);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return (None, String::new());
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn nothing_is_written_outside_the_store_through_links() {
    let outside = crate::common::temp_dir("outside");
    let victim = outside.path().join("victim.jsonl");
    // A session log linked to a file outside: check reports it, serve refuses.
    let store = team();
    let log = store.path().join("_no-cwd/chk-0001/session.jsonl");
    std::fs::copy(&log, &victim).unwrap();
    std::fs::remove_file(&log).unwrap();
    std::os::unix::fs::symlink(&victim, &log).unwrap();
    let before = snapshot(outside.path());
    assert_at!(store.path(), &["check"], @r#"
        $ dsh-agents check
        warning: [STORE]/_no-cwd/brk-0001/session.jsonl: subagent session "brk-0001" has no valid subagent/descriptor; it lists as corrupt
        warning: [STORE]/_no-cwd/chk-0001/session.jsonl: the session log is a symbolic link: DSH reads through it; dsh-agents never writes through it (serve refuses this session)
        error: [STORE]/_no-cwd/unr-0001/session.jsonl: unreadable session log: corrupt session log: unparsable committed event at line 3
        3 problem(s) in 16 sessions
        --- stderr
        --- exit: 3
    "#);
    run_in(store.path(), &["followup", "chk-0001", "x"]);
    assert_at!(store.path(), &["serve", "--as", "chk-0001", "--once", "--", "true"], @r#"
        $ dsh-agents serve --as chk-0001 --once -- true
        --- stderr
        Error: [STORE]/_no-cwd/chk-0001/session.jsonl: refusing to follow a symbolic link
        --- exit: 3
    "#);
    // A hard link planted as the inbox.
    let victim2 = outside.path().join("hard.jsonl");
    std::fs::write(&victim2, "partial").unwrap();
    std::fs::hard_link(&victim2, store.path().join("_no-cwd/rev-0001/inbox.jsonl")).unwrap();
    assert_at!(store.path(), &["followup", "rev-0001", "x"], @r#"
        $ dsh-agents followup rev-0001 x
        --- stderr
        Error: [STORE]/_no-cwd/rev-0001/inbox.jsonl: has other hard links; refusing to write
        --- exit: 3
    "#);
    // A project directory linked outside: spawn writes nothing there.
    let fresh = crate::common::temp_dir("proj-link");
    let elsewhere = outside.path().join("proj");
    std::fs::create_dir(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, fresh.path().join("_no-cwd")).unwrap();
    assert_at!(fresh.path(), &["spawn", "--id", "r1"], @r#"
        $ dsh-agents spawn --id r1
        --- stderr
        Error: [STORE]/_no-cwd: refusing to follow a symbolic link
        --- exit: 3
    "#);
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
    assert_eq!(std::fs::read(&victim2).unwrap(), b"partial");
    let mut after = snapshot(outside.path());
    after.retain(|(p, _)| !p.ends_with("hard.jsonl") && !p.ends_with("proj"));
    let mut before = before;
    before.retain(|(p, _)| !p.ends_with("hard.jsonl"));
    assert!(before == after, "nothing written outside the store");
}

#[test]
fn a_link_swapped_in_during_sends_is_never_followed() {
    let store = team();
    let outside = crate::common::temp_dir("swap");
    let target = outside.path().join("created-here");
    let inbox = store.path().join("_no-cwd/rev-0001/inbox.jsonl");
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let swapper = {
        let (inbox, target, stop) = (inbox.clone(), target.clone(), stop.clone());
        std::thread::spawn(move || {
            while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                let _ = std::fs::remove_file(&inbox);
                let _ = std::os::unix::fs::symlink(&target, &inbox);
                std::thread::sleep(Duration::from_micros(300));
                let _ = std::fs::remove_file(&inbox);
            }
        })
    };
    for i in 0..40 {
        let _ = run_in(store.path(), &["followup", "rev-0001", &format!("m{i}")]);
    }
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    swapper.join().unwrap();
    assert!(!target.exists(), "no file was created through the link");
}

#[test]
fn a_special_file_among_the_fleet_files_is_an_error_naming_it_not_a_hang() {
    let limit = Duration::from_secs(4);
    let store = team();
    let s = store.path();
    let fleet = s.join(".fleet");
    std::fs::create_dir(&fleet).unwrap();
    std::fs::write(
        fleet.join("host.json"),
        r#"{"host":"a","hub":"nats://127.0.0.1:1","creds":"/nonexistent"}"#,
    )
    .unwrap();
    // Another host's mirrored rows as a FIFO.
    mkfifo(&fleet.join("rows-b.json"));
    for args in [
        &["tree", "--fleet"][..],
        &["usage", "--fleet"],
        &["check", "--fleet"],
    ] {
        let (code, err) = run_bounded(s, args, limit);
        assert_eq!(code, Some(3), "{args:?}: {err}");
        assert!(
            err.contains(".fleet/rows-b.json: not a regular file"),
            "{args:?}: {err}"
        );
    }
    let (code, err) = run_bounded(s, &["fleet", "status"], limit);
    assert_eq!(code, Some(0), "{err}");
    // Cut short: an error naming it, and nothing half written before it
    // (the JSON is written a row at a time).
    std::fs::remove_file(fleet.join("rows-b.json")).unwrap();
    std::fs::write(
        fleet.join("rows-b.json"),
        r#"[{"id":"x","state":"idle"},{"id":"#,
    )
    .unwrap();
    assert_at!(s, &["--json", "tree", "--fleet"], @r#"
        $ dsh-agents --json tree --fleet
        --- stderr
        {"error":{"kind":"store","message":"[STORE]/.fleet/rows-b.json: EOF while parsing a value at line 1 column 33"}}
        --- exit: 3
    "#);
    assert_at!(s, &["tree", "--fleet"], @r#"
        $ dsh-agents tree --fleet
        --- stderr
        Error: [STORE]/.fleet/rows-b.json: EOF while parsing a value at line 1 column 33
        --- exit: 3
    "#);
    assert_at!(s, &["usage", "--fleet"], @r#"
        $ dsh-agents usage --fleet
        --- stderr
        Error: [STORE]/.fleet/rows-b.json: EOF while parsing a value at line 1 column 33
        --- exit: 3
    "#);
    // `check` writes this host's own report as it goes, first.
    assert_at!(s, &["check", "--fleet"], @r#"
        $ dsh-agents check --fleet
        warning: [STORE]/_no-cwd/brk-0001/session.jsonl: subagent session "brk-0001" has no valid subagent/descriptor; it lists as corrupt
        error: [STORE]/_no-cwd/unr-0001/session.jsonl: unreadable session log: corrupt session log: unparsable committed event at line 3
        --- stderr
        Error: [STORE]/.fleet/rows-b.json: EOF while parsing a value at line 1 column 33
        --- exit: 3
    "#);
    std::fs::remove_file(fleet.join("rows-b.json")).unwrap();
    // The outbox a cross-host send appends to: a FIFO is refused, and a
    // link out of the store is never written through.
    mkfifo(&fleet.join("outbox"));
    let (code, err) = run_bounded(s, &["followup", "b:lead", "x"], limit);
    assert_eq!(code, Some(3), "{err}");
    assert!(err.contains(".fleet/outbox: not a regular file"), "{err}");
    std::fs::remove_file(fleet.join("outbox")).unwrap();
    let outside = crate::common::temp_dir("outside");
    let target = outside.path().join("outbox");
    std::os::unix::fs::symlink(&target, fleet.join("outbox")).unwrap();
    let (code, err) = run_bounded(s, &["followup", "b:lead", "x"], limit);
    assert_eq!(code, Some(3), "{err}");
    assert!(!target.exists(), "a send wrote through the link");
}

#[test]
fn special_files_never_hang_a_command() {
    let limit = Duration::from_secs(4);
    let store = team();
    let s = store.path();
    let rev = s.join("_no-cwd/rev-0001");
    mkfifo(&rev.join("inbox.jsonl"));
    mkfifo(&rev.join("live.lock"));
    let chk = s.join("_no-cwd/chk-0001");
    mkfifo(&chk.join("live.json"));
    for args in [
        &["--lock-timeout", "1", "followup", "rev-0001", "x"][..],
        &["send-message", "reviewer", "x", "--as", "lead-1"],
        &["list-agents", "--as", "lead-1"],
        &["--contract", "v1", "list-agents", "--as", "lead-1"],
        &["tree"],
        &["inbox", "rev-0001"],
        &["interrupt", "rev-0001"],
        &["serve", "--as", "rev-0001", "--once", "--", "true"],
        &["serve", "--as", "chk-0001", "--once", "--", "true"],
        &["check"],
    ] {
        let (code, err) = run_bounded(s, args, limit);
        assert!(code.is_some(), "{args:?} hung");
        assert_ne!(code, Some(101), "{args:?} panicked: {err}");
    }
    let (code, err) = run_bounded(s, &["followup", "rev-0001", "x"], limit);
    assert_eq!(code, Some(3));
    assert!(
        err.contains("rev-0001/inbox.jsonl: not a regular file"),
        "{err}"
    );
    // Files named on the command line: an output FIFO no process reads,
    // a credential that is a FIFO.
    let outside = crate::common::temp_dir("fifo-args");
    let fifo = outside.path().join("fifo");
    mkfifo(&fifo);
    let f = fifo.to_str().unwrap();
    for args in [
        &["export", "--otlp", "--all", "-o", f][..],
        &[
            "fleet",
            "init",
            "--nats",
            "nats://127.0.0.1:1",
            "--creds",
            f,
            "--hosts",
            "a,b",
        ],
        &[
            "fleet",
            "run",
            "--host",
            "a",
            "--nats",
            "nats://127.0.0.1:1",
            "--creds",
            f,
        ],
    ] {
        let (code, err) = run_bounded(s, args, limit);
        assert_eq!(
            (code, err),
            (Some(3), format!("Error: {f}: not a regular file\n")),
            "{args:?}"
        );
    }
    // No hosts given and no fleet.json beside the credential: a usage error.
    let creds = outside.path().join("a.nk");
    let (code, err) = run_bounded(
        s,
        &[
            "fleet",
            "init",
            "--nats",
            "nats://127.0.0.1:1",
            "--creds",
            creds.to_str().unwrap(),
        ],
        limit,
    );
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(
        err.replace(outside.path().to_str().unwrap(), "[DIR]"),
        "Error: [DIR]/fleet.json: not found: pass --hosts, or give the --creds that `dsh-agents fleet config --out DIR` wrote beside it\n"
    );
    // A session log that is a FIFO anywhere in the store.
    let store = StoreBuilder::new("fifo-log").root("root").build();
    let dir = store.path().join("_no-cwd/kid");
    std::fs::create_dir_all(&dir).unwrap();
    mkfifo(&dir.join("session.jsonl"));
    for args in [
        &["list-agents"][..],
        &["--contract", "v1", "list-agents", "--as", "root"],
        &["check"],
        &["followup", "kid", "x"],
    ] {
        let (code, err) = run_bounded(store.path(), args, limit);
        assert_eq!(code, Some(3), "{args:?}: {err}");
        assert!(
            err.contains("kid/session.jsonl") || args == ["check"],
            "{args:?}: {err}"
        );
    }
    // A command addressing another session by id reads only that one's
    // ancestry: the FIFO elsewhere neither hangs nor fails it.
    let (code, err) = run_bounded(store.path(), &["followup", "root", "x"], limit);
    assert_eq!(code, Some(0), "{err}");
}

/// A sparse file: a header line, then `len` zero bytes with no newline.
fn huge_line_log(dir: &Path, header: &Value, len: u64) {
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join("session.jsonl");
    std::fs::write(&path, format!("{header}\n")).unwrap();
    let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    let start = f.metadata().unwrap().len();
    f.set_len(start + len).unwrap();
}

#[test]
fn a_line_far_over_the_cap_is_malformed_input_not_a_crash() {
    let store = StoreBuilder::new("huge")
        .root("root")
        .child("kid", 2, "root", "Kid")
        .build();
    let kid = store.path().join("_no-cwd/kid");
    // A torn 256 MiB tail after the descriptor.
    let mut body = std::fs::read(kid.join("session.jsonl")).unwrap();
    body.extend(std::iter::repeat_n(b'x', 1 << 10));
    std::fs::write(kid.join("session.jsonl"), &body).unwrap();
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(kid.join("session.jsonl"))
        .unwrap();
    f.set_len(body.len() as u64 + (1 << 28)).unwrap();
    let r = run_in(
        store.path(),
        &["--contract", "v1", "list-agents", "--as", "root"],
    );
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (0, "kid [ready] — Kid\n"),
        "{}",
        r.stderr
    );
    // A 256 MiB header line: the session is skipped, check says why.
    huge_line_log(
        &store.path().join("_no-cwd/big"),
        &fixture::root("big", 9),
        0,
    );
    let big = store.path().join("_no-cwd/big/session.jsonl");
    std::fs::write(&big, b"{\"type\":\"session\"").unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&big)
        .unwrap()
        .set_len(1 << 28)
        .unwrap();
    let mut f = std::fs::OpenOptions::new().append(true).open(&big).unwrap();
    std::io::Write::write_all(&mut f, b"\n").unwrap();
    let r = run_in(store.path(), &["check"]);
    assert_eq!(r.code, 3);
    assert!(
        r.stdout
            .contains("big/session.jsonl\": header line is longer than the 1 MiB header cap"),
        "{}",
        r.stdout
    );
    // A 256 MiB inbox line is not a record.
    let inbox = kid.join("inbox.jsonl");
    std::fs::write(&inbox, b"").unwrap();
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(&inbox)
        .unwrap();
    f.set_len(1 << 28).unwrap();
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&inbox)
        .unwrap();
    std::io::Write::write_all(&mut f, b"\n").unwrap();
    let r = run_in(store.path(), &["--json", "inbox", "kid"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("\"nextTurn\":[]"), "{}", r.stdout);
}

#[test]
fn message_ids_are_unique_across_the_inbox() {
    let store = team();
    let s = store.path();
    let id_of = |out: &str| -> String {
        serde_json::from_str::<Value>(out).unwrap()["messageId"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let r = run_in(s, &["--json", "followup", "rev-0001", "first"]);
    let auto = id_of(&r.stdout);
    // Re-sending with an id an automatic send received is refused.
    let r = run_in(s, &["followup", "rev-0001", "second", "--id", &auto]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("was already sent with a different message (inbox record 1)"),
        "{}",
        r.stderr
    );
    // The same body under the same id is the same receipt.
    let r = run_in(
        s,
        &["--json", "followup", "rev-0001", "first", "--id", &auto],
    );
    assert_eq!((r.code, id_of(&r.stdout)), (0, auto.clone()));
    // A claim that names an id before any message has it.
    let inbox = s.join("_no-cwd/rev-0001/inbox.jsonl");
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&inbox)
        .unwrap();
    std::io::Write::write_all(
        &mut f,
        b"{\"type\":\"claim\",\"time\":1,\"ids\":[\"ghost\"]}\n",
    )
    .unwrap();
    let r = run_in(s, &["followup", "rev-0001", "boo", "--id", "ghost"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("message id \"ghost\" is already used by inbox record 2"),
        "{}",
        r.stderr
    );
    let records = std::fs::read_to_string(&inbox).unwrap();
    assert_eq!(records.lines().count(), 2, "nothing written: {records}");
}

#[test]
fn caches_only_skip_work() {
    let store = team();
    let s = store.path();
    let dir = s.join("_no-cwd/rev-0001");
    run_in(s, &["followup", "rev-0001", "one"]);
    // A state with the right size but a wrong count is not believed.
    let state: Value =
        serde_json::from_slice(&std::fs::read(dir.join("inbox.state")).unwrap()).unwrap();
    let mut forged = state.clone();
    forged["pending"] = serde_json::json!(5);
    forged["tail"] = serde_json::json!(1);
    std::fs::write(dir.join("inbox.state"), forged.to_string()).unwrap();
    let r = run_in(s, &["--max-pending", "2", "followup", "rev-0001", "two"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let r = run_in(s, &["--max-pending", "2", "followup", "rev-0001", "three"]);
    assert_eq!(r.code, 1, "the bound holds: {}", r.stderr);
    // A record the fold rejects does not count against admission.
    let stp = s.join("_no-cwd/chk-0001/inbox.jsonl");
    std::fs::write(
        &stp,
        "{\"type\":\"message\",\"id\":\"x\",\"time\":1,\"target\":\"elsewhere\",\"source\":{},\"content\":[]}\n",
    )
    .unwrap();
    let r = run_in(s, &["--max-pending", "1", "followup", "chk-0001", "fits"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    // A scan cache claiming a one-shot child is continuable changes nothing.
    let one = StoreBuilder::new("oneshot")
        .root("root")
        .session(
            "kid",
            &[
                fixture::child("kid", 2, "root"),
                serde_json::json!({"type":"subagent/descriptor","seq":0,"time":1,"data":{"version":2,"mode":"one-shot","provider":"spawn"}}),
            ],
        )
        .build();
    let kid = one.path().join("_no-cwd/kid");
    let log_len = std::fs::metadata(kid.join("session.jsonl")).unwrap().len();
    let r = run_in(
        one.path(),
        &[
            "--contract",
            "v1",
            "send-message",
            "kid",
            "x",
            "--as",
            "root",
        ],
    );
    assert_eq!(r.code, 1);
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(kid.join("session.jsonl")).unwrap();
    let header = std::fs::read_to_string(kid.join("session.jsonl"))
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_string();
    let lie = serde_json::json!({
        "dev": meta.dev(), "ino": meta.ino(), "offset": log_len, "header": header,
        "encoding_zstd": false, "count": 1, "line_no": 1,
        "rc8": {"mode":"Continuable","label":"x"}, "seed001": {"mode":"Continuable","label":"x"},
        "open_turn": false, "last_turn": 0,
        "own_descriptor": {"Ok": {"mode":"Continuable","label":"x"}}, "tail_hash": 7
    });
    std::fs::write(kid.join("scan.cache"), lie.to_string()).unwrap();
    let r = run_in(
        one.path(),
        &[
            "--contract",
            "v1",
            "send-message",
            "kid",
            "x",
            "--as",
            "root",
        ],
    );
    assert_eq!(
        r.code, 1,
        "a lying cache does not let a one-shot child take a message"
    );
    assert!(!kid.join("inbox.jsonl").exists());
}

#[test]
fn compaction_keeps_answers_and_drops_history() {
    let store = team();
    let s = store.path();
    let dir = s.join("_no-cwd/rev-0001");
    let big = "y".repeat(5000);
    for i in 0..100 {
        run_in(s, &["steer", "rev-0001", &format!("{i} {big}")]);
    }
    run_in(s, &["steer", "rev-0001", "keyed", "--id", "k-1"]);
    // One claim takes all next-step input; the history then dominates.
    run_in(s, &["claim", "--as", "rev-0001"]);
    run_in(s, &["followup", "rev-0001", "left pending"]);
    run_in(s, &["steer", "rev-0001", "steered"]);
    // Only a live target takes an interrupt: hold its live lock meanwhile.
    let live = std::fs::File::create(dir.join("live.lock")).unwrap();
    live.lock().unwrap();
    run_in(s, &["interrupt", "rev-0001"]);
    live.unlock().unwrap();
    let before_claim = std::fs::metadata(dir.join("inbox.jsonl")).unwrap().len();
    let records = std::fs::read_to_string(dir.join("inbox.jsonl")).unwrap();
    let messages = records.matches("\"type\":\"message\"").count();
    assert!(
        before_claim < 256 * 1024 && messages < 10,
        "history was compacted away: {before_claim} bytes, {messages} messages"
    );
    let r = run_in(s, &["inbox", "rev-0001"]);
    assert!(
        r.stdout
            .starts_with("next-step: 1 pending\nnext-turn: 1 pending (parked by an interrupt)"),
        "{}",
        r.stdout
    );
    // The keyed message, long consumed, is still a duplicate.
    let r = run_in(s, &["--json", "steer", "rev-0001", "keyed", "--id", "k-1"]);
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (0, "{\"messageId\":\"k-1\"}\n"),
        "{}",
        r.stderr
    );
    let r = run_in(s, &["check"]);
    assert!(!r.stdout.contains("rev-0001"), "{}", r.stdout);
}

#[test]
fn a_serving_agent_rides_out_a_stuck_writer() {
    let store = team();
    let s = store.path();
    // A sender that holds the inbox lock forever (until killed).
    let mut holder = crate::common::reaped(
        Command::new(assert_cmd::cargo::cargo_bin!("dsh-agents"))
            .args([
                "--store",
                s.to_str().unwrap(),
                "followup",
                "rev-0001",
                "held",
            ])
            .env("DSH_AGENTS_FAULT", "hold-lock")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .spawn()
            .unwrap(),
    );
    wait_until_locked(&s.join("_no-cwd/rev-0001/inbox.lock"));
    // A message is waiting before serve starts, so serve needs the lock
    // (with nothing runnable, `--once` would end at once).
    let inbox = s.join("_no-cwd/rev-0001/inbox.jsonl");
    std::fs::write(
        &inbox,
        "{\"type\":\"message\",\"id\":\"m1\",\"time\":1,\"target\":\"next-turn\",\"source\":{\"kind\":\"user\"},\"content\":[{\"type\":\"text\",\"text\":\"waiting\"}]}\n",
    )
    .unwrap();
    let mut serve = crate::common::reaped(
        Command::new(assert_cmd::cargo::cargo_bin!("dsh-agents"))
            .args([
                "--store",
                s.to_str().unwrap(),
                "--lock-timeout",
                "0.2",
                "serve",
                "--as",
                "rev-0001",
                "--once",
                "--",
                "true",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    std::thread::sleep(Duration::from_millis(1500));
    assert!(serve.try_wait().unwrap().is_none(), "serve kept running");
    holder.kill().unwrap();
    holder.wait().unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(st) = serve.try_wait().unwrap() {
            break st;
        }
        assert!(
            Instant::now() < deadline,
            "serve finished after the writer died"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut err = String::new();
    std::io::Read::read_to_string(serve.stderr.as_mut().unwrap(), &mut err).unwrap();
    assert_eq!(status.code(), Some(0), "{err}");
    assert!(
        err.contains("waiting for the lock on") && err.contains("retrying"),
        "{err}"
    );
    let log = std::fs::read_to_string(s.join("_no-cwd/rev-0001/session.jsonl")).unwrap();
    assert!(log.contains("\"waiting\""), "the message ran");
}

#[test]
fn a_wait_sees_a_same_length_replacement() {
    let store = team();
    let s = store.path();
    let inbox = s.join("_no-cwd/rev-0001/inbox.jsonl");
    let record = |id: &str| {
        format!(
            "{{\"type\":\"message\",\"id\":\"{id}\",\"time\":1,\"target\":\"next-turn\",\"source\":{{\"kind\":\"user\"}},\"content\":[]}}\n"
        )
    };
    std::fs::write(&inbox, record("aaaa")).unwrap();
    let wait = crate::common::reaped(
        Command::new(assert_cmd::cargo::cargo_bin!("dsh-agents"))
            .args([
                "--store",
                s.to_str().unwrap(),
                "wait-agent",
                "--as",
                "rev-0001",
                "--timeout-ms",
                "120000",
                "--poll",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    std::thread::sleep(Duration::from_millis(400));
    // Same length, now next-step input.
    let replaced = record("bbbb").replace("next-turn", "next-step");
    assert_eq!(replaced.len(), record("aaaa").len());
    std::fs::write(&inbox, replaced).unwrap();
    // Not timed out: it woke on the change.
    let out = wait.wait_with_output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "{\"timedOut\":false}\n"
    );
}

#[test]
fn an_error_on_a_full_stderr_is_not_a_panic() {
    let store = team();
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let status = Command::new(assert_cmd::cargo::cargo_bin!("dsh-agents"))
        .args([
            "--store",
            store.path().to_str().unwrap(),
            "list-agents",
            "--as",
            "nobody",
        ])
        .stdout(Stdio::null())
        .stderr(full)
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(2));
}

#[test]
fn two_waits_under_one_call_agree_with_and_without_notification() {
    let modes: Vec<std::thread::JoinHandle<(String, String)>> = [false, true]
        .into_iter()
        .map(|poll| {
            std::thread::spawn(move || {
                let store = team();
                let s = store.path();
                run_in(s, &["steer", "rev-0001", "hi"]);
                let wait = || {
                    let mut args = vec![
                        "wait-agent",
                        "--as",
                        "rev-0001",
                        "--call",
                        "c1",
                        "--timeout-ms",
                        "10000",
                    ];
                    if poll {
                        args.push("--poll");
                    }
                    run_in(s, &args).stdout
                };
                (wait(), wait())
            })
        })
        .collect();
    for (k, m) in modes.into_iter().enumerate() {
        let (first, second) = m.join().unwrap();
        assert_eq!(
            (first.as_str(), second.as_str()),
            ("{\"timedOut\":false}\n", "{\"timedOut\":true}\n"),
            "mode {k}"
        );
    }
}

/// Keyed history no longer keeps an inbox large: compaction moves consumed
/// keyed messages to `inbox.keyed.jsonl`, and a retried send is still told
/// apart exactly (same message: a duplicate; another: refused).
#[test]
fn compaction_moves_keyed_history_out_and_retries_still_match() {
    let store = team();
    let s = store.path();
    let dir = s.join("_no-cwd/rev-0001");
    let big = "k".repeat(5000);
    for i in 0..100 {
        let r = run_in(
            s,
            &[
                "steer",
                "rev-0001",
                &format!("{i} {big}"),
                "--id",
                &format!("key-{i}"),
            ],
        );
        assert_eq!(r.code, 0, "{}", r.stderr);
    }
    let before = std::fs::metadata(dir.join("inbox.jsonl")).unwrap().len();
    assert!(before > 256 * 1024, "{before}");
    // One claim takes all next-step input; the history then dominates.
    let r = run_in(s, &["claim", "--as", "rev-0001"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let after = std::fs::metadata(dir.join("inbox.jsonl")).unwrap().len();
    assert!(
        after < 64 * 1024,
        "keyed history stayed in the inbox: {after} bytes"
    );
    let archive = std::fs::read_to_string(dir.join("inbox.keyed.jsonl")).unwrap();
    assert!(
        archive.matches("\"type\":\"message\"").count() >= 90,
        "{}",
        archive.len()
    );
    let mut refusals = String::new();
    for i in [0, 50, 99] {
        let text = format!("{i} {big}");
        let id = format!("key-{i}");
        let r = run_in(s, &["--json", "steer", "rev-0001", &text, "--id", &id]);
        assert_eq!(
            (r.code, r.stdout.clone()),
            (0, format!("{{\"messageId\":\"{id}\"}}\n")),
            "{}",
            r.stderr
        );
        let args = ["steer", "rev-0001", "something else", "--id", &id];
        refusals.push_str(&run_in(s, &args).blob(&args));
    }
    crate::common::snapshot_settings(Some(s)).bind(|| insta::assert_snapshot!(refusals, @r#"
        $ dsh-agents steer rev-0001 something else --id key-0
        --- stderr
        Error: message id "key-0" was already sent with a different message (kept in inbox.keyed.jsonl); nothing was written
        --- exit: 2
        $ dsh-agents steer rev-0001 something else --id key-50
        --- stderr
        Error: message id "key-50" was already sent with a different message (kept in inbox.keyed.jsonl); nothing was written
        --- exit: 2
        $ dsh-agents steer rev-0001 something else --id key-99
        --- stderr
        Error: message id "key-99" was already sent with a different message (kept in inbox.keyed.jsonl); nothing was written
        --- exit: 2
    "#));
    // Nothing was appended by the retries: nothing pending.
    let nothing_pending = assert_at!(s, &["inbox", "rev-0001"], @r#"
        $ dsh-agents inbox rev-0001
        next-step: 0 pending
        next-turn: 0 pending
        DSH's own inbox (in the log): next-step 0, next-turn 0 pending
        --- stderr
        --- exit: 0
    "#);
    // A key index that lies (the archived key's line removed) skips a
    // scan but never changes an answer: the retry is still a duplicate.
    let keys = std::fs::read_to_string(dir.join("inbox.keys")).unwrap();
    let lied: String = keys
        .lines()
        .filter(|l| !l.ends_with("\tkey-7"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_ne!(lied, keys, "the index named key-7");
    std::fs::write(dir.join("inbox.keys"), lied).unwrap();
    let inbox_before = std::fs::read(dir.join("inbox.jsonl")).unwrap();
    let r = run_in(
        s,
        &[
            "--json",
            "steer",
            "rev-0001",
            &format!("7 {big}"),
            "--id",
            "key-7",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        std::fs::read(dir.join("inbox.jsonl")).unwrap() == inbox_before,
        "the retry wrote a second record"
    );
    let again = run_in(s, &["inbox", "rev-0001"]);
    assert_eq!(
        again.blob(&["inbox", "rev-0001"]),
        nothing_pending.blob(&["inbox", "rev-0001"])
    );
    let r = run_in(s, &["steer", "rev-0001", "new", "--id", "key-100"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

/// A queue drained one turn at a time after a burst is compacted too: the
/// survey that found the burst pending looks again once half of it is
/// consumed, though the inbox no longer grows.
#[test]
fn an_inbox_drained_after_a_burst_is_compacted() {
    let store = team();
    let s = store.path();
    let dir = s.join("_no-cwd/rev-0001");
    let big = "d".repeat(2000);
    for i in 0..150 {
        let r = run_in(s, &["followup", "rev-0001", &format!("{i} {big}")]);
        assert_eq!(r.code, 0, "{}", r.stderr);
    }
    let before = std::fs::metadata(dir.join("inbox.jsonl")).unwrap().len();
    assert!(before > 256 * 1024, "{before}");
    for _ in 0..150 {
        let r = run_in(s, &["claim", "--as", "rev-0001"]);
        assert_eq!(r.code, 0, "{}", r.stderr);
    }
    let after = std::fs::metadata(dir.join("inbox.jsonl")).unwrap().len();
    // Once compacted, what stays is under the size compaction starts at.
    assert!(
        after < before / 2,
        "never compacted: {before} -> {after} bytes"
    );
    assert_at!(s, &["inbox", "rev-0001"], @r#"
        $ dsh-agents inbox rev-0001
        next-step: 0 pending
        next-turn: 0 pending
        DSH's own inbox (in the log): next-step 0, next-turn 0 pending
        --- stderr
        --- exit: 0
    "#);
}

#[test]
fn a_refused_command_leaves_the_store_byte_for_byte_unchanged() {
    let store = team();
    let s = store.path();
    let before = snapshot(s);
    // (args, exit status): each is refused.
    let table: &[(&[&str], i32)] = &[
        (&["cancel", "no-such-message", "--to", "reviewer"], 2),
        (&["--max-pending", "0", "followup", "reviewer", "hello"], 1),
        (
            &[
                "--max-pending",
                "0",
                "send-message",
                "--as",
                "lead-1",
                "reviewer",
                "hello",
            ],
            1,
        ),
        (&["interrupt", "reviewer"], 1),
        (&["interrupt-agent", "reviwer", "--as", "lead-1"], 1),
    ];
    for (args, code) in table {
        let r = run_in(s, args);
        assert_eq!(r.code, *code, "{args:?}: {}{}", r.stdout, r.stderr);
        assert!(snapshot(s) == before, "{args:?} changed the store");
    }
}

#[test]
fn concurrent_waits_under_one_call_report_a_steer_once() {
    // Six waits of one root call block together; one steer arrives. Each
    // id is reported once per call: one wait returns, the others time out.
    let store = team();
    let s = store.path().to_path_buf();
    let waits: Vec<std::thread::JoinHandle<String>> = (0..6)
        .map(|_| {
            let s = s.clone();
            std::thread::spawn(move || {
                run_in(
                    &s,
                    &[
                        "wait-agent",
                        "--as",
                        "rev-0001",
                        "--call",
                        "c-race",
                        "--timeout-ms",
                        "10000",
                    ],
                )
                .stdout
            })
        })
        .collect();
    // Every wait has read the inbox once it holds a watch; a wait that
    // starts after the steer reports it at once, which is the same race.
    std::thread::sleep(Duration::from_millis(300));
    let r = run_in(&s, &["steer", "rev-0001", "one steer"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let out: Vec<String> = waits.into_iter().map(|w| w.join().unwrap()).collect();
    let reported = out
        .iter()
        .filter(|o| o.contains("\"timedOut\":false"))
        .count();
    assert_eq!(reported, 1, "{out:?}");
}

#[test]
fn temporary_files_a_killed_writer_left_are_removed_by_the_next_holder() {
    let store = team();
    let s = store.path();
    let dir = s.join("_no-cwd/rev-0001");
    let planted = [
        "inbox.state.0123456789ab.tmp",
        "inbox.handing.ba9876543210.tmp",
        "live.json.a1b2c3d4e5f6.tmp",
    ];
    for p in planted {
        std::fs::write(dir.join(p), b"{").unwrap();
    }
    // Not a leftover of ours: kept.
    std::fs::write(dir.join("inbox.state.notes.tmp"), b"mine").unwrap();
    // `check` names them (a warning: nothing is lost), and names no other.
    let r = run_in(s, &["--json", "check"]);
    let findings: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let left: Vec<&serde_json::Value> = findings
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "leftover-temp")
        .collect();
    assert_eq!(left.len(), 1, "{}", r.stdout);
    let said = left[0]["message"].as_str().unwrap();
    for p in planted {
        assert!(said.contains(p), "{said}");
    }
    assert!(!said.contains("notes"), "{said}");
    let r = run_in(s, &["followup", "rev-0001", "hello"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!dir.join(planted[0]).exists() && !dir.join(planted[1]).exists());
    assert!(
        dir.join(planted[2]).exists(),
        "live.json is not the inbox lock's"
    );
    let r = run_in(
        s,
        &[
            "serve", "--as", "rev-0001", "--once", "--quiet", "--", "true",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!dir.join(planted[2]).exists());
    assert!(dir.join("inbox.state.notes.tmp").exists());
}
