//! `inbox.keyed.jsonl`: consumed messages that carry a caller-chosen id
//! (`--id`), moved out of the inbox by compaction so that keyed history no
//! longer keeps the inbox large, and kept whole so a retried send is still
//! told apart exactly (the same message: a duplicate; another: refused).
//! Appended and synced under the inbox lock before the compacted inbox
//! replaces the old one (a crash between the two leaves a record in both,
//! which reads the same); read only when the key index names an id.

use super::lock::WriteGuard;
use crate::store::StoreError;
use std::io::{BufRead, BufReader, Seek, SeekFrom, Write};

pub const ARCHIVE: &str = "inbox.keyed.jsonl";

/// Append `lines` (complete records, without their newlines) and sync.
pub fn append(guard: &WriteGuard, lines: &[Vec<u8>]) -> Result<(), StoreError> {
    if lines.is_empty() {
        return Ok(());
    }
    let path = guard.dir.join(ARCHIVE);
    let io = |e| StoreError::io(&path, e);
    let mut f = guard.dir.open_rw(ARCHIVE)?;
    let mut bytes = Vec::new();
    for l in lines {
        bytes.extend_from_slice(l);
        bytes.push(b'\n');
    }
    // A torn tail a crash left is ended first, so the next record stays whole.
    let len = f.seek(SeekFrom::End(0)).map_err(io)?;
    if len > 0 {
        use std::os::unix::fs::FileExt;
        let mut last = [0u8; 1];
        f.read_exact_at(&mut last, len - 1).map_err(io)?;
        if last[0] != b'\n' {
            f.write_all(b"\n").map_err(io)?;
        }
    }
    f.write_all(&bytes).map_err(io)?;
    f.sync_data().map_err(io)
}

/// The archive for reading, when there is one.
pub fn reader(guard: &WriteGuard) -> Result<Option<impl BufRead>, StoreError> {
    Ok(guard
        .dir
        .open_read(ARCHIVE)?
        .map(|f| BufReader::with_capacity(64 * 1024, f)))
}
