//! Writing session logs the way DSH writes them: one event envelope
//! (`{type, seq, time, data, surfaceOp?}`), batches encoded for the log's
//! encoding (raw lines or one Zstandard frame per batch), durable appends
//! that never leave half a batch, and new logs published without ever
//! overwriting or showing a partial file. `spawn` and `serve` both write
//! through here.

use crate::error::StoreError;
use crate::files::sidecar::Dir;
use crate::log::reader::Encoding;
use crate::log::zstd_frames::encode_frame;
use serde_json::{Value, json};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;

type Result<T> = std::result::Result<T, StoreError>;

/// How a message event enters rc.8's surface: every `user/message` we write
/// is appended.
pub const SURFACE_APPEND: &str = "append";

/// One event envelope.
pub fn event(ty: &str, seq: u64, time: i64, data: Value, surface_op: Option<&str>) -> Value {
    let mut ev = json!({"type": ty, "seq": seq, "time": time, "data": data});
    if let Some(op) = surface_op {
        ev["surfaceOp"] = json!(op);
    }
    ev
}

/// Lines (each gets its `\n`) encoded for `encoding`: raw bytes, or one
/// Zstandard frame holding the whole batch.
pub fn encode_batch(encoding: Encoding, lines: &[String]) -> Result<Vec<u8>> {
    let mut batch = String::new();
    for line in lines {
        batch.push_str(line);
        batch.push('\n');
    }
    match encoding {
        Encoding::Raw => Ok(batch.into_bytes()),
        Encoding::Zstd => encode_frame(batch.as_bytes()).map_err(|e| StoreError::Encode {
            reason: e.to_string(),
        }),
    }
}

/// A whole new log: the header in its own frame (DSH's zstd header rule),
/// then the events.
pub fn encode_log(encoding: Encoding, header_line: &str, events: &[String]) -> Result<Vec<u8>> {
    let mut out = encode_batch(encoding, &[header_line.to_string()])?;
    if !events.is_empty() {
        out.extend(encode_batch(encoding, events)?);
    }
    Ok(out)
}

/// Append `bytes` durably at the end of the log `file` (opened through a
/// `Dir`, so never a link); on failure cut back to the length before, so
/// no partial batch stays behind.
pub fn append(file: &File, path: &Path, bytes: &[u8]) -> Result<()> {
    let before = file.metadata().map_err(|e| StoreError::io(path, e))?.len();
    if let Err(e) = file
        .write_all_at(bytes, before)
        .and_then(|()| file.sync_data())
    {
        let _ = file.set_len(before);
        return Err(StoreError::io(path, e));
    }
    Ok(())
}

/// Cut a raw log back to its committed prefix (a torn tail), durably.
pub fn truncate(file: &File, path: &Path, len: u64) -> Result<()> {
    file.set_len(len)
        .and_then(|()| file.sync_data())
        .map_err(|e| StoreError::io(path, e))
}

/// Publish a new log `name` in `<root>/<project>/<session>`: the project
/// and session directories are created or entered without following links,
/// the log is linked in without overwriting, and each directory is synced.
pub fn materialize(
    root: &Path,
    project: &str,
    session: &str,
    name: &str,
    content: &[u8],
) -> Result<()> {
    // The root is the user's to name; a new store starts by creating it.
    if !root.exists() {
        std::fs::create_dir_all(root).map_err(|e| StoreError::io(root, e))?;
    }
    let root_dir = Dir::root(root)?;
    let project_dir = root_dir.ensure_sub(std::ffi::OsStr::new(project))?;
    let session_dir = project_dir.ensure_sub(std::ffi::OsStr::new(session))?;
    session_dir.publish(name, content)?;
    project_dir.sync()?;
    root_dir.sync()
}
