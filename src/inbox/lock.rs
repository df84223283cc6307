//! The inbox writer lock and the append discipline (contract §6): an
//! exclusive `flock` on `inbox.lock` with a bounded wait (the lock dies with
//! its process; it is never broken by age), a torn tail cut, one complete
//! record appended and `sync_data`'d, and on failure no partial record left.

use super::error::DeliveryError;
use super::record::Record;
use crate::support::fault::{armed, fault};
use dsh_store::StoreError;
use dsh_store::files::Dir;
use std::fs::{File, TryLockError};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub use dsh_store::files::INBOX;
use dsh_store::files::INBOX_LOCK;

/// Held while writing; dropping it unlocks.
pub struct WriteGuard {
    lock: File,
    pub(super) inbox: File,
    /// The session directory, opened without following links.
    pub(super) dir: Dir,
    path: PathBuf,
    /// The inbox's length: where the next record goes.
    pub len: u64,
}

impl Drop for WriteGuard {
    fn drop(&mut self) {
        // Unlock explicitly: a program started by another thread may share
        // the descriptor between its fork and exec, and closing our copy
        // alone would not release the lock until then.
        let _ = self.lock.unlock();
    }
}

/// Take the writer lock of the inbox in `dir` (bounded wait), open the
/// inbox and repair a torn tail.
pub fn lock(dir: &Path, timeout: Duration) -> Result<WriteGuard, DeliveryError> {
    let session = Dir::session(dir)?;
    let lock_path = dir.join(INBOX_LOCK);
    let lock = session.open_rw(INBOX_LOCK)?;
    let deadline = Instant::now() + timeout;
    // Lock holders keep the lock for one fsync'd append (a few ms), so poll
    // finely: a coarse backoff would add its own latency to every contended
    // send and every woken waiter.
    let mut pause = Duration::from_micros(100);
    loop {
        match lock.try_lock() {
            Ok(()) => break,
            Err(TryLockError::WouldBlock) => {
                let now = Instant::now();
                if now >= deadline {
                    return Err(DeliveryError::LockTimeout {
                        path: lock_path,
                        timeout,
                    });
                }
                std::thread::sleep(pause.min(deadline - now));
                pause = (pause * 2).min(Duration::from_millis(2));
            }
            Err(TryLockError::Error(e)) => return Err(StoreError::io(lock_path, e).into()),
        }
    }
    fault("after-lock");
    fault("hold-lock");
    let path = dir.join(INBOX);
    let inbox = session.open_rw(INBOX)?;
    let len = inbox
        .metadata()
        .map_err(|e| StoreError::io(&path, e))?
        .len();
    let len = repair_tail(&inbox, len).map_err(|e| StoreError::io(&path, e))?;
    Ok(WriteGuard {
        lock,
        inbox,
        dir: session,
        path,
        len,
    })
}

impl WriteGuard {
    /// The inbox from its start up to the length fixed under the lock.
    pub fn reader(&self) -> Result<impl std::io::BufRead, StoreError> {
        use std::io::{Read, Seek, SeekFrom};
        let mut f = self
            .inbox
            .try_clone()
            .map_err(|e| StoreError::io(&self.path, e))?;
        f.seek(SeekFrom::Start(0))
            .map_err(|e| StoreError::io(&self.path, e))?;
        Ok(std::io::BufReader::new(f).take(self.len))
    }

    /// Append one record; durable when this returns. The key index is not
    /// told: every writer appends through `key_index::append`, which is.
    pub(super) fn append_unindexed(&mut self, record: &Record) -> Result<(), StoreError> {
        let mut line =
            serde_json::to_vec(record).map_err(|e| StoreError::io(&self.path, e.into()))?;
        line.push(b'\n');
        if armed() {
            let half = line.len() / 2;
            let _ = self.inbox.write_all_at(&line[..half], self.len);
            fault("mid-record");
            let _ = self
                .inbox
                .write_all_at(&line[half..], self.len + half as u64);
            fault("before-sync");
        }
        let written = self
            .inbox
            .write_all_at(&line, self.len)
            .and_then(|()| self.inbox.sync_data());
        if let Err(e) = written {
            // Leave no partial record behind, as DSH does on a failed append.
            let _ = self.inbox.set_len(self.len);
            let _ = self.inbox.sync_data();
            return Err(StoreError::io(&self.path, e));
        }
        self.len += line.len() as u64;
        Ok(())
    }
}

/// Cut a final record without its newline; returns the new length. Reads
/// only the tail, never the whole file.
fn repair_tail(file: &File, len: u64) -> io::Result<u64> {
    if len == 0 {
        return Ok(0);
    }
    let mut last = [0u8; 1];
    file.read_exact_at(&mut last, len - 1)?;
    if last[0] == b'\n' {
        return Ok(len);
    }
    let mut end = len;
    let mut buf = vec![0u8; 64 * 1024];
    let keep = loop {
        let start = end.saturating_sub(buf.len() as u64);
        let chunk = &mut buf[..(end - start) as usize];
        file.read_exact_at(chunk, start)?;
        if let Some(p) = chunk.iter().rposition(|b| *b == b'\n') {
            break start + p as u64 + 1;
        }
        if start == 0 {
            break 0;
        }
        end = start;
    };
    file.set_len(keep)?;
    file.sync_data()?;
    Ok(keep)
}
