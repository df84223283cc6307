//! Sibling names stay unique when spawns race: a named spawn takes its
//! parent's inbox lock, checks the names its siblings were given by earlier
//! spawns (`spawn.names` in the parent's directory: `name`, project, id per
//! line, appended under that lock) besides the store it scanned, creates the
//! child and records its name before letting go. A recorded name counts only
//! while its session still exists.
//!
//! Session ids stay unique across the store's projects the same way: a
//! spawn of a chosen id holds an exclusive lock on the store's root
//! directory itself (nothing is written for it), looks for the id in every
//! project on disk, and makes the session before letting go, so two spawns
//! of one id into two projects never leave a store DSH refuses whole.

use crate::inbox::{DeliveryError, Inbox};
use dsh_store::StoreError;
use dsh_store::files::encode_segment;
use dsh_store::files::{Dir, read_capped};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub const SPAWN_NAMES: &str = "spawn.names";

/// How long a spawn waits for its parent's lock.
const WAIT: Duration = Duration::from_secs(10);

/// The parent's lock, held while a named child is made.
pub struct NameReservation {
    _guard: crate::inbox::lock::WriteGuard,
    parent_dir: PathBuf,
    name: String,
}

impl NameReservation {
    /// Lock `parent_dir` and check `name` against the recorded siblings
    /// (`Ok(None)`: taken by a sibling that still exists).
    pub fn take(
        store_root: &Path,
        parent_dir: &Path,
        name: &str,
    ) -> Result<Option<NameReservation>, DeliveryError> {
        let guard = Inbox::new(parent_dir).lock(WAIT)?;
        let recorded = read_capped(&parent_dir.join(SPAWN_NAMES), 64 << 20).unwrap_or_default();
        let taken = String::from_utf8_lossy(&recorded).lines().any(|line| {
            let mut f = line.split('\t');
            let (Some(n), Some(project), Some(id)) = (f.next(), f.next(), f.next()) else {
                return false;
            };
            n == name
                && encode_segment(id).is_some_and(|seg| {
                    std::fs::symlink_metadata(store_root.join(project).join(seg)).is_ok()
                })
        });
        Ok((!taken).then(|| NameReservation {
            _guard: guard,
            parent_dir: parent_dir.to_path_buf(),
            name: name.to_string(),
        }))
    }

    /// Record that child `id` (in `project`) took the name; then unlock.
    pub fn record(self, project: &str, id: &str) -> Result<(), StoreError> {
        let dir = Dir::session(&self.parent_dir)?;
        let mut f = dir.open_rw(SPAWN_NAMES)?;
        use std::io::Seek;
        f.seek(std::io::SeekFrom::End(0))
            .and_then(|_| writeln!(f, "{}\t{project}\t{id}", self.name))
            .and_then(|()| f.sync_data())
            .map_err(|e| StoreError::io(self.parent_dir.join(SPAWN_NAMES), e))
    }
}

/// The store root's directory, locked while a spawn of a chosen id checks
/// that no project holds it and makes it.
pub struct IdReservation {
    _root: std::fs::File,
}

impl IdReservation {
    /// Lock `root` and look for `segment` (the id's directory name) in each
    /// of its projects (`Ok(None)`: a project holds it).
    pub fn take(root: &Path, segment: &str) -> Result<Option<IdReservation>, DeliveryError> {
        let dir = std::fs::File::open(root).map_err(|e| StoreError::io(root, e))?;
        let deadline = std::time::Instant::now() + WAIT;
        loop {
            match dir.try_lock() {
                Ok(()) => break,
                Err(std::fs::TryLockError::WouldBlock) if std::time::Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(1));
                }
                Err(std::fs::TryLockError::WouldBlock) => {
                    return Err(DeliveryError::LockTimeout {
                        path: root.to_path_buf(),
                        timeout: WAIT,
                    });
                }
                Err(std::fs::TryLockError::Error(e)) => return Err(StoreError::io(root, e).into()),
            }
        }
        let projects = std::fs::read_dir(root).map_err(|e| StoreError::io(root, e))?;
        let held = projects
            .flatten()
            .any(|p| std::fs::symlink_metadata(p.path().join(segment)).is_ok());
        Ok((!held).then_some(IdReservation { _root: dir }))
    }
}
