//! `scan.cache`: where a log scan may resume. Inspections resume from each
//! session directory's cache when it still describes the log, so a send
//! reads only what a log gained since the last one. A cache that does not
//! fit is ignored and the log is read from the start: it never decides.

use crate::error::LogError;
use crate::files::sidecar::{Dir, read_small};
use crate::log::reader::{Inspection, Resume, inspect_from};
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The scan cache's file name in the session directory.
pub const SCAN_CACHE: &str = "scan.cache";

/// Inspections that resume from each session directory's scan cache when
/// it still describes the log, so a send reads only what a log gained since
/// the last one. Refreshed caches are written by `commit`, which a command
/// calls only once it has succeeded: a rejected command writes nothing.
#[derive(Default)]
pub struct ScanCache {
    pending: RefCell<Vec<(PathBuf, Resume)>>,
    /// One command asks about the same session more than once (a caller's
    /// and a target's ancestries overlap): read each log once.
    seen: RefCell<HashMap<PathBuf, Result<Inspection, LogError>>>,
}

impl ScanCache {
    pub fn inspect(&self, path: &Path, session_dir: &Path) -> Result<Inspection, LogError> {
        if let Some(done) = self.seen.borrow().get(path) {
            return done.clone();
        }
        let result = self.inspect_once(path, session_dir);
        self.seen
            .borrow_mut()
            .insert(path.to_path_buf(), result.clone());
        result
    }

    fn inspect_once(&self, path: &Path, session_dir: &Path) -> Result<Inspection, LogError> {
        let cache = session_dir.join(SCAN_CACHE);
        let raw = read_small(&cache);
        let resume = raw
            .as_ref()
            .and_then(|b| serde_json::from_slice::<Resume>(b).ok());
        let (inspection, next) = match inspect_from(path, resume) {
            Ok(r) => r,
            // A stale or lying cache must never decide: read from the start.
            Err(_) => inspect_from(path, None)?,
        };
        // A cache that says what it already said is not written again: a
        // send down a deep chain would otherwise rename one file a level.
        if let Some(next) = next
            && raw.as_deref() != serde_json::to_vec(&next).ok().as_deref()
        {
            self.pending
                .borrow_mut()
                .push((session_dir.to_path_buf(), next));
        }
        Ok(inspection)
    }

    /// Write the refreshed caches (best effort: they are only caches).
    pub fn commit(self) {
        for (dir, next) in self.pending.into_inner() {
            let bytes = serde_json::to_vec(&next).unwrap_or_default();
            if let Ok(d) = Dir::session(&dir) {
                let _ = d.replace(SCAN_CACHE, &bytes, false);
            }
        }
    }
}
