//! Format generations 1–4 (`testdata/generations`, the
//! `testdata/stores/*-v<N>` stores): the rc.8-written stores migrated by
//! DSH's own published code (1–3) and built from the reference (4) list,
//! show and check exactly as their generation-0 sources do, since the
//! contracts render nothing a migration changes; the highest generation is
//! the one read; a log whose header disagrees with its name is reported.

use crate::common::{
    READ_MODES, assert_v1_case, cases, conformance_dir, copy_store, repo, run, run_in,
};
use std::path::{Path, PathBuf};

/// Every session log path under `store` (any generation).
fn logs(store: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for project in std::fs::read_dir(store).unwrap().flatten() {
        if !project.path().is_dir() {
            continue;
        }
        for session in std::fs::read_dir(project.path()).unwrap().flatten() {
            for f in std::fs::read_dir(session.path())
                .into_iter()
                .flatten()
                .flatten()
            {
                let name = f.file_name().to_string_lossy().into_owned();
                if name.starts_with("session") && name.contains(".jsonl") {
                    out.push(f.path());
                }
            }
        }
    }
    out.sort();
    out
}

/// The first line of `log`, parsed.
fn header(log: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(log).unwrap();
    serde_json::from_str(text.lines().next().unwrap()).unwrap()
}

#[test]
fn migrated_conformance_stores_list_as_rc8_listed_their_sources() {
    let dir = conformance_dir();
    let v1 = cases(&dir.join("v1/cases.tsv"));
    let mut ran = [0usize; 5];
    for generation in 1..=4u32 {
        let stores = repo().join(format!("testdata/generations/v{generation}/stores"));
        for c in &v1 {
            let store = stores.join(&c[0]);
            if !store.is_dir() {
                continue;
            }
            // The fixture holds generation `generation` only: nothing else
            // could have been read.
            for log in logs(&store) {
                let name = log.file_name().unwrap().to_string_lossy().into_owned();
                assert_eq!(name, format!("session.v{generation}.jsonl"), "{log:?}");
                assert_eq!(header(&log)["version"], generation, "{log:?}");
            }
            for env in READ_MODES {
                let what = format!("in generation {generation}");
                assert_v1_case(&store, c, &dir.join("v1"), env, &what);
            }
            ran[generation as usize] += 1;
        }
    }
    // Generations 1 and 2 take every store DSH's edges migrate; 3 and 4
    // only those with a step before their first message (see
    // testdata/stores/README.md).
    assert!(ran[1] >= 15 && ran[2] >= 15, "{ran:?}");
    assert!(ran[3] >= 2 && ran[4] >= 2, "{ran:?}");
}

/// The roots of a store (sessions without a parent), from their headers.
fn roots(store: &Path) -> Vec<String> {
    let mut out: Vec<String> = logs(store)
        .iter()
        .map(|l| header(l))
        .filter(|h| h.get("parentSession").is_none())
        .map(|h| h["id"].as_str().unwrap().to_string())
        .collect();
    out.sort();
    out.dedup();
    out
}

#[test]
fn every_view_of_a_migrated_store_equals_its_source() {
    let stores = repo().join("testdata/stores");
    let mut compared = 0;
    for source in ["rc8-cli", "rc8-live", "rc8-inbox"] {
        let src = stores.join(source);
        let roots = roots(&src);
        assert!(!roots.is_empty(), "{source}");
        for generation in 1..=4 {
            let migrated = stores.join(format!("{source}-v{generation}"));
            if !migrated.is_dir() {
                continue;
            }
            let mut views: Vec<Vec<String>> = vec![
                vec!["tree".into(), "--all".into()],
                vec!["tree".into(), "--all".into(), "--json".into()],
                vec!["check".into()],
            ];
            for root in &roots {
                for view in [
                    &["--contract", "v1", "list-agents", "--scope", "descendants"][..],
                    &["--contract", "v1", "list-agents", "--scope", "children"][..],
                    &["list-agents"][..],
                ] {
                    let mut v: Vec<String> = view.iter().map(|s| s.to_string()).collect();
                    v.push(format!("--as={root}"));
                    views.push(v);
                }
                views.push(vec!["log".into(), root.clone()]);
                views.push(vec!["inbox".into(), root.clone()]);
            }
            for view in &views {
                let on = |store: &Path| {
                    let mut argv = vec!["--store".to_string(), store.to_str().unwrap().into()];
                    argv.extend(view.iter().cloned());
                    let r = run(&argv);
                    let strip = |s: &str| s.replace(store.to_str().unwrap(), "STORE");
                    (r.code, strip(&r.stdout), strip(&r.stderr))
                };
                let (want, got) = (on(&src), on(&migrated));
                assert_eq!(got, want, "{source} generation {generation}: {view:?}");
                compared += 1;
            }
        }
    }
    assert!(compared >= 80, "{compared}");
}

#[test]
fn the_highest_generation_is_read_and_a_mislabelled_log_is_reported() {
    // A broken generation-0 backup beside the current generation-3 log is
    // never read.
    let store = copy_store(&repo().join("testdata/stores/rc8-live-v3"), "gen-highest");
    let clean = run(["--store", store.path().to_str().unwrap(), "tree", "--all"]);
    assert_eq!(clean.code, 0, "{}", clean.stderr);
    for log in logs(store.path()) {
        std::fs::write(log.with_file_name("session.jsonl"), b"not a log\n").unwrap();
        std::fs::write(log.with_file_name("session.v1.jsonl"), b"{}\n").unwrap();
    }
    let r = run(["--store", store.path().to_str().unwrap(), "tree", "--all"]);
    assert_eq!((r.code, &r.stdout), (0, &clean.stdout), "{}", r.stderr);
    let r = run(["--store", store.path().to_str().unwrap(), "check"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);

    // A generation-2 file holding a generation-3 header is not silently
    // read as either.
    let log = logs(store.path())
        .into_iter()
        .find(|l| l.ends_with("session.v3.jsonl"))
        .unwrap();
    std::fs::rename(&log, log.with_file_name("session.v2.jsonl")).unwrap();
    std::fs::write(log.with_file_name("session.v1.jsonl"), b"").unwrap();
    let r = run(["--store", store.path().to_str().unwrap(), "check"]);
    crate::common::snapshot_settings(Some(store.path()))
        .bind(|| insta::assert_snapshot!(r.blob(&["check"]), @r#"
            $ dsh-agents check
            warning: [STORE]/--work-rc8--/[ID]/session.v2.jsonl: corrupt session log "[STORE]/--work-rc8--/[ID]/session.v2.jsonl": a generation-2 log holds a header of version 3; DSH skips it
            1 problem(s) in 1 sessions
            --- stderr
            --- exit: 3
        "#));
}

/// The log of the store's first session that has a parent.
fn child_log(store: &std::path::Path) -> std::path::PathBuf {
    logs(store)
        .into_iter()
        .find(|l| header(l).get("parentSession").is_some())
        .expect("a session with a parent")
}

#[test]
fn a_newer_header_in_a_generation_0_file_is_unavailable_as_rc8_lists_it() {
    // rc.8 lists a `session.jsonl` whose header says version 1 as
    // `[diagnostic: unavailable]` (its restore refuses every version but
    // 0: `scripts/differential.py`'s `v1hdr` case); it was read by the
    // header's generation and listed `[ready]`.
    let store = copy_store(&repo().join("testdata/stores/rc8-live-v1"), "gen-v0-file");
    let child = child_log(store.path());
    std::fs::rename(&child, child.with_file_name("session.jsonl")).unwrap();
    let id = header(&child.with_file_name("session.jsonl"))["id"]
        .as_str()
        .unwrap()
        .to_string();
    let s = store.path().to_str().unwrap();
    let mut v2 = Vec::new();
    for env in READ_MODES {
        let r = crate::common::v1_list(store.path(), "parent-1", "children", env);
        assert_eq!(
            (r.code, r.stdout.as_str()),
            (0, format!("{id} [diagnostic: unavailable]\n").as_str()),
            "{env:?} {}",
            r.stderr
        );
        let args = ["list-agents", "--as", "parent-1"];
        v2.push(crate::common::run_in_env(store.path(), env, &args).blob(&args));
    }
    // The v2 listing says the same on every road.
    assert!(v2.windows(2).all(|w| w[0] == w[1]), "{v2:#?}");
    crate::common::snapshot_settings(Some(store.path())).bind(|| {
        insta::assert_snapshot!(v2[0], @r#"
            $ dsh-agents list-agents --as parent-1
            lead [inactive] — root agent
            [ID] [unavailable]
            --- stderr
            --- exit: 0
        "#)
    });
    let r = run(["--store", s, "check"]);
    crate::common::snapshot_settings(Some(store.path()))
        .bind(|| insta::assert_snapshot!(r.blob(&["check"]), @r#"
            $ dsh-agents check
            error: [STORE]/--work-rc8--/[ID]/session.jsonl: unreadable session log: session "[ID]" uses log format v1, but its log file is a v0 log
            1 problem(s) in 2 sessions
            --- stderr
            --- exit: 3
        "#));
}

#[test]
fn generation_rules_are_enforced_on_read() {
    // Generation 2 on: a closed header key set, and a seeded log needs its
    // inherited end-seed marker.
    let store = copy_store(&repo().join("testdata/stores/rc8-live-v2"), "gen-rules");
    let child = child_log(store.path());
    let text = std::fs::read_to_string(&child).unwrap();
    let (first, rest) = text.split_once('\n').unwrap();
    let mut said = String::new();
    for edit in [
        first.replace("\"isSeeded\":false", "\"isSeeded\":false,\"seedLength\":0"),
        first.replace("\"isSeeded\":false", "\"isSeeded\":true"),
    ] {
        assert_ne!(edit, first);
        std::fs::write(&child, format!("{edit}\n{rest}")).unwrap();
        let r = run(["--store", store.path().to_str().unwrap(), "check"]);
        said.push_str(&r.blob(&["check"]));
    }
    crate::common::snapshot_settings(Some(store.path()))
        .bind(|| insta::assert_snapshot!(said, @r#"
            $ dsh-agents check
            error: [STORE]/--work-rc8--/[ID]/session.v2.jsonl: unreadable session log: format v2 header has unexpected field "seedLength"
            1 problem(s) in 2 sessions
            --- stderr
            --- exit: 3
            $ dsh-agents check
            error: [STORE]/--work-rc8--/[ID]/session.v2.jsonl: unreadable session log: session "[ID]": format v2 seeded Session lacks an inherited end-seed marker
            1 problem(s) in 2 sessions
            --- stderr
            --- exit: 3
        "#));
}

#[test]
fn spawn_writes_the_generation_asked_and_serve_leaves_it_to_dsh() {
    let mut trees = Vec::new();
    let mut refusals = String::new();
    for generation in 0..=4u32 {
        let store = crate::common::temp_dir("gen-spawn");
        let s = store.path().to_str().unwrap();
        let g = generation.to_string();
        let r = run([
            "--store",
            s,
            "spawn",
            "--id",
            "root",
            "--format-version",
            &g,
        ]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        // The children take the store's generation unasked.
        for (id, mode) in [("kid", "continuable"), ("once", "one-shot")] {
            let r = run([
                "--store",
                s,
                "spawn",
                "--parent",
                "root",
                "--id",
                id,
                "--label",
                id,
                "--mode",
                mode,
                "--created-at",
                "1",
            ]);
            assert_eq!(r.code, 0, "{}", r.stderr);
        }
        let want = if generation == 0 {
            "session.jsonl".to_string()
        } else {
            format!("session.v{generation}.jsonl")
        };
        let logs = logs(store.path());
        assert_eq!(logs.len(), 3, "{logs:?}");
        for log in &logs {
            assert_eq!(log.file_name().unwrap().to_string_lossy(), want);
            let h = header(log);
            assert_eq!(h["version"], generation);
            assert_eq!(h.get("isSeeded").is_some(), generation >= 2, "{h}");
        }
        let r = run(["--store", s, "check"]);
        assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
        let r = run(["--store", s, "tree", "--all"]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        trees.push(r.stdout);
        if generation > 0 {
            let before = std::fs::read(&logs[0]).unwrap();
            let args = ["serve", "--as", "root", "--once", "--", "cat"];
            let r = run_in(store.path(), &args);
            refusals.push_str(&r.blob(&args).replace(s, "[STORE]"));
            assert_eq!(std::fs::read(&logs[0]).unwrap(), before);
        }
    }
    // Every generation shows the same tree.
    assert!(trees.windows(2).all(|w| w[0] == w[1]), "{trees:#?}");
    insta::assert_snapshot!(trees[0], @r#"
        tree root
        NAME     STATE     MODE         LAST TURN                PENDING  LABEL
        lead     inactive  root         no turns                 0
        ├─ kid   inactive  continuable  no turns                 0        kid
        └─ once  inactive  one-shot     completed on 1970-01-01  0
    "#);
    // `serve` refuses a log of generation 1 on, which only DSH writes.
    insta::assert_snapshot!(refusals, @r#"
        $ dsh-agents serve --as root --once -- cat
        --- stderr
        Error: cannot append to [STORE]/_no-cwd/root/session.v1.jsonl: a generation-1 log is written by DSH only (serve runs generation-0 sessions)
        --- exit: 3
        $ dsh-agents serve --as root --once -- cat
        --- stderr
        Error: cannot append to [STORE]/_no-cwd/root/session.v2.jsonl: a generation-2 log is written by DSH only (serve runs generation-0 sessions)
        --- exit: 3
        $ dsh-agents serve --as root --once -- cat
        --- stderr
        Error: cannot append to [STORE]/_no-cwd/root/session.v3.jsonl: a generation-3 log is written by DSH only (serve runs generation-0 sessions)
        --- exit: 3
        $ dsh-agents serve --as root --once -- cat
        --- stderr
        Error: cannot append to [STORE]/_no-cwd/root/session.v4.jsonl: a generation-4 log is written by DSH only (serve runs generation-0 sessions)
        --- exit: 3
    "#);

    let store = crate::common::temp_dir("gen-spawn-refused");
    let s = store.path();
    assert_at!(s, &["spawn", "--format-version", "5"], @r#"
        $ dsh-agents spawn --format-version 5
        --- stderr
        Error: --format-version: 5 is not a generation this build writes (0 to 4)
        --- exit: 2
    "#);
    assert_at!(s, &["spawn", "--format-version", "3", "--prompt", "hi"], @r#"
        $ dsh-agents spawn --format-version 3 --prompt hi
        --- stderr
        Error: --prompt: generation 3 needs a system message before the first prompt, which this build does not write; spawn without --prompt and send the prompt
        --- exit: 2
    "#);
    let r = run_in(s, &["spawn", "--format-version", "2", "--prompt", "hi"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_at!(s, &["spawn", "--parent", "lead", "--name", "x", "--format-version", "1"], @r#"
        $ dsh-agents spawn --parent lead --name x --format-version 1
        --- stderr
        Error: --name: a name is kept in the session header, which generation 1 closes to DSH's own keys; use --format-version 0
        --- exit: 2
    "#);
}

#[test]
fn a_generation_4_parent_catalog_orders_and_names_its_children() {
    let store = crate::common::temp_dir("gen-catalog");
    let s = store.path().to_str().unwrap();
    let spawn = |args: &[&str]| {
        let mut argv = vec!["--store", s, "spawn"];
        argv.extend_from_slice(args);
        let r = run(&argv);
        assert_eq!(r.code, 0, "{}", r.stderr);
    };
    spawn(&["--id", "root", "--format-version", "4", "--created-at", "1"]);
    for (id, at) in [
        ("kid-a", "2"),
        ("kid-b", "3"),
        ("kid-c", "4"),
        ("kid-d", "5"),
    ] {
        spawn(&[
            "--parent",
            "root",
            "--id",
            id,
            "--label",
            id,
            "--created-at",
            at,
        ]);
    }
    let v1: &[&str] = &["--contract", "v1", "list-agents", "--as=root"];
    // Before the catalog: sibling order, and the one-shot kid-d listed.
    assert_at!(store.path(), v1, @r#"
        $ dsh-agents --contract v1 list-agents --as=root
        kid-a [ready] — kid-a
        kid-b [ready] — kid-b
        kid-c [ready] — kid-c
        kid-d [ready] — kid-d
        --- stderr
        --- exit: 0
    "#);
    // The parent records kid-b first with its own label, cannot tell
    // kid-c's mode (its descriptor then decides) and records kid-d as a
    // one-shot (which rc.8's listing leaves out once settled); kid-a is not
    // in the catalog and follows in sibling order.
    let log = logs(store.path())
        .into_iter()
        .find(|l| header(l)["id"] == "root")
        .unwrap();
    let rows = [
        r#"{"type":"subagent/catalog","seq":0,"time":5,"data":{"version":0,"childId":"kid-b","childCreatedAt":3,"mode":"continuable","label":"recorded by root"}}"#,
        r#"{"type":"subagent/catalog-unknown","seq":1,"time":5,"data":{"version":0,"childId":"kid-c","childCreatedAt":4,"mode":"unknown"}}"#,
        r#"{"type":"subagent/catalog","seq":2,"time":5,"data":{"version":0,"childId":"kid-z","childCreatedAt":4,"mode":"one-shot"}}"#,
        r#"{"type":"subagent/catalog","seq":3,"time":5,"data":{"version":0,"childId":"kid-d","childCreatedAt":5,"mode":"one-shot"}}"#,
    ];
    let mut text = std::fs::read_to_string(&log).unwrap();
    for row in rows {
        text.push_str(row);
        text.push('\n');
    }
    std::fs::write(&log, text).unwrap();
    // After it: kid-b, kid-c, then kid-a; kid-b with root's label; kid-z
    // (no such child) and the settled one-shot kid-d left out of v1, while
    // `tree` shows kid-d as a one-shot.
    assert_each_at!(
        store.path(),
        &[v1, &["tree"], &["list-agents", "--as=root"], &["check"]],
        @r#"
            $ dsh-agents --contract v1 list-agents --as=root
            kid-b [ready] — recorded by root
            kid-c [ready] — kid-c
            kid-a [ready] — kid-a
            --- stderr
            --- exit: 0
            $ dsh-agents tree
            tree root
            NAME      STATE     MODE         LAST TURN  PENDING  LABEL
            lead      inactive  root         no turns   0
            ├─ kid-b  inactive  continuable  no turns   0        recorded by root
            ├─ kid-c  inactive  continuable  no turns   0        kid-c
            ├─ kid-d  inactive  one-shot     no turns   0
            └─ kid-a  inactive  continuable  no turns   0        kid-a
            --- stderr
            --- exit: 0
            $ dsh-agents list-agents --as=root
            lead [inactive] — root agent
            kid-b [inactive] — recorded by root
            kid-c [inactive] — kid-c
            kid-a [inactive] — kid-a
            --- stderr
            --- exit: 0
            $ dsh-agents check
            ok: 5 sessions, no problems
            --- stderr
            --- exit: 0
        "#
    );
    // The same rows in a generation-3 log are not a catalog.
    let g3 = crate::common::temp_dir("gen-catalog-3");
    let s3 = g3.path().to_str().unwrap();
    let r = run([
        "--store",
        s3,
        "spawn",
        "--id",
        "root",
        "--format-version",
        "3",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let log3 = logs(g3.path()).pop().unwrap();
    let mut text = std::fs::read_to_string(&log3).unwrap();
    text.push_str(rows[0]);
    text.push('\n');
    std::fs::write(&log3, text).unwrap();
    assert_at!(g3.path(), &["check"], @r#"
        $ dsh-agents check
        error: [STORE]/_no-cwd/root/session.v3.jsonl: unreadable session log: session "root": event type "subagent/catalog" (seq 0) unknown to this harness and not marked ignorable
        1 problem(s) in 1 sessions
        --- stderr
        --- exit: 3
    "#);
}

/// The text each command prints on the generation-3 (DSH's own migration)
/// and generation-4 (reference) stores, pinned as golden files.
#[test]
fn migrated_store_outputs_match_golden_files() {
    crate::common::snapshot_settings(None).bind(|| {
        for (source, root) in [
            ("rc8-cli", "session-cd54d0e9-4044-4a6d-8063-d409a9de653a"),
            ("rc8-live", "parent-1"),
            ("rc8-inbox", "inbox-parent"),
        ] {
            for generation in [3, 4] {
                let store = format!("testdata/stores/{source}-v{generation}");
                let views: [(&str, Vec<&str>); 4] = [
                    ("tree", vec!["tree", "--all"]),
                    ("check", vec!["check"]),
                    ("log", vec!["log", root]),
                    (
                        "v1.descendants",
                        vec!["--contract", "v1", "list-agents", "--scope", "descendants"],
                    ),
                ];
                for (view, args) in views {
                    let mut argv = vec!["--store", store.as_str()];
                    argv.extend(args);
                    if view.starts_with("v1") {
                        argv.push("--as");
                        argv.push(root);
                    }
                    let blob = run(&argv).blob(&argv);
                    insta::assert_snapshot!(format!("{source}-v{generation}.{view}"), blob);
                }
            }
        }
    });
}

#[test]
fn a_compressed_newer_generation_is_read() {
    let store = crate::common::temp_dir("gen-zstd");
    let s = store.path().to_str().unwrap();
    for args in [
        &[
            "--id",
            "root",
            "--format-version",
            "3",
            "--compression",
            "zstd",
        ][..],
        &["--parent", "root", "--id", "kid", "--label", "packed"][..],
    ] {
        let mut argv = vec!["--store", s, "spawn"];
        argv.extend_from_slice(args);
        let r = run(&argv);
        assert_eq!(r.code, 0, "{}", r.stderr);
    }
    let names: Vec<String> = logs(store.path())
        .iter()
        .map(|l| l.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["session.v3.jsonl.zstd"; 2]);
    let r = run(["--store", s, "--contract", "v1", "list-agents", "--as=root"]);
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (0, "kid [ready] — packed\n"),
        "{}",
        r.stderr
    );
    let r = run(["--store", s, "check"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    // Both encodings of one generation are the store error rc.8 reports
    // for both encodings of generation 0.
    let kid = logs(store.path())
        .into_iter()
        .find(|l| l.to_string_lossy().contains("/kid/"))
        .unwrap();
    std::fs::write(kid.with_file_name("session.v3.jsonl"), b"").unwrap();
    assert_at!(store.path(), &["check"], @r#"
        $ dsh-agents check
        error: [STORE]/_no-cwd/kid/session.v3.jsonl.zstd: session artifact "[STORE]/_no-cwd/kid/session.v3.jsonl.zstd" uses .jsonl.zstd, but this backend is configured for compression "none"; use a separate root or select the matching compression mode
        1 problem(s) in 1 sessions
        --- stderr
        --- exit: 3
    "#);
}
