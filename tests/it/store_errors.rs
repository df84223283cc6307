//! Store-level failures and bad input: a clear error naming the path, or a
//! diagnostic row; never a panic; nothing written.

use crate::common::{TempDir, fixture, run, run_unprivileged, snapshot, write_log};
use std::path::Path;

fn root() -> String {
    fixture::root("root", 1).to_string()
}

fn child(id: &str, created: u64, parent: &str, label: &str) -> Vec<String> {
    vec![
        fixture::child(id, created, parent).to_string(),
        fixture::descriptor(0, label).to_string(),
    ]
}

fn store_with_kid() -> TempDir {
    let tmp = crate::common::temp_dir("err");
    write_log(tmp.path(), "_no-cwd", "root", &[root()]);
    let kid = child("kid", 2, "root", "Kid");
    write_log(
        tmp.path(),
        "_no-cwd",
        "kid",
        &kid.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    tmp
}

fn v1(store: &std::path::Path, scope: &str) -> crate::common::Run {
    run([
        "--contract",
        "v1",
        "--store",
        store.to_str().unwrap(),
        "list-agents",
        "--as",
        "root",
        "--scope",
        scope,
    ])
}

/// What both contracts' listings and `check` (text and JSON, with each
/// finding's stable `code`) print on a store with a fatal problem, held to
/// one inline snapshot; nothing written.
macro_rules! assert_store_error {
    ($tmp:expr, @$want:literal) => {{
        let tmp: &TempDir = $tmp;
        let before = snapshot(tmp.path());
        assert_each_at!(tmp.path(), &[
            &["--contract", "v1", "list-agents", "--as", "root"],
            &["--contract", "v2", "list-agents", "--as", "root"],
            &["check"],
            &["--json", "check"],
        ], @$want);
        assert!(before == snapshot(tmp.path()), "nothing written");
    }};
}

#[test]
fn flat_file_artifact_fails_the_listing() {
    let tmp = store_with_kid();
    std::fs::write(tmp.path().join("_no-cwd/old.jsonl"), root()).unwrap();
    assert_store_error!(&tmp, @r#"
        $ dsh-agents --contract v1 list-agents --as root
        --- stderr
        Error: session artifact "[STORE]/_no-cwd/old.jsonl" uses the unsupported flat-file layout; use a separate root or move it into a project/session directory before loading
        --- exit: 3
        $ dsh-agents --contract v2 list-agents --as root
        --- stderr
        Error: session artifact "[STORE]/_no-cwd/old.jsonl" uses the unsupported flat-file layout; use a separate root or move it into a project/session directory before loading
        --- exit: 3
        $ dsh-agents check
        error: [STORE]/_no-cwd/old.jsonl: session artifact "[STORE]/_no-cwd/old.jsonl" uses the unsupported flat-file layout; use a separate root or move it into a project/session directory before loading
        1 problem(s) in 2 sessions
        --- stderr
        --- exit: 3
        $ dsh-agents --json check
        [{"severity":"error","code":"flat-file-layout","path":"[STORE]/_no-cwd/old.jsonl","message":"session artifact \"[STORE]/_no-cwd/old.jsonl\" uses the unsupported flat-file layout; use a separate root or move it into a project/session directory before loading"}]
        --- stderr
        --- exit: 3
    "#);
}

#[test]
fn duplicate_id_fails_the_listing() {
    let tmp = store_with_kid();
    let mut kid = child("kid", 2, "root", "Kid");
    kid[0] = kid[0].replace(r#""createdAt":2,"#, r#""createdAt":2,"cwd":"/elsewhere","#);
    write_log(
        tmp.path(),
        "--elsewhere--",
        "kid",
        &kid.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    assert_store_error!(&tmp, @r#"
        $ dsh-agents --contract v1 list-agents --as root
        --- stderr
        Error: duplicate JSONL session id "kid" appears in multiple project directories
        --- exit: 3
        $ dsh-agents --contract v2 list-agents --as root
        --- stderr
        Error: duplicate JSONL session id "kid" appears in multiple project directories
        --- exit: 3
        $ dsh-agents check
        error: [STORE]/_no-cwd/kid/session.jsonl: duplicate JSONL session id "kid" appears in multiple project directories
        1 problem(s) in 2 sessions
        --- stderr
        --- exit: 3
        $ dsh-agents --json check
        [{"severity":"error","code":"duplicate-id","path":"[STORE]/_no-cwd/kid/session.jsonl","message":"duplicate JSONL session id \"kid\" appears in multiple project directories"}]
        --- stderr
        --- exit: 3
    "#);
}

#[test]
fn path_identity_mismatch_fails_the_listing() {
    let tmp = store_with_kid();
    let kid = child("other", 2, "root", "Moved");
    write_log(
        tmp.path(),
        "_no-cwd",
        "moved",
        &kid.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    assert_store_error!(&tmp, @r#"
        $ dsh-agents --contract v1 list-agents --as root
        --- stderr
        Error: corrupt session log "[STORE]/_no-cwd/moved/session.jsonl": header id "other" and cwd identify "[STORE]/_no-cwd/other/session.jsonl"
        --- exit: 3
        $ dsh-agents --contract v2 list-agents --as root
        --- stderr
        Error: corrupt session log "[STORE]/_no-cwd/moved/session.jsonl": header id "other" and cwd identify "[STORE]/_no-cwd/other/session.jsonl"
        --- exit: 3
        $ dsh-agents check
        error: [STORE]/_no-cwd/moved/session.jsonl: corrupt session log "[STORE]/_no-cwd/moved/session.jsonl": header id "other" and cwd identify "[STORE]/_no-cwd/other/session.jsonl"
        1 problem(s) in 2 sessions
        --- stderr
        --- exit: 3
        $ dsh-agents --json check
        [{"severity":"error","code":"identity-mismatch","path":"[STORE]/_no-cwd/moved/session.jsonl","message":"corrupt session log \"[STORE]/_no-cwd/moved/session.jsonl\": header id \"other\" and cwd identify \"[STORE]/_no-cwd/other/session.jsonl\""}]
        --- stderr
        --- exit: 3
    "#);
}

#[test]
fn mixed_encodings_fail_the_listing() {
    let tmp = store_with_kid();
    let d = tmp.path().join("_no-cwd/zz");
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("session.jsonl.zstd"), b"").unwrap();
    assert_store_error!(&tmp, @r#"
        $ dsh-agents --contract v1 list-agents --as root
        --- stderr
        Error: session artifact "[STORE]/_no-cwd/zz/session.jsonl.zstd" uses .jsonl.zstd, but this backend is configured for compression "none"; use a separate root or select the matching compression mode
        --- exit: 3
        $ dsh-agents --contract v2 list-agents --as root
        --- stderr
        Error: session artifact "[STORE]/_no-cwd/zz/session.jsonl.zstd" uses .jsonl.zstd, but this backend is configured for compression "none"; use a separate root or select the matching compression mode
        --- exit: 3
        $ dsh-agents check
        error: [STORE]/_no-cwd/zz/session.jsonl.zstd: session artifact "[STORE]/_no-cwd/zz/session.jsonl.zstd" uses .jsonl.zstd, but this backend is configured for compression "none"; use a separate root or select the matching compression mode
        1 problem(s) in 2 sessions
        --- stderr
        --- exit: 3
        $ dsh-agents --json check
        [{"severity":"error","code":"mixed-compression","path":"[STORE]/_no-cwd/zz/session.jsonl.zstd","message":"session artifact \"[STORE]/_no-cwd/zz/session.jsonl.zstd\" uses .jsonl.zstd, but this backend is configured for compression \"none\"; use a separate root or select the matching compression mode"}]
        --- stderr
        --- exit: 3
    "#);
}

#[test]
fn retired_header_fields_fail_the_listing() {
    let tmp = store_with_kid();
    write_log(
        tmp.path(),
        "_no-cwd",
        "old",
        &[
            r#"{"type":"session","version":0,"id":"old","createdAt":1,"delegationDepth":0,"sandboxMode":"x"}"#,
        ],
    );
    assert_store_error!(&tmp, @r#"
        $ dsh-agents --contract v1 list-agents --as root
        --- stderr
        Error: corrupt session log "[STORE]/_no-cwd/old/session.jsonl": session header uses retired policy baseline fields
        --- exit: 3
        $ dsh-agents --contract v2 list-agents --as root
        --- stderr
        Error: corrupt session log "[STORE]/_no-cwd/old/session.jsonl": session header uses retired policy baseline fields
        --- exit: 3
        $ dsh-agents check
        error: [STORE]/_no-cwd/old/session.jsonl: corrupt session log "[STORE]/_no-cwd/old/session.jsonl": session header uses retired policy baseline fields
        1 problem(s) in 2 sessions
        --- stderr
        --- exit: 3
        $ dsh-agents --json check
        [{"severity":"error","code":"retired-header-fields","path":"[STORE]/_no-cwd/old/session.jsonl","message":"corrupt session log \"[STORE]/_no-cwd/old/session.jsonl\": session header uses retired policy baseline fields"}]
        --- stderr
        --- exit: 3
    "#);
}

#[test]
fn malformed_headers_are_skipped_and_reported_by_check() {
    let tmp = store_with_kid();
    write_log(tmp.path(), "_no-cwd", "junk", &["{not json"]);
    write_log(
        tmp.path(),
        "_no-cwd",
        "nohdr",
        &[r#"{"type":"turn/start","seq":0,"time":1,"data":{}}"#],
    );
    std::fs::create_dir_all(tmp.path().join("_no-cwd/bin")).unwrap();
    std::fs::write(
        tmp.path().join("_no-cwd/bin/session.jsonl"),
        [0xff, 0xfe, b'\n', 0x00],
    )
    .unwrap();
    let r = v1(tmp.path(), "children");
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (0, "kid [ready] — Kid\n"),
        "{}",
        r.stderr
    );
    assert_at!(tmp.path(), &["check"], @r#"
        $ dsh-agents check
        warning: [STORE]/_no-cwd/bin/session.jsonl: corrupt session log "[STORE]/_no-cwd/bin/session.jsonl": header line is not valid JSON; DSH skips it
        warning: [STORE]/_no-cwd/junk/session.jsonl: corrupt session log "[STORE]/_no-cwd/junk/session.jsonl": header line is not valid JSON; DSH skips it
        warning: [STORE]/_no-cwd/nohdr/session.jsonl: corrupt session log "[STORE]/_no-cwd/nohdr/session.jsonl": first line is not a session header ("type" is not "session"); DSH skips it
        3 problem(s) in 2 sessions
        --- stderr
        --- exit: 3
    "#);
}

#[test]
fn bad_child_logs_become_diagnostic_rows() {
    let tmp = crate::common::temp_dir("rows");
    write_log(tmp.path(), "_no-cwd", "root", &[root()]);
    let mut huge = child("huge", 2, "root", "Huge line");
    huge.push(format!(
        r#"{{"type":"step/start","seq":1,"time":1,"data":{{"pad":"{}"}}}}"#,
        "x".repeat(50 * 1024 * 1024)
    ));
    write_log(
        tmp.path(),
        "_no-cwd",
        "huge",
        &huge.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    let mut utf8 = child("utf8", 3, "root", "Bad bytes");
    utf8.push(String::new());
    let p = write_log(
        tmp.path(),
        "_no-cwd",
        "utf8",
        &utf8.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    let mut bytes = std::fs::read(&p).unwrap();
    bytes.pop();
    bytes.extend_from_slice(
        b"{\"type\":\"step/start\",\"seq\":1,\"time\":1,\"data\":\"\xff\xfe\"}\n",
    );
    std::fs::write(&p, bytes).unwrap();
    let mut defect = child("defect", 4, "root", "Defect");
    defect.push("{oops".into());
    defect.push(
        r#"{"type":"turn/end","seq":1,"time":1,"data":{"turn":1,"reason":{"kind":"completed"}}}"#
            .into(),
    );
    write_log(
        tmp.path(),
        "_no-cwd",
        "defect",
        &defect.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    let mut torn = child("torn", 5, "root", "Torn tail");
    torn.push("{\"type\":\"turn/start\",\"seq\":1".into());
    let p = write_log(
        tmp.path(),
        "_no-cwd",
        "torn",
        &torn.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    let mut bytes = std::fs::read(&p).unwrap();
    bytes.pop();
    std::fs::write(&p, bytes).unwrap();
    let before = snapshot(tmp.path());
    let r = v1(tmp.path(), "children");
    assert_eq!(
        r.stdout,
        "huge [ready] — Huge line\nutf8 [ready] — Bad bytes\ndefect [diagnostic: unavailable]\ntorn [ready] — Torn tail\n",
        "{}",
        r.stderr
    );
    let r = run(["--store", tmp.path().to_str().unwrap(), "list-agents"]);
    assert_eq!(
        r.stdout,
        "lead [inactive] — root agent\nhuge [inactive] — Huge line\nutf8 [inactive] — Bad bytes\ndefect [unavailable]\ntorn [inactive] — Torn tail\n",
        "{}",
        r.stderr
    );
    assert!(
        before == snapshot(tmp.path()),
        "listing never repairs or truncates"
    );
}

#[test]
fn parent_cycles_are_safe() {
    let tmp = crate::common::temp_dir("cycle");
    for (id, parent) in [("c1", "c2"), ("c2", "c1")] {
        let log = child(id, 1, parent, id);
        write_log(
            tmp.path(),
            "_no-cwd",
            id,
            &log.iter().map(String::as_str).collect::<Vec<_>>(),
        );
    }
    let r = run([
        "--contract",
        "v1",
        "--store",
        tmp.path().to_str().unwrap(),
        "list-agents",
        "--as",
        "c1",
        "--scope",
        "descendants",
    ]);
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (0, "c2 [ready] parent=c1 depth=1 — c2\n")
    );
    let mut said = String::new();
    for args in [&["list-agents", "--as", "c1"][..], &["check"]] {
        let mut argv = vec!["--store", tmp.path().to_str().unwrap()];
        argv.extend_from_slice(args);
        said.push_str(&run(&argv).blob(args));
    }
    crate::common::snapshot_settings(Some(tmp.path())).bind(|| {
        insta::assert_snapshot!(said, @r#"
        $ dsh-agents list-agents --as c1
        --- stderr
        Error: session "c1" has a parentSession cycle (c1 -> c2 -> c1); its tree has no root
        --- exit: 3
        $ dsh-agents check
        error: [STORE]/_no-cwd/c1/session.jsonl: parentSession cycle: c1 -> c2
        1 problem(s) in 2 sessions
        --- stderr
        --- exit: 3
    "#)
    });
}

#[test]
fn a_chain_ten_thousand_deep_lists() {
    let tmp = crate::common::temp_dir("deep");
    write_log(tmp.path(), "_no-cwd", "root", &[root()]);
    let mut parent = "root".to_string();
    for i in 0..10_000 {
        let id = format!("n{i:05}");
        let log = child(&id, 2 + i, &parent, &format!("depth {i}"));
        write_log(
            tmp.path(),
            "_no-cwd",
            &id,
            &log.iter().map(String::as_str).collect::<Vec<_>>(),
        );
        parent = id;
    }
    let r = v1(tmp.path(), "descendants");
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout.lines().count(), 10_000);
    assert_eq!(
        r.stdout.lines().last().unwrap(),
        "n09999 [ready] parent=n09998 depth=10000 — depth 9999"
    );
    let r = run([
        "--store",
        tmp.path().to_str().unwrap(),
        "list-agents",
        "--as",
        "n09999",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout.lines().count(), 10_001);
    assert!(
        r.stdout
            .lines()
            .last()
            .unwrap()
            .starts_with("n09999 [inactive]")
    );
}

#[test]
fn escaped_ids_and_symlinks() {
    let tmp = store_with_kid();
    // An id holding a NUL, a slash and `..` lives at its escaped directory.
    let weird = "a\u{0}b/../c";
    let log = [r#"{"type":"session","version":0,"id":"a\u0000b/../c","createdAt":3,"parentSession":"root","origin":"subagent","delegationDepth":1}"#.to_string(),
        r#"{"type":"subagent/descriptor","seq":0,"time":1,"data":{"version":2,"mode":"continuable","provider":"spawn","label":"Weird id"}}"#.to_string()];
    write_log(
        tmp.path(),
        "_no-cwd",
        "a~0000b~002F..~002Fc",
        &log.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    // Symlinks: a loop and a link to outside the store are ignored.
    std::os::unix::fs::symlink(".", tmp.path().join("_no-cwd/loop")).unwrap();
    let outside = crate::common::temp_dir("outside");
    write_log(
        outside.path(),
        "x",
        "evil",
        &child("evil", 4, "root", "Outside")
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    std::os::unix::fs::symlink(
        outside.path().join("x/evil"),
        tmp.path().join("_no-cwd/evil"),
    )
    .unwrap();
    let r = v1(tmp.path(), "children");
    assert_eq!(
        r.stdout,
        format!("kid [ready] — Kid\n{weird} [ready] — Weird id\n"),
        "{}",
        r.stderr
    );
    let r = run(["--store", tmp.path().to_str().unwrap(), "check"]);
    assert!(
        r.stdout.contains("loop\": symbolic link") || r.stdout.contains("loop: symbolic link"),
        "{}",
        r.stdout
    );
}

/// A mistyped store path must not look like a clean, empty store: every
/// command fails with exit 3 naming the path, and nothing is created.
#[test]
fn missing_file_or_empty_store_roots_fail_every_command() {
    let tmp = crate::common::temp_dir("roots");
    let missing = tmp.path().join("nope");
    let file = tmp.path().join("file");
    std::fs::write(&file, "x").unwrap();
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    // An empty project directory is no different: no session was written.
    let empty_project = tmp.path().join("empty-project");
    std::fs::create_dir_all(empty_project.join("_no-cwd")).unwrap();
    let commands: &[&[&str]] = &[
        &["check"],
        &["tree"],
        &["list-agents", "--as", "root"],
        &["--contract", "v1", "list-agents", "--as", "root"],
        &["send-message", "--as", "root", "kid", "hi"],
        &["followup", "kid", "hi"],
        &["inbox", "kid"],
        &["identity", "--as", "root"],
        &["interrupt", "kid"],
        &["log", "kid"],
        &["trace", "m-1"],
        &["cancel", "m-1"],
    ];
    for (root, why) in [
        (&missing, "does not exist"),
        (&file, "not a directory"),
        (&empty, "holds no sessions"),
        (&empty_project, "holds no sessions"),
    ] {
        let before = snapshot(tmp.path());
        for args in commands {
            let mut all = vec!["--store", root.to_str().unwrap()];
            all.extend_from_slice(args);
            let r = run(&all);
            assert_eq!(r.code, 3, "{all:?}: {}", r.stderr);
            assert!(
                r.stderr.contains(root.to_str().unwrap()) && r.stderr.contains(why),
                "{all:?}: {}",
                r.stderr
            );
        }
        assert_eq!(
            snapshot(tmp.path()),
            before,
            "nothing written under {root:?}"
        );
    }
    // `spawn` may write the first session of an existing empty store only.
    let r = run(["--store", missing.to_str().unwrap(), "spawn", "--id", "r"]);
    assert_eq!(r.code, 3, "{}", r.stderr);
    assert!(!missing.exists());
    let r = run(["--store", empty.to_str().unwrap(), "spawn", "--id", "r"]);
    assert_eq!((r.code, r.stdout.as_str()), (0, "r\n"), "{}", r.stderr);
}

/// A store of a newer format generation is never "0 sessions, ok": every
/// reading command names the generation, and `check` fails on it.
#[test]
fn a_newer_format_generation_is_never_invisible() {
    let only = crate::common::temp_dir("gen-only");
    for id in ["root-1", "kid-1"] {
        let dir = only.path().join("_no-cwd").join(id);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("session.v5.jsonl"),
            format!("{{\"type\":\"session\",\"version\":5,\"id\":\"{id}\"}}\n"),
        )
        .unwrap();
    }
    // Every road in (reading ahead on and off, both contracts) gives one
    // answer, byte for byte: reading ahead once printed `(no subagents)`.
    let answers = |store: &Path, commands: &[&[&str]]| -> String {
        let mut all = String::new();
        for args in commands {
            let mut argv = vec!["--store", store.to_str().unwrap()];
            argv.extend(args.iter().copied());
            let on = crate::common::run_env(&argv, &[(crate::common::READ_AHEAD, "1")]);
            let off = crate::common::run_env(&argv, &[(crate::common::READ_AHEAD, "0")]);
            assert_eq!(on.blob(args), off.blob(args), "reading ahead changed it");
            all.push_str(&on.blob(args));
        }
        all
    };
    let said = answers(
        only.path(),
        &[
            &["tree"],
            &["tree", "--all"],
            &["list-agents", "--as", "root-1"],
            &["--contract", "v1", "list-agents", "--as", "root-1"],
            &["--contract", "v2", "list-agents", "--as", "root-1"],
            &["usage"],
            &["check"],
        ],
    );
    crate::common::snapshot_settings(Some(only.path())).bind(|| insta::assert_snapshot!(said, @r#"
        $ dsh-agents tree
        --- stderr
        Error: unsupported format generation 5: the sessions of this store ("[STORE]/_no-cwd/kid-1" and 1 more) are written by a newer DSH (session.v5.jsonl); this dsh-agents reads generations 0 to 4
        --- exit: 3
        $ dsh-agents tree --all
        --- stderr
        Error: unsupported format generation 5: the sessions of this store ("[STORE]/_no-cwd/kid-1" and 1 more) are written by a newer DSH (session.v5.jsonl); this dsh-agents reads generations 0 to 4
        --- exit: 3
        $ dsh-agents list-agents --as root-1
        --- stderr
        Error: unsupported format generation 5: the sessions of this store ("[STORE]/_no-cwd/kid-1" and 1 more) are written by a newer DSH (session.v5.jsonl); this dsh-agents reads generations 0 to 4
        --- exit: 3
        $ dsh-agents --contract v1 list-agents --as root-1
        --- stderr
        Error: unsupported format generation 5: the sessions of this store ("[STORE]/_no-cwd/kid-1" and 1 more) are written by a newer DSH (session.v5.jsonl); this dsh-agents reads generations 0 to 4
        --- exit: 3
        $ dsh-agents --contract v2 list-agents --as root-1
        --- stderr
        Error: unsupported format generation 5: the sessions of this store ("[STORE]/_no-cwd/kid-1" and 1 more) are written by a newer DSH (session.v5.jsonl); this dsh-agents reads generations 0 to 4
        --- exit: 3
        $ dsh-agents usage
        --- stderr
        Error: unsupported format generation 5: the sessions of this store ("[STORE]/_no-cwd/kid-1" and 1 more) are written by a newer DSH (session.v5.jsonl); this dsh-agents reads generations 0 to 4
        --- exit: 3
        $ dsh-agents check
        error: [STORE]/_no-cwd/kid-1/session.v5.jsonl: unsupported format generation 5: the session in "[STORE]/_no-cwd/kid-1" is written by a newer DSH (session.v5.jsonl); this dsh-agents reads generations 0 to 4
        error: [STORE]/_no-cwd/root-1/session.v5.jsonl: unsupported format generation 5: the session in "[STORE]/_no-cwd/root-1" is written by a newer DSH (session.v5.jsonl); this dsh-agents reads generations 0 to 4
        2 problem(s) in 0 sessions
        --- stderr
        --- exit: 3
    "#));
    // Beside generation-0 sessions: read what can be, say what cannot.
    let mixed = crate::common::copy_store(
        &crate::common::repo().join("testdata/stores/team"),
        "gen-mixed",
    );
    let dir = mixed.path().join("_no-cwd/new-0001");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("session.v5.jsonl.zstd"), b"").unwrap();
    let said = answers(
        mixed.path(),
        &[
            &["tree", "--all", "--width", "100"],
            &["--contract", "v1", "list-agents", "--as", "lead-1"],
            &["--contract", "v2", "list-agents", "--as", "lead-1"],
            &["check"],
        ],
    );
    crate::common::snapshot_settings(Some(mixed.path()))
        .bind(|| insta::assert_snapshot!(said, @r#"
            $ dsh-agents tree --all --width 100
            tree lead-1
            NAME            STATE        MODE         LAST TURN                PENDING  LABEL
            lead            inactive     root         completed on 1970-01-01  0
            ├─ reviewer     inactive     continuable  completed on 1970-01-01  0        Review the diff
            │  └─ checker   inactive     continuable  completed on 1970-01-01  0        Check the tests
            ├─ scout        inactive     one-shot     completed on 1970-01-01  0
            │  └─ deep      inactive     continuable  no turns                 0        Dig deeper
            ├─ batch        inactive     one-shot     completed on 1970-01-01  0
            │  └─ step      inactive     one-shot     completed on 1970-01-01  0
            │     └─ fix    inactive     continuable  no turns                 0        Fix what the step found
            ├─ anon-0001    inactive     continuable  no turns                 0        Unnamed helper
            │  └─ kid-0001  inactive     continuable  no turns                 0        Below the unnamed helper
            ├─ outside      inactive     external     no turns                 0
            ├─ escaped      inactive     continuable  no turns                 0        An id that needs escapi…
            ├─ tie-lower    inactive     continuable  no turns                 0        Tie, lower-case a
            ├─ tie-upper    inactive     continuable  no turns                 0        Tie, upper-case B
            ├─ broken       corrupt      -            completed on 1970-01-01  0
            └─ unreadable   unavailable  -            -                        0
            --- stderr
            warning: [STORE]/_no-cwd/new-0001: unsupported format generation 5: not read
            --- exit: 0
            $ dsh-agents --contract v1 list-agents --as lead-1
            rev-0001 [ready] — Review the diff
            anon-0001 [ready] — Unnamed helper
            ext-0001 [diagnostic: corrupt]
            task/1 ü [ready] — An id that needs escaping — ü
            tie-a [ready] — Tie, lower-case a
            Tie-b [ready] — Tie, upper-case B
            brk-0001 [diagnostic: corrupt]
            unr-0001 [diagnostic: unavailable]
            --- stderr
            warning: [STORE]/_no-cwd/new-0001: unsupported format generation 5: not read
            --- exit: 0
            $ dsh-agents --contract v2 list-agents --as lead-1
            lead [inactive] — root agent
            reviewer [inactive] — Review the diff
            reviewer/checker [inactive] — Check the tests
            scout/deep [inactive] — Dig deeper
            batch/step/fix [inactive] — Fix what the step found
            anon-0001 [inactive] — Unnamed helper
            kid-0001 [inactive] — Below the unnamed helper
            escaped [inactive] — An id that needs escaping — ü
            tie-lower [inactive] — Tie, lower-case a
            tie-upper [inactive] — Tie, upper-case B
            broken [corrupt]
            unreadable [unavailable]
            --- stderr
            warning: [STORE]/_no-cwd/new-0001: unsupported format generation 5: not read
            --- exit: 0
            $ dsh-agents check
            error: [STORE]/_no-cwd/new-0001/session.v5.jsonl.zstd: unsupported format generation 5: the session in "[STORE]/_no-cwd/new-0001" is written by a newer DSH (session.v5.jsonl.zstd); this dsh-agents reads generations 0 to 4
            warning: [STORE]/_no-cwd/brk-0001/session.jsonl: subagent session "brk-0001" has no valid subagent/descriptor; it lists as corrupt
            error: [STORE]/_no-cwd/unr-0001/session.jsonl: unreadable session log: corrupt session log: unparsable committed event at line 3
            3 problem(s) in 16 sessions
            --- stderr
            --- exit: 3
        "#));
}

/// `check --json` names each kind of problem with a stable code beside its
/// message: scripts match on the code, never on the wording.
#[test]
fn check_names_each_problem_with_a_stable_code() {
    let tmp = store_with_kid();
    let s = tmp.path();
    // A parentSession cycle (a <-> b), a parent not in the store, an invalid
    // name, two siblings with one name, a child without a descriptor, and an
    // inbox line that is not a record.
    write_log(
        s,
        "_no-cwd",
        "a",
        &[fixture::child("a", 3, "b").to_string()],
    );
    write_log(
        s,
        "_no-cwd",
        "b",
        &[fixture::child("b", 4, "a").to_string()],
    );
    write_log(s, "_no-cwd", "lost", &child("lost", 5, "gone", "Lost"));
    let mut odd = fixture::child("odd", 6, "root");
    odd["name"] = serde_json::json!("not a name!");
    write_log(
        s,
        "_no-cwd",
        "odd",
        &[odd.to_string(), fixture::descriptor(0, "x").to_string()],
    );
    for (id, created) in [("twin-1", 7), ("twin-2", 8), ("twin-3", 9)] {
        let mut h = fixture::child(id, created, "root");
        h["name"] = serde_json::json!("twin");
        write_log(
            s,
            "_no-cwd",
            id,
            &[h.to_string(), fixture::descriptor(0, "t").to_string()],
        );
    }
    std::fs::write(s.join("_no-cwd/kid/inbox.jsonl"), "not a record\n").unwrap();
    let r = run(["--store", s.to_str().unwrap(), "--json", "check"]);
    assert_eq!(r.code, 3, "{}", r.stderr);
    let findings: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let codes: Vec<(&str, &str)> = findings
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["code"].as_str().unwrap(), f["path"].as_str().unwrap()))
        .collect();
    for (code, path) in [
        ("parent-cycle", "_no-cwd/a/session.jsonl"),
        ("parent-missing", "_no-cwd/lost/session.jsonl"),
        ("invalid-name", "_no-cwd/odd/session.jsonl"),
        ("ambiguous-name", "_no-cwd/twin-2/session.jsonl"),
        ("no-descriptor", "_no-cwd/a/session.jsonl"),
        ("inbox-bad-lines", "_no-cwd/kid/inbox.jsonl"),
    ] {
        assert!(
            codes.iter().any(|(c, p)| *c == code && p.ends_with(path)),
            "{code} at {path}: {codes:?}"
        );
    }
    // Each later twin is reported once, beside the twin before it.
    let twins: Vec<&str> = findings
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "ambiguous-name")
        .map(|f| f["message"].as_str().unwrap())
        .collect();
    assert_eq!(
        twins,
        [
            "sibling name \"twin\" under \"root\" is used by \"twin-1\" and \"twin-2\"; it is ambiguous",
            "sibling name \"twin\" under \"root\" is used by \"twin-2\" and \"twin-3\"; it is ambiguous",
        ]
    );
    // Every finding has a code of lower-case words.
    assert!(
        codes
            .iter()
            .all(|(c, _)| !c.is_empty() && c.bytes().all(|b| b.is_ascii_lowercase() || b == b'-')),
        "{codes:?}"
    );
}

#[test]
fn an_unreadable_session_directory_is_never_skipped_in_silence() {
    let tmp = store_with_kid();
    use std::os::unix::fs::PermissionsExt;
    let open = std::fs::Permissions::from_mode(0o755);
    let mut dirs = vec![tmp.path().to_path_buf()];
    while let Some(d) = dirs.pop() {
        std::fs::set_permissions(&d, open.clone()).unwrap();
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            if e.file_type().unwrap().is_dir() {
                dirs.push(e.path());
            } else {
                std::fs::set_permissions(e.path(), std::fs::Permissions::from_mode(0o644)).unwrap();
            }
        }
    }
    let kid = tmp.path().join("_no-cwd/kid");
    std::fs::set_permissions(&kid, std::fs::Permissions::from_mode(0o000)).unwrap();
    let s = tmp.path().to_str().unwrap();
    let probe = run_unprivileged(&["--store", s, "tree"]);
    let check = run_unprivileged(&["--store", s, "check"]);
    let list = run_unprivileged(&["--store", s, "list-agents", "--as", "root"]);
    std::fs::set_permissions(&kid, open).unwrap();
    for (what, r) in [("tree", &probe), ("list-agents", &list)] {
        assert_eq!(r.code, 3, "{what}: {}{}", r.stdout, r.stderr);
        assert!(
            r.stderr.contains("cannot read session directory") && r.stderr.contains("kid"),
            "{what}: {}",
            r.stderr
        );
    }
    assert_ne!(check.code, 0, "{}", check.stdout);
    assert!(
        check.stdout.contains("cannot read session directory"),
        "{}",
        check.stdout
    );
}
