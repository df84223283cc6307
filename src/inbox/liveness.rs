//! Liveness (contract §6): a resident process holds `live.lock` exclusively
//! for its lifetime and keeps `live.json` current. A non-blocking shared
//! lock attempt that would block means "live". The probe never creates or
//! writes a file.

use crate::support::clock::now_ms;
use dsh_store::StoreError;
use dsh_store::files::{Dir, read_small};
use rustix::io::Errno;
use rustix::process::{Pid, test_kill_process};
use serde::{Deserialize, Serialize};
use std::fs::{File, TryLockError};
use std::path::Path;

use dsh_store::set::Present;
pub use dsh_store::set::{LIVE_JSON, LIVE_LOCK, SESSION_LOCK};
/// Newer DSH (the Rust port's JSONL backend) holds this exclusively while a
/// session is resident; a holder of the agent takes it too, so neither can
/// write a log the other owns.
pub const WRITER_LOCK: &str = ".session-writer.lock";

/// What a resident process says it is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LiveState {
    Idle,
    Running,
}

/// The body of `live.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LiveInfo {
    pub pid: u32,
    pub state: LiveState,
    pub since: i64,
    pub turn: u64,
    /// For an agent a bridge holds: the DSH process it is resident in. A
    /// `live.json` left by a bridge that died (its lock released) still
    /// names it, and while that process lives the agent is resident there
    /// without a bridge: maybe live, never free.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dsh: Option<u32>,
}

/// The probe's answer for one session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Liveness {
    NotLive,
    Live {
        state: LiveState,
    },
    /// A lock file is there but cannot be probed (no permission to open
    /// it, say): maybe held. Never taken for "not live": it may be.
    Unknown,
}

impl Liveness {
    /// Live, or maybe live: nothing may take it as free.
    pub fn is_live(self) -> bool {
        matches!(self, Liveness::Live { .. } | Liveness::Unknown)
    }

    /// Live and mid-turn.
    pub fn is_working(self) -> bool {
        self == Liveness::Live {
            state: LiveState::Running,
        }
    }
}

fn read_info(dir: &Path) -> Option<LiveInfo> {
    serde_json::from_slice::<LiveInfo>(&read_small(&dir.join(LIVE_JSON))?).ok()
}

/// Whether a bridge holds the agent live now: its lock is held and
/// `live.json` names the DSH process (a `serve`'s does not).
pub fn held_by_bridge(dir: &Path) -> bool {
    probe(dir).is_live() && read_info(dir).is_some_and(|i| i.dsh.is_some())
}

/// Probe the session directory `dir`. Only a regular `live.lock` counts; a
/// link, FIFO or anything else is not a resident process.
pub fn probe(dir: &Path) -> Liveness {
    probe_listed(dir, None)
}

/// `probe`, skipping the files a listing of `dir` (`present`) saw absent.
/// Newer DSH (0.1.3 on) holds an exclusive `flock` on `session.lock` while
/// it writes a session; a holder of the agent takes it too, and a held one
/// means the session is owned and live to every view.
pub fn probe_listed(dir: &Path, present: Option<Present>) -> Liveness {
    let there = |name: &str| present.is_none_or(|p| p.has(name));
    let held = |name: &str| {
        if there(name) {
            held(dir, name)
        } else {
            Some(false)
        }
    };
    match held(LIVE_LOCK) {
        Some(true) => {
            // A holder that has not written live.json yet is between turns.
            let state = read_info(dir).map_or(LiveState::Idle, |i| i.state);
            return Liveness::Live { state };
        }
        None => return Liveness::Unknown,
        Some(false) => {
            if there(LIVE_JSON) && dsh_without_bridge(dir).is_some() {
                return Liveness::Unknown;
            }
        }
    }
    // Newer DSH says nothing of what it is doing: live, state unknown.
    match held(SESSION_LOCK) {
        Some(true) => Liveness::Live {
            state: LiveState::Idle,
        },
        None => Liveness::Unknown,
        Some(false) => Liveness::NotLive,
    }
}

/// Whether lock file `name` in `dir` is held by another process (a shared
/// lock attempt would block); `None` when it is there but cannot be
/// probed. Only a regular file counts: a link, FIFO or anything else is no
/// resident process.
fn held(dir: &Path, name: &str) -> Option<bool> {
    // Most sessions were never held: one `statx` says so, where opening the
    // directory safely and failing to open the lock in it takes three calls.
    let meta = match std::fs::symlink_metadata(dir.join(name)) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Some(false),
        Err(_) => return None,
        Ok(m) => m,
    };
    if !meta.file_type().is_file() {
        return Some(false);
    }
    let file = match Dir::session(dir).and_then(|d| d.open_read(name)) {
        Ok(Some(f)) => f,
        Ok(None) => return Some(false),
        Err(_) => return None,
    };
    match file.try_lock_shared() {
        Ok(()) => Some(false),
        Err(TryLockError::WouldBlock) => Some(true),
        Err(TryLockError::Error(_)) => None,
    }
}

/// `live.lock` held exclusively; dropping it removes `live.json` and unlocks.
pub struct LiveLock {
    file: File,
    writer: File,
    /// `session.lock`, newer DSH's own.
    owner: File,
    dir: Dir,
    /// The DSH process the agent is resident in (a bridge's hold).
    dsh: Option<u32>,
}

fn parent_pid() -> u32 {
    std::os::unix::process::parent_id()
}

/// How long a taker waits out liveness probes (each holds a shared lock
/// for an instant) before it calls a lock held.
const PROBES_FOR: std::time::Duration = std::time::Duration::from_secs(2);

/// `f`'s lock taken exclusively, waiting only on probes. A probe (`held`)
/// holds a shared lock for an instant, and an exclusive attempt in that
/// instant would block as if a process held the agent: a `serve` started
/// while `list-agents` looked was refused "already live". When an attempt
/// blocks but a shared lock of our own is granted, only probes hold it:
/// try again, for `PROBES_FOR` at most. A real holder holds it
/// exclusively, and our shared attempt blocks too: that is `WouldBlock`.
fn try_exclusive(f: &File) -> Result<(), TryLockError> {
    let deadline = std::time::Instant::now() + PROBES_FOR;
    loop {
        match f.try_lock() {
            Err(TryLockError::WouldBlock) if std::time::Instant::now() < deadline => {
                match f.try_lock_shared() {
                    Ok(()) => {
                        let _ = f.unlock();
                        std::thread::sleep(std::time::Duration::from_millis(1));
                    }
                    Err(e) => return Err(e),
                }
            }
            other => return other,
        }
    }
}

/// Take one of the writer locks newer DSH holds, without waiting on a
/// holder.
fn take_exclusive(session: &Dir, dir: &Path, id: &str, name: &str) -> Result<File, StoreError> {
    let f = session.open_rw(name)?;
    match try_exclusive(&f) {
        Ok(()) => Ok(f),
        Err(TryLockError::WouldBlock) => Err(StoreError::WriterLocked {
            id: id.to_string(),
            path: dir.join(name),
        }),
        Err(TryLockError::Error(e)) => Err(StoreError::io(dir.join(name), e)),
    }
}

/// Whether process `pid` exists (one we may not signal exists too).
fn alive(pid: u32) -> bool {
    match signal_zero(pid) {
        Some(r) => r.is_ok() || r == Err(Errno::PERM),
        None => false,
    }
}

/// Signal 0 to `pid`: whether it exists, without touching it. `None` for a
/// number that names no single process (0, or beyond `i32`: as a signal
/// target those mean a process group).
fn signal_zero(pid: u32) -> Option<Result<(), Errno>> {
    let pid = Pid::from_raw(i32::try_from(pid).ok()?)?;
    Some(test_kill_process(pid))
}

/// The DSH process an agent is resident in while no bridge holds it: its
/// `live.lock` is free but a `live.json` a bridge wrote (and did not take
/// away: the bridge died) names a DSH process that still runs. Call only
/// once the lock is known to be free.
pub fn dsh_without_bridge(dir: &Path) -> Option<u32> {
    if std::fs::symlink_metadata(dir.join(LIVE_JSON)).is_err() {
        return None;
    }
    read_info(dir).and_then(|i| i.dsh).filter(|pid| alive(*pid))
}

/// Whether `live.json` names a process that no longer exists.
fn holder_is_dead(dir: &Path) -> bool {
    read_info(dir)
        .and_then(|i| signal_zero(i.pid))
        .is_some_and(|r| r == Err(Errno::SRCH))
}

impl LiveLock {
    /// Take the lock, failing (naming the holder's pid when known) when
    /// another process holds it. A holder that was just killed may still be
    /// tearing down (its descriptors close after the kill returns), so a
    /// lock whose recorded holder is dead is tried again for a moment.
    pub fn take(dir: &Path, id: &str) -> Result<LiveLock, StoreError> {
        LiveLock::take_inner(dir, id, false)
    }

    /// `take` for a bridge: an agent its own DSH process (our parent) holds
    /// without a bridge is taken back, and `live.json` names that process.
    pub fn take_as_bridge(dir: &Path, id: &str) -> Result<LiveLock, StoreError> {
        let mut lock = LiveLock::take_inner(dir, id, true)?;
        lock.dsh = Some(parent_pid());
        Ok(lock)
    }

    fn take_inner(dir: &Path, id: &str, bridge: bool) -> Result<LiveLock, StoreError> {
        let path = dir.join(LIVE_LOCK);
        let session = Dir::session(dir)?;
        let file = session.open_rw(LIVE_LOCK)?;
        let mut tries = 0;
        loop {
            match try_exclusive(&file) {
                Ok(()) => {
                    // An agent resident in a DSH process whose bridge died
                    // is that process's: only a bridge of its own (a child
                    // of it) may take it over.
                    if let Some(dsh) = dsh_without_bridge(dir)
                        && !(bridge && dsh == parent_pid())
                    {
                        let _ = file.unlock();
                        return Err(StoreError::AlreadyLive {
                            id: id.to_string(),
                            holder: Some(dsh),
                            path: dir.join(LIVE_JSON),
                        });
                    }
                    let taken = take_exclusive(&session, dir, id, WRITER_LOCK).and_then(|writer| {
                        take_exclusive(&session, dir, id, SESSION_LOCK)
                            .inspect_err(|_| {
                                let _ = writer.unlock();
                            })
                            .map(|owner| (writer, owner))
                    });
                    return match taken {
                        Ok((writer, owner)) => {
                            // What a holder killed mid-replace left: only
                            // the holder writes live.json.
                            session.remove_leftovers(&[LIVE_JSON]);
                            Ok(LiveLock {
                                file,
                                writer,
                                owner,
                                dir: session,
                                dsh: None,
                            })
                        }
                        Err(e) => {
                            let _ = file.unlock();
                            Err(e)
                        }
                    };
                }
                Err(TryLockError::WouldBlock) if tries < 100 && holder_is_dead(dir) => {
                    tries += 1;
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
                Err(TryLockError::WouldBlock) => {
                    return Err(StoreError::AlreadyLive {
                        id: id.to_string(),
                        holder: read_info(dir).map(|i| i.pid),
                        path,
                    });
                }
                Err(TryLockError::Error(e)) => return Err(StoreError::io(path, e)),
            }
        }
    }

    /// Replace `live.json` atomically.
    pub fn publish(&self, state: LiveState, turn: u64) -> Result<(), StoreError> {
        let info = LiveInfo {
            pid: std::process::id(),
            state,
            since: now_ms(),
            turn,
            dsh: self.dsh,
        };
        self.dir.replace(
            LIVE_JSON,
            &serde_json::to_vec(&info).unwrap_or_default(),
            false,
        )
    }
}

impl Drop for LiveLock {
    fn drop(&mut self) {
        self.dir.remove(LIVE_JSON);
        // Unlock explicitly rather than by closing: a handler being forked
        // at this moment shares the descriptor until its exec.
        let _ = self.owner.unlock();
        let _ = self.writer.unlock();
        let _ = self.file.unlock();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lock_that_cannot_be_probed_is_unknown_never_free() {
        let dir = std::env::temp_dir().join(format!("probe-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        assert_eq!(probe(&dir), Liveness::NotLive);
        let lock = dir.join(LIVE_LOCK);
        std::fs::write(&lock, "").unwrap();
        assert_eq!(probe(&dir), Liveness::NotLive);
        let held = std::fs::File::open(&lock).unwrap();
        held.lock().unwrap();
        assert!(probe(&dir).is_live());
        drop(held);
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&lock, std::fs::Permissions::from_mode(0o000)).unwrap();
        // Root opens it anyway; everyone else cannot probe it.
        if std::fs::File::open(&lock).is_err() {
            assert_eq!(probe(&dir), Liveness::Unknown);
            assert!(probe(&dir).is_live());
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A probe's shared lock in the instant an agent is taken does not
    /// make the agent "already live"; a real holder still does.
    #[test]
    fn a_probe_in_the_way_is_waited_out_and_a_holder_is_not() {
        let dir = std::env::temp_dir().join(format!("take-probe-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let lock = dir.join(LIVE_LOCK);
        std::fs::write(&lock, "").unwrap();
        // A probe holding its shared lock (longer than a real one does).
        let probe = std::fs::File::open(&lock).unwrap();
        probe.lock_shared().unwrap();
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let released = std::thread::spawn(move || {
            // Released once the taker has surely met it.
            std::thread::sleep(std::time::Duration::from_millis(30));
            drop(probe);
            let _ = tx.send(());
        });
        let taken = LiveLock::take(&dir, "probed");
        released.join().unwrap();
        rx.recv().unwrap();
        let taken = taken.unwrap_or_else(|e| panic!("refused while only a probe held it: {e}"));
        // Held now: a second taker is refused at once, probe or not.
        assert!(matches!(
            LiveLock::take(&dir, "probed"),
            Err(StoreError::AlreadyLive { .. })
        ));
        drop(taken);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
