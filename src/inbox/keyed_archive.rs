//! `inbox.keyed.jsonl`: consumed messages that carry a caller-chosen id
//! (`--id`), moved out of the inbox by compaction so that keyed history no
//! longer keeps the inbox large, and kept whole so a retried send is still
//! told apart exactly (the same message: a duplicate; another: refused).
//! Appended and synced under the inbox lock before the compacted inbox
//! replaces the old one (a crash between the two leaves a record in both,
//! which reads the same); read only when the key index names an id.

use super::lock::WriteGuard;
use dsh_store::StoreError;
use std::io::{BufRead, BufReader, Seek, SeekFrom, Write};

pub use dsh_store::files::KEYED_ARCHIVE as ARCHIVE;

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

/// Whether the archive may hold `id`: its JSON text occurs in it (one
/// pass of `memmem`, no parsing). `false` only when it surely does not: no
/// archive, or the text is nowhere in it.
pub fn may_hold(guard: &WriteGuard, id: &str) -> Result<bool, StoreError> {
    use std::io::Read;
    let Some(mut f) = guard.dir.open_read(ARCHIVE)? else {
        return Ok(false);
    };
    let quoted = serde_json::to_vec(id).unwrap_or_default();
    let finder = memchr::memmem::Finder::new(&quoted);
    // A window at a time (memory stays flat whatever the archive's size),
    // keeping the tail that could start a match split across reads.
    let keep = quoted.len().saturating_sub(1);
    let mut buf = vec![0u8; (1 << 20).max(2 * quoted.len())];
    let mut filled = 0usize;
    loop {
        let n = f
            .read(&mut buf[filled..])
            .map_err(|e| StoreError::io(guard.dir.join(ARCHIVE), e))?;
        if n == 0 {
            return Ok(false);
        }
        let end = filled + n;
        if finder.find(&buf[..end]).is_some() {
            return Ok(true);
        }
        let tail = end.saturating_sub(keep);
        buf.copy_within(tail..end, 0);
        filled = end - tail;
    }
}

/// The archive for reading, when there is one.
pub fn reader(guard: &WriteGuard) -> Result<Option<impl BufRead>, StoreError> {
    Ok(guard
        .dir
        .open_read(ARCHIVE)?
        .map(|f| BufReader::with_capacity(64 * 1024, f)))
}
