//! `usage` and `tree`'s TOKENS column against a count made here, straight
//! from the rc.8-written logs: every `assistant/message`'s `data.usage`
//! after the session's `seedLength`, summed by session and by model.

use crate::common::{repo, run};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// Per session id: (calls, input, cache read, cache write, output), and
/// per "provider/model" the same, counted from the raw log lines.
type Count = [u64; 5];

fn hand_count(store: &Path) -> (BTreeMap<String, Count>, BTreeMap<String, Count>) {
    let mut by_session = BTreeMap::new();
    let mut by_model: BTreeMap<String, Count> = BTreeMap::new();
    for project in std::fs::read_dir(store).unwrap().flatten() {
        for session in std::fs::read_dir(project.path()).unwrap().flatten() {
            let log = session.path().join("session.jsonl");
            let Ok(text) = std::fs::read_to_string(&log) else {
                continue;
            };
            let mut lines = text.lines();
            let header: Value = serde_json::from_str(lines.next().unwrap()).unwrap();
            let seed = header["seedLength"].as_u64().unwrap_or(0);
            let mut c: Count = [0; 5];
            for line in lines {
                let Ok(ev) = serde_json::from_str::<Value>(line) else {
                    continue;
                };
                if ev["type"] != "assistant/message" || ev["seq"].as_u64().unwrap() < seed {
                    continue;
                }
                let u = &ev["data"]["usage"];
                if !u.is_object() {
                    continue;
                }
                let n = |k: &str| u[k].as_u64().unwrap_or(0);
                let one = [
                    1,
                    n("inputTokens"),
                    n("cacheReadTokens"),
                    n("cacheWriteTokens"),
                    n("outputTokens"),
                ];
                let src = &ev["data"]["message"]["source"];
                let model = format!(
                    "{}/{}",
                    src["provider"].as_str().unwrap(),
                    src["model"].as_str().unwrap()
                );
                let m = by_model.entry(model).or_default();
                for k in 0..5 {
                    c[k] += one[k];
                    m[k] += one[k];
                }
            }
            by_session.insert(header["id"].as_str().unwrap().to_string(), c);
        }
    }
    (by_session, by_model)
}

fn count_of(t: &Value) -> Count {
    [
        "calls",
        "inputTokens",
        "cacheReadTokens",
        "cacheWriteTokens",
        "outputTokens",
    ]
    .map(|k| t[k].as_u64().unwrap())
}

fn json(args: &[&str]) -> Value {
    let r = run(args);
    assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
    serde_json::from_str(&r.stdout).unwrap()
}

#[test]
fn usage_and_tokens_agree_with_a_hand_count() {
    let mut calls = 0;
    for name in ["rc8-cli", "rc8-live", "rc8-inbox"] {
        let store = repo().join("testdata/stores").join(name);
        let s = store.to_str().unwrap();
        let (sessions, models) = hand_count(&store);
        let report = json(&["--store", s, "--json", "usage"]);
        // Read ahead with the store or after it: the same report.
        let after = crate::common::run_env(
            ["--store", s, "--json", "usage"],
            &[(crate::common::READ_AHEAD, "0")],
        );
        assert_eq!(
            serde_json::from_str::<Value>(&after.stdout).unwrap(),
            report
        );
        let rows = report["rows"].as_array().unwrap();
        assert_eq!(rows.len(), sessions.len(), "{name}: {report}");
        for row in rows {
            let id = row["id"].as_str().unwrap();
            assert_eq!(count_of(&row["tokens"]), sessions[id], "{name} {id}");
            calls += sessions[id][0];
        }
        let report = json(&["--store", s, "--json", "usage", "--by", "model"]);
        let got: BTreeMap<String, Count> = report["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                let m = format!(
                    "{}/{}",
                    r["provider"].as_str().unwrap(),
                    r["model"].as_str().unwrap()
                );
                (m, count_of(&r["tokens"]))
            })
            .collect();
        assert_eq!(got, models, "{name}");
        // tree's TOKENS: each member's own tokens, and its subtree's total.
        let trees = json(&["--store", s, "--json", "tree", "--all"]);
        for tree in trees.as_array().unwrap() {
            let members = tree["members"].as_array().unwrap();
            for m in members {
                let id = m["id"].as_str().unwrap();
                assert_eq!(count_of(&m["tokens"]), sessions[id], "{name} {id}");
                let mut below = vec![id.to_string()];
                let mut total = 0;
                while let Some(p) = below.pop() {
                    let c = sessions[&p];
                    total += c[1] + c[2] + c[3] + c[4];
                    for k in members.iter().filter(|k| k["parent"] == p.as_str()) {
                        below.push(k["id"].as_str().unwrap().to_string());
                    }
                }
                assert_eq!(m["subtreeTokens"], total, "{name} {id}");
                assert_eq!(m["subtreeTokensPartial"], false);
            }
        }
    }
    assert!(calls >= 10, "the sample logs hold model calls: {calls}");
}

#[test]
fn usage_prices_since_and_subtrees() {
    let store = repo().join("testdata/stores/rc8-cli");
    let s = store.to_str().unwrap();
    let (sessions, _) = hand_count(&store);
    let tmp = crate::common::temp_dir("usage-prices");
    let prices = tmp.path().join("prices.json");
    std::fs::write(
        &prices,
        r#"{"deepseek-official/fake-model": {"input": 2.0, "output": 10.0}}"#,
    )
    .unwrap();
    let p = prices.to_str().unwrap();
    let report = json(&["--store", s, "--json", "usage", "--prices", p]);
    for row in report["rows"].as_array().unwrap() {
        let c = sessions[row["id"].as_str().unwrap()];
        let want = (c[1] as f64 * 2.0 + c[4] as f64 * 10.0) / 1e6;
        let got = row["cost"].as_f64().unwrap();
        assert!((got - want).abs() < 1e-12, "{got} {want}");
    }
    // A model without a price: its cost is unknown, and stderr says so.
    std::fs::write(&prices, r#"{"other/model": {"input": 1}}"#).unwrap();
    let r = run(["--store", s, "usage", "--prices", p]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("no price for deepseek-official/fake-model"),
        "{}",
        r.stderr
    );
    assert!(
        r.stdout.lines().skip(1).any(|l| l.ends_with(" ?")),
        "{}",
        r.stdout
    );
    // Bad tables are refused, naming the file: a price past a unit of the
    // currency a token would print a cost of `inf`; a FIFO is refused, not
    // waited on.
    let dir = tmp.path().to_str().unwrap();
    let mut said = String::new();
    for bad in [
        r#"{"m": {"input": -1}}"#,
        r#"{"m": {"output": 1e308}}"#,
        r#"{"m": {"cacheRead": 1000001}}"#,
        r#"{"m": {"inptu": 1}}"#,
        "not json",
    ] {
        std::fs::write(&prices, bad).unwrap();
        let args = ["usage", "--prices", p];
        said.push_str(&crate::common::run_in(&store, &args).blob(&args));
    }
    let fifo = tmp.path().join("fifo.json");
    crate::common::mkfifo(&fifo);
    let args = ["usage", "--prices", fifo.to_str().unwrap()];
    said.push_str(&crate::common::run_in(&store, &args).blob(&args));
    insta::assert_snapshot!(said.replace(dir, "[DIR]"), @r#"
        $ dsh-agents usage --prices [DIR]/prices.json
        --- stderr
        Error: --prices: "[DIR]/prices.json": "m": each price (a million tokens) must be a number from 0 to 1000000
        --- exit: 2
        $ dsh-agents usage --prices [DIR]/prices.json
        --- stderr
        Error: --prices: "[DIR]/prices.json": "m": each price (a million tokens) must be a number from 0 to 1000000
        --- exit: 2
        $ dsh-agents usage --prices [DIR]/prices.json
        --- stderr
        Error: --prices: "[DIR]/prices.json": "m": each price (a million tokens) must be a number from 0 to 1000000
        --- exit: 2
        $ dsh-agents usage --prices [DIR]/prices.json
        --- stderr
        Error: --prices: "[DIR]/prices.json": unknown field `inptu`, expected one of `input`, `cacheRead`, `cacheWrite`, `output` at line 1 column 14
        --- exit: 2
        $ dsh-agents usage --prices [DIR]/prices.json
        --- stderr
        Error: --prices: "[DIR]/prices.json": expected ident at line 1 column 2
        --- exit: 2
        $ dsh-agents usage --prices [DIR]/fifo.json
        --- stderr
        Error: --prices: "[DIR]/fifo.json": not a regular file
        --- exit: 2
    "#);
    // --since after every call: nothing counted; before all: everything.
    let later = json(&["--store", s, "--json", "usage", "--since", "2099-01-01"]);
    assert!(
        later["rows"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["tokens"]["calls"] == 0)
    );
    let all = json(&["--store", s, "--json", "usage", "--since", "2020-01-01"]);
    let total: u64 = all["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["tokens"]["calls"].as_u64().unwrap())
        .sum();
    assert_eq!(total, sessions.values().map(|c| c[0]).sum::<u64>());
    // One agent and its subtree: the root's subtree total covers the child.
    let root = "session-cd54d0e9-4044-4a6d-8063-d409a9de653a";
    let one = json(&["--store", s, "--json", "usage", root]);
    assert_eq!(one["rows"].as_array().unwrap().len(), 1);
    let tree = json(&["--store", s, "--json", "usage", root, "--tree"]);
    let rows = tree["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    let sum: u64 = sessions.values().map(|c| c[1] + c[2] + c[3] + c[4]).sum();
    assert_eq!(
        rows[0]["subtree"]["inputTokens"].as_u64().unwrap()
            + rows[0]["subtree"]["outputTokens"].as_u64().unwrap(),
        sum
    );
    let r = run(["--store", s, "usage", "--tree"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
}

/// A fork's seed holds its parent's model calls: they are the parent's, and
/// counted once, there.
#[test]
fn a_forks_inherited_calls_are_not_counted_again() {
    let call = |seq: u64, input: u64| {
        format!(
            r#"{{"type":"assistant/message","seq":{seq},"time":1,"data":{{"turn":1,"step":1,"message":{{"role":"assistant","content":[],"source":{{"kind":"model","provider":"p","model":"m"}},"id":"a{seq}"}},"usage":{{"inputTokens":{input},"outputTokens":1}}}},"surfaceOp":"append"}}"#
        )
    };
    let tmp = crate::common::temp_dir("usage-fork");
    let s = tmp.path();
    crate::common::write_log(
        s,
        "_no-cwd",
        "root",
        &[
            r#"{"type":"session","version":0,"id":"root","createdAt":1,"delegationDepth":0}"#
                .to_string(),
            call(0, 100),
        ],
    );
    crate::common::write_log(
        s,
        "_no-cwd",
        "fork",
        &[
            r#"{"type":"session","version":0,"id":"fork","createdAt":2,"parentSession":"root","seedLength":1,"delegationDepth":0}"#.to_string(),
            call(0, 100),
            call(1, 7),
        ],
    );
    let report = json(&["--store", s.to_str().unwrap(), "--json", "usage"]);
    let input: BTreeMap<&str, u64> = report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["id"].as_str().unwrap(),
                r["tokens"]["inputTokens"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(input, BTreeMap::from([("root", 100), ("fork", 7)]));
}

/// `usage` fits `COLUMNS` as `tree` does (the session id, then the finer
/// counts give way; TOTAL and COST stay, no count is cut), and a cost too
/// small for four decimals is never shown as zero.
#[test]
fn usage_fits_columns_and_never_shows_a_cost_as_zero() {
    let store = repo().join("testdata/stores/rc8-cli");
    let s = store.to_str().unwrap();
    let tmp = crate::common::temp_dir("usage-width");
    let prices = tmp.path().join("prices.json");
    std::fs::write(
        &prices,
        r#"{"deepseek-official/fake-model": {"input": 0.000001, "output": 0.000001}}"#,
    )
    .unwrap();
    let p = prices.to_str().unwrap();
    let whole = run(["--store", s, "usage", "--prices", p]);
    assert_eq!(whole.code, 0, "{}", whole.stderr);
    let widest = whole.stdout.lines().next().unwrap().chars().count();
    assert!(widest > 80, "the sample is wider than 80: {}", whole.stdout);
    let narrow =
        crate::common::run_env(["--store", s, "usage", "--prices", p], &[("COLUMNS", "80")]);
    assert_eq!(narrow.code, 0, "{}", narrow.stderr);
    let table: Vec<&str> = narrow
        .stdout
        .lines()
        .filter(|l| !l.contains("model calls"))
        .collect();
    for line in &table {
        assert!(line.chars().count() <= 80, "{line}\n{}", narrow.stdout);
    }
    let head = table[0];
    for kept in ["AGENT", "TOTAL", "COST"] {
        assert!(head.contains(kept), "{head}");
    }
    assert!(!head.contains("SESSION"), "{head}");
    // Every row's TOTAL is the one the whole table shows.
    let totals = |text: &str| -> Vec<String> {
        let lines: Vec<&str> = text
            .lines()
            .filter(|l| !l.contains("model calls"))
            .collect();
        let col = lines[0]
            .split_whitespace()
            .position(|h| h == "TOTAL")
            .unwrap();
        let from_end = lines[0].split_whitespace().count() - col;
        lines[1..]
            .iter()
            .map(|l| {
                let cells: Vec<&str> = l.split_whitespace().collect();
                cells[cells.len() - from_end].to_string()
            })
            .collect()
    };
    assert_eq!(totals(&narrow.stdout), totals(&whole.stdout));
    // A row that spent tokens has a cost that is not zero.
    let costs: Vec<&str> = whole
        .stdout
        .lines()
        .skip(1)
        .filter(|l| !l.contains("model calls"))
        .filter_map(|l| l.split_whitespace().last())
        .collect();
    for (total, cost) in totals(&whole.stdout).iter().zip(&costs) {
        if total != "0" {
            assert_ne!(*cost, "0.0000", "{}", whole.stdout);
        }
    }
    assert!(costs.contains(&"<0.0001"), "{}", whole.stdout);
}

/// A money budget counts every priced call, also in a session that called
/// a model without a price too (those calls count nothing); the model
/// without a price is named on stderr.
#[test]
fn a_money_budget_counts_the_priced_calls_of_a_mixed_session() {
    let copy = crate::common::copy_store(&repo().join("testdata/stores/rc8-cli"), "budget-mixed");
    let s = copy.path().to_str().unwrap();
    let tmp = crate::common::temp_dir("budget-mixed-prices");
    let prices = tmp.path().join("prices.json");
    std::fs::write(
        &prices,
        r#"{"deepseek-official/fake-model": {"input": 2.0}}"#,
    )
    .unwrap();
    let p = prices.to_str().unwrap();
    let spent = || -> (f64, String) {
        let r = run([
            "--store",
            s,
            "--json",
            "watch",
            "--once",
            "--prices",
            p,
            "--budget",
            "lead=$0.000001",
        ]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        let e: Value = serde_json::from_str(r.stdout.lines().next().unwrap_or("null")).unwrap();
        assert_eq!(e["kind"], "budget-exceeded", "{}", r.stdout);
        (e["spent"]["cost"].as_f64().unwrap(), r.stderr)
    };
    let (before, _) = spent();
    assert!(before > 0.0);
    // The root's own log: half a million priced input tokens ($1) and a
    // million of a model the table does not price.
    let log = copy
        .path()
        .join("--work-rc8store--/session-cd54d0e9-4044-4a6d-8063-d409a9de653a/session.jsonl");
    let mut body = std::fs::read_to_string(&log).unwrap();
    for (seq, (model, tokens)) in [
        (900, ("fake-model", 500_000)),
        (901, ("other-model", 1_000_000)),
    ] {
        let line = serde_json::json!({
            "type": "assistant/message", "seq": seq, "time": 1796236479000u64 + seq,
            "data": {"turn": 1, "step": 9,
                     "message": {"role": "assistant", "content": [{"type": "text", "text": "ok"}],
                                 "source": {"kind": "model", "provider": "deepseek-official", "model": model},
                                 "id": format!("call-{seq}")},
                     "usage": {"inputTokens": tokens}},
            "surfaceOp": "append"
        });
        body.push_str(&format!("{line}\n"));
    }
    std::fs::write(&log, body).unwrap();
    let (after, stderr) = spent();
    assert!((after - (before + 1.0)).abs() < 1e-6, "{before} → {after}");
    assert!(
        stderr.contains("no price for deepseek-official/other-model"),
        "{stderr}"
    );
}
