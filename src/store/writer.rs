//! Writing session logs the way DSH writes them: one event envelope
//! (`{type, seq, time, data, surfaceOp?}`), batches encoded for the log's
//! encoding (raw lines or one Zstandard frame per batch), durable appends
//! that never leave half a batch, and new logs published without ever
//! overwriting or showing a partial file. `spawn` and `serve` both write
//! through here.

use super::error::StoreError;
use super::reader::Encoding;
use super::zstd_frames::encode_frame;
use crate::support::clock::temp_suffix;
use serde_json::{Value, json};
use std::fs::{self, DirBuilder, File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
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

/// Append `bytes` to the log at `path` durably; on failure cut back to the
/// length before, so no partial batch stays behind.
pub fn append(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut f = OpenOptions::new()
        .append(true)
        .open(path)
        .map_err(|e| StoreError::io(path, e))?;
    let before = f.metadata().map_err(|e| StoreError::io(path, e))?.len();
    if let Err(e) = f.write_all(bytes).and_then(|()| f.sync_data()) {
        let _ = f.set_len(before);
        return Err(StoreError::io(path, e));
    }
    Ok(())
}

/// Cut a raw log back to its committed prefix (a torn tail), durably.
pub fn truncate(path: &Path, len: u64) -> Result<()> {
    let f = OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(|e| StoreError::io(path, e))?;
    f.set_len(len)
        .and_then(|()| f.sync_data())
        .map_err(|e| StoreError::io(path, e))
}

fn sync_dir(dir: &Path) -> Result<()> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| StoreError::io(dir, e))
}

/// Publish a new log at `final_path` in `dir`: temp file, fsync, link
/// without overwrite, directory fsyncs up to `root`.
pub fn materialize(root: &Path, dir: &Path, final_path: &Path, content: &[u8]) -> Result<()> {
    DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| StoreError::io(dir, e))?;
    let tmp = dir.join(format!(
        "{}.{}.tmp",
        final_path.file_name().unwrap_or_default().to_string_lossy(),
        temp_suffix()
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
        return Err(StoreError::io(&tmp, e));
    }
    let linked = fs::hard_link(&tmp, final_path);
    let _ = fs::remove_file(&tmp);
    linked.map_err(|e| StoreError::io(final_path, e))?;
    sync_dir(dir)?;
    if let Some(project) = dir.parent() {
        sync_dir(project)?;
    }
    sync_dir(root)
}
