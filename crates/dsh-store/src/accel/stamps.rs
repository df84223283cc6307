//! Whether the set of sessions in a store may have changed since a scan,
//! told without reading a header: a session appearing or vanishing changes
//! its project directory's mtime (a project appearing, the root's), and a
//! session directory whose log was not published yet is looked at again.
//! Stamps are trusted only when every mtime was already a second old when
//! they were taken, so a change within the same clock tick cannot hide.
//! Each directory's ctime is kept beside its mtime: `cp -a` and `rsync -a`
//! set a directory's mtime back to the source's after filling it, but
//! nothing sets a ctime, so a restored session still shows.

use crate::set::enumerate::Store;
use serde::{Deserialize, Serialize};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// A directory changed less than this long before the stamps were taken
/// may change again within the same mtime tick.
const SETTLE_NS: i128 = 1_000_000_000;

/// A directory's (mtime, ctime) in nanoseconds, and its link count (on
/// most file systems 2 + its subdirectories: a session directory added in
/// the same clock tick still shows; 1 where the file system does not count).
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

/// A project directory around a spawn's `mkdir`: its times and how many
/// entries it holds — its link count where the file system counts
/// subdirectories, else its entries listed (ext4 reports a link count of 1
/// past ~65,000 subdirectories, btrfs always does), so the after-spawn
/// check holds on every file system.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Census {
    times: Times,
    entries: u64,
}

impl Census {
    /// Taken just before the spawn: entries counted first, then the times,
    /// so a directory made between the two moves the times the stamps hold.
    pub fn before(path: &Path) -> Option<Census> {
        let listed = entries_listed(path)?;
        let times = mtime_ns(path)?;
        Some(Census {
            times,
            entries: if times.2 >= 2 { times.2 } else { listed },
        })
    }

    /// Taken just after: times first, then the entries, so a directory
    /// made between the two is counted and fails the check.
    pub fn after(path: &Path) -> Option<Census> {
        let times = mtime_ns(path)?;
        let entries = if times.2 >= 2 {
            times.2
        } else {
            entries_listed(path)?
        };
        Some(Census { times, entries })
    }
}

/// How many entries directory `path` lists, when its link count does not
/// say (`0` when it does: only `Census` reads this).
fn entries_listed(path: &Path) -> Option<u64> {
    let m = std::fs::symlink_metadata(path).ok()?;
    if m.nlink() >= 2 {
        return Some(0);
    }
    let mut n: u64 = 0;
    for entry in std::fs::read_dir(path).ok()? {
        entry.ok()?;
        n = n.saturating_add(1);
    }
    Some(n)
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
        let log = crate::files::log_name::current_log(dir)
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
    /// `project`, whose census was `before` just before and is `after` now:
    /// `None` unless nothing else can have changed (the project stood as
    /// these stamps say, it holds exactly the one entry more, and the root
    /// is as it was), so a spawn need not cost the next send a rescan.
    pub fn after_spawn(&self, project: &Path, before: Census, after: Census) -> Option<Stamps> {
        let k = self.projects.iter().position(|(p, _)| p == project)?;
        let one_more = before.entries >= 1 && after.entries == before.entries.checked_add(1)?;
        let root_same = mtime_ns(&self.root)? == self.root_mtime;
        if self.projects[k].1 != before.times || !one_more || !root_same {
            return None;
        }
        let mut next = self.clone();
        next.projects[k].1 = after.times;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The after-spawn check counts entries, never trusts a link count the
    /// file system does not keep (here 1, as ext4 past ~65,000
    /// subdirectories and btrfs report).
    #[test]
    fn after_spawn_counts_entries_where_links_do_not() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().to_path_buf();
        let project = root.join("p");
        std::fs::create_dir(&project).unwrap();
        let t = mtime_ns(&project).unwrap();
        let uncounted = (t.0, t.1, 1);
        let later = (t.0 + 1, t.1 + 1, 1);
        let stamps = Stamps {
            root_mtime: mtime_ns(&root).unwrap(),
            root: root.clone(),
            projects: vec![(project.clone(), uncounted)],
            unpublished: Vec::new(),
        };
        let census = |times, entries| Census { times, entries };
        for (before, after, stood, taken) in [
            (3, 4, uncounted, true),
            (3, 5, uncounted, false),
            (3, 3, uncounted, false),
            (0, 1, uncounted, false),
            (3, 4, later, false),
        ] {
            let next = stamps.after_spawn(&project, census(stood, before), census(later, after));
            assert_eq!(next.is_some(), taken, "{before} -> {after}, {stood:?}");
            if let Some(next) = next {
                assert_eq!(next.projects[0].1, later);
            }
        }
    }
}
