//! The `parentSession` edges the last listing of a store saw, kept in the
//! cache directory (beside the name index, outside the store) so the next
//! listing can guess from the start which logs to read ahead, whatever
//! order their directories sort in. It is only ever a guess (`tree::ahead`):
//! a stale, missing or damaged file costs reads, never an answer, so it is
//! not validated beyond its own framing.

#![deny(clippy::cast_possible_truncation, clippy::arithmetic_side_effects)]

use crate::files::cache_dir::{fnv, replace, store_dir};
use crate::set::enumerate::Store;
use std::path::Path;

const FILE: &str = "edges.bin";
const MAGIC: &[u8; 8] = b"DSHEDGE1";
/// Edges read at most (16 bytes each): a store larger than this is not
/// read ahead (`AHEAD_SESSIONS_MAX`), so its edges are neither saved nor
/// believed.
const MAX_EDGES: u64 = crate::set::ahead::AHEAD_SESSIONS_MAX as u64;

/// The bit of a parent's key that marks an `origin: "subagent"` child.
pub const SUBAGENT: u64 = 1 << 63;

/// A session's key in the guess: a stable hash of its id, without the
/// `SUBAGENT` bit.
pub fn key(id: &str) -> u64 {
    fnv(&[id.as_bytes()]) & !SUBAGENT
}

/// Where the edges of the store at `root` are saved in `cache`.
pub fn edges_file(cache: &Path, root: &Path) -> std::path::PathBuf {
    store_dir(cache, root).join(FILE)
}

/// The edges saved for the store at `root`: (child key, parent key with
/// `SUBAGENT` set for a subagent child). Empty when there is none to read.
pub fn load(cache: &Path, root: &Path) -> Vec<(u64, u64)> {
    let path = edges_file(cache, root);
    let Some(bytes) = crate::files::sidecar::read_capped(&path, 16 + MAX_EDGES * 16) else {
        return Vec::new();
    };
    let word = |b: &[u8]| b.try_into().ok().map(u64::from_le_bytes);
    let (Some(magic), Some(count), Some(body)) =
        (bytes.get(..8), bytes.get(8..16), bytes.get(16..))
    else {
        return Vec::new();
    };
    if magic != MAGIC {
        return Vec::new();
    }
    // A crafted count must match the file's length: whole 16-byte pairs.
    if body.len() % 16 != 0 || word(count) != u64::try_from(body.len() / 16).ok() {
        return Vec::new();
    }
    body.chunks_exact(16)
        .filter_map(|pair| Some((word(pair.get(..8)?)?, word(pair.get(8..)?)?)))
        .collect()
}

/// Save the edges of every session of `store` for the next listing. A
/// cache inside the store is never written (it would be a project to DSH).
pub fn save(cache: &Path, store: &Store) {
    if crate::files::cache_dir::inside_store(cache, &store.root)
        || store.sessions.len() as u64 > MAX_EDGES
    {
        return;
    }
    let mut bytes = Vec::with_capacity(store.sessions.len().saturating_add(1).saturating_mul(16));
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&[0; 8]);
    let mut count: u64 = 0;
    let s = &store.sessions;
    for i in 0..s.len() {
        let Some(parent) = s.parent(i) else {
            continue;
        };
        let flag = if s.origin_subagent(i) { SUBAGENT } else { 0 };
        bytes.extend_from_slice(&key(s.id(i)).to_le_bytes());
        bytes.extend_from_slice(&(key(parent) | flag).to_le_bytes());
        count = count.saturating_add(1);
    }
    bytes[8..16].copy_from_slice(&count.to_le_bytes());
    let dir = store_dir(cache, &store.root);
    let _ = std::fs::create_dir_all(&dir).and_then(|()| replace(&dir.join(FILE), &bytes));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(tag: &str) -> std::path::PathBuf {
        let dir =
            std::env::temp_dir().join(format!("dsh-agents-edges-{}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    /// What a listing saves is what the next one loads: one edge a session
    /// with a parent, subagent children marked.
    #[test]
    fn saved_edges_load_back() {
        let root = std::path::absolute(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/stores/team"),
        )
        .unwrap();
        let store = Store::scan(&root).unwrap();
        let cache = temp("roundtrip");
        save(&cache, &store);
        let loaded = load(&cache, &root);
        let want: Vec<(u64, u64)> = store
            .sessions
            .iter()
            .filter_map(|r| {
                let flag = if r.header.origin_subagent {
                    SUBAGENT
                } else {
                    0
                };
                Some((key(r.header.id()), key(r.header.parent()?) | flag))
            })
            .collect();
        assert!(want.len() > 5);
        assert_eq!(loaded, want);
        let file = store_dir(&cache, &root).join(FILE);
        let bytes = std::fs::read(&file).unwrap();
        // A count whose byte length wraps to the file's (32 bytes claiming
        // 2^60 + 1 edges) must neither hang nor be believed.
        let mut wrapping = bytes[..8].to_vec();
        wrapping.extend_from_slice(&((1u64 << 60) + 1).to_le_bytes());
        wrapping.extend_from_slice(&[0; 16]);
        for damaged in [
            &bytes[..bytes.len() - 1],
            &bytes[1..],
            b"DSHEDGE1",
            &wrapping[..],
        ] {
            std::fs::write(&file, damaged).unwrap();
            assert!(load(&cache, &root).is_empty(), "a damaged file is no guess");
        }
        let _ = std::fs::remove_dir_all(&cache);
    }

    /// A cache directory inside the store is never written.
    #[test]
    fn a_cache_inside_the_store_is_not_written() {
        let root = temp("inside");
        std::fs::create_dir_all(root.join("_no-cwd")).unwrap();
        let store = Store::scan(&root).unwrap();
        save(&root.join("cache"), &store);
        assert!(!root.join("cache").exists());
        let _ = std::fs::remove_dir_all(&root);
    }
}
