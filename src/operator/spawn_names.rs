//! Sibling names stay unique when spawns race: a named spawn takes its
//! parent's inbox lock, checks the names its siblings were given by earlier
//! spawns (`spawn.names` in the parent's directory: `name`, project, id per
//! line, appended under that lock) besides the store it scanned, creates the
//! child and records its name before letting go. A recorded name counts only
//! while its session still exists.

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
