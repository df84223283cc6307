//! Reading part of a log: a tail read titles a session as a whole read
//! does, and a log streamed a turn at a time reads as it does whole.

/// `log --last N` reads a subagent's identity from its log's head (so its
/// cost follows the turns shown): on every carried store the title it
/// shows is the one a whole read shows, for every log DSH can read (only
/// a whole read checks the rest of a log, and says so).
#[test]
fn a_tail_read_titles_every_session_as_a_whole_read_does() {
    let stores = crate::common::repo().join("testdata/stores");
    let mut compared = 0;
    for store in std::fs::read_dir(&stores).unwrap() {
        let store = store.unwrap().path();
        if !store.is_dir() {
            continue;
        }
        for project in std::fs::read_dir(&store).unwrap() {
            let project = project.unwrap().path();
            if !project.is_dir() {
                continue;
            }
            for session in std::fs::read_dir(&project).unwrap() {
                let session = session.unwrap().path();
                let id = session.file_name().unwrap().to_str().unwrap().to_string();
                let s = store.to_str().unwrap();
                let whole = crate::common::run(["--store", s, "log", &id]);
                if whole.code != 0 || whole.stdout.contains("\n!! DSH cannot read this log") {
                    continue;
                }
                let tail = crate::common::run(["--store", s, "log", &id, "--last", "1"]);
                assert_eq!(tail.code, 0, "{s} {id}: {}", tail.stderr);
                assert_eq!(
                    tail.stdout.lines().next(),
                    whole.stdout.lines().next(),
                    "{s} {id}"
                );
                compared += 1;
            }
        }
    }
    assert!(compared > 50, "only {compared} sessions compared");
}

/// A log with what makes streaming it hard: a turn started by runtime
/// context before its message, a turn nothing started, a turn left open by
/// a crash before the next, a compaction that cuts a stretch in two, and a
/// long message; and the same log with two events out of seq order.
fn tricky_log(out_of_order: bool) -> String {
    let mut lines = vec![
        r#"{"type":"session","version":0,"id":"tricky","createdAt":1000,"delegationDepth":0}"#
            .to_string(),
    ];
    let user = |seq: u64, text: &str, kind: &str| {
        format!(
            r#"{{"type":"user/message","seq":{seq},"time":{seq}000,"data":{{"content":[{{"type":"text","text":"{text}"}}],"source":{{"kind":"{kind}"}},"role":"user","id":"m{seq}"}},"surfaceOp":"append"}}"#
        )
    };
    let said = |seq: u64, text: &str, op: &str| {
        format!(
            r#"{{"type":"assistant/message","seq":{seq},"time":{seq}000,"data":{{"message":{{"content":[{{"type":"text","text":"{text}"}}]}}}},"surfaceOp":{op}}}"#
        )
    };
    let start = |seq: u64, turn: u64| {
        format!(r#"{{"type":"turn/start","seq":{seq},"time":{seq}000,"data":{{"turn":{turn}}}}}"#)
    };
    let end = |seq: u64, turn: u64| {
        format!(
            r#"{{"type":"turn/end","seq":{seq},"time":{seq}000,"data":{{"turn":{turn},"reason":{{"kind":"completed"}}}}}}"#
        )
    };
    let long = "line\\n".repeat(40);
    lines.extend([
        start(1, 1),
        user(2, "runtime snapshot", "plugin"),
        user(3, "first question", "user"),
        said(4, "first answer", "\"append\""),
        end(5, 1),
        start(6, 2),
        said(7, "nobody asked", "\"append\""),
        end(8, 2),
        start(9, 3),
        said(10, "cut off by a crash", "\"append\""),
        start(11, 4),
        user(12, &long, "user"),
        said(13, "summary of 3..7", r#"{"start":3,"end":7}"#),
        said(14, "after", "\"append\""),
        end(15, 4),
    ]);
    if out_of_order {
        lines.swap(4, 5);
    }
    lines.join("\n") + "\n"
}

/// A whole `log` is streamed (memory does not grow with the log); what it
/// prints is what a whole fold prints (`--last` past the turns count folds
/// the log whole), in text and JSON, on every carried store and on the
/// tricky log; a log out of order is folded whole, and says so.
#[test]
fn a_streamed_log_shows_what_a_whole_fold_shows() {
    let mut compared = 0;
    let tricky = crate::common::temp_dir("log-stream");
    for (n, out_of_order) in [(0, false), (1, true)] {
        let dir = tricky.path().join(format!("s{n}/_no-cwd/tricky"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("session.jsonl"), tricky_log(out_of_order)).unwrap();
        let s = tricky.path().join(format!("s{n}"));
        let r = crate::common::run_env(
            ["--store", s.to_str().unwrap(), "log", "tricky"],
            &[("DSH_AGENTS_DEBUG", "1")],
        );
        assert_eq!(r.code, 0, "{}", r.stderr);
        let road = if out_of_order {
            "read whole"
        } else {
            "streamed"
        };
        assert!(
            r.stderr.contains(&format!("plan: log: {road}")),
            "{}",
            r.stderr
        );
    }
    let mut stores: Vec<std::path::PathBuf> =
        vec![tricky.path().join("s0"), tricky.path().join("s1")];
    for store in std::fs::read_dir(crate::common::repo().join("testdata/stores")).unwrap() {
        stores.push(store.unwrap().path());
    }
    for store in stores.into_iter().filter(|s| s.is_dir()) {
        for project in std::fs::read_dir(&store).unwrap() {
            let project = project.unwrap().path();
            if !project.is_dir() {
                continue;
            }
            for session in std::fs::read_dir(&project).unwrap() {
                let id = session.unwrap().file_name().to_str().unwrap().to_string();
                let s = store.to_str().unwrap();
                for extra in [&[][..], &["--json"], &["--full", "--reasoning"]] {
                    let mut args = vec!["--store", s, "log", &id];
                    args.extend(extra);
                    let streamed = crate::common::run(&args);
                    if streamed.code != 0 {
                        continue;
                    }
                    // Only a whole read says DSH cannot read the log.
                    let streamed: Vec<&str> = streamed
                        .stdout
                        .lines()
                        .filter(|l| {
                            !l.starts_with("!! DSH cannot read")
                                && !l.starts_with(r#"{"kind":"unreadable""#)
                        })
                        .collect();
                    args.extend(["--last", "1000000"]);
                    let whole = crate::common::run(&args);
                    // (The title of a log DSH cannot read may differ: a
                    // tail read takes it from the log's head.)
                    assert_eq!(
                        streamed[1..],
                        whole.stdout.lines().skip(1).collect::<Vec<_>>(),
                        "{s} {id} {extra:?}"
                    );
                    compared += 1;
                }
            }
        }
    }
    assert!(compared > 150, "only {compared} logs compared");
}
