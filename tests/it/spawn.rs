//! `spawn` builds stores that both contracts list as DSH lists its own.

use crate::common::{TempDir, run, snapshot};
use serde_json::Value;

fn spawn(store: &str, args: &[&str]) -> String {
    let mut argv = vec!["--store", store, "spawn"];
    argv.extend_from_slice(args);
    let r = run(&argv);
    assert_eq!(r.code, 0, "spawn {args:?}: {}", r.stderr);
    r.stdout.trim_end().to_string()
}

fn build(compression: &str) -> TempDir {
    let tmp = crate::common::temp_dir(&format!("spawn-{compression}"));
    let s = tmp.path().to_str().unwrap().to_string();
    let c = ["--compression", compression];
    spawn(
        &s,
        &[
            &c[..],
            &["--id", "root", "--created-at", "10", "--prompt", "lead"],
        ]
        .concat(),
    );
    spawn(
        &s,
        &[
            &c[..],
            &[
                "--parent",
                "root",
                "--id",
                "a",
                "--name",
                "alpha",
                "--label",
                "First",
                "--created-at",
                "11",
                "--prompt",
                "go",
            ],
        ]
        .concat(),
    );
    spawn(
        &s,
        &[
            &c[..],
            &[
                "--parent",
                "a",
                "--id",
                "a1",
                "--name",
                "inner",
                "--label",
                "Nested",
                "--created-at",
                "12",
            ],
        ]
        .concat(),
    );
    spawn(
        &s,
        &[
            &c[..],
            &[
                "--parent",
                "root",
                "--id",
                "o",
                "--name",
                "once",
                "--mode",
                "one-shot",
                "--created-at",
                "13",
                "--prompt",
                "x",
            ],
        ]
        .concat(),
    );
    spawn(
        &s,
        &[
            &c[..],
            &[
                "--parent",
                "o",
                "--id",
                "o1",
                "--name",
                "after",
                "--label",
                "Below a one-shot",
                "--created-at",
                "14",
            ],
        ]
        .concat(),
    );
    spawn(
        &s,
        &[
            &c[..],
            &[
                "--parent",
                "root",
                "--id",
                "..",
                "--label",
                "Dot-dot id, no name",
                "--created-at",
                "15",
            ],
        ]
        .concat(),
    );
    tmp
}

const V2: &str = "lead [inactive] — root agent\nalpha [inactive] — First\nalpha/inner [inactive] — Nested\nonce/after [inactive] — Below a one-shot\n.. [inactive] — Dot-dot id, no name\n";
const V1: &str = "a [ready] parent=root depth=1 — First\na1 [ready] parent=a depth=2 — Nested\no1 [ready] parent=o depth=2 — Below a one-shot\n.. [ready] parent=root depth=1 — Dot-dot id, no name\n";

#[test]
fn spawned_stores_list_in_both_contracts() {
    for compression in ["none", "zstd"] {
        let tmp = build(compression);
        let s = tmp.path().to_str().unwrap();
        let r = run(["--store", s, "list-agents", "--as", "a1"]);
        assert_eq!(r.stdout, V2, "{compression}: {}", r.stderr);
        let r = run([
            "--contract",
            "v1",
            "--store",
            s,
            "list-agents",
            "--as",
            "root",
            "--scope",
            "descendants",
        ]);
        assert_eq!(r.stdout, V1, "{compression}: {}", r.stderr);
        let r = run(["--store", s, "check"]);
        assert_eq!(r.code, 0, "{compression}: {}{}", r.stdout, r.stderr);
        assert!(
            tmp.path().join("_no-cwd/~002E~002E").is_dir(),
            "`..` is escaped, never a traversal"
        );
    }
}

#[test]
fn spawned_logs_are_shaped_like_dsh_children() {
    let tmp = build("none");
    let log = std::fs::read_to_string(tmp.path().join("_no-cwd/a/session.jsonl")).unwrap();
    let lines: Vec<Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        log.lines().next().unwrap(),
        r#"{"type":"session","version":0,"id":"a","createdAt":11,"parentSession":"root","origin":"subagent","delegationDepth":1,"name":"alpha"}"#
    );
    let types: Vec<&str> = lines[1..]
        .iter()
        .map(|l| l["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        types,
        [
            "subagent/descriptor",
            "session/end-seed",
            "turn/start",
            "user/message",
            "turn/end"
        ]
    );
    for (i, l) in lines[1..].iter().enumerate() {
        assert_eq!(l["seq"], i, "contiguous seqs");
    }
    assert_eq!(
        lines[1]["data"],
        serde_json::json!({"version":2,"mode":"continuable","provider":"spawn","label":"First"})
    );
    assert_eq!(lines[4]["data"]["content"][0]["text"], "go");
    assert_eq!(lines[4]["surfaceOp"], "append");
    // One-shots write the descriptor inside their first turn.
    let once = std::fs::read_to_string(tmp.path().join("_no-cwd/o/session.jsonl")).unwrap();
    let types: Vec<String> = once
        .lines()
        .skip(1)
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["type"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(
        types,
        [
            "turn/start",
            "user/message",
            "subagent/descriptor",
            "turn/end"
        ]
    );
    // Nothing but the log and known sidecars (no temp files) is left in a
    // session directory: a parent of named children keeps its lock and the
    // names it gave out.
    let mut names: Vec<String> = std::fs::read_dir(tmp.path().join("_no-cwd/a"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let known = ["inbox.jsonl", "inbox.lock", "session.jsonl", "spawn.names"];
    assert!(
        names.iter().all(|n| known.contains(&n.as_str())),
        "{names:?}"
    );
    assert!(names.contains(&"session.jsonl".to_string()));
}

#[test]
fn spawn_rejects_bad_input_and_changes_nothing() {
    let tmp = build("none");
    let before = snapshot(tmp.path());
    let long = "x".repeat(65);
    assert_each_at!(tmp.path(), &[
        &["spawn", "--parent", "root", "--name", "alpha"],
        &["spawn", "--parent", "root", "--name", "lead"],
        &["spawn", "--parent", "root", "--name", "."],
        &["spawn", "--parent", "root", "--name", ".."],
        &["spawn", "--parent", "root", "--name", "a/b"],
        &["spawn", "--parent", "root", "--name", &long],
        &["spawn", "--parent", "nobody"],
        &["spawn", "--parent", "root", "--id", "a"],
        &["spawn", "--id", ""],
        &["spawn", "--id", "a\tb"],
        &["spawn", "--cwd", "relative/dir"],
        &["spawn", "--name", "solo"],
    ], @r#"
        $ dsh-agents spawn --parent root --name alpha
        --- stderr
        Error: --name: "alpha" is already used by a sibling under "root"
        --- exit: 2
        $ dsh-agents spawn --parent root --name lead
        --- stderr
        Error: --name: "lead" must be 1-64 characters of [A-Za-z0-9._-], not "lead", "." or ".."
        --- exit: 2
        $ dsh-agents spawn --parent root --name .
        --- stderr
        Error: --name: "." must be 1-64 characters of [A-Za-z0-9._-], not "lead", "." or ".."
        --- exit: 2
        $ dsh-agents spawn --parent root --name ..
        --- stderr
        Error: --name: ".." must be 1-64 characters of [A-Za-z0-9._-], not "lead", "." or ".."
        --- exit: 2
        $ dsh-agents spawn --parent root --name a/b
        --- stderr
        Error: --name: "a/b" must be 1-64 characters of [A-Za-z0-9._-], not "lead", "." or ".."
        --- exit: 2
        $ dsh-agents spawn --parent root --name xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx
        --- stderr
        Error: --name: "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx" must be 1-64 characters of [A-Za-z0-9._-], not "lead", "." or ".."
        --- exit: 2
        $ dsh-agents spawn --parent nobody
        --- stderr
        Error: --parent: no session "nobody" in store [STORE] (name an agent by Session id, unique id prefix of 4+ characters, or name path such as reviewer/checker)
        --- exit: 2
        $ dsh-agents spawn --parent root --id a
        --- stderr
        Error: --id: session "a" already exists
        --- exit: 2
        $ dsh-agents spawn --id 
        --- stderr
        Error: --id: a session id cannot be empty
        --- exit: 2
        $ dsh-agents spawn --id a	b
        --- stderr
        Error: --id: a session id cannot hold control characters
        --- exit: 2
        $ dsh-agents spawn --cwd relative/dir
        --- stderr
        Error: --cwd: "relative/dir" is not an absolute path
        --- exit: 2
        $ dsh-agents spawn --name solo
        --- stderr
        Error: --name and --label need --parent: a root is always "lead"
        --- exit: 2
    "#);
    assert!(
        before == snapshot(tmp.path()),
        "a rejected spawn wrote nothing"
    );
}

#[test]
fn spawn_keeps_the_store_encoding_and_inherits_cwd() {
    let tmp = crate::common::temp_dir("spawn-cwd");
    let s = tmp.path().to_str().unwrap();
    spawn(
        s,
        &[
            "--id",
            "r",
            "--cwd",
            "/home/u/my proj",
            "--compression",
            "zstd",
        ],
    );
    spawn(s, &["--parent", "r", "--id", "k", "--label", "kid"]);
    let kid = tmp
        .path()
        .join("--home-u-my~0020proj--/k/session.jsonl.zstd");
    assert!(
        kid.is_file(),
        "child inherits the cwd and the store's zstd encoding"
    );
    let bytes = std::fs::read(&kid).unwrap();
    assert_eq!(&bytes[..4], &[0x28, 0xB5, 0x2F, 0xFD]);
    let r = run(["--contract", "v1", "--store", s, "list-agents", "--as", "r"]);
    assert_eq!(r.stdout, "k [ready] — kid\n");
}

#[test]
fn spawn_creates_the_first_session_of_an_empty_store() {
    let tmp = crate::common::temp_dir("new-store");
    let store = tmp.path().join("empty");
    std::fs::create_dir(&store).unwrap();
    let r = crate::common::run_in(&store, &["spawn", "--id", "r1"]);
    assert_eq!((r.code, r.stdout.as_str()), (0, "r1\n"), "{}", r.stderr);
    assert!(store.join("_no-cwd/r1/session.jsonl").is_file());
}

#[test]
fn concurrent_spawns_of_one_name_make_one_child() {
    let tmp = crate::common::temp_dir("spawn-race");
    let s = tmp.path().to_str().unwrap().to_string();
    spawn(&s, &["--id", "root"]);
    let children: Vec<crate::common::Reaped> = (0..8)
        .map(|_| {
            crate::common::reaped(
                std::process::Command::new(assert_cmd::cargo::cargo_bin!("dsh-agents"))
                    .args([
                        "--store",
                        &s,
                        "--no-cache",
                        "spawn",
                        "--parent",
                        "root",
                        "--name",
                        "dup",
                    ])
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap(),
            )
        })
        .collect();
    let outcomes: Vec<(Option<i32>, String)> = children
        .into_iter()
        .map(|c| {
            let out = c.wait_with_output().unwrap();
            (
                out.status.code(),
                String::from_utf8_lossy(&out.stderr).into_owned(),
            )
        })
        .collect();
    let made = outcomes.iter().filter(|(c, _)| *c == Some(0)).count();
    assert_eq!(made, 1, "{outcomes:?}");
    for (code, err) in outcomes.iter().filter(|(c, _)| *c != Some(0)) {
        assert_eq!(*code, Some(2), "{err}");
        assert!(err.contains("already used by a sibling"), "{err}");
    }
    let tree = run(["--store", &s, "--json", "tree", "--all"]);
    assert_eq!(
        tree.stdout.matches("\"name\":\"dup\"").count(),
        1,
        "{}",
        tree.stdout
    );
}

#[test]
fn an_unnamed_member_whose_id_holds_a_slash_is_that_whole_id() {
    // Its v2 name is its Session id, so its last step is the whole id: not
    // the text after the id's last `/`, which names nothing.
    let tmp = crate::common::temp_dir("spawn-slash-id");
    let s = tmp.path().to_str().unwrap();
    spawn(s, &["--id", "root", "--created-at", "10"]);
    spawn(
        s,
        &["--parent", "root", "--id", "team/x", "--created-at", "11"],
    );
    spawn(
        s,
        &[
            "--parent",
            "root",
            "--id",
            "y",
            "--name",
            "named",
            "--created-at",
            "12",
        ],
    );
    spawn(s, &["--parent", "y", "--id", "a/b/c", "--created-at", "13"]);
    let before = snapshot(tmp.path());
    assert_each_at!(
        tmp.path(),
        &[
            &["tree"],
            &["usage"],
            &["list-agents", "--as", "root"],
            &["followup", "x", "hi"],
            &["inbox", "c"],
        ],
        @r#"
            $ dsh-agents tree
            tree root
            NAME         STATE     MODE         LAST TURN  PENDING  LABEL
            lead         inactive  root         no turns   0
            ├─ team/x    inactive  continuable  no turns   0
            └─ named     inactive  continuable  no turns   0
               └─ a/b/c  inactive  continuable  no turns   0
            --- stderr
            --- exit: 0
            $ dsh-agents usage
            AGENT      SESSION  CALLS  INPUT  CACHE READ  CACHE WRITE  OUTPUT  REASONING  TOTAL
            lead       root         0      0           0            0       0          0      0
              team/x   team/x       0      0           0            0       0          0      0
              named    y            0      0           0            0       0          0      0
                a/b/c  a/b/c        0      0           0            0       0          0      0
            0 model calls, 0 tokens (0 input, 0 cache read, 0 cache write, 0 output)
            --- stderr
            --- exit: 0
            $ dsh-agents list-agents --as root
            lead [inactive] — root agent
            team/x [inactive]
            named [inactive]
            a/b/c [inactive]
            --- stderr
            --- exit: 0
            $ dsh-agents followup x hi
            --- stderr
            Error: no session "x" in store [STORE] (name an agent by Session id, unique id prefix of 4+ characters, or name path such as reviewer/checker); did you mean named (y)?
            --- exit: 2
            $ dsh-agents inbox c
            --- stderr
            Error: no session "c" in store [STORE] (name an agent by Session id, unique id prefix of 4+ characters, or name path such as reviewer/checker); did you mean named (y)?
            --- exit: 2
        "#
    );
    assert_eq!(snapshot(tmp.path()), before);
    let r = run(["--store", s, "followup", "a/b/c", "hi"]);
    assert_eq!(
        r.stdout, "message queued as the next turn for agent a/b/c\n",
        "{}",
        r.stderr
    );
}

#[test]
fn racing_spawns_of_one_id_make_it_once_whatever_their_projects() {
    // Two sessions of one id in two projects would be a store DSH refuses
    // whole; in one project, the loser must not fail on the winner's file.
    let tmp = crate::common::temp_dir("spawn-race-id");
    let s = tmp.path().to_str().unwrap().to_string();
    spawn(&s, &["--id", "root"]);
    for (id, parent) in [("dup", false), ("same", true)] {
        let start = std::sync::Arc::new(std::sync::Barrier::new(8));
        let racers: Vec<_> = (0..8)
            .map(|k| {
                let (s, start) = (s.clone(), start.clone());
                std::thread::spawn(move || {
                    let cwd = format!("/project-{k}");
                    let mut argv = vec!["--store", &s, "spawn", "--id", id];
                    if parent {
                        argv.extend(["--parent", "root"]);
                    } else {
                        argv.extend(["--cwd", &cwd]);
                    }
                    start.wait();
                    let r = run(&argv);
                    (r.code, r.stderr)
                })
            })
            .collect();
        let mut outcomes: Vec<(i32, String)> =
            racers.into_iter().map(|t| t.join().unwrap()).collect();
        outcomes.sort();
        let lost = (2, format!("Error: --id: session \"{id}\" already exists\n"));
        let mut want = vec![lost; 7];
        want.insert(0, (0, String::new()));
        assert_eq!(outcomes, want, "{id}");
    }
    let r = run(["--store", &s, "check"]);
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (0, "ok: 3 sessions, no problems\n")
    );
}

#[test]
fn wide_characters_take_two_columns_when_a_view_is_fitted() {
    // A CJK label, an emoji and a CJK id: each such character takes two
    // terminal columns, so a view fitted to a width counts them so.
    let tmp = crate::common::temp_dir("spawn-wide");
    let s = tmp.path().to_str().unwrap();
    spawn(s, &["--id", "root", "--created-at", "10"]);
    let label = "审查代码的差异并报告问题，这是一个很长的标签";
    spawn(
        s,
        &[
            "--parent",
            "root",
            "--id",
            "k1",
            "--name",
            "reviewer",
            "--label",
            label,
            "--created-at",
            "11",
        ],
    );
    spawn(
        s,
        &[
            "--parent",
            "root",
            "--id",
            "审查者",
            "--label",
            "🙂🙂 ok",
            "--created-at",
            "12",
        ],
    );
    let runs: &[&[&str]] = &[&["tree", "--width", "60"], &["tree", "--width", "72"]];
    for args in runs {
        let r = crate::common::run_in(tmp.path(), args);
        let width: usize = args[2].parse().unwrap();
        for line in r.stdout.lines() {
            let cols = unicode_width::UnicodeWidthStr::width(line);
            assert!(cols <= width, "{cols} > {width}: {line}");
        }
    }
    assert_each_at!(tmp.path(), runs, @r#"
        $ dsh-agents tree --width 60
        tree root
        NAME         STATE     MODE         LAST TURN  PENDING
        lead         inactive  root         no turns   0
        ├─ reviewer  inactive  continuable  no turns   0
        └─ 审查者    inactive  continuable  no turns   0
        --- stderr
        --- exit: 0
        $ dsh-agents tree --width 72
        tree root
        NAME         STATE     MODE         LAST TURN  PENDING  LABEL
        lead         inactive  root         no turns   0
        ├─ reviewer  inactive  continuable  no turns   0        审查代码的差异…
        └─ 审查者    inactive  continuable  no turns   0        🙂🙂 ok
        --- stderr
        --- exit: 0
    "#);
}
