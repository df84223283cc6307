//! `export --otlp`: the span tree of the rc.8-written stores, counted against
//! the logs here (an `invoke_agent` span per turn, a `chat` span per step,
//! an `execute_tool` span per tool call), the nesting of delegated child
//! turns, ids stable across exports, and golden OTLP/JSON.

use crate::common::{repo, run, snapshot_settings};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// (turns, steps, tool calls) in every session's own events.
fn counted(store: &Path) -> (usize, usize, usize) {
    let (mut turns, mut steps, mut tools) = (0, 0, 0);
    for project in std::fs::read_dir(store).unwrap().flatten() {
        for session in std::fs::read_dir(project.path()).unwrap().flatten() {
            let Ok(text) = std::fs::read_to_string(session.path().join("session.jsonl")) else {
                continue;
            };
            let mut lines = text.lines();
            let header: Value = serde_json::from_str(lines.next().unwrap()).unwrap();
            let seed = header["seedLength"].as_u64().unwrap_or(0);
            for line in lines {
                let ev: Value = serde_json::from_str(line).unwrap();
                // Packed chunk rows (`seq0`) hold only assistant chunks.
                let Some(seq) = ev["seq"].as_u64() else {
                    continue;
                };
                if seq < seed {
                    continue;
                }
                match ev["type"].as_str().unwrap() {
                    "turn/start" => turns += 1,
                    "step/start" => steps += 1,
                    "assistant/message" => {
                        tools += ev["data"]["message"]["content"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .filter(|b| b["type"] == "tool-call")
                            .count()
                    }
                    _ => {}
                }
            }
        }
    }
    (turns, steps, tools)
}

fn export(store: &Path) -> Value {
    let r = run([
        "--store",
        store.to_str().unwrap(),
        "export",
        "--otlp",
        "--all",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    serde_json::from_str(&r.stdout).unwrap()
}

fn spans(v: &Value) -> Vec<Value> {
    v["resourceSpans"][0]["scopeSpans"][0]["spans"]
        .as_array()
        .unwrap()
        .clone()
}

fn attr<'a>(span: &'a Value, key: &str) -> Option<&'a Value> {
    span["attributes"]
        .as_array()?
        .iter()
        .find(|a| a["key"] == key)
        .map(|a| &a["value"])
}

#[test]
fn span_counts_equal_the_turns_steps_and_tool_calls() {
    for name in ["rc8-cli", "rc8-live", "rc8-inbox"] {
        let store = repo().join("testdata/stores").join(name);
        let (turns, steps, tools) = counted(&store);
        let v = export(&store);
        let spans = spans(&v);
        let mut by_op: BTreeMap<String, usize> = BTreeMap::new();
        for s in &spans {
            let op = attr(s, "gen_ai.operation.name").unwrap()["stringValue"]
                .as_str()
                .unwrap()
                .to_string();
            *by_op.entry(op).or_default() += 1;
        }
        let got = (
            by_op.get("invoke_agent").copied().unwrap_or(0),
            by_op.get("chat").copied().unwrap_or(0),
            by_op.get("execute_tool").copied().unwrap_or(0),
        );
        assert_eq!(got, (turns, steps, tools), "{name}");
        assert!(turns > 0, "{name}");
        // Every parent is in the export, in the same trace; ids are unique.
        let by_id: HashMap<&str, &Value> = spans
            .iter()
            .map(|s| (s["spanId"].as_str().unwrap(), s))
            .collect();
        assert_eq!(by_id.len(), spans.len(), "{name}: span ids collide");
        for s in &spans {
            if let Some(p) = s["parentSpanId"].as_str() {
                let parent = by_id
                    .get(p)
                    .unwrap_or_else(|| panic!("{name}: {p} missing"));
                assert_eq!(parent["traceId"], s["traceId"], "{name}");
            }
            assert_eq!(s["traceId"].as_str().unwrap().len(), 32);
            assert_eq!(s["spanId"].as_str().unwrap().len(), 16);
        }
        // The same export twice: the same bytes.
        assert_eq!(export(&store), v, "{name}");
    }
}

#[test]
fn a_delegated_child_turn_nests_under_the_call_that_sent_it() {
    let store = repo().join("testdata/stores/rc8-cli");
    let spans = spans(&export(&store));
    let by_id: HashMap<&str, &Value> = spans
        .iter()
        .map(|s| (s["spanId"].as_str().unwrap(), s))
        .collect();
    let child = "b5543822-3e81-4d32-81b8-4772df2c84c8";
    let child_turns: Vec<&Value> = spans
        .iter()
        .filter(|s| s["name"] == format!("invoke_agent {child}"))
        .collect();
    assert_eq!(child_turns.len(), 2);
    let parents: Vec<&str> = child_turns
        .iter()
        .map(|t| {
            let p = by_id[t["parentSpanId"].as_str().unwrap()];
            // PRODUCER and CONSUMER, linked.
            assert_eq!((p["kind"].as_i64(), t["kind"].as_i64()), (Some(4), Some(5)));
            assert_eq!(t["links"][0]["spanId"], p["spanId"]);
            p["name"].as_str().unwrap()
        })
        .collect();
    assert_eq!(
        parents,
        ["execute_tool subagent", "execute_tool send_message"]
    );
    // One root turn: one trace.
    let traces: std::collections::HashSet<&str> = spans
        .iter()
        .map(|s| s["traceId"].as_str().unwrap())
        .collect();
    assert_eq!(traces.len(), 1);
    // Usage on the chat spans: input and output tokens as the log has them.
    let chat = spans
        .iter()
        .find(|s| s["name"] == "chat fake-model")
        .unwrap();
    assert_eq!(
        attr(chat, "gen_ai.usage.input_tokens").unwrap()["intValue"],
        "10"
    );
    assert_eq!(
        attr(chat, "gen_ai.provider.name").unwrap()["stringValue"],
        "deepseek-official"
    );
    // Content only when asked.
    let tool = spans
        .iter()
        .find(|s| s["name"] == "execute_tool send_message")
        .unwrap();
    assert!(attr(tool, "gen_ai.tool.call.arguments").is_none());
    let r = run([
        "--store",
        store.to_str().unwrap(),
        "export",
        "--otlp",
        "--all",
        "--content",
    ]);
    assert!(r.stdout.contains("CHILD-FOLLOWUP: say bye"), "{}", r.stdout);
}

#[test]
fn exports_match_golden_files_and_errors_are_clear() {
    snapshot_settings(None).bind(|| {
        for name in ["rc8-cli", "rc8-live"] {
            let store = format!("testdata/stores/{name}");
            let args = ["--store", store.as_str(), "export", "--otlp", "--all"];
            let r = run(args);
            assert_eq!(r.code, 0, "{}", r.stderr);
            let pretty =
                serde_json::to_string_pretty(&serde_json::from_str::<Value>(&r.stdout).unwrap())
                    .unwrap();
            insta::assert_snapshot!(format!("{name}.otlp"), pretty);
        }
    });
    let s = repo().join("testdata/stores/rc8-cli");
    let s = s.to_str().unwrap();
    // Usage errors exit 2; a collector that cannot be reached is I/O (3).
    let store = std::path::Path::new(s);
    assert_at!(store, &["export", "--otlp"], @r#"
        $ dsh-agents export --otlp
        --- stderr
        Error: the following required arguments were not provided:
          <AGENT>

        Usage: dsh-agents export --otlp <AGENT>

        For more information, try '--help'.
        --- exit: 2
    "#);
    assert_at!(store, &["export", "--all"], @r#"
        $ dsh-agents export --all
        --- stderr
        Error: the following required arguments were not provided:
          --otlp

        Usage: dsh-agents export --otlp --all [AGENT]

        For more information, try '--help'.
        --- exit: 2
    "#);
    assert_at!(store, &["export", "--otlp", "--all", "--endpoint", "https://x:1"], @r#"
        $ dsh-agents export --otlp --all --endpoint https://x:1
        --- stderr
        Error: --endpoint: "https://x:1" is not an http://HOST:PORT[/PATH] URL (TLS is left to a local collector)
        --- exit: 2
    "#);
    assert_at!(store, &["export", "--otlp", "--all", "--endpoint", "http://127.0.0.1:1"], @r#"
        $ dsh-agents export --otlp --all --endpoint http://127.0.0.1:1
        --- stderr
        Error: --endpoint: cannot connect to 127.0.0.1:1: Connection refused (os error 111)
        --- exit: 3
    "#);
    // -o writes the file; nothing is written in the store.
    let tmp = crate::common::temp_dir("otlp-out");
    let out = tmp.path().join("t.json");
    let r = run([
        "--store",
        s,
        "export",
        "--otlp",
        "--all",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.starts_with("wrote 14 spans"), "{}", r.stdout);
    let v: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(spans(&v).len(), 14);
}

#[test]
fn dash_is_standard_output_and_a_failed_write_is_an_io_error() {
    let tmp = crate::common::temp_dir("otel-dash");
    let store = repo().join("testdata/stores/team");
    let s = store.to_str().unwrap();
    let to_stdout = std::process::Command::new(assert_cmd::cargo::cargo_bin!("dsh-agents"))
        .args(["--store", s, "export", "--otlp", "--all", "-o", "-"])
        .current_dir(tmp.path())
        .output()
        .unwrap();
    assert_eq!(to_stdout.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&to_stdout.stdout).unwrap();
    assert!(!spans(&v).is_empty());
    assert!(!tmp.path().join("-").exists(), "a file named - was written");
    assert_at!(
        std::path::Path::new(s),
        &["export", "--otlp", "--all", "-o", "/nonexistent-dir/x.json"],
        @r#"
            $ dsh-agents export --otlp --all -o /nonexistent-dir/x.json
            --- stderr
            Error: /nonexistent-dir/x.json: No such file or directory (os error 2)
            --- exit: 3
        "#
    );
    // A FIFO with a reader is written, as a redirection would write it
    // (one without is refused: `special_files_never_hang_a_command`).
    let fifo = tmp.path().join("fifo");
    crate::common::mkfifo(&fifo);
    let o = fifo.to_str().unwrap();
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo).unwrap())
    };
    // The reader may not have opened it yet: retried until it has.
    let r = loop {
        let r = run(["--store", s, "export", "--otlp", "--all", "-o", o]);
        if r.code != 3 {
            break r;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(reader.join().unwrap(), to_stdout.stdout);
}

#[test]
fn a_collector_that_trickles_its_answer_is_cut_off_at_the_deadline() {
    // A collector on loopback that takes the request, then sends one byte
    // of a header line at a time and never finishes (bounded: it stops by
    // itself after 60 bytes).
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = std::thread::spawn(move || {
        let (mut conn, _) = listener.accept().unwrap();
        conn.set_read_timeout(Some(std::time::Duration::from_millis(200)))
            .unwrap();
        let mut sink = [0u8; 65536];
        while std::io::Read::read(&mut conn, &mut sink).is_ok_and(|n| n > 0) {}
        for b in b"HTTP/1.1 200 OK\r\nX-Slow: ".iter().cycle().take(60) {
            if std::io::Write::write_all(&mut conn, &[*b]).is_err() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(500));
        }
    });
    let store = repo().join("testdata/stores/team");
    let url = format!("http://127.0.0.1:{port}");
    let r = run([
        "--store",
        store.to_str().unwrap(),
        "export",
        "--otlp",
        "--all",
        "--endpoint",
        &url,
        "--timeout",
        "2",
    ]);
    assert_eq!(r.code, 3, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("timed out"), "{}", r.stderr);
    server.join().unwrap();
}

#[test]
fn a_large_export_is_posted_in_batches_and_every_span_arrives() {
    // One session of 2,500 one-step turns: 5,000 spans, more than one
    // request holds.
    let tmp = crate::common::temp_dir("otel-batches");
    let dir = tmp.path().join("store/_no-cwd/big");
    std::fs::create_dir_all(&dir).unwrap();
    let mut log = String::from(
        r#"{"type":"session","version":0,"id":"big","createdAt":1,"delegationDepth":0}"#,
    );
    log.push('\n');
    for t in 0..2500u64 {
        let (s, time) = (t * 4, t * 10 + 1);
        for (k, ty) in ["turn/start", "step/start", "step/end", "turn/end"]
            .iter()
            .enumerate()
        {
            let end = if *ty == "turn/end" {
                r#","reason":{"kind":"completed"}"#
            } else {
                ""
            };
            log.push_str(&format!(
                r#"{{"type":"{ty}","seq":{},"time":{},"data":{{"turn":{}{end}}}}}"#,
                s + k as u64,
                time + k as u64,
                t + 1
            ));
            log.push('\n');
        }
    }
    std::fs::write(dir.join("session.jsonl"), log).unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    // Each request read whole by its Content-Length, answered 200; the
    // bodies come back when the export closes the last connection.
    let server = std::thread::spawn(move || {
        let mut bodies = Vec::new();
        listener.set_nonblocking(false).unwrap();
        loop {
            let (mut conn, _) = listener.accept().unwrap();
            let mut got = Vec::new();
            let mut piece = [0u8; 65536];
            let body = loop {
                let n = std::io::Read::read(&mut conn, &mut piece).unwrap();
                assert!(n > 0, "the request ended early");
                got.extend_from_slice(&piece[..n]);
                let Some(head) = got.windows(4).position(|w| w == b"\r\n\r\n") else {
                    continue;
                };
                let text = String::from_utf8_lossy(&got[..head]).to_lowercase();
                let len: usize = text
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length: "))
                    .unwrap()
                    .trim()
                    .parse()
                    .unwrap();
                if got.len() >= head + 4 + len {
                    break got[head + 4..head + 4 + len].to_vec();
                }
            };
            std::io::Write::write_all(&mut conn, b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
                .unwrap();
            let spans = body
                .windows(b"gen_ai.operation.name".len())
                .filter(|w| *w == b"gen_ai.operation.name")
                .count();
            bodies.push(spans);
            if bodies.iter().sum::<usize>() >= 5000 {
                return bodies;
            }
        }
    });
    let r = run([
        "--store",
        tmp.path().join("store").to_str().unwrap(),
        "export",
        "--otlp",
        "--all",
        "--endpoint",
        &format!("http://127.0.0.1:{port}"),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.starts_with("sent 5000 spans to"), "{}", r.stdout);
    let bodies = server.join().unwrap();
    assert!(bodies.len() > 1, "one request held every span: {bodies:?}");
    assert_eq!(bodies.iter().sum::<usize>(), 5000, "{bodies:?}");
    // The file export of the same store holds the same spans.
    assert_eq!(spans(&export(&tmp.path().join("store"))).len(), 5000);
}
