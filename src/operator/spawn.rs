//! `spawn`: create a session log shaped like DSH's own — a header, the
//! descriptor where DSH puts it, and an initial turn carrying the prompt —
//! published the way DSH materializes a log.

use super::spawn_names::{IdReservation, NameReservation};
use crate::support::clock::{new_random_id, now_ms};
use crate::tree::Corpus;
use crate::tree::ResolveError;
use crate::tree::caller::resolve_agent;
use dsh_store::files::{encode_segment, project_dir_name};
use dsh_store::format::{MAX_SAFE_INTEGER, Member, is_valid_name};
use dsh_store::log::Encoding;
use dsh_store::log::writer::{self, SURFACE_APPEND};
use dsh_store::{StoreError, Suffix};
use serde_json::{Map, Value, json};

/// A child's mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpawnMode {
    Continuable,
    OneShot,
    /// An external execution (descriptor version 3; contract v2 only)
    External,
}

/// What to create.
#[derive(Debug, Clone)]
pub struct SpawnRequest {
    pub parent: Option<String>,
    pub name: Option<String>,
    pub label: Option<String>,
    pub mode: SpawnMode,
    pub prompt: Option<String>,
    pub id: Option<String>,
    pub created_at: Option<u64>,
    pub cwd: Option<String>,
    /// The encoding of a new store (an existing store keeps its own).
    pub encoding: Encoding,
    /// The name index's cache directory, to take the new session in (none:
    /// `--no-cache`; the next lookup rescans).
    pub cache: Option<std::path::PathBuf>,
    pub provider: String,
    /// The log format generation to write (`None`: the store's newest,
    /// else 0).
    pub format_version: Option<u32>,
}

/// Why a spawn was refused; the CLI names the flag each concerns.
#[derive(Debug, thiserror::Error)]
pub enum SpawnError {
    #[error("a session id cannot be empty")]
    EmptyId,
    /// A newline or another control character would break every line a
    /// listing prints of it.
    #[error("a session id cannot hold control characters")]
    ControlInId,
    /// The id's directory name would be longer than a file name can be.
    #[error(
        "the session id is too long: its directory name would be {bytes} bytes, and a file name holds at most {MAX_SEGMENT}"
    )]
    IdTooLong { bytes: usize },
    #[error("session \"{0}\" already exists")]
    DuplicateId(String),
    #[error("\"{0}\" is not an absolute path")]
    RelativeCwd(String),
    #[error("{0} is not a safe integer")]
    UnsafeCreatedAt(u64),
    #[error("a root is always \"lead\"")]
    NameWithoutParent,
    #[error("\"{0}\" must be 1-64 characters of [A-Za-z0-9._-], not \"lead\", \".\" or \"..\"")]
    InvalidName(String),
    #[error("\"{name}\" is already used by a sibling under \"{parent}\"")]
    NameTaken { name: String, parent: String },
    #[error(transparent)]
    Parent(ResolveError),
    #[error("the project directory cannot be derived")]
    NoProjectDir,
    /// A generation this build does not write.
    #[error("{0} is not a generation this build writes (0 to {newest})", newest = dsh_store::format::NEWEST_READ)]
    FormatVersion(u32),
    /// DSH 0.1.3 on refuses any header member it does not know, `name`
    /// included.
    #[error(
        "a name is kept in the session header, which generation {0} closes to DSH's own keys; use --format-version 0"
    )]
    NameInGeneration(u32),
    /// Generation 3 on puts a system message at the head of the surface
    /// before the first user message, which this build does not write.
    #[error(
        "generation {0} needs a system message before the first prompt, which this build does not write; spawn without --prompt and send the prompt"
    )]
    PromptInGeneration(u32),
    /// A lock a spawn takes was not had: its parent's (sibling names stay
    /// unique) or the store root's (a chosen id stays unique).
    #[error(transparent)]
    Busy(crate::inbox::DeliveryError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The longest file name (`NAME_MAX` on Linux and macOS file systems).
const MAX_SEGMENT: usize = 255;

/// Create the session and return its id.
pub fn spawn(corpus: &Corpus, req: &SpawnRequest) -> Result<String, SpawnError> {
    let store = corpus.store;
    let id = req.id.clone().unwrap_or_else(new_random_id);
    if id.chars().any(char::is_control) {
        return Err(SpawnError::ControlInId);
    }
    let segment = match encode_segment(&id) {
        None => return Err(SpawnError::EmptyId),
        Some(segment) if segment.len() > MAX_SEGMENT => {
            return Err(SpawnError::IdTooLong {
                bytes: segment.len(),
            });
        }
        Some(segment) => segment,
    };
    if store.get(&id).is_some() {
        return Err(SpawnError::DuplicateId(id));
    }
    // A chosen id may be being spawned elsewhere since the scan: held from
    // this look at the disk until the session is made.
    let _id_held = match &req.id {
        None => None,
        Some(_) => match IdReservation::take(&store.root, &segment) {
            Ok(Some(held)) => Some(held),
            Ok(None) => return Err(SpawnError::DuplicateId(id)),
            Err(crate::inbox::DeliveryError::Store(e)) => return Err(SpawnError::Store(e)),
            Err(e) => return Err(SpawnError::Busy(e)),
        },
    };
    if let Some(cwd) = &req.cwd
        && !cwd.starts_with('/')
    {
        return Err(SpawnError::RelativeCwd(cwd.clone()));
    }
    let created_at = match req.created_at {
        Some(ms) => i64::try_from(ms)
            .ok()
            .filter(|ms| *ms <= MAX_SAFE_INTEGER)
            .ok_or(SpawnError::UnsafeCreatedAt(ms))?,
        None => now_ms(),
    };
    let generation = req
        .format_version
        .unwrap_or_else(|| store.newest_generation());
    if generation > dsh_store::format::NEWEST_READ {
        return Err(SpawnError::FormatVersion(generation));
    }
    if generation > 0 && req.name.is_some() {
        return Err(SpawnError::NameInGeneration(generation));
    }
    if generation >= 3 && req.prompt.is_some() {
        return Err(SpawnError::PromptInGeneration(generation));
    }
    let mut header = Map::new();
    header.insert("type".into(), json!("session"));
    header.insert("version".into(), json!(generation));
    header.insert("id".into(), json!(id));
    header.insert("createdAt".into(), json!(created_at));
    // Held from the sibling-name check until the child is made and its name recorded.
    let mut reservation: Option<NameReservation> = None;
    let mut parent_id: Option<String> = None;
    let events = match &req.parent {
        None => {
            if req.name.is_some() || req.label.is_some() {
                return Err(SpawnError::NameWithoutParent);
            }
            if let Some(cwd) = &req.cwd {
                header.insert("cwd".into(), json!(cwd));
            }
            header.insert("delegationDepth".into(), json!(0));
            prompt_turn(req.prompt.as_deref(), created_at, 0, None)
        }
        Some(parent) => {
            let parent_index = resolve_agent(store, parent).map_err(SpawnError::Parent)?;
            let parent = corpus.record(parent_index);
            if let Some(name) = &req.name {
                let taken = |name: &str| SpawnError::NameTaken {
                    name: name.to_string(),
                    parent: parent.header.id().to_string(),
                };
                if is_valid_name(name) {
                    reservation = match NameReservation::take(&store.root, &parent.dir(), name) {
                        Ok(Some(r)) => Some(r),
                        Ok(None) => return Err(taken(name)),
                        Err(crate::inbox::DeliveryError::Store(e)) => {
                            return Err(SpawnError::Store(e));
                        }
                        Err(e) => return Err(SpawnError::Busy(e)),
                    };
                }
                if !is_valid_name(name) {
                    return Err(SpawnError::InvalidName(name.clone()));
                }
                let taken = corpus
                    .subagent_children_of(parent.header.id())
                    .any(|c| corpus.store.sessions.valid_name(c) == Some(name));
                if taken {
                    return Err(SpawnError::NameTaken {
                        name: name.clone(),
                        parent: parent.header.id().to_string(),
                    });
                }
            }
            let cwd = req
                .cwd
                .clone()
                .map(Value::String)
                .or_else(|| parent.header.cwd().map(Member::to_value));
            if let Some(cwd) = cwd {
                header.insert("cwd".into(), cwd);
            }
            header.insert("parentSession".into(), json!(parent.header.id()));
            parent_id = Some(parent.header.id().to_string());
            header.insert("origin".into(), json!("subagent"));
            header.insert(
                "delegationDepth".into(),
                json!(parent.header.delegation_depth + 1),
            );
            if let Some(preset) = parent.header.agent_preset() {
                header.insert("agentPreset".into(), json!(preset));
            }
            if let Some(name) = &req.name {
                header.insert("name".into(), json!(name));
            }
            child_events(req, created_at, generation)
        }
    };
    if dsh_store::format::cut_in_log(generation) {
        header = with_is_seeded(header);
    }
    let suffix = store.suffix_or(match req.encoding {
        Encoding::Raw => Suffix::Jsonl,
        Encoding::Zstd => Suffix::JsonlZstd,
    });
    let encoding = match suffix {
        Suffix::Jsonl => Encoding::Raw,
        Suffix::JsonlZstd => Encoding::Zstd,
    };
    let project = match header.get("cwd") {
        None => project_dir_name(None),
        Some(Value::String(cwd)) => project_dir_name(Some(cwd)),
        Some(_) => None,
    }
    .ok_or(SpawnError::NoProjectDir)?;
    let session = segment;
    let header_line = Value::Object(header).to_string();
    let lines: Vec<String> = events.iter().map(Value::to_string).collect();
    let content = writer::encode_log(encoding, &header_line, &lines)?;
    let project_dir = store.root.join(&project);
    let before = req
        .cache
        .as_ref()
        .and_then(|_| dsh_store::accel::Census::before(&project_dir));
    let log_name = dsh_store::files::LogName { generation, suffix };
    writer::materialize(
        &store.root,
        &project,
        &session,
        &log_name.file_name(),
        &content,
    )?;
    if let Some(cache) = &req.cache {
        dsh_store::accel::note_spawn(
            cache,
            &store.root,
            &project_dir,
            before,
            (&id, parent_id.as_deref(), req.name.as_deref()),
        );
    }
    if let Some(r) = reservation {
        r.record(&project, &id)?;
    }
    Ok(id)
}

/// A header of generation 2 on: `isSeeded` (a spawned session inherits
/// nothing) where DSH's encoder puts it, before `origin`.
fn with_is_seeded(header: Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::new();
    for (k, v) in header {
        if matches!(k.as_str(), "origin" | "delegationDepth") && !out.contains_key("isSeeded") {
            out.insert("isSeeded".into(), json!(false));
        }
        out.insert(k, v);
    }
    out
}

fn descriptor(req: &SpawnRequest, generation: u32) -> Value {
    let label = req.label.clone();
    // rc.8 writes version 2; DSH 0.1.3 on reads version 3 only.
    let version = if generation == 0 { 2 } else { 3 };
    match req.mode {
        SpawnMode::OneShot => {
            let mut d = json!({"version":version,"mode":"one-shot","provider":req.provider});
            if let Some(label) = label {
                d["label"] = json!(label);
            }
            d
        }
        SpawnMode::Continuable => {
            json!({"version":version,"mode":"continuable","provider":req.provider,"label":label.unwrap_or_default()})
        }
        SpawnMode::External => {
            json!({"version":3,"mode":"external","provider":req.provider,"label":label.unwrap_or_default()})
        }
    }
}

/// Turn 1 with the prompt as its user message, starting at `seq`; a
/// one-shot's descriptor goes inside it, after the message, as DSH's
/// in-process driver writes it.
fn prompt_turn(prompt: Option<&str>, time: i64, seq: u64, inner: Option<Value>) -> Vec<Value> {
    let mut out = Vec::new();
    if prompt.is_none() && inner.is_none() {
        return out;
    }
    let next = |out: &Vec<Value>| seq + out.len() as u64;
    out.push(writer::event(
        "turn/start",
        next(&out),
        time,
        json!({"turn":1}),
        None,
    ));
    if let Some(prompt) = prompt {
        let message = json!({
            "content": [{"type":"text","text":prompt}],
            "source": {"kind":"user"},
            "role": "user",
            "id": new_random_id(),
        });
        out.push(writer::event(
            "user/message",
            next(&out),
            time,
            message,
            Some(SURFACE_APPEND),
        ));
    }
    if let Some(d) = inner {
        out.push(writer::event(
            "subagent/descriptor",
            next(&out),
            time,
            d,
            None,
        ));
    }
    out.push(writer::event(
        "turn/end",
        next(&out),
        time,
        json!({"turn":1,"reason":{"kind":"completed"}}),
        None,
    ));
    out
}

fn child_events(req: &SpawnRequest, time: i64, generation: u32) -> Vec<Value> {
    match req.mode {
        SpawnMode::OneShot => prompt_turn(
            req.prompt.as_deref(),
            time,
            0,
            Some(descriptor(req, generation)),
        ),
        SpawnMode::Continuable | SpawnMode::External => {
            // Continuable children carry the descriptor in their creation seed.
            let mut out = vec![
                writer::event(
                    "subagent/descriptor",
                    0,
                    time,
                    descriptor(req, generation),
                    None,
                ),
                writer::event("session/end-seed", 1, time, json!({}), None),
            ];
            out.extend(prompt_turn(req.prompt.as_deref(), time, 2, None));
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_store_failure_keeps_its_cause() {
        let io = std::io::Error::new(std::io::ErrorKind::PermissionDenied, "denied");
        let e = SpawnError::Store(StoreError::io("/x/session.jsonl", io));
        let cause = std::error::Error::source(&e).expect("the I/O error underneath");
        assert_eq!(cause.to_string(), "denied");
        assert!(std::error::Error::source(&SpawnError::EmptyId).is_none());
    }
}
