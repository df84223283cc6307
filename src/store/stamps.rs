//! Whether the set of sessions in a store may have changed since a scan,
//! told without reading a header: a session appearing or vanishing changes
//! its project directory's mtime (a project appearing, the root's), and a
//! session directory whose log was not published yet is looked at again.
//! Stamps are trusted only when every mtime was already a second old when
//! they were taken, so a change within the same clock tick cannot hide.
//! Each directory's ctime is kept beside its mtime: `cp -a` and `rsync -a`
//! set a directory's mtime back to the source's after filling it, but
//! nothing sets a ctime, so a restored session still shows.

use super::enumerate::Store;
use serde::{Deserialize, Serialize};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// A directory changed less than this long before the stamps were taken
/// may change again within the same mtime tick.
const SETTLE_NS: i128 = 1_000_000_000;

/// A directory's (mtime, ctime) in nanoseconds, and its link count (on
/// most file systems 2 + its subdirectories: a session directory added in
/// the same clock tick still shows).
fn mtime_ns(path: &Path) -> Option<Times> {
    let m = std::fs::symlink_metadata(path).ok()?;
    Some((
        i128::from(m.mtime()) * 1_000_000_000 + i128::from(m.mtime_nsec()),
        i128::from(m.ctime()) * 1_000_000_000 + i128::from(m.ctime_nsec()),
        m.nlink(),
    ))
}

/// What a stamp records of one directory.
pub type Times = (i128, i128, u64);

/// The stamp of directory `path` now.
pub fn dir_times(path: &Path) -> Option<Times> {
    mtime_ns(path)
}

fn now_ns() -> i128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128)
}

/// What a session directory without a published log held.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unpublished {
    dir: PathBuf,
    /// The log's length, when there is one.
    log: Option<u64>,
}

impl Unpublished {
    fn now(dir: &Path) -> Unpublished {
        let log = super::generation::current_log(dir)
            .and_then(|p| std::fs::symlink_metadata(p).ok())
            .map(|m| m.len());
        Unpublished {
            dir: dir.to_path_buf(),
            log,
        }
    }
}

/// The root's and every project's mtime, and the unpublished sessions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stamps {
    root: PathBuf,
    root_mtime: Times,
    /// Every project directory and its mtime, in name order.
    projects: Vec<(PathBuf, Times)>,
    unpublished: Vec<Unpublished>,
}

impl Stamps {
    /// The directory mtimes of the store at `root` now, to be taken before
    /// the scan they will describe (a change during it then shows later).
    pub fn before_scan(root: &Path) -> Option<Stamps> {
        let mut probe = Store::at(root).ok()?;
        let projects = probe.project_dirs().ok()?;
        Some(Stamps {
            root_mtime: mtime_ns(&probe.root)?,
            projects: projects
                .into_iter()
                .map(|p| {
                    let m = mtime_ns(&p)?;
                    Some((p, m))
                })
                .collect::<Option<_>>()?,
            root: probe.root,
            unpublished: Vec::new(),
        })
    }

    /// These stamps completed by the scan taken after them; `None` when a
    /// directory had changed too recently for them to be trusted.
    pub fn after_scan(mut self, store: &Store) -> Option<Stamps> {
        self.unpublished = store
            .unpublished
            .iter()
            .map(|d| Unpublished::now(d))
            .collect();
        let now = now_ns();
        std::iter::once(self.root_mtime)
            .chain(self.projects.iter().map(|p| p.1))
            .all(|m| now - m.0 >= SETTLE_NS)
            .then_some(self)
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Whether a scan now would find the sessions the scan these stamps
    /// describe found.
    pub fn unchanged(&self) -> bool {
        self.changed()
            .is_some_and(|(_, changed)| changed.is_empty())
    }

    /// Stamps taken now, and the projects (by position) whose sessions may
    /// differ from what these stamps describe; `None` when the set of
    /// projects itself may have changed.
    pub fn changed(&self) -> Option<(Stamps, Vec<usize>)> {
        // A root whose times stand as stamped holds the same entries (an
        // entry added, removed or renamed moves its mtime, a restore its
        // ctime): its projects are the stamped ones, stat'ed without
        // listing the root again.
        let root_now = mtime_ns(&self.root)?;
        let now = if root_now == self.root_mtime {
            Stamps {
                root: self.root.clone(),
                root_mtime: root_now,
                projects: self
                    .projects
                    .iter()
                    .map(|(p, _)| Some((p.clone(), mtime_ns(p)?)))
                    .collect::<Option<_>>()?,
                unpublished: Vec::new(),
            }
        } else {
            Stamps::before_scan(&self.root)?
        };
        let same_projects = now.root_mtime == self.root_mtime
            && now.projects.len() == self.projects.len()
            && now
                .projects
                .iter()
                .zip(&self.projects)
                .all(|(a, b)| a.0 == b.0);
        if !same_projects {
            return None;
        }
        let mut changed: Vec<usize> = (0..self.projects.len())
            .filter(|k| now.projects[*k].1 != self.projects[*k].1)
            .collect();
        for u in &self.unpublished {
            if Unpublished::now(&u.dir) != *u {
                let k = self.project_of(&u.dir)?;
                if !changed.contains(&k) {
                    changed.push(k);
                }
            }
        }
        changed.sort_unstable();
        Some((now, changed))
    }

    /// These stamps after a spawn added one session directory to project
    /// `project`, whose stamp was `before` just before and is `after` now:
    /// `None` unless nothing else can have changed (the project stood as
    /// these stamps say, its link count grew by exactly the one directory,
    /// on a file system that counts subdirectories, and the root is as it
    /// was), so a spawn need not cost the next send a rescan.
    pub fn after_spawn(&self, project: &Path, before: Times, after: Times) -> Option<Stamps> {
        let k = self.projects.iter().position(|(p, _)| p == project)?;
        let counted = before.2 >= 2 && after.2 == before.2 + 1;
        let root_same = mtime_ns(&self.root)? == self.root_mtime;
        if self.projects[k].1 != before || !counted || !root_same {
            return None;
        }
        let mut next = self.clone();
        next.projects[k].1 = after;
        Some(next)
    }

    /// The position of the project holding session directory `dir`.
    pub fn project_of(&self, dir: &Path) -> Option<usize> {
        let parent = dir.parent()?;
        self.projects.iter().position(|(p, _)| p == parent)
    }

    pub fn projects(&self) -> impl Iterator<Item = &Path> {
        self.projects.iter().map(|(p, _)| p.as_path())
    }

    /// `now` (from `changed`) completed after the projects `rescanned`
    /// were scanned again into `partial`: the unpublished sessions of the
    /// others are as they were. `None` when not yet trusted.
    pub fn after_rescan(
        &self,
        now: Stamps,
        rescanned: &[usize],
        partial: &Store,
    ) -> Option<Stamps> {
        let mut next = now.after_scan(partial)?;
        next.unpublished.extend(
            self.unpublished
                .iter()
                .filter(|u| {
                    self.project_of(&u.dir)
                        .is_some_and(|k| !rescanned.contains(&k))
                })
                .cloned(),
        );
        Some(next)
    }
}
