//! Rules every command follows the same way: how a caller is resolved under
//! each contract, and which exit code a store fault gets.

use crate::common::{StoreBuilder, fixture, run_in};

/// rc.8 uses an unknown caller id verbatim (it has no children); a prefix
/// that several ids share is a usage error naming the candidates.
#[test]
fn v1_unknown_callers_are_opaque_and_ambiguous_prefixes_are_errors() {
    let store = StoreBuilder::new("callers")
        .root("root")
        .child("abcd-1", 2, "root", "One")
        .child("abcd-2", 3, "root", "Two")
        .build();
    let s = store.path();
    let v1 = |args: &[&str]| {
        let mut argv = vec!["--contract", "v1"];
        argv.extend_from_slice(args);
        run_in(s, &argv)
    };
    let r = v1(&["list-agents", "--as", "nobody-x"]);
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (0, "(no subagents)\n"),
        "{}",
        r.stderr
    );
    let r = v1(&["list-agents", "--as", "root"]);
    assert_eq!(r.code, 0);
    assert!(r.stdout.contains("abcd-1 [ready] — One"), "{}", r.stdout);
    for args in [
        &["list-agents", "--as", "abcd"][..],
        &["send-message", "abcd-1", "hi", "--as", "abcd"],
        &["interrupt-agent", "abcd-1", "--as", "abcd"],
    ] {
        let r = v1(args);
        assert_eq!(r.code, 2, "{args:?}: {}", r.stderr);
        assert_eq!(
            r.stderr, "Error: --as: \"abcd\" is ambiguous: abcd-1, abcd-2\n",
            "{args:?}"
        );
    }
    // An opaque caller is not the child's parent.
    let r = v1(&["send-message", "abcd-1", "hi", "--as", "nobody-x"]);
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (
            1,
            "Error: subagent \"abcd-1\" belongs to another parent session\n"
        )
    );
    // Under v2 an unknown caller is a usage error.
    let r = run_in(s, &["list-agents", "--as", "nobody-x"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.starts_with("Error: --as: no session \"nobody-x\""),
        "{}",
        r.stderr
    );
}

/// A `parentSession` cycle above the caller is a store fault: every v2
/// command that needs the caller's tree fails the same way, exit 3. rc.8's
/// v1 listing never walks to a root and lists it.
#[test]
fn a_parent_cycle_is_the_same_store_error_for_every_command() {
    let store = StoreBuilder::new("cycle")
        .session(
            "c1",
            &[fixture::child("c1", 1, "c2"), fixture::descriptor(0, "One")],
        )
        .session(
            "c2",
            &[fixture::child("c2", 2, "c1"), fixture::descriptor(0, "Two")],
        )
        .build();
    let s = store.path();
    for args in [
        &["list-agents", "--as", "c1"][..],
        &["send-message", "c2", "hi", "--as", "c1"],
        &["subagent-parent-message", "hi", "--as", "c1"],
        &["interrupt-agent", "c2", "--as", "c1"],
        &["wait-agent", "--as", "c1"],
        &["identity", "--as", "c1"],
        &["call", "list_agents", "{}", "--as", "c1"],
        &["tree", "c1"],
    ] {
        let r = run_in(s, args);
        assert_eq!(r.code, 3, "{args:?}: {}{}", r.stdout, r.stderr);
        assert!(
            r.stderr
                .contains("has a parentSession cycle (c1 -> c2 -> c1)"),
            "{args:?}: {}",
            r.stderr
        );
        assert!(
            !s.join("_no-cwd/c1/inbox.jsonl").exists(),
            "{args:?} wrote nothing"
        );
        assert!(
            !s.join("_no-cwd/c2/inbox.jsonl").exists(),
            "{args:?} wrote nothing"
        );
    }
    let r = run_in(
        s,
        &[
            "--contract",
            "v1",
            "list-agents",
            "--as",
            "c1",
            "--scope",
            "descendants",
        ],
    );
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (0, "c2 [ready] parent=c1 depth=1 — Two\n")
    );
}

/// Operator delivery and `serve` need a session that can run a turn.
#[test]
fn operator_commands_refuse_sessions_that_cannot_run_a_turn() {
    let store = crate::common::copy_store(
        &crate::common::repo().join("testdata/stores/team"),
        "unrunnable",
    );
    let s = store.path();
    for (id, why) in [
        ("sct-0001", "it is a one-shot subagent"),
        ("ext-0001", "it is an external execution"),
        ("brk-0001", "it has no valid subagent descriptor"),
        ("unr-0001", "its session log cannot be read"),
    ] {
        for args in [
            &["followup", id, "x"][..],
            &["steer", id, "x"],
            &["serve", "--as", id, "--once", "--", "true"],
        ] {
            let before = crate::common::snapshot(s);
            let r = run_in(s, args);
            assert_eq!(r.code, 2, "{args:?}: {}", r.stderr);
            assert!(
                r.stderr
                    .contains(&format!("agent \"{id}\" cannot run a turn: {why}")),
                "{args:?}: {}",
                r.stderr
            );
            assert!(
                before == crate::common::snapshot(s),
                "{args:?} wrote nothing"
            );
        }
    }
    assert_eq!(run_in(s, &["followup", "rev-0001", "x"]).code, 0);
    assert_eq!(run_in(s, &["followup", "lead-1", "x"]).code, 0);
}
