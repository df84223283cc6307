//! The name index: which subagent sessions carry a given name under a given
//! parent, so a v2 name resolves without reading every header in the store.
//! It lives outside the store (DSH treats every directory under the root as
//! a project, so nothing may be written there): `$DSH_AGENTS_CACHE_DIR`,
//! else `$XDG_CACHE_HOME/dsh-agents`, else `~/.cache/dsh-agents`.
//!
//! It can never give an answer a scan would not. Headers never change once
//! published; a session appearing or vanishing changes its project
//! directory's mtime (and a project appearing, the root's); a session
//! directory whose log was not published yet is looked at again every
//! time. The index is believed only while all of that is as it was when it
//! was built (and only when those mtimes were already a second old then,
//! so a change in the same clock tick cannot hide). Its answers are only
//! candidates: every one is read from the store before it is used, and an
//! index that does not fit is rebuilt from a scan.

use super::enumerate::{Store, Suffix};
use super::header::is_valid_name;
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::Read;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};

/// The environment variable naming the cache directory.
pub const CACHE_DIR_ENV: &str = "DSH_AGENTS_CACHE_DIR";

const STATE: &str = "state.json";
const NAMES: &str = "names.idx";
const MAGIC: &[u8; 8] = b"DSHNIDX1";
const FORMAT: u32 = 1;
/// A directory changed less than this long before the build may change
/// again within the same mtime tick: such an index is not believed.
const SETTLE_NS: i128 = 1_000_000_000;

/// The cache directory, when one can be named.
pub fn cache_dir() -> Option<PathBuf> {
    let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    if let Some(d) = var(CACHE_DIR_ENV) {
        return Some(PathBuf::from(d));
    }
    if let Some(d) = var("XDG_CACHE_HOME") {
        return Some(PathBuf::from(d).join("dsh-agents"));
    }
    var("HOME").map(|h| PathBuf::from(h).join(".cache").join("dsh-agents"))
}

/// FNV-1a: stable across builds and platforms, as an on-disk key must be.
fn fnv(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for (k, part) in parts.iter().enumerate() {
        if k > 0 {
            h = (h ^ 0xff).wrapping_mul(0x100_0000_01b3);
        }
        for b in *part {
            h = (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3);
        }
    }
    h
}

fn key(parent: &str, name: &str) -> u64 {
    fnv(&[parent.as_bytes(), name.as_bytes()])
}

fn mtime_ns(path: &Path) -> Option<i128> {
    let m = std::fs::symlink_metadata(path).ok()?;
    Some(i128::from(m.mtime()) * 1_000_000_000 + i128::from(m.mtime_nsec()))
}

/// What a session directory without a published log held.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Unpublished {
    dir: PathBuf,
    /// The log's length, when there is one.
    log: Option<u64>,
}

fn unpublished_now(dir: &Path) -> Unpublished {
    let log = [Suffix::Jsonl, Suffix::JsonlZstd]
        .iter()
        .find_map(|s| std::fs::symlink_metadata(dir.join(s.file_name())).ok())
        .map(|m| m.len());
    Unpublished {
        dir: dir.to_path_buf(),
        log,
    }
}

/// What the index was built against.
#[derive(Debug, Serialize, Deserialize)]
struct State {
    format: u32,
    root: PathBuf,
    root_mtime: i128,
    /// Every project directory and its mtime, in name order.
    projects: Vec<(PathBuf, i128)>,
    unpublished: Vec<Unpublished>,
}

impl State {
    fn of(root: &Path, projects: &[PathBuf], unpublished: Vec<Unpublished>) -> Option<State> {
        Some(State {
            format: FORMAT,
            root: root.to_path_buf(),
            root_mtime: mtime_ns(root)?,
            projects: projects
                .iter()
                .map(|p| Some((p.clone(), mtime_ns(p)?)))
                .collect::<Option<_>>()?,
            unpublished,
        })
    }

    fn settled(&self, now: i128) -> bool {
        std::iter::once(self.root_mtime)
            .chain(self.projects.iter().map(|p| p.1))
            .all(|m| now - m >= SETTLE_NS)
    }
}

fn now_ns() -> i128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128)
}

/// An index believed for this store.
pub struct NameIndex {
    file: File,
    count: u64,
}

/// How a name lookup was answered.
pub enum Opened {
    Index(NameIndex),
    /// The index did not fit: the store was scanned (and the index rebuilt).
    Scanned(Box<Store>),
}

impl NameIndex {
    /// The index of the store at `root` (absolute), or the scan that
    /// rebuilt it. The scan fails as `Store::open` does.
    pub fn open(cache: &Path, root: &Path) -> Result<Opened, super::StoreError> {
        let dir = cache.join("stores").join(format!(
            "{:016x}",
            fnv(&[root.as_os_str().as_encoded_bytes()])
        ));
        if let Some(index) = NameIndex::believed(&dir, root) {
            return Ok(Opened::Index(index));
        }
        // mtimes are read before the scan: a change during it shows later.
        let mut probe = Store::at(root)?;
        let projects = probe.project_dirs()?;
        let before = State::of(&probe.root, &projects, Vec::new());
        let store = Store::open(root)?;
        if let Some(mut state) = before {
            state.unpublished = store
                .unpublished
                .iter()
                .map(|d| unpublished_now(d))
                .collect();
            if state.settled(now_ns()) {
                let _ = write(&dir, &state, &store);
            }
        }
        Ok(Opened::Scanned(Box::new(store)))
    }

    fn believed(dir: &Path, root: &Path) -> Option<NameIndex> {
        let state: State =
            serde_json::from_slice(&super::sidecar::read_small(&dir.join(STATE))?).ok()?;
        if state.format != FORMAT || state.root != root {
            return None;
        }
        let mut probe = Store::at(root).ok()?;
        let projects = probe.project_dirs().ok()?;
        let now = State::of(&probe.root, &projects, Vec::new())?;
        if now.root_mtime != state.root_mtime || now.projects != state.projects {
            return None;
        }
        if state
            .unpublished
            .iter()
            .any(|u| unpublished_now(&u.dir) != *u)
        {
            return None;
        }
        let mut file = File::open(dir.join(NAMES)).ok()?;
        let mut head = [0u8; 16];
        file.read_exact(&mut head).ok()?;
        if &head[..8] != MAGIC {
            return None;
        }
        let count = u64::from_le_bytes(head[8..16].try_into().ok()?);
        Some(NameIndex { file, count })
    }

    fn entry(&self, i: u64) -> Option<(u64, u64, u32)> {
        let mut b = [0u8; 20];
        self.file.read_exact_at(&mut b, 16 + i * 20).ok()?;
        Some((
            u64::from_le_bytes(b[..8].try_into().ok()?),
            u64::from_le_bytes(b[8..16].try_into().ok()?),
            u32::from_le_bytes(b[16..20].try_into().ok()?),
        ))
    }

    /// Session ids that may be subagent children of `parent` named `name`
    /// (a superset: callers read each one from the store).
    pub fn children_named(&self, parent: &str, name: &str) -> Vec<String> {
        let want = key(parent, name);
        // The first entry whose key is not below `want`.
        let (mut lo, mut hi) = (0u64, self.count);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.entry(mid) {
                Some((k, _, _)) if k < want => lo = mid + 1,
                Some(_) => hi = mid,
                None => return Vec::new(),
            }
        }
        let mut out = Vec::new();
        while let Some((k, at, len)) = (lo < self.count).then(|| self.entry(lo)).flatten() {
            if k != want {
                break;
            }
            let mut id = vec![0u8; len as usize];
            if self.file.read_exact_at(&mut id, at).is_err() {
                break;
            }
            out.extend(String::from_utf8(id).ok());
            lo += 1;
        }
        out
    }
}

/// Write the index and then its state (a state names only a complete
/// index), each replacing the old one atomically.
fn write(dir: &Path, state: &State, store: &Store) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let mut entries: Vec<(u64, &str)> = store
        .sessions
        .iter()
        .filter(|r| r.header.origin_subagent)
        .filter_map(|r| {
            let name = r.header.name.as_deref().filter(|n| is_valid_name(n))?;
            Some((key(r.header.parent()?, name), &*r.header.id))
        })
        .collect();
    entries.sort();
    let table = 16 + entries.len() as u64 * 20;
    let mut bytes = Vec::with_capacity(table as usize);
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&(entries.len() as u64).to_le_bytes());
    let mut at = table;
    for (k, id) in &entries {
        bytes.extend_from_slice(&k.to_le_bytes());
        bytes.extend_from_slice(&at.to_le_bytes());
        bytes.extend_from_slice(&(id.len() as u32).to_le_bytes());
        at += id.len() as u64;
    }
    for (_, id) in &entries {
        bytes.extend_from_slice(id.as_bytes());
    }
    let _ = std::fs::remove_file(dir.join(STATE));
    replace(&dir.join(NAMES), &bytes)?;
    replace(&dir.join(STATE), &serde_json::to_vec(state)?)
}

fn replace(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path)
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
