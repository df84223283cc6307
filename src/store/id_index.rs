//! Sessions by id without a second copy of every id: a table from a keyed
//! hash of the id to the session's position, checked against the session
//! itself; the rare id whose hash another id already took is kept by name.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::hash::{BuildHasher, BuildHasherDefault, Hasher, RandomState};

/// For keys that are hashes already (here keyed SipHash values): hashing
/// them again is waste.
#[derive(Default)]
pub struct PassThrough(u64);

impl Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(*b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

#[derive(Default)]
pub struct IdIndex {
    keys: RandomState,
    by_hash: HashMap<u64, usize, BuildHasherDefault<PassThrough>>,
    spill: HashMap<String, usize>,
}

impl std::fmt::Debug for IdIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "IdIndex({} ids)", self.by_hash.len() + self.spill.len())
    }
}

impl IdIndex {
    pub fn reserve(&mut self, more: usize) {
        self.by_hash.reserve(more);
    }

    /// The position of `id`, where `id_at` gives the id at a position.
    pub fn get<'a>(&self, id: &str, id_at: impl Fn(usize) -> &'a str) -> Option<usize> {
        match self.by_hash.get(&self.keys.hash_one(id)) {
            Some(&at) if id_at(at) == id => Some(at),
            Some(_) => self.spill.get(id).copied(),
            None => None,
        }
    }

    /// Record `id` at `at`; the caller has checked it is not there yet.
    pub fn insert(&mut self, id: &str, at: usize) {
        let hash = self.keys.hash_one(id);
        match self.by_hash.entry(hash) {
            Entry::Occupied(_) => {
                self.spill.insert(id.to_string(), at);
            }
            Entry::Vacant(slot) => {
                slot.insert(at);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Colliding hashes are found by name: force every id to collide.
    #[test]
    fn collisions_spill_by_name() {
        let ids = ["a", "b", "c"];
        let mut index = IdIndex::default();
        index.insert("a", 0);
        // Plant the other ids under a's hash, as a collision would.
        let hash_a = index.keys.hash_one("a");
        for (at, id) in ids.iter().enumerate().skip(1) {
            index.spill.insert(id.to_string(), at);
            index.by_hash.insert(index.keys.hash_one(id), 0);
        }
        index.by_hash.insert(hash_a, 0);
        for (at, id) in ids.iter().enumerate() {
            assert_eq!(index.get(id, |n| ids[n]), Some(at), "{id}");
        }
        assert_eq!(index.get("d", |n| ids[n]), None);
    }
}
