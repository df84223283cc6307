//! Golden outputs of every listing form on the sample stores in
//! `testdata/stores`, pinned as insta snapshots under `testdata/golden`.
//! Each holds the command, stdout, stderr and the exit status of one real
//! run. `cargo insta review` (or `INSTA_UPDATE=always cargo test`) updates
//! them; review the diff.

use crate::common::{READ_AHEAD, run, run_env, snapshot_settings};

const CASES: &[(&str, &[&str])] = &[
    (
        "team.v2.list.lead",
        &[
            "--store",
            "testdata/stores/team",
            "list-agents",
            "--as",
            "lead-1",
        ],
    ),
    (
        "team.v2.list.from-deep",
        &[
            "--store",
            "testdata/stores/team",
            "list-agents",
            "--as",
            "fix-0001",
        ],
    ),
    (
        "team.v2.list.json",
        &[
            "--store",
            "testdata/stores/team",
            "list-agents",
            "--as",
            "lead-1",
            "--json",
        ],
    ),
    (
        "team.v2.list.default-caller",
        &["--store", "testdata/stores/team", "list-agents"],
    ),
    (
        "team.v2.call",
        &[
            "--store",
            "testdata/stores/team",
            "call",
            "list_agents",
            "{}",
            "--as",
            "chk-0001",
        ],
    ),
    (
        "team.v1.children",
        &[
            "--contract",
            "v1",
            "--store",
            "testdata/stores/team",
            "list-agents",
            "--as",
            "lead-1",
        ],
    ),
    (
        "team.v1.descendants",
        &[
            "--contract",
            "v1",
            "--store",
            "testdata/stores/team",
            "list-agents",
            "--as",
            "lead-1",
            "--scope",
            "descendants",
        ],
    ),
    (
        "team.v1.descendants.json",
        &[
            "--contract",
            "v1",
            "--store",
            "testdata/stores/team",
            "list-agents",
            "--as",
            "lead-1",
            "--scope",
            "descendants",
            "--json",
        ],
    ),
    (
        "team.v1.call.descendants",
        &[
            "--contract",
            "v1",
            "--store",
            "testdata/stores/team",
            "call",
            "list_agents",
            r#"{"scope":"descendants","extra":true}"#,
            "--as",
            "rev-0001",
        ],
    ),
    (
        "team.v1.call.bad-scope",
        &[
            "--contract",
            "v1",
            "--store",
            "testdata/stores/team",
            "call",
            "list_agents",
            r#"{"scope":"all"}"#,
            "--as",
            "lead-1",
        ],
    ),
    (
        "team.v1.call.scope-not-string",
        &[
            "--contract",
            "v1",
            "--store",
            "testdata/stores/team",
            "call",
            "list_agents",
            r#"{"scope":1}"#,
            "--as",
            "lead-1",
        ],
    ),
    (
        "team.v1.call.not-object",
        &[
            "--contract",
            "v1",
            "--store",
            "testdata/stores/team",
            "call",
            "list_agents",
            "[]",
            "--as",
            "lead-1",
        ],
    ),
    (
        "team.v1.prefix-caller",
        &[
            "--contract",
            "v1",
            "--store",
            "testdata/stores/team",
            "list-agents",
            "--as",
            "bat-0",
        ],
    ),
    (
        "team.identity.root",
        &[
            "--store",
            "testdata/stores/team",
            "identity",
            "--as",
            "lead-1",
        ],
    ),
    (
        "team.identity.nested",
        &[
            "--store",
            "testdata/stores/team",
            "identity",
            "--as",
            "fix-0001",
        ],
    ),
    (
        "team.identity.below-unnamed",
        &[
            "--store",
            "testdata/stores/team",
            "identity",
            "--as",
            "kid-0001",
        ],
    ),
    ("team.tree", &["--store", "testdata/stores/team", "tree"]),
    (
        "team.tree.json",
        &["--store", "testdata/stores/team", "tree", "--json"],
    ),
    ("team.check", &["--store", "testdata/stores/team", "check"]),
    (
        "team.unknown-caller",
        &[
            "--store",
            "testdata/stores/team",
            "list-agents",
            "--as",
            "nobody",
        ],
    ),
    (
        "team.v2.scope-rejected",
        &[
            "--store",
            "testdata/stores/team",
            "list-agents",
            "--as",
            "lead-1",
            "--scope",
            "children",
        ],
    ),
    (
        "zstd.v2.list",
        &["--store", "testdata/stores/zstd", "list-agents"],
    ),
    (
        "zstd.v1.descendants",
        &[
            "--contract",
            "v1",
            "--store",
            "testdata/stores/zstd",
            "list-agents",
            "--as",
            "zroot",
            "--scope",
            "descendants",
        ],
    ),
    (
        "zstd.identity.grandchild",
        &[
            "--store",
            "testdata/stores/zstd",
            "identity",
            "--as",
            "z/escaped",
        ],
    ),
    (
        "zstd.tree",
        &["--store", "testdata/stores/zstd", "tree", "zkid-1"],
    ),
    ("zstd.check", &["--store", "testdata/stores/zstd", "check"]),
    // `log`: transcripts of real rc.8 stores.
    (
        "rc8-cli.log.root",
        &["--store", "testdata/stores/rc8-cli", "log", "session-cd54"],
    ),
    (
        "rc8-cli.log.child",
        &["--store", "testdata/stores/rc8-cli", "log", "b554"],
    ),
    (
        "rc8-cli.log.child.json",
        &[
            "--store",
            "testdata/stores/rc8-cli",
            "--json",
            "log",
            "b554",
        ],
    ),
    (
        "rc8-cli-zstd.log.root",
        &[
            "--store",
            "testdata/stores/rc8-cli-zstd",
            "log",
            "session-fa7a",
        ],
    ),
    (
        "rc8-live.log.worker",
        &["--store", "testdata/stores/rc8-live", "log", "e74b"],
    ),
    (
        "rc8-live.log.last2",
        &[
            "--store",
            "testdata/stores/rc8-live",
            "log",
            "e74b",
            "--last",
            "2",
        ],
    ),
    (
        "rc8-live.log.parent",
        &["--store", "testdata/stores/rc8-live", "log", "parent-1"],
    ),
    (
        "rc8-compacted.log",
        &["--store", "testdata/stores/rc8-compacted", "log", "e74b"],
    ),
    (
        "rc8-compacted.log.json",
        &[
            "--store",
            "testdata/stores/rc8-compacted",
            "--json",
            "log",
            "e74b",
        ],
    ),
    (
        "team.log.by-name-path",
        &["--store", "testdata/stores/team", "log", "reviewer/checker"],
    ),
    (
        "team.log.one-shot",
        &["--store", "testdata/stores/team", "log", "sct-0001"],
    ),
    (
        "team.log.broken",
        &["--store", "testdata/stores/team", "log", "brk-0001"],
    ),
    (
        "team.log.typo",
        &["--store", "testdata/stores/team", "log", "reviewr"],
    ),
    // `tree` for people and as JSON.
    (
        "rc8-cli.tree",
        &["--store", "testdata/stores/rc8-cli", "tree"],
    ),
    (
        "rc8-cli.usage",
        &["--store", "testdata/stores/rc8-cli", "usage"],
    ),
    (
        "rc8-cli.usage.model",
        &[
            "--store",
            "testdata/stores/rc8-cli",
            "usage",
            "--by",
            "model",
        ],
    ),
    (
        "rc8-live.usage.tree",
        &[
            "--store",
            "testdata/stores/rc8-live",
            "usage",
            "parent-1",
            "--tree",
        ],
    ),
    (
        "rc8-cli.tree.no-usage",
        &["--store", "testdata/stores/rc8-cli", "tree", "--no-usage"],
    ),
    (
        "rc8-live.tree.json",
        &["--store", "testdata/stores/rc8-live", "tree", "--json"],
    ),
    (
        "team.tree.all",
        &["--store", "testdata/stores/team", "tree", "--all"],
    ),
    (
        "team.tree.problems",
        &["--store", "testdata/stores/team", "tree", "--problems"],
    ),
    (
        "team.tree.live",
        &["--store", "testdata/stores/team", "tree", "--live"],
    ),
    (
        "team.tree.one",
        &["--store", "testdata/stores/team", "tree", "checker"],
    ),
    (
        "team.tree.narrow",
        &["--store", "testdata/stores/team", "tree", "--width", "60"],
    ),
    // DSH's own inbox, read from rc.8 logs.
    (
        "rc8-inbox.tree",
        &["--store", "testdata/stores/rc8-inbox", "tree"],
    ),
    (
        "rc8-inbox.inbox.parked",
        &["--store", "testdata/stores/rc8-inbox", "inbox", "6116"],
    ),
    (
        "rc8-inbox.inbox.crashed.json",
        &[
            "--store",
            "testdata/stores/rc8-inbox",
            "--json",
            "inbox",
            "ef43",
        ],
    ),
    (
        "rc8-inbox.check",
        &["--store", "testdata/stores/rc8-inbox", "check"],
    ),
    (
        "rc8-inbox-invalid.check",
        &["--store", "testdata/stores/rc8-inbox-invalid", "check"],
    ),
    (
        "rc8-inbox-invalid.inbox",
        &[
            "--store",
            "testdata/stores/rc8-inbox-invalid",
            "inbox",
            "ef43",
        ],
    ),
    // What `check` calls an error is a problem in every view.
    (
        "rc8-inbox-invalid.tree.problems",
        &[
            "--store",
            "testdata/stores/rc8-inbox-invalid",
            "tree",
            "--problems",
        ],
    ),
    // The turns the logs record, as events (text and JSON, one tree).
    (
        "team.events.since",
        &["--store", "testdata/stores/team", "events", "--since", "0"],
    ),
    (
        "team.events.since.json",
        &[
            "--store",
            "testdata/stores/team",
            "--json",
            "events",
            "--since",
            "0",
            "scout",
        ],
    ),
    // Neither following nor a time: a usage error that says both.
    (
        "team.events.bare",
        &["--store", "testdata/stores/team", "events"],
    ),
    // The top-level help, its commands grouped (piped: 100 columns).
    ("help", &["--help"]),
];

#[test]
fn sample_store_outputs_match_golden_files() {
    snapshot_settings(None).bind(|| {
        for (name, args) in CASES {
            let blob = run(*args).blob(args);
            // A listing gives the same text however its logs were read.
            if args.contains(&"list-agents") {
                let after = run_env(*args, &[(READ_AHEAD, "0")]).blob(args);
                assert_eq!(after, blob, "{name} with {READ_AHEAD}=0");
            }
            insta::assert_snapshot!(*name, blob);
        }
    });
}

/// Every golden file and differential test reads `testdata/stores` as
/// committed: a store a user or a test touched (a stray `inbox.jsonl`, an
/// edited log) is refused here by name, not found as a dozen odd failures.
#[test]
fn the_carried_stores_are_as_committed() {
    let repo = crate::common::repo();
    let out = std::process::Command::new("git")
        .args([
            "status",
            "--porcelain",
            "--untracked-files=all",
            "--",
            "testdata/stores",
        ])
        .current_dir(&repo)
        .output();
    let Some(out) = out.ok().filter(|o| o.status.success()) else {
        eprintln!("not a git checkout (or no git): the carried stores were not compared");
        return;
    };
    let dirty = String::from_utf8_lossy(&out.stdout);
    assert!(
        dirty.trim().is_empty(),
        "testdata/stores differs from what is committed; restore it (`git checkout -- testdata/stores && git clean -fdx testdata/stores`) before testing:\n{dirty}"
    );
}
