//! Locating sessions by path instead of scanning the store: DSH derives a
//! session's directory from its id (`<project>/<encodeSegment(id)>/`), so a
//! command that addresses sessions by exact id reads only those headers and
//! the ones on their `parentSession` ancestry, as rc.8's own send does
//! (`persistence.inspect(childId)`). Every located directory goes through
//! the same per-session rules as the full scan; store-wide faults elsewhere
//! (a flat file, a duplicate of an unrelated id) are `check`'s and the
//! listings' to report.

use crate::error::StoreError;
use crate::files::paths::encode_segment;
use crate::set::enumerate::{DirProbe, LogsOf, Store, probe_session_dir};
use std::collections::HashSet;
use std::path::Path;

/// How far up from the sessions it names a command's rules look.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ancestry {
    /// Only the sessions themselves (an operator's `followup`, a v1 send).
    None,
    /// The sessions and their parents (`subagent_parent_message`).
    Parents,
    /// Every ancestor up to the root (v2 names and membership, interrupt
    /// authority, cycle checks).
    Whole,
}

impl Store {
    /// The store as far as `ids` and as much of each ancestry as `up` says
    /// (a command whose rules never look above its sessions, or above
    /// their parents, does not pay for a deep chain), each located log read
    /// whole as it is probed when `ahead` is given (the command will
    /// inspect them under its dialect): `None` when one of `ids` is not an
    /// exact session id found by its path, so the caller scans instead (a
    /// prefix, a name, an opaque caller all need the scan to answer as it
    /// would). Fails as a whole opening does on a problem with a located
    /// session. Only the door (`door::open`) calls it.
    pub fn locate_reading(
        root: &Path,
        ids: &[&str],
        up: Ancestry,
        ahead: Option<&crate::set::ahead::Located>,
    ) -> Result<Option<Store>, StoreError> {
        let mut store = Store::at(root)?;
        let projects = store.project_dirs()?;
        let mut store = store.has_projects()?;
        store.located_ahead = ahead.map(|a| a.0);
        store.add_located(&projects, ids, up);
        store.located_in = projects;
        let store = store.fail_on_fatal()?;
        if ids.iter().any(|id| store.get(id).is_none()) {
            return Ok(None);
        }
        Ok(Some(store))
    }

    /// This located store and `also`, each read when it is there (with its
    /// ancestry), absent otherwise, as a scan would leave them:
    /// the sessions already here are not read again.
    pub fn locate_more(mut self, also: &[&str]) -> Result<Store, StoreError> {
        let projects = std::mem::take(&mut self.located_in);
        let projects = if projects.is_empty() {
            Store::at(&self.root)?.project_dirs()?
        } else {
            projects
        };
        self.add_located(&projects, also, Ancestry::Whole);
        self.located_in = projects;
        self.fail_on_fatal()
    }

    /// Read `ids` and their ancestries by path, each through the scan's
    /// per-session rules; sessions already held end the walk up.
    fn add_located(&mut self, projects: &[std::path::PathBuf], ids: &[&str], up: Ancestry) {
        let mut tried: HashSet<String> = HashSet::new();
        let levels = match up {
            Ancestry::None => 0,
            Ancestry::Parents => 1,
            Ancestry::Whole => usize::MAX,
        };
        let mut work: Vec<(String, usize)> = ids.iter().map(|s| (s.to_string(), levels)).collect();
        while let Some((id, left)) = work.pop() {
            if self.get(&id).is_some() || !tried.insert(id.clone()) {
                continue;
            }
            let Some(segment) = encode_segment(&id) else {
                continue;
            };
            for project in projects {
                let dir = project.join(&segment);
                // A symbolic link in a project directory is not a session,
                // exactly as the scan classifies entries.
                if !std::fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir()) {
                    continue;
                }
                let ahead = self.located_ahead.map(crate::set::ahead::Located);
                match probe_session_dir(
                    &self.root,
                    LogsOf {
                        project: None,
                        dir: &dir,
                    },
                    ahead
                        .as_ref()
                        .map(|a| a as &dyn crate::set::ahead::ReadAhead),
                ) {
                    DirProbe::Empty => {}
                    probe => self.apply_probe(&dir, probe),
                }
            }
            if left == 0 {
                continue;
            }
            if let Some(parent) = self
                .index_of(&id)
                .and_then(|i| self.sessions.parent(i))
                .map(str::to_string)
            {
                work.push((parent, left - 1));
            }
        }
    }
}
