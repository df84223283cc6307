//! `spawn`: create a session log shaped like DSH's own — a header, the
//! descriptor where DSH puts it, and an initial turn carrying the prompt —
//! published the way DSH materializes a log (temp file, fsync, link without
//! overwrite, directory fsync).

use crate::cli::{Compression, SpawnArgs, SpawnMode};
use crate::codec::encode_segment;
use crate::error::{Error, Result};
use crate::header::is_valid_name;
use crate::resolve::resolve_session;
use crate::store::{Store, Suffix, expected_session_dir};
use crate::zstd_frames::encode_frame;
use serde_json::{Map, Value, json};
use std::fs::{self, DirBuilder, File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// Create the session and return its id.
pub fn spawn(store_root: &Path, args: &SpawnArgs) -> Result<String> {
    let store = Store::open(store_root)?;
    let id = args
        .id
        .clone()
        .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
    if encode_segment(&id).is_none() {
        return Err(Error::usage("--id: a session id cannot be empty"));
    }
    if store.get(&id).is_some() {
        return Err(Error::usage(format!(
            "--id: session \"{id}\" already exists"
        )));
    }
    if let Some(cwd) = &args.cwd
        && !cwd.starts_with('/')
    {
        return Err(Error::usage(format!(
            "--cwd: \"{cwd}\" is not an absolute path"
        )));
    }
    let created_at = match args.created_at {
        Some(ms) if ms <= crate::header::MAX_SAFE_INTEGER as u64 => ms as i64,
        Some(ms) => {
            return Err(Error::usage(format!(
                "--created-at: {ms} is not a safe integer"
            )));
        }
        None => now_ms(),
    };
    let mut header = Map::new();
    header.insert("type".into(), json!("session"));
    header.insert("version".into(), json!(0));
    header.insert("id".into(), json!(id));
    header.insert("createdAt".into(), json!(created_at));
    let events = match &args.parent {
        None => {
            if args.name.is_some() || args.label.is_some() {
                return Err(Error::usage(
                    "--name and --label need --parent: a root is always \"lead\"",
                ));
            }
            if let Some(cwd) = &args.cwd {
                header.insert("cwd".into(), json!(cwd));
            }
            header.insert("delegationDepth".into(), json!(0));
            prompt_turn(args.prompt.as_deref(), created_at, 0, None)
        }
        Some(parent) => {
            let parent = &store.sessions[resolve_session(&store, parent)
                .map_err(|e| Error::usage(format!("--parent: {}", e.message)))?];
            if let Some(name) = &args.name {
                if !is_valid_name(name) {
                    return Err(Error::usage(format!(
                        "--name: \"{name}\" must be 1-64 characters of [A-Za-z0-9._-] and not \"lead\""
                    )));
                }
                let taken = store.sessions.iter().any(|s| {
                    s.header.origin_subagent
                        && s.header.parent() == Some(parent.header.id.as_str())
                        && s.header.valid_name() == Some(name)
                });
                if taken {
                    return Err(Error::usage(format!(
                        "--name: \"{name}\" is already used by a sibling under \"{}\"",
                        parent.header.id
                    )));
                }
            }
            let cwd = args
                .cwd
                .clone()
                .map(Value::String)
                .or_else(|| parent.header.cwd.clone());
            if let Some(cwd) = cwd {
                header.insert("cwd".into(), cwd);
            }
            header.insert("parentSession".into(), json!(parent.header.id));
            header.insert("origin".into(), json!("subagent"));
            header.insert(
                "delegationDepth".into(),
                json!(parent.header.delegation_depth + 1),
            );
            if let Some(preset) = &parent.header.agent_preset {
                header.insert("agentPreset".into(), json!(preset));
            }
            if let Some(name) = &args.name {
                header.insert("name".into(), json!(name));
            }
            child_events(args, created_at)
        }
    };
    let suffix = store.suffix_or(match args.compression {
        Compression::None => Suffix::Jsonl,
        Compression::Zstd => Suffix::JsonlZstd,
    });
    let dir = expected_session_dir(&store.root, &id, header.get("cwd"))
        .ok_or_else(|| Error::usage("--cwd: the project directory cannot be derived"))?;
    let header_line =
        serde_json::to_string(&Value::Object(header)).map_err(|e| Error::store(e.to_string()))?;
    let lines: Vec<String> = events.iter().map(|e| e.to_string()).collect();
    let content = encode_log(suffix, &header_line, &lines)?;
    materialize(&store.root, &dir, &dir.join(suffix.file_name()), &content)?;
    Ok(id)
}

fn descriptor(args: &SpawnArgs) -> Value {
    let label = args.label.clone();
    match args.mode {
        SpawnMode::OneShot => {
            let mut d = json!({"version":2,"mode":"one-shot","provider":args.provider});
            if let Some(label) = label {
                d["label"] = json!(label);
            }
            d
        }
        SpawnMode::Continuable => {
            json!({"version":2,"mode":"continuable","provider":args.provider,"label":label.unwrap_or_default()})
        }
        SpawnMode::External => {
            json!({"version":3,"mode":"external","provider":args.provider,"label":label.unwrap_or_default()})
        }
    }
}

fn event(ty: &str, seq: usize, time: i64, data: Value) -> Value {
    json!({"type": ty, "seq": seq, "time": time, "data": data})
}

/// Turn 1 with the prompt as its user message, starting at `seq`; a
/// one-shot's descriptor goes inside it, after the message, as DSH's
/// in-process driver writes it.
fn prompt_turn(prompt: Option<&str>, time: i64, seq: usize, inner: Option<Value>) -> Vec<Value> {
    let mut out = Vec::new();
    if prompt.is_none() && inner.is_none() {
        return out;
    }
    out.push(event(
        "turn/start",
        seq + out.len(),
        time,
        json!({"turn":1}),
    ));
    if let Some(prompt) = prompt {
        let message = json!({
            "content": [{"type":"text","text":prompt}],
            "source": {"kind":"user"},
            "role": "user",
            "id": uuid::Uuid::new_v4().to_string(),
        });
        let mut ev = event("user/message", seq + out.len(), time, message);
        ev["surfaceOp"] = json!("append");
        out.push(ev);
    }
    if let Some(d) = inner {
        out.push(event("subagent/descriptor", seq + out.len(), time, d));
    }
    out.push(event(
        "turn/end",
        seq + out.len(),
        time,
        json!({"turn":1,"reason":{"kind":"completed"}}),
    ));
    out
}

fn child_events(args: &SpawnArgs, time: i64) -> Vec<Value> {
    match args.mode {
        SpawnMode::OneShot => prompt_turn(args.prompt.as_deref(), time, 0, Some(descriptor(args))),
        SpawnMode::Continuable | SpawnMode::External => {
            // Continuable children carry the descriptor in their creation seed.
            let mut out = vec![
                event("subagent/descriptor", 0, time, descriptor(args)),
                event("session/end-seed", 1, time, json!({})),
            ];
            out.extend(prompt_turn(args.prompt.as_deref(), time, 2, None));
            out
        }
    }
}

fn encode_log(suffix: Suffix, header_line: &str, lines: &[String]) -> Result<Vec<u8>> {
    let mut events = String::new();
    for line in lines {
        events.push_str(line);
        events.push('\n');
    }
    match suffix {
        Suffix::Jsonl => Ok(format!("{header_line}\n{events}").into_bytes()),
        Suffix::JsonlZstd => {
            let err = |e: std::io::Error| Error::store(format!("zstd: {e}"));
            let mut out = encode_frame(format!("{header_line}\n").as_bytes()).map_err(err)?;
            if !events.is_empty() {
                out.extend(encode_frame(events.as_bytes()).map_err(err)?);
            }
            Ok(out)
        }
    }
}

fn sync_dir(dir: &Path) -> Result<()> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| Error::io(dir, &e))
}

/// Publish a new log: never overwrite, never leave a partial file visible.
fn materialize(root: &Path, dir: &Path, final_path: &Path, content: &[u8]) -> Result<()> {
    DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| Error::io(dir, &e))?;
    let suffix = &uuid::Uuid::new_v4().simple().to_string()[..12];
    let tmp = dir.join(format!(
        "{}.{suffix}.tmp",
        final_path.file_name().unwrap_or_default().to_string_lossy()
    ));
    let write = || -> std::io::Result<()> {
        let mut f = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&tmp)?;
        f.write_all(content)?;
        f.sync_all()
    };
    if let Err(e) = write() {
        let _ = fs::remove_file(&tmp);
        return Err(Error::io(&tmp, &e));
    }
    let linked = fs::hard_link(&tmp, final_path);
    let _ = fs::remove_file(&tmp);
    linked.map_err(|e| Error::io(final_path, &e))?;
    sync_dir(dir)?;
    if let Some(project) = dir.parent() {
        sync_dir(project)?;
    }
    sync_dir(root)
}
