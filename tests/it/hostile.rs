//! The hostile-store suite: small stores built by the test, each with its
//! exact outcome (output or error text), no panic, and nothing written
//! outside the store.

use crate::common::{TempDir, fixture, run, run_unprivileged, snapshot, write_log};
use dsh_agents::formats::encode_frame;

fn root() -> String {
    fixture::root("root", 1).to_string()
}

fn child_header(id: &str, created: u64) -> String {
    fixture::child(id, created, "root").to_string()
}

fn descriptor(seq: u64, label: &str) -> String {
    fixture::descriptor(seq, label).to_string()
}

fn lists(store: &TempDir) -> (String, String) {
    let s = store.path().to_str().unwrap();
    let v1 = run([
        "--contract",
        "v1",
        "--store",
        s,
        "list-agents",
        "--as",
        "root",
    ]);
    let v2 = run(["--store", s, "list-agents", "--as", "root"]);
    for r in [&v1, &v2] {
        assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
    }
    (v1.stdout + &v1.stderr, v2.stdout + &v2.stderr)
}

fn base() -> TempDir {
    let t = crate::common::temp_dir("hostile");
    write_log(t.path(), "_no-cwd", "root", &[root()]);
    t
}

#[test]
fn a_header_that_is_not_first_is_skipped() {
    let t = base();
    write_log(
        t.path(),
        "_no-cwd",
        "late",
        &[&descriptor(0, "x"), &child_header("late", 2)],
    );
    let before = snapshot(t.path());
    assert_eq!(
        lists(&t),
        (
            "(no subagents)\n".into(),
            "lead [inactive] — root agent\n".into()
        )
    );
    assert_at!(t.path(), &["check"], @r#"
        $ dsh-agents check
        warning: [STORE]/_no-cwd/late/session.jsonl: corrupt session log "[STORE]/_no-cwd/late/session.jsonl": first line is not a session header ("type" is not "session"); DSH skips it
        1 problem(s) in 1 sessions
        --- stderr
        --- exit: 3
    "#);
    assert!(before == snapshot(t.path()));
}

#[test]
fn a_foreign_version_lists_but_is_unavailable() {
    let t = base();
    let header = child_header("future", 2).replace(r#""version":0"#, r#""version":4"#);
    write_log(
        t.path(),
        "_no-cwd",
        "future",
        &[&header, &descriptor(0, "From the future")],
    );
    assert_eq!(
        lists(&t),
        (
            "future [diagnostic: unavailable]\n".into(),
            "lead [inactive] — root agent\nfuture [unavailable]\n".into()
        )
    );
}

fn zstd_child(t: &TempDir, id: &str, created: u64, frames: &[Vec<u8>]) {
    let d = t.path().join("_no-cwd").join(id);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("session.jsonl.zstd"), frames.concat()).unwrap();
    let _ = created;
}

fn zstd_base() -> TempDir {
    let t = crate::common::temp_dir("hostile-zstd");
    let d = t.path().join("_no-cwd/root");
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(
        d.join("session.jsonl.zstd"),
        encode_frame(format!("{}\n", root()).as_bytes()).unwrap(),
    )
    .unwrap();
    t
}

#[test]
fn a_truncated_zstd_frame_is_a_torn_tail() {
    let t = zstd_base();
    let header = encode_frame(format!("{}\n", child_header("torn", 2)).as_bytes()).unwrap();
    let body = encode_frame(format!("{}\n", descriptor(0, "Torn but fine")).as_bytes()).unwrap();
    let mut late =
        encode_frame(b"{\"type\":\"turn/start\",\"seq\":1,\"time\":1,\"data\":{\"turn\":1}}\n")
            .unwrap();
    late.truncate(late.len() - 3);
    zstd_child(&t, "torn", 2, &[header, body, late]);
    assert_eq!(
        lists(&t),
        (
            "torn [ready] — Torn but fine\n".into(),
            "lead [inactive] — root agent\ntorn [inactive] — Torn but fine\n".into()
        )
    );
}

#[test]
fn a_zstd_frame_with_a_bad_checksum_is_unavailable() {
    let t = zstd_base();
    let header = encode_frame(format!("{}\n", child_header("bad", 2)).as_bytes()).unwrap();
    let mut body = encode_frame(format!("{}\n", descriptor(0, "Bad checksum")).as_bytes()).unwrap();
    let n = body.len();
    body[n - 1] ^= 0x55;
    zstd_child(&t, "bad", 2, &[header, body]);
    assert_eq!(
        lists(&t),
        (
            "bad [diagnostic: unavailable]\n".into(),
            "lead [inactive] — root agent\nbad [unavailable]\n".into()
        )
    );
    assert_at!(t.path(), &["check"], @r#"
        $ dsh-agents check
        error: [STORE]/_no-cwd/bad/session.jsonl.zstd: unreadable session log: corrupt Zstandard session log: frame at byte 108 failed validation
        1 problem(s) in 2 sessions
        --- stderr
        --- exit: 3
    "#);
}

#[test]
fn a_zstd_header_frame_that_fails_validation_fails_the_listing() {
    let t = zstd_base();
    let mut header = encode_frame(format!("{}\n", child_header("hdr", 2)).as_bytes()).unwrap();
    let n = header.len();
    header[n - 1] ^= 0x55;
    zstd_child(&t, "hdr", 2, &[header]);
    let (v1, v2) = lists(&t);
    for out in [v1, v2] {
        assert!(
            out.starts_with(
                "Error: corrupt Zstandard session log: header frame failed validation ("
            ),
            "{out}"
        );
        assert!(out.contains("hdr/session.jsonl.zstd)"), "{out}");
    }
}

#[test]
fn ids_with_tilde_and_astral_characters() {
    let t = base();
    for (id, dir, created) in [
        ("~tilde", "~007Etilde", 2),
        ("emoji😀", "emoji~D83D~DE00", 3),
        ("a~b", "a~007Eb", 4),
    ] {
        write_log(
            t.path(),
            "_no-cwd",
            dir,
            &[&child_header(id, created), &descriptor(0, id)],
        );
    }
    assert_eq!(
        lists(&t).0,
        "~tilde [ready] — ~tilde\nemoji😀 [ready] — emoji😀\na~b [ready] — a~b\n"
    );
    // The same id at an unescaped path is an identity mismatch.
    write_log(t.path(), "_no-cwd", "~bad", &[&child_header("~bad", 5)]);
    let (v1, _) = lists(&t);
    assert!(
        v1.contains("header id \"~bad\" and cwd identify") && v1.contains("~007Ebad/session.jsonl"),
        "{v1}"
    );
}

#[test]
fn logs_that_are_not_files_fail_the_listing_naming_each_once() {
    // A directory, a FIFO (never opened for reading: that would hang) and a
    // dangling link where a session log should be.
    let t = base();
    let dir = t.path().join("_no-cwd");
    std::fs::create_dir_all(dir.join("dir/session.jsonl")).unwrap();
    std::fs::create_dir_all(dir.join("fifo")).unwrap();
    crate::common::mkfifo(&dir.join("fifo/session.jsonl"));
    std::fs::create_dir_all(dir.join("link")).unwrap();
    std::os::unix::fs::symlink("/nonexistent", dir.join("link/session.jsonl")).unwrap();
    let before = snapshot(t.path());
    assert_each_at!(
        t.path(),
        &[
            &["--contract", "v1", "list-agents", "--as", "root"],
            &["tree"],
            &["check"],
        ],
        @r#"
            $ dsh-agents --contract v1 list-agents --as root
            --- stderr
            Error: cannot read session log "[STORE]/_no-cwd/dir/session.jsonl": is a directory, not a file
            --- exit: 3
            $ dsh-agents tree
            --- stderr
            Error: cannot read session log "[STORE]/_no-cwd/dir/session.jsonl": is a directory, not a file
            --- exit: 3
            $ dsh-agents check
            error: [STORE]/_no-cwd/dir/session.jsonl: cannot read session log "[STORE]/_no-cwd/dir/session.jsonl": is a directory, not a file
            error: [STORE]/_no-cwd/fifo/session.jsonl: cannot read session log "[STORE]/_no-cwd/fifo/session.jsonl": not a regular file
            error: [STORE]/_no-cwd/link/session.jsonl: cannot read session log "[STORE]/_no-cwd/link/session.jsonl": No such file or directory (os error 2)
            3 problem(s) in 1 sessions
            --- stderr
            --- exit: 3
        "#
    );
    assert_eq!(snapshot(t.path()), before);
}

#[test]
fn sidecars_that_are_directories_are_clear_errors() {
    let t = base();
    write_log(
        t.path(),
        "_no-cwd",
        "kid",
        &[&child_header("kid", 2), &descriptor(0, "Kid")],
    );
    std::fs::create_dir_all(t.path().join("_no-cwd/kid/inbox.lock")).unwrap();
    let before = snapshot(t.path());
    assert_at!(t.path(), &["followup", "kid", "x"], @r#"
        $ dsh-agents followup kid x
        --- stderr
        Error: [STORE]/_no-cwd/kid/inbox.lock: is a directory, not a file
        --- exit: 3
    "#);
    assert!(before == snapshot(t.path()), "nothing written");
}

#[test]
fn a_session_directory_linked_outside_the_store_is_never_written() {
    let t = base();
    let outside = crate::common::temp_dir("outside-target");
    write_log(
        outside.path(),
        "x",
        "evil",
        &[&child_header("evil", 2), &descriptor(0, "Evil")],
    );
    std::os::unix::fs::symlink(outside.path().join("x/evil"), t.path().join("_no-cwd/evil"))
        .unwrap();
    let before = snapshot(outside.path());
    let s = t.path().to_str().unwrap();
    assert_eq!(
        lists(&t).0,
        "(no subagents)\n",
        "DSH lists only real directories"
    );
    for args in [
        vec!["followup", "evil", "x"],
        vec!["send-message", "evil", "x", "--as", "root"],
        vec!["spawn", "--parent", "evil"],
    ] {
        let mut argv = vec!["--store", s];
        argv.extend(args.iter().copied());
        let r = run(&argv);
        assert_ne!(r.code, 0, "{args:?}");
    }
    assert!(
        before == snapshot(outside.path()),
        "nothing written outside the store"
    );
}

fn open_up(dir: &std::path::Path) {
    use std::os::unix::fs::PermissionsExt;
    for entry in walk(dir) {
        let mode = if entry.is_dir() { 0o755 } else { 0o644 };
        std::fs::set_permissions(&entry, std::fs::Permissions::from_mode(mode)).unwrap();
    }
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = vec![dir.to_path_buf()];
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn permission_faults_are_clear_errors_that_change_nothing() {
    use std::os::unix::fs::PermissionsExt;
    let t = base();
    write_log(
        t.path(),
        "_no-cwd",
        "kid",
        &[&child_header("kid", 2), &descriptor(0, "Kid")],
    );
    write_log(
        t.path(),
        "_no-cwd",
        "locked",
        &[&child_header("locked", 3), &descriptor(0, "Locked")],
    );
    std::fs::write(t.path().join("_no-cwd/kid/inbox.lock"), "").unwrap();
    open_up(t.path());
    let s = t.path().to_str().unwrap();
    // A lock file the caller may not write: the send fails naming it.
    std::fs::set_permissions(
        t.path().join("_no-cwd/kid/inbox.lock"),
        std::fs::Permissions::from_mode(0o444),
    )
    .unwrap();
    let before = snapshot(t.path());
    let r = run_unprivileged(&["--store", s, "followup", "kid", "x"]);
    assert_eq!(r.code, 3, "{}", r.stderr);
    assert!(
        r.stderr.contains("kid/inbox.lock: Permission denied"),
        "{}",
        r.stderr
    );
    // A log the caller may not read: the listing fails naming it, as DSH's does.
    std::fs::set_permissions(
        t.path().join("_no-cwd/locked/session.jsonl"),
        std::fs::Permissions::from_mode(0o000),
    )
    .unwrap();
    let r = run_unprivileged(&[
        "--contract",
        "v1",
        "--store",
        s,
        "list-agents",
        "--as",
        "root",
    ]);
    assert_eq!(r.code, 3, "{}", r.stdout);
    assert!(
        r.stderr.contains("cannot read session log \"")
            && r.stderr
                .contains("locked/session.jsonl\": Permission denied"),
        "{}",
        r.stderr
    );
    let r = run_unprivileged(&["--store", s, "check"]);
    assert_eq!(r.code, 3);
    assert!(
        r.stdout
            .contains("locked/session.jsonl\": Permission denied"),
        "{}",
        r.stdout
    );
    assert!(before == snapshot(t.path()), "nothing written");
}
