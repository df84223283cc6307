//! The name index: which subagent sessions carry a given name under a given
//! parent, so a v2 name resolves without reading every header in the store.
//! It lives outside the store (DSH treats every directory under the root as
//! a project, so nothing may be written there), in the directory the
//! command line's settings name (`cli::settings`).
//!
//! It can never give an answer a scan would not. Headers never change once
//! published, so the index is believed while the store's `Stamps` say no
//! session appeared or vanished since it was built. Its answers are only
//! candidates: every one is read from the store before it is used, and an
//! index that does not fit is rebuilt from a scan.

use crate::accel::stamps::Stamps;
use crate::files::cache_dir::{fnv, inside_store, replace, store_dir};
use crate::format::header::is_valid_name;
use crate::set::enumerate::Store;
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::Read;
use std::os::unix::fs::FileExt;
use std::path::Path;

const STATE: &str = "state.json";
const NAMES: &str = "names.idx";
const MAGIC: &[u8; 8] = b"DSHNIDX2";
const FORMAT: u32 = 3;

/// Take session `id` (a child of `parent`, named `name`), just spawned
/// into project directory `project` of the store at `root`, into its index,
/// when the index is current and nothing else can have changed
/// (`Stamps::after_spawn`); otherwise leave it: the next lookup rescans.
pub fn note_spawn(
    cache: &Path,
    root: &Path,
    project: &Path,
    before: Option<crate::accel::stamps::Census>,
    child: (&str, Option<&str>, Option<&str>),
) {
    let (id, parent, name) = child;
    let update = || -> Option<()> {
        let dir = store_dir(cache, root);
        if inside_store(cache, root) {
            return None;
        }
        let state: State =
            serde_json::from_slice(&crate::files::sidecar::read_small(&dir.join(STATE))?).ok()?;
        if state.format != FORMAT || state.stamps.root() != root {
            return None;
        }
        let after = crate::accel::stamps::Census::after(project)?;
        let stamps = state.stamps.after_spawn(project, before?, after)?;
        let mut entries = NameIndex::read(&dir)?.all()?;
        if let (Some(parent), Some(name)) = (parent, name.filter(|n| is_valid_name(n))) {
            entries.push(Entry {
                key: key(parent, name),
                id: id.to_string(),
                project: u32::try_from(stamps.projects().position(|p| p == project)?).ok()?,
            });
        }
        write(
            &dir,
            &State {
                format: FORMAT,
                stamps,
            },
            &entries,
        )
        .ok()
    };
    let _ = update();
}

fn key(parent: &str, name: &str) -> u64 {
    fnv(&[parent.as_bytes(), name.as_bytes()])
}

/// What the index was built against.
#[derive(Debug, Serialize, Deserialize)]
struct State {
    format: u32,
    stamps: Stamps,
}

/// An index believed for this store: its file, searched in place, or the
/// entries a refresh just made.
pub enum NameIndex {
    File { file: File, count: u64 },
    Memory(Vec<Entry>),
}

/// One named subagent: its (parent, name) key, its id, and the position of
/// its project in the index's stamps.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Entry {
    key: u64,
    id: String,
    project: u32,
}

/// How a name lookup was answered.
pub enum Opened {
    Index(NameIndex),
    /// The index did not fit: the store was scanned (and the index rebuilt).
    Scanned(Box<Store>),
}

const ENTRY_BYTES: u64 = 24;

impl NameIndex {
    /// The index of the store at `root` (absolute), refreshed for the
    /// projects whose sessions changed, or the scan that rebuilt it. The
    /// scan fails as `Store::open` does.
    pub fn open(cache: &Path, root: &Path) -> Result<Opened, crate::error::StoreError> {
        let dir = store_dir(cache, root);
        if let Some(index) = NameIndex::believed(&dir, root) {
            return Ok(Opened::Index(index));
        }
        let before = Stamps::before_scan(root);
        let store = Store::open(root)?;
        if let Some(stamps) = before.and_then(|b| b.after_scan(&store)) {
            let entries = entries_of(&store, &stamps);
            let _ = write(
                &dir,
                &State {
                    format: FORMAT,
                    stamps,
                },
                &entries,
            );
        }
        Ok(Opened::Scanned(Box::new(store)))
    }

    /// The saved index when the stamps still fit, or when only some
    /// projects changed: those are scanned again and their entries
    /// replaced (a spawn then costs one project's scan, not the store's).
    fn believed(dir: &Path, root: &Path) -> Option<NameIndex> {
        let state: State =
            serde_json::from_slice(&crate::files::sidecar::read_small(&dir.join(STATE))?).ok()?;
        if state.format != FORMAT || state.stamps.root() != root {
            return None;
        }
        let (now, changed) = state.stamps.changed()?;
        let index = NameIndex::read(dir)?;
        if changed.is_empty() {
            return Some(index);
        }
        let mut partial = Store::at(root).ok()?;
        let projects: Vec<&Path> = state.stamps.projects().collect();
        for k in &changed {
            partial.scan_project(projects.get(*k)?, None);
        }
        // A fault a scan would fail on: let the scan say so.
        if partial.problems.iter().any(|p| p.fatal) {
            return None;
        }
        let mut entries: Vec<Entry> = index
            .all()?
            .into_iter()
            .filter(|e| !changed.contains(&(e.project as usize)))
            .collect();
        let stamps = state.stamps.after_rescan(now, &changed, &partial);
        // The rescanned sessions, by the positions of the (same) projects.
        entries.extend(entries_of(&partial, &state.stamps));
        entries.sort();
        if let Some(stamps) = stamps {
            let _ = write(
                dir,
                &State {
                    format: FORMAT,
                    stamps,
                },
                &entries,
            );
        }
        Some(NameIndex::Memory(entries))
    }

    fn read(dir: &Path) -> Option<NameIndex> {
        // Never blocks on a FIFO planted in the cache, never follows a link.
        let mut file = crate::files::sidecar::open_regular(&dir.join(NAMES)).ok()?;
        let mut head = [0u8; 16];
        file.read_exact(&mut head).ok()?;
        if &head[..8] != MAGIC {
            return None;
        }
        let count = u64::from_le_bytes(head[8..16].try_into().ok()?);
        Some(NameIndex::File { file, count })
    }

    fn len(&self) -> u64 {
        match self {
            NameIndex::File { count, .. } => *count,
            NameIndex::Memory(entries) => entries.len() as u64,
        }
    }

    fn key_at(&self, i: u64) -> Option<u64> {
        match self {
            NameIndex::File { file, .. } => {
                let mut b = [0u8; 8];
                file.read_exact_at(&mut b, 16 + i * ENTRY_BYTES).ok()?;
                Some(u64::from_le_bytes(b))
            }
            NameIndex::Memory(entries) => entries.get(usize::try_from(i).ok()?).map(|e| e.key),
        }
    }

    fn entry(&self, i: u64) -> Option<Entry> {
        match self {
            NameIndex::File { file, .. } => {
                let mut b = [0u8; ENTRY_BYTES as usize];
                file.read_exact_at(&mut b, 16 + i * ENTRY_BYTES).ok()?;
                let at = u64::from_le_bytes(b[8..16].try_into().ok()?);
                let len = u32::from_le_bytes(b[16..20].try_into().ok()?);
                let mut id = vec![0u8; len as usize];
                file.read_exact_at(&mut id, at).ok()?;
                Some(Entry {
                    key: u64::from_le_bytes(b[..8].try_into().ok()?),
                    id: String::from_utf8(id).ok()?,
                    project: u32::from_le_bytes(b[20..24].try_into().ok()?),
                })
            }
            NameIndex::Memory(entries) => entries.get(usize::try_from(i).ok()?).cloned(),
        }
    }

    /// Every entry (a refresh rewrites the index from them), from one read
    /// of the file.
    fn all(&self) -> Option<Vec<Entry>> {
        let file = match self {
            NameIndex::File { file, .. } => file,
            NameIndex::Memory(entries) => return Some(entries.clone()),
        };
        let mut bytes = vec![0; usize::try_from(file.metadata().ok()?.len()).ok()?];
        file.read_exact_at(&mut bytes, 0).ok()?;
        let field = |at: u64, n: usize| bytes.get(usize::try_from(at).ok()?..)?.get(..n);
        (0..self.len())
            .map(|i| {
                let e = field(16 + i * ENTRY_BYTES, ENTRY_BYTES as usize)?;
                let at = u64::from_le_bytes(e[8..16].try_into().ok()?);
                let len = u32::from_le_bytes(e[16..20].try_into().ok()?) as usize;
                Some(Entry {
                    key: u64::from_le_bytes(e[..8].try_into().ok()?),
                    id: String::from_utf8(field(at, len)?.to_vec()).ok()?,
                    project: u32::from_le_bytes(e[20..24].try_into().ok()?),
                })
            })
            .collect()
    }

    /// Session ids that may be subagent children of `parent` named `name`
    /// (a superset: callers read each one from the store).
    pub fn children_named(&self, parent: &str, name: &str) -> Vec<String> {
        let want = key(parent, name);
        // The first entry whose key is not below `want`.
        let (mut lo, mut hi) = (0u64, self.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.key_at(mid) {
                Some(k) if k < want => lo = mid + 1,
                Some(_) => hi = mid,
                None => return Vec::new(),
            }
        }
        let mut out = Vec::new();
        while let Some(e) = (lo < self.len()).then(|| self.entry(lo)).flatten() {
            if e.key != want {
                break;
            }
            out.push(e.id);
            lo += 1;
        }
        out
    }
}

/// The entries of the named subagents in `store`, by their projects'
/// positions in `stamps`.
fn entries_of(store: &Store, stamps: &Stamps) -> Vec<Entry> {
    store
        .sessions
        .iter()
        .filter(|r| r.header.origin_subagent)
        .filter_map(|r| {
            let name = r.header.name().filter(|n| is_valid_name(n))?;
            Some(Entry {
                key: key(r.header.parent()?, name),
                id: r.header.id().to_string(),
                project: u32::try_from(stamps.project_of(&r.dir())?).ok()?,
            })
        })
        .collect()
}

/// Write the index and then its state (a state names only a complete
/// index), each replacing the old one atomically.
fn write(dir: &Path, state: &State, entries: &[Entry]) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let mut entries: Vec<&Entry> = entries.iter().collect();
    entries.sort();
    let table = 16 + entries.len() as u64 * ENTRY_BYTES;
    let mut bytes = Vec::with_capacity(table as usize);
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&(entries.len() as u64).to_le_bytes());
    let mut at = table;
    for e in &entries {
        bytes.extend_from_slice(&e.key.to_le_bytes());
        bytes.extend_from_slice(&at.to_le_bytes());
        bytes.extend_from_slice(&(e.id.len() as u32).to_le_bytes());
        bytes.extend_from_slice(&e.project.to_le_bytes());
        at += e.id.len() as u64;
    }
    for e in &entries {
        bytes.extend_from_slice(e.id.as_bytes());
    }
    let _ = std::fs::remove_file(dir.join(STATE));
    replace(&dir.join(NAMES), &bytes)?;
    replace(&dir.join(STATE), &serde_json::to_vec(state)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_stable_and_separate_parts() {
        // Pinned: the on-disk index depends on these values.
        assert_eq!(fnv(&[b""]), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv(&[b"a"]), 0xaf63_dc4c_8601_ec8c);
        assert_ne!(key("ab", "c"), key("a", "bc"));
    }
}
