//! What a live view (`top`, `tree --watch`, `events --follow`, `watch`, the
//! fleet daemon's rows) is told of the store: one inotify instance
//! watching the store's root, each project directory (where new sessions
//! appear) and each session directory the view shows — its log, inbox and
//! liveness files written, replaced or created, and a file opened for
//! writing closed, which is how a holder that dies (even SIGKILLed) shows:
//! the kernel closes its lock. The fleet's own directory (`.fleet`) is left
//! out, for the daemon writes its heartbeats there every few seconds; a
//! view that shows other hosts' rows (`top`) is told only of their files.
//!
//! A hint that something changed, never what was written: a view is
//! always made from a read. A view that holds its rows (`top`) tags each
//! session directory it covers with the session's position, and is told
//! which tagged sessions changed, so it reads those rows again and not the
//! store; a change anywhere else (a new session, a project, the store's
//! root, a lost event queue) is told as such. Where a directory cannot be
//! watched (the kernel's watch limit, a system without inotify) the watch
//! says so, and `support::refresh` reads for safety more often.

use dsh_store::SessionPos;
use dsh_store::files::FLEET_DIR;
use rustix::event::{PollFd, PollFlags, Timespec};
use std::collections::HashMap;
use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
use std::os::fd::OwnedFd;
use std::path::Path;
use std::time::Duration;

pub struct StoreWatch {
    fd: Option<OwnedFd>,
    /// The watched directories' path hashes (8 bytes a directory, where
    /// the paths would take a hundred), with their watches.
    seen: HashMap<u64, i32>,
    /// The session each tagged watch is of (`cover_session`), since the
    /// last read began.
    tags: HashMap<i32, SessionPos>,
    /// Some directory of the last read could not be watched.
    missed: bool,
    /// Whether the other hosts' rows files count (`top`).
    fleet_rows: bool,
    /// The watch on `.fleet`, when they do.
    fleet_wd: Option<i32>,
}

impl StoreWatch {
    /// A watch for a view of this store alone.
    pub fn new() -> StoreWatch {
        StoreWatch::with_fleet_rows(false)
    }

    /// A watch that is also told when another host's rows file changes.
    pub fn with_fleet_rows(fleet_rows: bool) -> StoreWatch {
        StoreWatch {
            fd: sys::instance(),
            seen: HashMap::new(),
            tags: HashMap::new(),
            missed: false,
            fleet_rows,
            fleet_wd: None,
        }
    }

    /// Before a read: which directories it shows is found anew.
    pub fn begin(&mut self, root: &Path) {
        self.missed = self.fd.is_none();
        self.tags.clear();
        self.cover(root);
        for dir in subdirectories(root) {
            if dir.file_name().is_some_and(|n| n == FLEET_DIR) {
                if self.fleet_rows && self.fleet_wd.is_none() {
                    self.fleet_wd = self.fd.as_ref().and_then(|fd| sys::add(fd, &dir, true));
                }
                continue;
            }
            // New session directories appear in the project directories.
            self.cover(&dir);
        }
    }

    /// `begin`, and every session directory in the store's project
    /// directories (a view of the whole store: one listing of each).
    pub fn begin_all(&mut self, root: &Path) {
        self.begin(root);
        for project in subdirectories(root) {
            if project.file_name().is_some_and(|n| n == FLEET_DIR) {
                continue;
            }
            for session in subdirectories(&project) {
                self.cover(&session);
            }
        }
    }

    /// Watch `dir` too, unless it already is.
    pub fn cover(&mut self, dir: &Path) {
        self.watch(dir);
    }

    /// Watch the session directory `dir` of the session at `pos` (in the
    /// store the read opened), and tell its changes as that session's.
    pub fn cover_session(&mut self, dir: &Path, pos: SessionPos) {
        if let Some(wd) = self.watch(dir) {
            self.tags.insert(wd, pos);
        }
    }

    fn watch(&mut self, dir: &Path) -> Option<i32> {
        let key = BuildHasherDefault::<DefaultHasher>::default().hash_one(dir);
        if let Some(wd) = self.seen.get(&key) {
            return Some(*wd);
        }
        match self.fd.as_ref().and_then(|fd| sys::add(fd, dir, false)) {
            Some(wd) => {
                self.seen.insert(key, wd);
                Some(wd)
            }
            None => {
                self.missed = true;
                None
            }
        }
    }

    /// Wait up to `timeout` for a change in a watched directory; whether
    /// one came (without inotify: sleeps, and says no).
    pub fn wait(&self, timeout: Duration) -> bool {
        self.wait_changes(timeout).any()
    }

    /// Whether an event on watch `wd` (a file `name` in it) is a change.
    fn counts(&self, wd: Option<i32>, name: Option<&[u8]>) -> bool {
        wd != self.fleet_wd
            || name.is_some_and(|n| n.starts_with(b"rows-") && n.ends_with(b".json"))
    }

    /// What changed since the last call (never waits): the tagged
    /// sessions told of, and whether anything else was.
    pub fn changes(&self) -> Changes {
        self.wait_changes(Duration::ZERO)
    }

    /// `changes`, waiting up to `timeout` for one (without inotify:
    /// sleeps, and tells nothing).
    pub fn wait_changes(&self, timeout: Duration) -> Changes {
        let mut changes = Changes::default();
        let Some(fd) = &self.fd else {
            std::thread::sleep(timeout);
            return changes;
        };
        let limit = Timespec::try_from(timeout).ok();
        let mut fds = [PollFd::new(fd, PollFlags::IN)];
        if !rustix::event::poll(&mut fds, limit.as_ref()).is_ok_and(|n| n > 0) {
            return changes;
        }
        sys::drain(fd, |wd, name| {
            // A lost queue (no watch named) is a change of anything.
            if wd.is_some() && !self.counts(wd, name) {
                return false;
            }
            match wd.and_then(|wd| self.tags.get(&wd)) {
                Some(pos) if !changes.sessions.contains(pos) => changes.sessions.push(*pos),
                Some(_) => {}
                None => changes.other = true,
            }
            true
        });
        changes
    }

    /// Whether every directory the last read showed is watched.
    pub fn complete(&self) -> bool {
        !self.missed
    }

    /// Whether something changed in a watched directory since the last
    /// call (never waits).
    #[cfg(test)]
    pub fn changed(&self) -> bool {
        self.wait(Duration::ZERO)
    }
}

/// What a watch was told (`StoreWatch::changes`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changes {
    /// The tagged sessions whose directories changed.
    pub sessions: Vec<SessionPos>,
    /// Something else changed: a directory not tagged, or the queue lost.
    pub other: bool,
}

impl Changes {
    pub fn any(&self) -> bool {
        self.other || !self.sessions.is_empty()
    }

    /// `more` told after these.
    pub fn add(&mut self, more: Changes) {
        self.other |= more.other;
        for pos in more.sessions {
            if !self.sessions.contains(&pos) {
                self.sessions.push(pos);
            }
        }
    }
}

impl Default for StoreWatch {
    fn default() -> Self {
        StoreWatch::new()
    }
}

impl Drop for StoreWatch {
    fn drop(&mut self) {
        // Closing an inotify instance waits for a kernel grace period;
        // leave it to the process's exit (as `inbox::watch` does).
        if let Some(fd) = self.fd.take() {
            std::mem::forget(fd);
        }
    }
}

/// The directories directly in `dir`.
fn subdirectories(dir: &Path) -> impl Iterator<Item = std::path::PathBuf> {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
}

#[cfg(target_os = "linux")]
mod sys {
    use rustix::fs::inotify::{self, CreateFlags, ReadFlags, WatchFlags};
    use std::os::fd::OwnedFd;
    use std::path::Path;

    pub fn instance() -> Option<OwnedFd> {
        inotify::init(CreateFlags::NONBLOCK | CreateFlags::CLOEXEC).ok()
    }

    /// Watch `dir`: for a session directory, writes, replaces, creations,
    /// removals and a written file's close; for the fleet's own directory
    /// (`renames`), only the files renamed into it.
    pub fn add(fd: &OwnedFd, dir: &Path, renames: bool) -> Option<i32> {
        let mask = if renames {
            WatchFlags::MOVED_TO | WatchFlags::ONLYDIR
        } else {
            WatchFlags::MODIFY
                | WatchFlags::MOVED_TO
                | WatchFlags::CREATE
                | WatchFlags::DELETE
                | WatchFlags::CLOSE_WRITE
                | WatchFlags::ONLYDIR
        };
        inotify::add_watch(fd, dir, mask).ok()
    }

    /// Read every pending event; whether one `counts` (by its watch and
    /// file name). A lost queue (overflow) counts.
    pub fn drain(fd: &OwnedFd, mut counts: impl FnMut(Option<i32>, Option<&[u8]>) -> bool) -> bool {
        let mut buf = [std::mem::MaybeUninit::<u8>::uninit(); 8192];
        let mut reader = inotify::Reader::new(fd, &mut buf);
        let mut any = false;
        while let Ok(event) = reader.next() {
            let name = event.file_name().map(|n| n.to_bytes());
            any |= if event.events().contains(ReadFlags::QUEUE_OVERFLOW) {
                // A lost queue is a change no watch can name.
                counts(None, None);
                true
            } else {
                counts(Some(event.wd()), name)
            };
        }
        any
    }
}

#[cfg(not(target_os = "linux"))]
mod sys {
    use std::os::fd::OwnedFd;
    use std::path::Path;

    pub fn instance() -> Option<OwnedFd> {
        None
    }

    pub fn add(_fd: &OwnedFd, _dir: &Path, _renames: bool) -> Option<i32> {
        None
    }

    pub fn drain(_fd: &OwnedFd, _counts: impl FnMut(Option<i32>, Option<&[u8]>) -> bool) -> bool {
        false
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn a_write_in_a_covered_session_directory_is_told_once() {
        let root =
            std::env::temp_dir().join(format!("dsh-agents-store-watch-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let session = root.join("_no-cwd").join("s1");
        std::fs::create_dir_all(&session).unwrap();
        std::fs::create_dir_all(root.join(FLEET_DIR)).unwrap();
        let mut w = StoreWatch::with_fleet_rows(true);
        w.begin(&root);
        w.cover(&session);
        assert!(w.complete());
        assert!(!w.changed(), "nothing happened yet");
        std::fs::write(session.join("inbox.jsonl"), b"x\n").unwrap();
        assert!(w.changed(), "a write in a session directory");
        assert!(!w.changed(), "told once");
        // A new session in a project directory.
        std::fs::create_dir(root.join("_no-cwd").join("s2")).unwrap();
        assert!(w.changed(), "a new session directory");
        // A holder's lock, opened for writing, closed (as a killed one is).
        let lock = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(session.join("live.lock"))
            .unwrap();
        assert!(w.changed(), "the lock created");
        drop(lock);
        assert!(w.changed(), "the lock closed");
        // The fleet's files: a heartbeat is not a change, another host's
        // rows are (renamed into place, as the daemon writes them).
        let fleet = root.join(FLEET_DIR);
        std::fs::write(fleet.join("hosts.tmp"), b"{}").unwrap();
        std::fs::rename(fleet.join("hosts.tmp"), fleet.join("hosts")).unwrap();
        assert!(!w.changed(), "a heartbeat");
        std::fs::write(fleet.join("rows-b.tmp"), b"[]").unwrap();
        std::fs::rename(fleet.join("rows-b.tmp"), fleet.join("rows-b.json")).unwrap();
        assert!(w.changed(), "another host's rows");
        // Without rows the fleet's directory is not watched at all.
        let mut plain = StoreWatch::new();
        plain.begin(&root);
        std::fs::rename(fleet.join("rows-b.json"), fleet.join("rows-c.json")).unwrap();
        assert!(!plain.changed(), "a view of this store alone");
        // A tagged session's change is told as that session's.
        let mut tagged = StoreWatch::new();
        tagged.begin(&root);
        tagged.cover_session(&session, SessionPos::new(7));
        std::fs::write(session.join("inbox.jsonl"), b"y\n").unwrap();
        let told = tagged.changes();
        assert_eq!(
            (told.sessions, told.other),
            (vec![SessionPos::new(7)], false)
        );
        // A lost event queue names no watch: it is a change of anything.
        let limit = std::fs::read_to_string("/proc/sys/fs/inotify/max_queued_events")
            .ok()
            .and_then(|t| t.trim().parse::<usize>().ok())
            .unwrap_or(16_384);
        for k in 0..limit {
            std::fs::write(session.join(format!("f{}", k % 64)), b"z").unwrap();
        }
        let told = tagged.changes();
        assert!(told.other, "an overflowed queue: {told:?}");
        // A directory that cannot be watched is said.
        w.cover(&root.join("missing"));
        assert!(!w.complete());
        std::fs::remove_dir_all(&root).unwrap();
    }
}
