//! What a live view (`top`, `tree --watch`, `events --follow`, `watch`) is
//! told of the store: one inotify instance watching the store's root, each
//! project directory (where new sessions appear) and each session
//! directory the view shows (its log, inbox and liveness files). A hint
//! that something changed, never what: a view is always made from a read.
//! Where a directory cannot be watched (the kernel's watch limit, a system
//! without inotify) the watch says so, and `support::refresh` reads for
//! safety more often.

use crate::inbox::watch::DirWatch;
use std::collections::HashSet;
use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
use std::path::Path;
use std::time::Duration;

pub struct StoreWatch {
    watch: DirWatch,
    /// The watched directories' path hashes (8 bytes a directory, where
    /// the paths would take a hundred).
    seen: HashSet<u64>,
    /// Some directory of the last read could not be watched.
    missed: bool,
}

impl StoreWatch {
    pub fn new() -> StoreWatch {
        StoreWatch {
            watch: DirWatch::new(),
            seen: HashSet::new(),
            missed: false,
        }
    }

    /// Before a read: which directories it shows is found anew.
    pub fn begin(&mut self, root: &Path) {
        self.missed = false;
        self.cover(root);
        // New session directories appear in the project directories.
        if let Ok(entries) = std::fs::read_dir(root) {
            for e in entries.flatten() {
                if e.file_type().is_ok_and(|t| t.is_dir()) {
                    self.cover(&e.path());
                }
            }
        }
    }

    /// `begin`, and every session directory in the store's project
    /// directories (a view of the whole store: one listing of each).
    pub fn begin_all(&mut self, root: &Path) {
        self.begin(root);
        let projects = std::fs::read_dir(root).into_iter().flatten().flatten();
        for p in projects.filter(|e| e.file_type().is_ok_and(|t| t.is_dir())) {
            let sessions = std::fs::read_dir(p.path()).into_iter().flatten().flatten();
            for s in sessions.filter(|e| e.file_type().is_ok_and(|t| t.is_dir())) {
                self.cover(&s.path());
            }
        }
    }

    /// Watch `dir` too, unless it already is.
    pub fn cover(&mut self, dir: &Path) {
        let key = BuildHasherDefault::<DefaultHasher>::default().hash_one(dir);
        if self.seen.contains(&key) {
            return;
        }
        match self.watch.add(dir) {
            Some(_) => {
                self.seen.insert(key);
            }
            None => self.missed = true,
        }
    }

    /// Wait up to `timeout` for a change in a watched directory; whether
    /// one came (without inotify: sleeps, and says no).
    pub fn wait(&self, timeout: Duration) -> bool {
        self.watch.wait(timeout)
    }

    /// Whether every directory the last read showed is watched.
    pub fn complete(&self) -> bool {
        !self.missed
    }

    /// Whether something changed in a watched directory since the last
    /// call (never waits).
    pub fn changed(&self) -> bool {
        self.watch.wait(Duration::ZERO)
    }
}

impl Default for StoreWatch {
    fn default() -> Self {
        StoreWatch::new()
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
        let mut w = StoreWatch::new();
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
        // A directory that cannot be watched is said.
        w.cover(&root.join("missing"));
        assert!(!w.complete());
        std::fs::remove_dir_all(&root).unwrap();
    }
}
