//! The operator's view: `log` (text, JSON, `--last`, `--follow`), `tree`
//! (width, hierarchy, JSON parents and depths, filters), `trace` for each
//! way a message can stand, `cancel`, and the honest errors of the CLI.

use crate::common::{TempDir, copy_store, fixture, repo, run, snapshot, write_log};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const SAMPLES: &[&str] = &[
    "team",
    "zstd",
    "rc8-cli",
    "rc8-cli-zstd",
    "rc8-live",
    "rc8-compacted",
];

fn at(store: &Path, args: &[&str]) -> crate::common::Run {
    let mut argv = vec!["--store", store.to_str().unwrap()];
    argv.extend_from_slice(args);
    run(&argv)
}

fn ok(store: &Path, args: &[&str]) -> String {
    let r = at(store, args);
    assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
    r.stdout
}

fn json_lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect()
}

fn sessions(store: &Path) -> Vec<String> {
    let trees: Value = serde_json::from_str(&ok(store, &["tree", "--json", "--all"])).unwrap();
    trees
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t["members"].as_array().unwrap().clone())
        .map(|m| m["id"].as_str().unwrap().to_string())
        .collect()
}

/// Every line `tree` prints fits the width, and the JSON form's parents
/// and depths describe the same hierarchy the drawing shows.
fn assert_tree_fits(store: &Path, width: usize) {
    for args in [&["tree"][..], &["tree", "--all"]] {
        let text = ok(store, args);
        for line in text.lines() {
            assert!(
                line.chars().count() <= width,
                "{store:?} {args:?}: {} columns: {line}",
                line.chars().count()
            );
        }
    }
    let trees: Value = serde_json::from_str(&ok(store, &["tree", "--json", "--all"])).unwrap();
    for t in trees.as_array().unwrap() {
        let members = t["members"].as_array().unwrap();
        assert_eq!(members[0]["depth"], 0);
        assert_eq!(members[0]["parent"], Value::Null);
        assert_eq!(members[0]["id"], t["root"]);
        for m in &members[1..] {
            let parent = members
                .iter()
                .find(|p| p["id"] == m["parent"])
                .unwrap_or_else(|| panic!("{m}: its parent is in the tree"));
            assert_eq!(
                m["depth"].as_u64().unwrap(),
                parent["depth"].as_u64().unwrap() + 1,
                "{m}"
            );
        }
    }
}

#[test]
fn tree_fits_100_columns_and_json_carries_the_hierarchy() {
    for name in SAMPLES {
        assert_tree_fits(&repo().join("testdata/stores").join(name), 100);
    }
    // 2,000 sessions: 40 roots, each with children and grandchildren whose
    // names and labels are long enough to need cutting.
    let tmp = crate::common::temp_dir("wide");
    let mut n = 0;
    for r in 0..40 {
        let root = format!("root-{r:02}-{}", "x".repeat(30));
        write_log(
            tmp.path(),
            "_no-cwd",
            &root,
            &[fixture::root(&root, r).to_string()],
        );
        n += 1;
        for c in 0..7 {
            let child = format!("{root}-c{c}");
            let mut header = fixture::child(&child, 100 + c, &root);
            header["name"] = Value::from(format!("worker-{c}-{}", "n".repeat(40)));
            let label = format!("Label {c} {}", "long words ".repeat(12));
            write_log(
                tmp.path(),
                "_no-cwd",
                &child,
                &[
                    header.to_string(),
                    fixture::descriptor(0, &label).to_string(),
                ],
            );
            n += 1;
            for g in 0..6 {
                let grand = format!("{child}-g{g}");
                let mut header = fixture::child(&grand, 200 + g, &child);
                header["name"] = Value::from(format!("grandchild-{g}"));
                write_log(
                    tmp.path(),
                    "_no-cwd",
                    &grand,
                    &[header.to_string(), fixture::descriptor(0, "g").to_string()],
                );
                n += 1;
            }
        }
    }
    assert_eq!(n, 40 + 40 * 7 + 40 * 7 * 6);
    assert!(n >= 2000);
    assert_tree_fits(tmp.path(), 100);
    let root = format!("root-07-{}", "x".repeat(30));
    let text = ok(tmp.path(), &["tree", &root]);
    assert!(text.starts_with("tree root-07-"), "{text}");
    assert!(text.contains("│  └─ grandchild-5"), "{text}");
    assert_eq!(text.lines().count(), 2 + 1 + 7 + 42, "{text}");
}

/// At 80 columns (a default terminal) no line is wider, and each row's
/// name is whole: columns give way in an order (label, mode, tokens)
/// before a name is cut. Every name a row shows (an unnamed member's
/// shortest unique id prefix included) addresses that very session in
/// `inbox`, `log` and `followup`.
#[test]
fn every_name_tree_shows_addresses_its_agent_at_80_columns() {
    for name in SAMPLES
        .iter()
        .chain(&["rc8-inbox", "rc8-cli-v4", "rc8-live-v4"])
    {
        let store = repo().join("testdata/stores").join(name);
        let text = ok(&store, &["tree", "--all", "--width", "80"]);
        let trees: Value = serde_json::from_str(&ok(&store, &["tree", "--json", "--all"])).unwrap();
        let ids: Vec<String> = trees
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["members"].as_array().unwrap().len() > 1)
            .flat_map(|t| t["members"].as_array().unwrap().clone())
            .map(|m| m["id"].as_str().unwrap().to_string())
            .collect();
        let rows: Vec<&str> = text
            .lines()
            .filter(|l| {
                !l.starts_with("tree ")
                    && !l.starts_with("NAME")
                    && !l.starts_with("PENDING ")
                    && !l.is_empty()
                    && !l.contains("without subagents")
            })
            .collect();
        assert_eq!(rows.len(), ids.len(), "{name}: {text}");
        for (line, id) in rows.iter().zip(&ids) {
            assert!(line.chars().count() <= 80, "{name}: {line}");
            let shown = line
                .trim_start_matches(|c: char| "│├└─ ".contains(c))
                .split_whitespace()
                .next()
                .unwrap();
            assert!(!shown.ends_with('…'), "{name}: a cut name: {line}");
            let tmp = copy_store(&store, "names");
            let copy = tmp.path();
            let who: Value = serde_json::from_str(&ok(copy, &["--json", "inbox", shown])).unwrap();
            assert!(who.is_object(), "{name} {shown}");
            // The followup lands in the very session the row stands for.
            let r = at(copy, &["followup", shown, "hello"]);
            if r.code == 0 {
                assert!(
                    r.stdout.trim_end().ends_with(&format!("agent {id}")),
                    "{name} {shown}: {}",
                    r.stdout
                );
            } else {
                assert!(
                    r.stderr.contains(&format!("\"{id}\"")),
                    "{name} {shown}: {}",
                    r.stderr
                );
            }
            let log = at(copy, &["log", shown, "--last", "1"]);
            assert_ne!(log.code, 2, "{name} {shown}: {}", log.stderr);
        }
    }
}

#[test]
fn log_json_carries_what_the_text_shows() {
    for name in SAMPLES {
        let store = repo().join("testdata/stores").join(name);
        for id in sessions(&store) {
            let r = at(&store, &["log", &id, "--full", "--reasoning"]);
            if r.code != 0 {
                // A log DSH cannot read fails the same way in both forms.
                assert_eq!(at(&store, &["--json", "log", &id]).code, r.code);
                continue;
            }
            let lines = json_lines(&ok(&store, &["--json", "log", &id]));
            assert_eq!(lines[0]["kind"], "session");
            assert_eq!(lines[0]["session"], id.as_str());
            let turns = lines.iter().filter(|l| l["kind"] == "turn-start").count();
            let headers = r.stdout.lines().filter(|l| l.contains(" · from ")).count();
            assert_eq!(turns, headers, "{name} {id}");
            for l in &lines[1..] {
                let text = l["text"].as_str().unwrap_or("");
                let first = text.lines().next().unwrap_or("");
                if !first.is_empty() {
                    assert!(
                        r.stdout.contains(first),
                        "{name} {id}: text view lacks {first:?}"
                    );
                }
                for call in l["toolCalls"].as_array().into_iter().flatten() {
                    let name = call["name"].as_str().unwrap();
                    assert!(r.stdout.contains(&format!("→ {name} ")), "{call}");
                }
            }
        }
    }
}

#[test]
fn log_shows_turn_endings_the_last_turns_and_compaction() {
    // Turns aborted by the parent, interrupted and completed; a parent's
    // message; the last turn alone.
    let live = repo().join("testdata/stores/rc8-live");
    assert_at!(&live, &["log", "e74b"], @r#"
        $ dsh-agents log e74b
        session [ID] · continuable · child of parent-1 · worker
        ── turn 1 · 2026-12-02T18:40:38.611Z · from user
          user: First task for the worker
          [runtime context: 434 characters; --full shows it]
          assistant: reply#1 to: First task for the worker
        ── turn 1 completed after 12 ms
        ── turn 2 · 2026-12-02T18:40:39.154Z · from parent (from parent-1)
          parent (from parent-1): Second task
          assistant: reply#2 to: Second task
        ── turn 2 completed after 9 ms
        ── turn 3 · 2026-12-02T18:40:39.697Z · from parent (from parent-1)
          parent (from parent-1): GATED third task
        ── turn 3 aborted by parent after 410 ms
        ── turn 4 · 2026-12-02T18:40:40.833Z · from parent (from parent-1)
          parent (from parent-1): CRASH fourth task
        ── turn 4 interrupted after 3 ms
        ── turn 5 · 2026-12-02T18:40:46.556Z · from parent (from parent-1)
          parent (from parent-1): Fifth task after the crash
          assistant: reply#1 to: Fifth task after the crash
        ── turn 5 completed after 21 ms
        --- stderr
        --- exit: 0
    "#);
    assert_at!(&live, &["log", "e74b", "--last", "1"], @r#"
        $ dsh-agents log e74b --last 1
        session [ID] · continuable · child of parent-1 · worker
        ── turn 5 · 2026-12-02T18:40:46.556Z · from parent (from parent-1)
          parent (from parent-1): Fifth task after the crash
          assistant: reply#1 to: Fifth task after the crash
        ── turn 5 completed after 21 ms
        --- stderr
        --- exit: 0
    "#);
    // A compaction's summary, and each item it replaced marked.
    let compacted = repo().join("testdata/stores/rc8-compacted");
    assert_at!(&compacted, &["log", "e74b"], @r#"
        $ dsh-agents log e74b
        session [ID] · continuable · child of parent-1 · worker
        ── turn 1 · 2026-12-02T18:40:38.611Z · from user
          user [compacted later]: First task for the worker
          [runtime context: 434 characters; --full shows it] [compacted later]
          assistant [compacted later]: reply#1 to: First task for the worker
        ── turn 1 completed after 12 ms
        ── turn 2 · 2026-12-02T18:40:39.154Z · from parent (from parent-1)
          parent (from parent-1) [compacted later]: Second task
          assistant [compacted later]: reply#2 to: Second task
        ── turn 2 completed after 9 ms
        ── turn 3 · 2026-12-02T18:40:39.697Z · from parent (from parent-1)
          parent (from parent-1) [compacted later]: GATED third task
        ── turn 3 aborted by parent after 410 ms
        ── turn 4 · 2026-12-02T18:40:40.833Z · from parent (from parent-1)
          parent (from parent-1) [compacted later]: CRASH fourth task
        ── turn 4 interrupted after 3 ms
        ── turn 5 · 2026-12-02T18:40:46.556Z · from parent (from parent-1)
          parent (from parent-1): Fifth task after the crash
          assistant: reply#1 to: Fifth task after the crash
        ── turn 5 completed after 21 ms
          compaction summary (replaces 7 earlier items): This is an automatically generated checkpoint condensing an earlier span of the conversation to free up context.
            <summary>The worker finished its first two tasks; the third was interrupted by the parent; the fourth was cut off by a crash and the fifth completed.</summary>
        --- stderr
        --- exit: 0
    "#);
    // Runtime context cut short.
    let cli = repo().join("testdata/stores/rc8-cli");
    assert_at!(&cli, &["log", "session-cd54"], @r#"
        $ dsh-agents log session-cd54
        session session-[ID] · lead · root
        ── turn 1 · 2026-12-02T18:34:32.127Z · from user
          user: Do the task with a child
          [runtime context: 455 characters; --full shows it]
          → subagent {"description":"probe child","prompt":"CHILD-TASK: say hello"} [call_1]
          ← [call_1]: started subagent [ID]
          → list_agents {} [call_12]
          ← [call_12]: [ID] [ready] — probe child
          subagent settled notice: Background subagent [ID] finished and will do no further work unless you send it more.
            Its closing message:
            CHILD-ANSWER-1: Current runtime context. This snapshot supersedes earlier runtime-context snapsh
          → send_message {"subagent_id":"[ID]","message":"CHILD-FOLLOWUP: say bye"} [call_17]
          ← [call_17]: message queued as the next turn for subagent [ID]
          → list_agents {} [call_25]
          ← [call_25]: [ID] [ready] — probe child
          subagent settled notice: Background subagent [ID] finished and will do no further work unless you send it more.
            Its closing message:
            CHILD-ANSWER-2: CHILD-FOLLOWUP: say bye
          assistant: ROOT-FINAL notices=2 child=[ID]
        ── turn 1 completed after 945 ms
        --- stderr
        --- exit: 0
    "#);
}

fn team(tag: &str) -> TempDir {
    copy_store(&repo().join("testdata/stores/team"), tag)
}

fn handler(store: &Path, body: &str) -> String {
    let path = store.join(format!("handler-{}.sh", body.len()));
    std::fs::write(&path, format!("#!/bin/sh\ncat >/dev/null\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    path.to_str().unwrap().to_string()
}

fn followup(store: &Path, agent: &str, text: &str) -> String {
    let r: Value = serde_json::from_str(&ok(store, &["--json", "followup", agent, text])).unwrap();
    r["messageId"].as_str().unwrap().to_string()
}

fn trace(store: &Path, id: &str) -> Value {
    serde_json::from_str(&ok(store, &["--json", "trace", id])).unwrap()
}

#[test]
fn trace_answers_for_every_standing() {
    // A trace prints when each step happened.
    let mut times = insta::Settings::clone_current();
    times.add_filter(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", "[WHEN]");
    let _times = times.bind_to_scope();
    let store = team("trace");
    let s = store.path();
    // Delivered: a served turn carried it.
    let delivered = followup(s, "rev-0001", "please review");
    let ok_handler = handler(s, "exit 0");
    ok(
        s,
        &[
            "serve",
            "--as",
            "rev-0001",
            "--once",
            "--quiet",
            "--",
            &ok_handler,
        ],
    );
    let t = trace(s, &delivered);
    assert_eq!(t["status"], "delivered", "{t}");
    assert_eq!(t["target"]["id"], "rev-0001");
    assert_eq!(t["transcript"]["ending"], "completed");
    assert!(
        t["claimed"].is_string() && t["sent"]["from"] == "user",
        "{t}"
    );
    assert_at!(s, &["trace", &delivered], @r#"
        $ dsh-agents trace [ID]
        message [ID] to reviewer (rev-0001)
          sent       [WHEN]  from user · next-turn
          in context [WHEN]  seq 6 · turn 2 (completed)
          claimed    [WHEN]
        delivered: it entered the model's context
        --- stderr
        --- exit: 0
    "#);
    // Claimed, but the turn failed.
    let failed = followup(s, "rev-0001", "this one fails");
    let bad = handler(s, "exit 7");
    let r = at(
        s,
        &["serve", "--as", "rev-0001", "--once", "--quiet", "--", &bad],
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(trace(s, &failed)["status"], "turn-failed");
    assert_at!(s, &["trace", &failed], @r#"
        $ dsh-agents trace [ID]
        message [ID] to reviewer (rev-0001)
          sent       [WHEN]  from user · next-turn
          in context [WHEN]  seq 9 · turn 3 (error)
          claimed    [WHEN]
        turn-failed: it entered the model's context, but the turn that carried it ended in an error: command exited with exit status: 7
        --- stderr
        --- exit: 0
    "#);
    // Pending, with the agent not running.
    let first = followup(s, "chk-0001", "first");
    let second = followup(s, "chk-0001", "second");
    assert_eq!(trace(s, &second)["status"], "pending");
    assert_at!(s, &["trace", &second], @r#"
        $ dsh-agents trace [ID]
        message [ID] to reviewer/checker (chk-0001)
          sent       [WHEN]  from user · next-turn
        pending: it waits in the inbox with 1 message(s) ahead of it; no process holds the agent live: it is delivered when `serve` or DSH runs the agent
        --- stderr
        --- exit: 0
    "#);
    // Canceled.
    ok(s, &["cancel", &first]);
    assert_eq!(trace(s, &first)["status"], "canceled");
    // Parked: the agent runs a turn, a message queues behind it, and an
    // interrupt stops the turn; nothing is claimed until the next message.
    let slow = handler(s, "sleep 30");
    let mut served = crate::common::reaped(
        Command::new(assert_cmd::cargo::cargo_bin!("dsh-agents"))
            .args([
                "--store",
                s.to_str().unwrap(),
                "serve",
                "--as",
                "chk-0001",
                "--quiet",
            ])
            .args(["--grace-ms", "200", "--", &slow])
            .stdin(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let running = Instant::now();
    while trace(s, &second)["status"] != "delivered" {
        assert!(
            running.elapsed() < Duration::from_secs(120),
            "serve never ran"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let parked = followup(s, "chk-0001", "queued behind the running turn");
    ok(s, &["interrupt", "chk-0001"]);
    let stopping = Instant::now();
    while trace(s, &parked)["status"] != "parked" {
        assert!(
            stopping.elapsed() < Duration::from_secs(120),
            "{}",
            trace(s, &parked)
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // serve ends the interrupted turn once its handler stopped.
    while trace(s, &second)["transcript"]["ending"] != "interrupted" {
        assert!(
            stopping.elapsed() < Duration::from_secs(120),
            "{}",
            trace(s, &second)
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = served.kill();
    let _ = served.wait();
    // `--to` narrows the search; an unknown id is a usage error.
    assert_eq!(
        serde_json::from_str::<Value>(&ok(s, &["--json", "trace", &parked, "--to", "checker"]))
            .unwrap()["status"],
        "parked"
    );
    assert_at!(s, &["trace", "no-such-message"], @r#"
        $ dsh-agents trace no-such-message
        --- stderr
        Error: no inbox in store [STORE] holds message "no-such-message"; pass --to AGENT to look in that agent's transcript too
        --- exit: 2
        "#);
}

#[test]
fn cancel_withdraws_only_pending_messages_and_frees_room() {
    let store = team("cancel");
    let s = store.path();
    let id = followup(s, "rev-0001", "first");
    // The admission bound counts it, then not once it is canceled.
    let full = at(s, &["--max-pending", "1", "followup", "rev-0001", "second"]);
    assert_eq!(full.code, 1, "{}", full.stderr);
    let text = ok(s, &["cancel", &id]);
    assert!(text.contains(&id) && text.contains("rev-0001"), "{text}");
    ok(s, &["--max-pending", "1", "followup", "rev-0001", "second"]);
    let inbox: Value = serde_json::from_str(&ok(s, &["--json", "inbox", "rev-0001"])).unwrap();
    assert!(!inbox.to_string().contains(&id), "{inbox}");
    // Canceled already, claimed, unknown: errors that write nothing.
    let before = snapshot(s);
    assert_at!(s, &["cancel", &id], @r#"
        $ dsh-agents cancel [ID]
        --- stderr
        Error: message "[ID]" is no longer pending: it was canceled already; nothing was written
        --- exit: 2
        "#);
    assert_at!(s, &["cancel", "nope-0001", "--to", "rev-0001"], @r#"
        $ dsh-agents cancel nope-0001 --to rev-0001
        --- stderr
        Error: no message "nope-0001" in the inbox; nothing was written
        --- exit: 2
        "#);
    assert_eq!(snapshot(s), before);
    let claimed = followup(s, "chk-0001", "to be claimed");
    ok(s, &["claim", "--as", "chk-0001"]);
    assert_at!(s, &["cancel", &claimed], @r#"
        $ dsh-agents cancel [ID]
        --- stderr
        Error: message "[ID]" is no longer pending: it was claimed (delivered to a turn); nothing was written
        --- exit: 2
        "#);
}

/// `log rev-0001 --follow` on the store `s`, its stdout piped.
fn follow_reviewer(s: &Path) -> crate::common::Reaped {
    crate::common::reaped(
        Command::new(assert_cmd::cargo::cargo_bin!("dsh-agents"))
            .args([
                "--store",
                s.to_str().unwrap(),
                "log",
                "rev-0001",
                "--follow",
            ])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap(),
    )
}

/// The follower's exit status (a bound for a broken build, not a timing claim).
fn exits(follow: &mut crate::common::Reaped) -> std::process::ExitStatus {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(st) = follow.try_wait().unwrap() {
            return st;
        }
        assert!(Instant::now() < deadline, "log --follow did not exit");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_live_view_stops_once_the_reader_of_its_output_leaves() {
    // Each prints something at once, then nothing more on a still store: a
    // view that waited for its next write to fail would never end.
    let store = team("reader-gone");
    for args in [
        &["tree", "--watch"][..],
        &["events", "--follow", "--since", "0"],
        &["log", "rev-0001", "--follow"],
    ] {
        let mut view = crate::common::reaped(
            Command::new(assert_cmd::cargo::cargo_bin!("dsh-agents"))
                .arg("--store")
                .arg(store.path())
                .args(args)
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .unwrap(),
        );
        let mut first = [0u8; 1];
        std::io::Read::read_exact(view.stdout.as_mut().unwrap(), &mut first).unwrap();
        drop(view.stdout.take());
        assert_eq!(exits(&mut view).code(), Some(0), "{args:?}");
    }
}

#[test]
fn log_follow_prints_new_turns_and_exits_when_settled() {
    let store = team("follow");
    let s = store.path();
    let mut follow = follow_reviewer(s);
    followup(s, "rev-0001", "a new request");
    let h = handler(s, "sleep 1");
    ok(
        s,
        &["serve", "--as", "rev-0001", "--once", "--quiet", "--", &h],
    );
    assert!(exits(&mut follow).success());
    let mut out = String::new();
    std::io::Read::read_to_string(follow.stdout.as_mut().unwrap(), &mut out).unwrap();
    assert!(out.contains("user: a new request"), "{out}");
    assert!(out.contains("── turn 2 completed"), "{out}");
    assert_eq!(out.matches("── turn 1 ·").count(), 1, "printed once: {out}");
}

#[test]
fn honest_errors() {
    let store = team("errors");
    let s = store.path();
    // An environment value is blamed on its variable.
    let env = [("DSH_STORE", "")];
    let r = crate::common::run_env(["tree"], &env);
    crate::common::snapshot_settings(None)
        .bind(|| insta::assert_snapshot!(crate::common::blob_env(&r, &env, &["tree"]), @r#"
            DSH_STORE="" $ dsh-agents tree
            --- stderr
            Error: environment variable DSH_STORE="": invalid value '': it is empty (it stands for --store; unset it or fix its value)
            --- exit: 2
        "#));
    assert_at!(s, env = &[("DSH_LOCK_TIMEOUT", "abc")], &["tree"], @r#"
        DSH_LOCK_TIMEOUT="abc" $ dsh-agents tree
        --- stderr
        Error: environment variable DSH_LOCK_TIMEOUT="abc": invalid value 'abc': invalid float literal (it stands for --lock-timeout; unset it or fix its value)
        --- exit: 2
    "#);
    // Usage errors exit 2 and write nothing.
    let before = snapshot(s);
    let long = "x".repeat(129);
    assert_at!(s, &["wait-agent", "--as", "rev-0001", "--timeout-ms", "5"], @r#"
        $ dsh-agents wait-agent --as rev-0001 --timeout-ms 5
        --- stderr
        Error: invalid value '5' for '--timeout-ms <MS>': 5 is not in 10000..=3600000

        For more information, try '--help'.
        --- exit: 2
    "#);
    assert_at!(s, &["wait-agent", "--as", "rev-0001", "--timeout-ms", "abc"], @r#"
        $ dsh-agents wait-agent --as rev-0001 --timeout-ms abc
        --- stderr
        Error: invalid value 'abc' for '--timeout-ms <MS>': invalid digit found in string

        For more information, try '--help'.
        --- exit: 2
    "#);
    assert_at!(s, &["followup", "rev-0001", "hi", "--id", long.as_str()], @r#"
        $ dsh-agents followup rev-0001 hi --id xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx
        --- stderr
        Error: --id: a message id is at most 128 bytes (this one has 129); nothing was written
        --- exit: 2
    "#);
    assert_at!(s, &["followup", "rev-0001", ""], @r#"
        $ dsh-agents followup rev-0001 
        --- stderr
        Error: MESSAGE: the message is empty; nothing was sent
        --- exit: 2
    "#);
    assert_at!(s, &["followup", "rev-0001", "   \n"], @r#"
        $ dsh-agents followup rev-0001    

        --- stderr
        Error: MESSAGE: the message is empty; nothing was sent
        --- exit: 2
    "#);
    assert_at!(s, &["send-message", "--as", "lead-1", "reviewer", ""], @r#"
        $ dsh-agents send-message --as lead-1 reviewer 
        --- stderr
        Error: MESSAGE: the message is empty; nothing was sent
        --- exit: 2
    "#);
    assert_at!(s, &["inbox", "reviewr"], @r#"
        $ dsh-agents inbox reviewr
        --- stderr
        Error: no session "reviewr" in store [STORE] (name an agent by Session id, unique id prefix of 4+ characters, or name path such as reviewer/checker); did you mean reviewer (rev-0001)?
        --- exit: 2
    "#);
    assert_eq!(snapshot(s), before);
    // A reused --id with another text names the first record.
    ok(s, &["followup", "rev-0001", "one", "--id", "k-1"]);
    assert_at!(s, &["followup", "rev-0001", "two", "--id", "k-1"], @r#"
        $ dsh-agents followup rev-0001 two --id k-1
        --- stderr
        Error: message id "k-1" was already sent with a different message (inbox record 1); nothing was written
        --- exit: 2
        "#);
    // Under --json every failure is JSON on stderr with the same exit code.
    for (args, code, kind) in [
        (vec!["--json", "inbox", "nobody-at-all"], 2, "usage"),
        (vec!["--json", "--lock-timeout", "x", "tree"], 2, "usage"),
        (
            vec!["--json", "send-message", "--as", "lead-1", "nobody", "hi"],
            1,
            "tool",
        ),
    ] {
        let r = at(s, &args);
        assert_eq!(r.code, code, "{args:?}: {}", r.stderr);
        let v: Value = serde_json::from_str(r.stderr.trim()).expect("JSON error");
        assert_eq!(v["error"]["kind"], kind, "{v}");
        assert!(v["error"]["message"].is_string());
    }
    let missing = at(Path::new("/nonexistent/store"), &["--json", "check"]);
    assert_eq!(missing.code, 3);
    let v: Value = serde_json::from_str(missing.stderr.trim()).unwrap();
    assert_eq!(v["error"]["kind"], "store");
    // identity and spawn speak JSON too.
    let v: Value =
        serde_json::from_str(&ok(s, &["--json", "identity", "--as", "chk-0001"])).unwrap();
    assert_eq!(
        (v["name"].as_str(), v["parent"].as_str()),
        (Some("reviewer/checker"), Some("reviewer"))
    );
    let v: Value = serde_json::from_str(&ok(s, &["--json", "spawn", "--id", "new-root"])).unwrap();
    assert_eq!(v["id"], "new-root");
}

/// `tree` writes as it renders; a reader that goes away (`| head`) ends it
/// quietly with success, as contract §8 asks of every command.
#[test]
fn tree_into_a_closed_pipe_ends_quietly() {
    let tmp = crate::common::temp_dir("closed-pipe");
    write_log(
        tmp.path(),
        "_no-cwd",
        "root",
        &[fixture::root("root", 1).to_string()],
    );
    // About 2,000 rows: far more than a pipe and the writer's buffer hold.
    for c in 0..2000 {
        let id = format!("child-{c:04}");
        write_log(
            tmp.path(),
            "_no-cwd",
            &id,
            &[
                fixture::child(&id, 10 + c, "root").to_string(),
                fixture::descriptor(0, &format!("label {c} {}", "y".repeat(40))).to_string(),
            ],
        );
    }
    let mut tree = crate::common::reaped(
        Command::new(assert_cmd::cargo::cargo_bin!("dsh-agents"))
            .args(["--store", tmp.path().to_str().unwrap(), "tree"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    drop(tree.stdout.take());
    let out = tree.wait_with_output().unwrap();
    assert!(out.status.success(), "{:?}", out.status);
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

#[test]
fn interrupt_refuses_a_session_with_no_turn_to_stop_and_last_zero_is_refused() {
    let store = crate::common::copy_store(
        &crate::common::repo().join("testdata/stores/team"),
        "op-refuse",
    );
    let s = store.path();
    let before = crate::common::snapshot(s);
    assert_each_at!(s, &[
        &["interrupt", "sct-0001"],
        &["interrupt", "brk-0001"],
        &["interrupt", "unr-0001"],
    ], @r#"
        $ dsh-agents interrupt sct-0001
        --- stderr
        Error: agent "sct-0001" has no turn to interrupt: it is a one-shot subagent, which never runs another turn; nothing was written
        --- exit: 2
        $ dsh-agents interrupt brk-0001
        --- stderr
        Error: agent "brk-0001" has no turn to interrupt: it has no valid subagent descriptor; nothing was written
        --- exit: 2
        $ dsh-agents interrupt unr-0001
        --- stderr
        Error: agent "unr-0001" has no turn to interrupt: its session log cannot be read; nothing was written
        --- exit: 2
    "#);
    assert!(
        before == crate::common::snapshot(s),
        "a refused interrupt wrote nothing"
    );
    // A one-shot running its one turn can be stopped.
    let lock = std::fs::File::create(s.join("_no-cwd/sct-0001/live.lock")).unwrap();
    lock.lock().unwrap();
    let r = crate::common::run_in(s, &["interrupt", "sct-0001"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    drop(lock);
    assert_at!(s, &["log", "rev-0001", "--last", "0"], @r#"
        $ dsh-agents log rev-0001 --last 0
        --- stderr
        Error: invalid value '0' for '--last <N>': shows the last N turns: N must be at least 1

        For more information, try '--help'.
        --- exit: 2
    "#);
    assert_at!(s, &["--json", "log", "rev-0001", "--last", "0"], @r#"
        $ dsh-agents --json log rev-0001 --last 0
        --- stderr
        {"error":{"kind":"usage","message":"invalid value '0' for '--last <N>': shows the last N turns: N must be at least 1"}}
        --- exit: 2
    "#);
    assert_at!(s, &["log", "rev-0001", "--last", "-1"], @r#"
        $ dsh-agents log rev-0001 --last -1
        --- stderr
        Error: invalid value '-1' for '--last <N>': "-1" is not a whole number of turns (1 or more)

        For more information, try '--help'.
        --- exit: 2
    "#);
}

/// `log --last N` reads only the last turns of a raw log, and shows exactly
/// what the whole read shows from the N-th last turn on, on every store
/// the repository carries, for every agent and every N.
#[test]
fn log_last_shows_what_a_whole_read_shows() {
    let stores = repo().join("testdata/stores");
    let mut checked = 0;
    for store in std::fs::read_dir(&stores).unwrap().flatten() {
        let s = store.path();
        if !s.is_dir() {
            continue;
        }
        let tree = run(["--store", s.to_str().unwrap(), "--json", "tree", "--all"]);
        let Ok(trees) = serde_json::from_str::<Value>(&tree.stdout) else {
            continue;
        };
        for t in trees.as_array().unwrap() {
            for m in t["members"].as_array().unwrap() {
                let id = m["id"].as_str().unwrap();
                for json in [false, true] {
                    let mut base = vec!["--store", s.to_str().unwrap()];
                    if json {
                        base.push("--json");
                    }
                    let mut whole = run([&base[..], &["log", id, "--full"]].concat());
                    if whole.code != 0 {
                        continue;
                    }
                    // Only a whole read says DSH cannot read the log (a
                    // tail read does not check what it skips, so its title
                    // shows the identity the log's head holds).
                    let unreadable = whole.stdout.contains("\n!! DSH cannot read")
                        || whole.stdout.contains("\"kind\":\"unreadable\"");
                    whole.stdout = whole
                        .stdout
                        .lines()
                        .filter(|l| {
                            !l.starts_with("!! DSH cannot read")
                                && !l.contains("\"kind\":\"unreadable\"")
                        })
                        .map(|l| format!("{l}\n"))
                        .collect();
                    let lines: Vec<&str> = whole.stdout.lines().collect();
                    let starts: Vec<usize> = (0..lines.len())
                        .filter(|i| {
                            lines[*i].starts_with("── turn ")
                                && !lines[*i].contains(" after ")
                                && !lines[*i].contains(" ended ")
                                || lines[*i].contains("\"kind\":\"turn-start\"")
                        })
                        .collect();
                    for n in 1..=starts.len() + 1 {
                        let last =
                            run(
                                [&base[..], &["log", id, "--full", "--last", &n.to_string()]]
                                    .concat(),
                            );
                        assert_eq!(last.code, 0, "{}", last.stderr);
                        let want = if n < starts.len() {
                            let mut w = vec![lines[0]];
                            w.extend(&lines[starts[starts.len() - n]..]);
                            w.join("\n") + "\n"
                        } else {
                            whole.stdout.clone()
                        };
                        let (got, want) = if unreadable {
                            let body = |t: &str| t.lines().skip(1).collect::<Vec<_>>().join("\n");
                            (body(&last.stdout), body(&want))
                        } else {
                            (last.stdout.clone(), want)
                        };
                        assert_eq!(got, want, "{} {id} --last {n} json={json}", s.display());
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(checked > 50, "{checked} cases");
}

#[test]
fn an_open_turn_has_no_ending_in_tree_json() {
    let r = run([
        "--store",
        repo().join("testdata/stores/rc8-inbox").to_str().unwrap(),
        "--json",
        "tree",
        "--all",
    ]);
    let trees: Value = serde_json::from_str(&r.stdout).unwrap();
    let members: Vec<&Value> = trees
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t["members"].as_array().unwrap())
        .collect();
    let open: Vec<&&Value> = members
        .iter()
        .filter(|m| m["lastTurn"]["open"] == true)
        .collect();
    assert!(!open.is_empty(), "{}", r.stdout);
    for m in open {
        assert!(
            m["lastTurn"]["ending"].is_null() && m["lastTurn"]["endingDetail"].is_null(),
            "{m}"
        );
    }
    assert!(members.iter().any(|m| m["lastTurn"]["ending"] == "aborted"));
}

/// A log DSH itself would not read says so before what its lines hold, as
/// `tree` says `unavailable`; a readable one does not.
#[test]
fn log_says_when_dsh_cannot_read_the_log() {
    let store = crate::common::repo().join("testdata/stores/team");
    let s = store.to_str().unwrap();
    let r = crate::common::run(["--store", s, "log", "unreadable"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let second = r.stdout.lines().nth(1).unwrap_or_default();
    assert!(
        second.starts_with("!! DSH cannot read this log (corrupt session log: unparsable committed event at line 3)"),
        "{}",
        r.stdout
    );
    let r = crate::common::run(["--store", s, "--json", "log", "unreadable"]);
    let second: serde_json::Value = serde_json::from_str(r.stdout.lines().nth(1).unwrap()).unwrap();
    assert_eq!(second["kind"], "unreadable");
    let r = crate::common::run(["--store", s, "log", "reviewer"]);
    assert!(!r.stdout.contains("DSH cannot read"), "{}", r.stdout);
}

#[test]
fn a_message_id_is_found_by_the_record_that_names_it_not_by_text_that_quotes_it() {
    let tmp = team("idtext");
    let s = tmp.path().to_str().unwrap();
    let ok = |args: &[&str]| {
        let mut argv = vec!["--store", s];
        argv.extend_from_slice(args);
        let r = run(&argv);
        assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
        r.stdout
    };
    ok(&["followup", "--id", "m-one", "reviewer", "hello"]);
    // Another message whose text is exactly the first one's id.
    ok(&["followup", "--id", "m-two", "reviewer/checker", "m-one"]);
    assert!(ok(&["trace", "m-one"]).starts_with("message m-one to reviewer (rev-0001)"));
    assert_eq!(
        ok(&["cancel", "m-one"]),
        "canceled message m-one (next-turn) to rev-0001\n"
    );
    assert!(ok(&["trace", "m-two"]).starts_with("message m-two to reviewer/checker (chk-0001)"));
}

#[test]
fn as_takes_a_name_path_as_every_agent_argument_does_in_v2_and_an_id_in_v1() {
    let s = repo().join("testdata/stores/team");
    let s = s.to_str().unwrap();
    let by_name = run(["--store", s, "list-agents", "--as", "reviewer/checker"]);
    let by_id = run(["--store", s, "list-agents", "--as", "chk-0001"]);
    assert_eq!(by_name.code, 0, "{}", by_name.stderr);
    assert_eq!(by_name.stdout, by_id.stdout);
    // rc.8 takes a caller id as it is: a name is an opaque caller.
    let v1 = run([
        "--store",
        s,
        "--contract",
        "v1",
        "list-agents",
        "--as",
        "reviewer",
    ]);
    assert_eq!(v1.stdout, "(no subagents)\n");
}

#[test]
fn log_follow_moves_to_a_newer_generation_written_beside_the_log() {
    let store = team("follow-gen");
    let s = store.path();
    let dir = s.join("_no-cwd/rev-0001");
    let mut follow = follow_reviewer(s);
    // The follower has printed the old log (and so is following it).
    let stdout = follow.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in std::io::BufRead::lines(std::io::BufReader::new(stdout)).map_while(Result::ok) {
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    let mut out = String::new();
    while !out.contains("── turn 1 completed") {
        let line = rx
            .recv_timeout(Duration::from_secs(20))
            .expect("the follower prints the old log");
        out.push_str(&line);
        out.push('\n');
    }
    // Newer DSH writes `session.v1.jsonl` beside the old log, carrying the
    // history on, and the next turn goes there.
    let old = std::fs::read_to_string(dir.join("session.jsonl")).unwrap();
    let mut lines: Vec<String> = old.lines().map(str::to_string).collect();
    lines[0] = lines[0].replacen("\"version\":0", "\"version\":1", 1);
    let seq = lines.len() as u64 - 1;
    let user = serde_json::json!({"content":[{"type":"text","text":"in the new log"}],"source":{"kind":"user"},"role":"user","id":"m-new"});
    for (k, (ty, data)) in [
        ("turn/start", serde_json::json!({"turn": 2})),
        ("user/message", user),
        (
            "turn/end",
            serde_json::json!({"turn": 2, "reason": {"kind": "completed"}}),
        ),
    ]
    .into_iter()
    .enumerate()
    {
        lines.push(
            serde_json::json!({"type": ty, "seq": seq + k as u64, "time": 5000, "data": data, "surfaceOp": "append"})
                .to_string(),
        );
    }
    std::fs::write(dir.join("session.v1.jsonl"), lines.join("\n") + "\n").unwrap();
    assert!(exits(&mut follow).success());
    while let Ok(line) = rx.recv_timeout(Duration::from_secs(20)) {
        out.push_str(&line);
        out.push('\n');
    }
    assert!(out.contains("continues in session.v1.jsonl"), "{out}");
    assert!(out.contains("user: in the new log"), "{out}");
}

/// Look-alike ids (one long shared prefix) show whole at 80 columns: a
/// row's NAME is its only identifier, so the label, mode, last turn and
/// pending count give way first, and two rows never read the same.
#[test]
fn tree_never_cuts_the_only_identifier_of_look_alike_ids() {
    let shared = "0c4f7e2a-9b1d-4c3e-8f6a-2d5b7c9e1f3a-0000";
    let (a, b) = (format!("{shared}-a"), format!("{shared}-b"));
    let tmp = crate::common::StoreBuilder::new("look-alike")
        .root("lead")
        .child(&a, 2, "lead", "a label long enough to be worth cutting")
        .child(&b, 3, "lead", "another label long enough to be cut too")
        .build();
    let text = ok(tmp.path(), &["tree", "--width", "60"]);
    for id in [&a, &b] {
        assert!(text.contains(id.as_str()), "{id} whole in:\n{text}");
    }
    assert!(text.lines().all(|l| l.chars().count() <= 60), "{text}");
    // `COLUMNS` is the width when no `--width` is given.
    let s = tmp.path().to_str().unwrap();
    let by_env = crate::common::run_env(["--store", s, "tree"], &[("COLUMNS", "60")]);
    assert_eq!(by_env.stdout, text);
}

/// Usage errors: one lead (`Error:`) for clap's and the tool's, a "did you
/// mean" wherever a known word was mistyped (kept under `--json`), and an
/// over-long `spawn --id` refused before anything is written.
#[test]
fn usage_errors_lead_alike_and_say_what_was_meant() {
    let team = repo().join("testdata/stores/team");
    assert_at!(&team, &["tre"], @r#"
        $ dsh-agents tre
        --- stderr
        Error: unrecognized subcommand 'tre'

          tip: a similar subcommand exists: 'tree'

        Usage: dsh-agents [OPTIONS] <COMMAND>

        For more information, try '--help'.
        --- exit: 2
    "#);
    assert_at!(&team, &["--json", "tre"], @r#"
        $ dsh-agents --json tre
        --- stderr
        {"error":{"kind":"usage","message":"unrecognized subcommand 'tre'; a similar subcommand exists: 'tree'"}}
        --- exit: 2
    "#);
    assert_at!(&team, &["man", "tre"], @r#"
        $ dsh-agents man tre
        --- stderr
        Error: COMMAND: no command "tre" (did you mean "tree"?)
        --- exit: 2
    "#);
    assert_at!(&team, &["--json", "man", "tre"], @r#"
        $ dsh-agents --json man tre
        --- stderr
        {"error":{"kind":"usage","message":"COMMAND: no command \"tre\" (did you mean \"tree\"?)"}}
        --- exit: 2
    "#);
    assert_at!(&team, &["call", "list_agent", "--as", "lead-1"], @r#"
        $ dsh-agents call list_agent --as lead-1
        --- stderr
        Error: unknown tool "list_agent" for contract v2 (did you mean "list_agents"?); tools: list_agents, send_message, interrupt_agent, wait_agent (v2), subagent_send_message, subagent_parent_message
        --- exit: 2
    "#);
    assert_at!(&team, &["--json", "call", "list_agent", "--as", "lead-1"], @r#"
        $ dsh-agents --json call list_agent --as lead-1
        --- stderr
        {"error":{"kind":"usage","message":"unknown tool \"list_agent\" for contract v2 (did you mean \"list_agents\"?); tools: list_agents, send_message, interrupt_agent, wait_agent (v2), subagent_send_message, subagent_parent_message"}}
        --- exit: 2
    "#);
    let tmp = crate::common::temp_dir("long-id");
    let before = snapshot(tmp.path());
    let long = "a".repeat(256);
    assert_at!(tmp.path(), &["spawn", "--id", &long], @r#"
        $ dsh-agents spawn --id aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
        --- stderr
        Error: --id: the session id is too long: its directory name would be 256 bytes, and a file name holds at most 255
        --- exit: 2
    "#);
    assert_eq!(snapshot(tmp.path()), before, "nothing written");
}

/// `trace` and `cancel` take a unique message-id prefix (4+ characters),
/// as git takes a commit's; an ambiguous one names its ids and changes
/// nothing.
#[test]
fn trace_and_cancel_take_a_unique_message_id_prefix() {
    let tmp = copy_store(&repo().join("testdata/stores/team"), "msg-prefix");
    let store = tmp.path();
    for id in ["prefix-alpha-1", "prefix-beta-1", "prefix-beta-2"] {
        let r = crate::common::run_in(store, &["followup", "--id", id, "reviewer", "hi"]);
        assert_eq!(r.code, 0, "{}", r.stderr);
    }
    let r = crate::common::run_in(store, &["--json", "trace", "prefix-al"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("prefix-alpha-1"), "{}", r.stdout);
    let before = snapshot(store);
    assert_at!(store, &["cancel", "prefix-be"], @r#"
        $ dsh-agents cancel prefix-be
        --- stderr
        Error: message id prefix "prefix-be" is ambiguous: prefix-beta-1, prefix-beta-2
        --- exit: 2
    "#);
    assert_at!(store, &["cancel", "prefix-be", "--to", "reviewer"], @r#"
        $ dsh-agents cancel prefix-be --to reviewer
        --- stderr
        Error: message id prefix "prefix-be" is ambiguous: prefix-beta-1, prefix-beta-2
        --- exit: 2
    "#);
    // Three characters are not a prefix: said so, not "no such message".
    assert_at!(store, &["cancel", "pre"], @r#"
        $ dsh-agents cancel pre
        --- stderr
        Error: no inbox in store [STORE] holds message "pre" (a prefix of a message id takes 4 characters or more)
        --- exit: 2
    "#);
    assert_eq!(
        snapshot(store),
        before,
        "an ambiguous prefix changes nothing"
    );
    assert_at!(store, &["cancel", "prefix-beta-2", "--to", "reviewer"], @r"
        $ dsh-agents cancel prefix-beta-2 --to reviewer
        canceled message prefix-beta-2 (next-turn) to rev-0001
        --- stderr
        --- exit: 0
        ");
    assert_at!(store, &["cancel", "prefix-al"], @r"
        $ dsh-agents cancel prefix-al
        canceled message prefix-alpha-1 (next-turn) to rev-0001
        --- stderr
        --- exit: 0
        ");
}

/// `top` on a stdout that is not a terminal refuses, pointing at `tree
/// --watch`, and writes nothing.
#[test]
fn top_refuses_a_stdout_that_is_not_a_terminal() {
    let tmp = copy_store(&repo().join("testdata/stores/team"), "top-pipe");
    let before = snapshot(tmp.path());
    assert_at!(tmp.path(), &["top"], @r"
        $ dsh-agents top
        --- stderr
        Error: top needs a terminal on standard output; for frames a pipe can take, use `tree --watch`
        --- exit: 2
        ");
    // A budget on an agent the store does not hold is refused first, by
    // `top` as by `watch`.
    assert_each_at!(
        tmp.path(),
        &[
            &["top", "--budget", "nosuch=5k"],
            &["watch", "--budget", "reviewer=5k,nosuch=5k"],
        ],
        @r#"
            $ dsh-agents top --budget nosuch=5k
            --- stderr
            Error: --budget: no session "nosuch" in store [STORE] (name an agent by Session id, unique id prefix of 4+ characters, or name path such as reviewer/checker)
            --- exit: 2
            $ dsh-agents watch --budget reviewer=5k,nosuch=5k
            --- stderr
            Error: --budget: no session "nosuch" in store [STORE] (name an agent by Session id, unique id prefix of 4+ characters, or name path such as reviewer/checker)
            --- exit: 2
        "#
    );
    assert_eq!(snapshot(tmp.path()), before);
}

#[test]
fn fleet_config_puts_each_hub_node_on_its_address_and_refuses_a_count_that_fits_no_plan() {
    let tmp = crate::common::temp_dir("fleet-config");
    let out = tmp.path().join("hub");
    let out_arg = out.to_str().unwrap();
    let hosts = ["fleet", "config", "--hosts", "a,b", "--out", out_arg];
    let mut args = hosts.to_vec();
    args.extend(["--addresses", "10.0.0.1,10.0.0.2"]);
    assert_at!(tmp.path(), &args, @r#"
        $ dsh-agents fleet config --hosts a,b --out [STORE]/hub --addresses 10.0.0.1,10.0.0.2
        --- stderr
        Error: --addresses: 2 given for 3 node(s): give one for all, or one a node
        --- exit: 2
    "#);
    let mut args = hosts.to_vec();
    args.extend(["--addresses", "10.0.0.1,hub two,10.0.0.3"]);
    assert_at!(tmp.path(), &args, @r#"
        $ dsh-agents fleet config --hosts a,b --out [STORE]/hub --addresses 10.0.0.1,hub two,10.0.0.3
        --- stderr
        Error: --addresses: "hub two" is not an IPv4 address or a host name
        --- exit: 2
    "#);
    assert!(!out.exists(), "a refused plan wrote {}", out.display());
    let mut args = hosts.to_vec();
    args.extend(["--addresses", "10.0.0.1,10.0.0.2,10.0.0.3"]);
    assert_at!(tmp.path(), &args, @r#"
        $ dsh-agents fleet config --hosts a,b --out [STORE]/hub --addresses 10.0.0.1,10.0.0.2,10.0.0.3
        wrote:
          [STORE]/hub/admin.nk
          [STORE]/hub/a.nk
          [STORE]/hub/b.nk
          [STORE]/hub/hub-1.conf
          [STORE]/hub/hub-2.conf
          [STORE]/hub/hub-3.conf
          [STORE]/hub/fleet.json
        start each node with `nats-server -c [STORE]/hub/hub-N.conf`; the hub's URLs: nats://10.0.0.1:4222,nats://10.0.0.2:4222,nats://10.0.0.3:4222
        --- stderr
        --- exit: 0
    "#);
    let placed: String = ["hub-2.conf", "fleet.json"]
        .iter()
        .flat_map(|f| {
            std::fs::read_to_string(out.join(f))
                .unwrap()
                .lines()
                .filter(|l| {
                    l.starts_with("listen") || l.contains("cluster") || l.contains("nats://")
                })
                .map(|l| format!("{l}\n"))
                .collect::<Vec<_>>()
        })
        .collect();
    insta::assert_snapshot!(placed, @r#"
        listen: 10.0.0.2:4222
        cluster { name: dsh-fleet, listen: 10.0.0.2:4322, routes: ["nats://10.0.0.1:4322", "nats://10.0.0.3:4322"] }
          "nats": "nats://10.0.0.1:4222,nats://10.0.0.2:4222,nats://10.0.0.3:4222"
    "#);
}
