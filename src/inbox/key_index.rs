//! `inbox.keys`: every id the inbox's records name (and the keyed messages
//! compaction moved to `inbox.keyed.jsonl`), so a keyed send (`--id`)
//! learns that its id is new without reading the inbox. One line per id a
//! record names: `<inbox length after the record>\t<kind>\t<id>`, kind `m`
//! a message, `i` an interrupt, `o` an id a claim, cancel or wait names;
//! a record naming no id still gets a line (kind `-`), so the last line
//! always tells the inbox length the index covers. The first line is the
//! inbox's inode. Appended under the inbox lock after each record; an index
//! whose inode or last length does not match the inbox (a torn tail cut, a
//! compaction, a writer that did not keep it) is rebuilt by one read of
//! the inbox. It can skip the scan, never change an answer: only "absent"
//! is taken from it, a miss is checked against the keyed archive (whose
//! record a lying index must not overrule), and any hit is confirmed by
//! the full read.

use super::lock::WriteGuard;
use super::record::{InboxLine, Record, for_each_line_at, parse};
use dsh_store::StoreError;
use dsh_store::files::read_capped;
use serde::de::IgnoredAny;
use std::io::Write;
use std::os::unix::fs::MetadataExt;

pub const KEYS: &str = "inbox.keys";

/// Larger than any inbox's index the admission bound allows.
const CAP: u64 = 1 << 30;

/// The index lines for one record that ends at `end`.
fn lines_for<P>(record: &Record<P>, end: u64, out: &mut Vec<u8>) {
    let mut put = |kind: &str, id: &str| {
        let _ = writeln!(out, "{end}\t{kind}\t{id}");
    };
    match record {
        Record::Message { id, .. } => put("m", id),
        Record::Interrupt { id, .. } => put("i", id),
        Record::Claim { ids, .. } | Record::Cancel { ids, .. } | Record::Wait { ids, .. } => {
            if ids.is_empty() {
                put("-", "");
            }
            for id in ids {
                put("o", id);
            }
        }
    }
}

/// Append one record to the inbox under `guard`, durable when this
/// returns, and note it in the index: the one way a record is appended, so
/// the index never misses one.
pub fn append(guard: &mut WriteGuard, record: &Record) -> Result<(), StoreError> {
    guard.append_unindexed(record)?;
    note(guard, record);
    Ok(())
}

/// Note the record just appended (the inbox now ends at `guard.len`).
/// Best effort: a note that fails leaves an index that does not match,
/// which the next lookup rebuilds.
fn note(guard: &WriteGuard, record: &Record) {
    // No index yet: the first keyed send builds it whole.
    if !guard.dir.exists(KEYS) {
        return;
    }
    let mut out = Vec::new();
    lines_for(record, guard.len, &mut out);
    if let Ok(mut f) = guard.dir.open_existing_rw(KEYS) {
        use std::io::Seek;
        let _ = f
            .seek(std::io::SeekFrom::End(0))
            .and_then(|_| f.write_all(&out));
    }
}

/// Whether `id` is named by no record of the inbox under `guard`: `true`
/// only when the index says so and matches the inbox; `false` when it may
/// be (the caller then reads the inbox).
pub fn surely_absent(guard: &WriteGuard, id: &str) -> bool {
    if id.contains(['\t', '\n']) {
        return false;
    }
    let Ok(ino) = guard.inbox.metadata().map(|m| m.ino()) else {
        return false;
    };
    let bytes = match read_capped(&guard.dir.join(KEYS), CAP) {
        Some(b) if matches(&b, ino, guard.len) => b,
        _ => match rebuild(guard, ino) {
            Some(b) => b,
            None => return false,
        },
    };
    let needle = format!("\t{id}\n");
    memchr::memmem::find(&bytes, needle.as_bytes()).is_none()
}

/// Whether index `bytes` describes the inbox of inode `ino` and length `len`.
fn matches(bytes: &[u8], ino: u64, len: u64) -> bool {
    let mut lines = bytes.split(|b| *b == b'\n');
    if lines.next() != Some(format!("ino {ino}").as_bytes()) {
        return false;
    }
    let last_end = bytes
        .strip_suffix(b"\n")
        .and_then(|b| b.rsplit(|c| *c == b'\n').next())
        .and_then(|l| l.split(|c| *c == b'\t').next())
        .and_then(|n| std::str::from_utf8(n).ok()?.parse::<u64>().ok());
    match last_end {
        Some(end) => end == len,
        // Only the inode line: an empty inbox.
        None => len == 0,
    }
}

/// Write the index of the whole inbox under `guard` anew; its bytes.
fn rebuild(guard: &WriteGuard, ino: u64) -> Option<Vec<u8>> {
    let mut out = format!("ino {ino}\n").into_bytes();
    // The keyed messages compaction archived come first (before any inbox
    // byte): their ids stay taken.
    if let Some(archive) = super::keyed_archive::reader(guard).ok()? {
        for_each_line_at(archive, 0, |line, _| {
            if let InboxLine::Line(l) = line
                && let Some(r @ Record::Message { .. }) = parse::<IgnoredAny>(l)
            {
                lines_for(&r, 0, &mut out);
            }
        })
        .ok()?;
    }
    let mut reader = guard.reader().ok()?;
    let mut body = Vec::new();
    let mut last: Option<(u64, usize)> = None;
    for_each_line_at(&mut reader, 0, |line, at| {
        if let InboxLine::Line(l) = line {
            let end = at + l.len() as u64 + 1;
            match parse::<IgnoredAny>(l) {
                Some(r) => lines_for(&r, end, &mut body),
                // Not a record: nothing to name, but the length moves on.
                None => {
                    let _ = writeln!(body, "{end}\t-\t");
                }
            }
            last = Some((end, body.len()));
        }
    })
    .ok()?;
    // Lines over the cap are skipped by the reader: their bytes still count.
    if last.map_or(0, |l| l.0) != guard.len {
        let _ = writeln!(body, "{}\t-\t", guard.len);
    }
    out.extend_from_slice(&body);
    guard.dir.replace(KEYS, &out, false).ok()?;
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inbox::lock::{INBOX, lock};
    use std::time::Duration;

    fn message(id: &str) -> String {
        format!(
            r#"{{"type":"message","id":"{id}","time":1,"target":"next-turn","source":{{"kind":"user"}},"content":[]}}"#
        )
    }

    #[test]
    fn the_index_says_absent_only_for_ids_no_record_names() {
        let dir = std::env::temp_dir().join(format!("keys-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let lines = [
            message("m-1"),
            r#"{"type":"interrupt","id":"i-1","time":2,"source":{"kind":"user"}}"#.into(),
            r#"{"type":"claim","time":3,"ids":["gone-1"]}"#.into(),
            "not a record".into(),
            r#"{"type":"wait","time":4,"call":"c","ids":[]}"#.into(),
        ];
        std::fs::write(dir.join(INBOX), lines.join("\n") + "\n").unwrap();
        let named = ["m-1", "i-1", "gone-1"];
        let check = |extra: &[&str]| {
            let guard = lock(&dir, Duration::from_secs(5)).unwrap();
            for id in named.iter().chain(extra) {
                assert!(!surely_absent(&guard, id), "{id} is named");
            }
            for id in ["m-2", "m", "-", "i-1x", "c"] {
                if !extra.contains(&id) {
                    assert!(surely_absent(&guard, id), "{id:?} is not named");
                }
            }
        };
        // Built from the inbox, then kept by appends.
        check(&[]);
        {
            let mut guard = lock(&dir, Duration::from_secs(5)).unwrap();
            let r: Record = serde_json::from_str(&message("m-2")).unwrap();
            append(&mut guard, &r).unwrap();
        }
        check(&["m-2"]);
        // A writer that does not keep the index: it no longer matches and is rebuilt.
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(dir.join(INBOX))
            .unwrap();
        writeln!(f, "{}", message("c")).unwrap();
        check(&["m-2", "c"]);
        // A replaced inbox (compaction) is another inode.
        let text = std::fs::read_to_string(dir.join(INBOX)).unwrap();
        std::fs::remove_file(dir.join(INBOX)).unwrap();
        std::fs::write(dir.join(INBOX), text + &message("m") + "\n").unwrap();
        check(&["m-2", "c", "m"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
