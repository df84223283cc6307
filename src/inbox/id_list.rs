//! The consumed-id list of a fold point, as `inbox.consumed` holds it, and
//! the lookups of ids in it. A resumed fold asks whether each message it
//! may report (every one pending at the point, and every newer one) was
//! consumed before the point. A few questions are answered by searching the
//! bytes; past that the list is indexed once (each entry's place by the
//! hash of its kind and id), so that asking about every pending message of
//! a large inbox costs one pass over the list, not one pass per message.

use dsh_store::set::PassThrough;
use std::cell::{Cell, OnceCell};
use std::collections::{HashMap, HashSet};
use std::hash::BuildHasherDefault;

/// The first entry of each hash, by the hash (already one: not hashed again).
type Index = HashMap<u64, usize, BuildHasherDefault<PassThrough>>;

/// The list: an entry per id, `CLAIMED` or `CANCELED` then the id then
/// `\n`, after a leading `\n`. Ids never hold a newline here (an inbox with
/// one gets no fold point).
#[derive(Debug, Default, Clone)]
pub struct IdList {
    bytes: Vec<u8>,
    /// Lookups answered by searching, so far.
    searched: Cell<u32>,
    /// Where each entry's kind byte is, by the hash of its kind and id.
    index: OnceCell<Index>,
}

pub const CLAIMED: u8 = b'c';
pub const CANCELED: u8 = b'x';

/// Lookups answered by searching the bytes before the list is indexed.
/// Both costs grow with the list: on a 1 MB list (50,000 entries) a search
/// took about 0.07 ms and indexing about 4 ms, so the index pays for itself
/// after some 60 lookups (a resumed fold makes two for each message it may
/// report).
const SEARCHES_BEFORE_INDEX: u32 = 64;

impl PartialEq for IdList {
    fn eq(&self, other: &IdList) -> bool {
        self.bytes == other.bytes
    }
}

fn key(kind: u8, id: &[u8]) -> u64 {
    dsh_store::files::fnv(&[&[kind], id])
}

impl IdList {
    /// The list from its bytes; `None` when they are not one.
    pub fn from_bytes(bytes: Vec<u8>) -> Option<IdList> {
        (bytes.is_empty() || (bytes[0] == b'\n' && bytes.ends_with(b"\n"))).then(|| IdList {
            bytes,
            ..IdList::default()
        })
    }

    pub fn len(&self) -> u64 {
        self.bytes.len() as u64
    }

    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Whether the list holds `id` as a `kind` entry.
    pub fn contains(&self, kind: u8, id: &str) -> bool {
        if self.bytes.is_empty() {
            return false;
        }
        let searched = self.searched.get();
        if self.index.get().is_none() && searched < SEARCHES_BEFORE_INDEX {
            self.searched.set(searched + 1);
            return self.search(kind, id);
        }
        let index = self.index.get_or_init(|| self.build_index());
        match index.get(&key(kind, id.as_bytes())) {
            None => false,
            Some(at) if self.entry_at(*at) == Some((kind, id.as_bytes())) => true,
            // Another entry of the same hash: the bytes decide.
            Some(_) => self.search(kind, id),
        }
    }

    fn search(&self, kind: u8, id: &str) -> bool {
        let mut needle = Vec::with_capacity(id.len() + 3);
        needle.extend_from_slice(&[b'\n', kind]);
        needle.extend_from_slice(id.as_bytes());
        needle.push(b'\n');
        memchr::memmem::find(&self.bytes, &needle).is_some()
    }

    fn build_index(&self) -> Index {
        let entries = memchr::memchr_iter(b'\n', &self.bytes).count();
        let mut index = Index::with_capacity_and_hasher(entries, Default::default());
        let mut at = 1;
        while at < self.bytes.len() {
            let end = memchr::memchr(b'\n', &self.bytes[at..]).map_or(self.bytes.len(), |n| at + n);
            if end > at {
                index
                    .entry(key(self.bytes[at], &self.bytes[at + 1..end]))
                    .or_insert(at);
            }
            at = end + 1;
        }
        index
    }

    /// The entry whose kind byte is at `at`: its kind and id.
    fn entry_at(&self, at: usize) -> Option<(u8, &[u8])> {
        let rest = self.bytes.get(at..)?;
        let end = memchr::memchr(b'\n', rest)?;
        Some((*rest.first()?, rest.get(1..end)?))
    }

    /// The entries `claimed` and `canceled` add after a list of `len`
    /// bytes; `None` when an id holds a newline.
    pub fn entries(
        len: u64,
        claimed: &HashSet<String>,
        canceled: &HashSet<String>,
    ) -> Option<Vec<u8>> {
        let size: usize = claimed.iter().chain(canceled).map(|id| id.len() + 2).sum();
        let mut out = Vec::with_capacity(size + 1);
        if len == 0 && size > 0 {
            out.push(b'\n');
        }
        for (kind, ids) in [(CLAIMED, claimed), (CANCELED, canceled)] {
            for id in ids {
                if id.contains('\n') {
                    return None;
                }
                out.push(kind);
                out.extend_from_slice(id.as_bytes());
                out.push(b'\n');
            }
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(entries: &[(u8, &str)]) -> IdList {
        let mut bytes = vec![b'\n'];
        for (kind, id) in entries {
            bytes.push(*kind);
            bytes.extend_from_slice(id.as_bytes());
            bytes.push(b'\n');
        }
        IdList::from_bytes(bytes).unwrap()
    }

    /// Searched or indexed, a list answers every question the same way:
    /// kinds apart, ids whole (no prefix, suffix or neighbour matches).
    #[test]
    fn lookups_agree_before_and_after_indexing() {
        let entries: Vec<(u8, String)> = (0..200)
            .map(|n| {
                (
                    if n % 3 == 0 { CANCELED } else { CLAIMED },
                    format!("id-{n}"),
                )
            })
            .collect();
        let borrowed: Vec<(u8, &str)> = entries.iter().map(|(k, s)| (*k, s.as_str())).collect();
        let l = list(&borrowed);
        let questions: Vec<(u8, String)> = (0..260)
            .flat_map(|n| [(CLAIMED, format!("id-{n}")), (CANCELED, format!("id-{n}"))])
            .chain([
                (CLAIMED, "id-".into()),
                (CLAIMED, "d-1".into()),
                (CLAIMED, "".into()),
            ])
            .collect();
        let expected = |kind: u8, id: &str| entries.iter().any(|(k, e)| *k == kind && e == id);
        for (n, (kind, id)) in questions.iter().enumerate() {
            assert_eq!(
                l.contains(*kind, id),
                expected(*kind, id),
                "{} {id}",
                *kind as char
            );
            let indexed = n >= SEARCHES_BEFORE_INDEX as usize;
            assert_eq!(l.index.get().is_some(), indexed, "after question {n}");
        }
        assert!(l.index.get().is_some());
        assert!(!IdList::default().contains(CLAIMED, "id-1"));
    }

    /// Ids whose hashes collide are still told apart by their bytes.
    #[test]
    fn colliding_hashes_compare_the_ids() {
        let l = list(&[(CLAIMED, "a"), (CLAIMED, "b")]);
        let forged = Index::from_iter([(key(CLAIMED, b"zzz"), 4), (key(CLAIMED, b"a"), 4)]);
        l.index.set(forged).unwrap();
        assert!(!l.contains(CLAIMED, "zzz"));
        assert!(
            l.contains(CLAIMED, "a"),
            "found by its bytes, not its hash's entry"
        );
        let l = list(&[(CLAIMED, "a"), (CLAIMED, "b")]);
        l.searched.set(SEARCHES_BEFORE_INDEX);
        assert!(l.contains(CLAIMED, "b") && !l.contains(CANCELED, "b"));
    }
}
