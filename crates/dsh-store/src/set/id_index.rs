//! Sessions by id without a second copy of every id: an open-addressing
//! table of session positions (4 bytes a slot, at most half full), each
//! found by a keyed hash of its id and confirmed against the session
//! itself. A million sessions cost 8 MiB here, where a map from hash to
//! position cost 35.

use std::hash::{BuildHasher, Hasher, RandomState};

/// For keys that are hashes already (keyed SipHash values, as the edge
/// and id-list maps keep): hashing them again is waste.
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
    /// A 32-bit key is spread over the 64 bits: the map takes its control
    /// bytes from the top ones.
    fn write_u32(&mut self, n: u32) {
        self.0 = u64::from(n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// An empty slot: no store holds 2^32 - 1 sessions.
const EMPTY: u32 = u32::MAX;

#[derive(Default)]
pub struct IdIndex {
    keys: RandomState,
    /// A power of two in length (or empty), never more than half full.
    slots: Vec<u32>,
    len: usize,
}

impl std::fmt::Debug for IdIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "IdIndex({} ids)", self.len)
    }
}

impl IdIndex {
    /// Room for `more` ids beyond those held, so inserting them never
    /// grows the table (growing holds the old and the new table at once).
    pub fn reserve<'a>(&mut self, more: usize, id_at: impl Fn(usize) -> &'a str) {
        let want = (self.len + more)
            .saturating_mul(2)
            .next_power_of_two()
            .max(8);
        if want <= self.slots.len() {
            return;
        }
        let old = std::mem::replace(&mut self.slots, vec![EMPTY; want]);
        for at in old.into_iter().filter(|&at| at != EMPTY) {
            let slot = self.free_slot(id_at(at as usize));
            self.slots[slot] = at;
        }
    }

    fn start(&self, id: &str) -> usize {
        // The table's length is a power of two: the mask keeps the low bits.
        (self.keys.hash_one(id) as usize) & (self.slots.len() - 1)
    }

    fn free_slot(&self, id: &str) -> usize {
        let mask = self.slots.len() - 1;
        let mut slot = self.start(id);
        while self.slots[slot] != EMPTY {
            slot = (slot + 1) & mask;
        }
        slot
    }

    /// The position of `id`, where `id_at` gives the id at a position.
    pub fn get<'a>(&self, id: &str, id_at: impl Fn(usize) -> &'a str) -> Option<usize> {
        if self.slots.is_empty() {
            return None;
        }
        let mask = self.slots.len() - 1;
        let mut slot = self.start(id);
        loop {
            match self.slots[slot] {
                EMPTY => return None,
                at if id_at(at as usize) == id => return Some(at as usize),
                _ => slot = (slot + 1) & mask,
            }
        }
    }

    /// Record `id` at `at`; the caller has checked it is not there yet.
    pub fn insert<'a>(&mut self, id: &str, at: usize, id_at: impl Fn(usize) -> &'a str) {
        let Ok(at) = u32::try_from(at) else {
            return;
        };
        if at == EMPTY {
            return;
        }
        if (self.len + 1) * 2 > self.slots.len() {
            self.reserve(self.len.max(4), id_at);
        }
        let slot = self.free_slot(id);
        self.slots[slot] = at;
        self.len += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every id is found at its position, through growth and through
    /// runs of slots other ids took; an id not held is not found.
    #[test]
    fn ids_are_found_where_they_were_put() {
        let ids: Vec<String> = (0..1000).map(|n| format!("s{n:04}")).collect();
        let mut index = IdIndex::default();
        for (at, id) in ids.iter().enumerate() {
            assert_eq!(index.get(id, |n| &ids[n]), None, "{id} before");
            index.insert(id, at, |n| &ids[n]);
        }
        for (at, id) in ids.iter().enumerate() {
            assert_eq!(index.get(id, |n| &ids[n]), Some(at), "{id}");
        }
        assert_eq!(index.get("s1000", |n| &ids[n]), None);
        assert_eq!(index.get("", |n| &ids[n]), None);
        assert!(index.slots.len() >= 2 * ids.len());
    }

    /// A lookup walks the run of slots other ids took from its start, and
    /// tells them apart by the id itself.
    #[test]
    fn a_run_of_other_ids_is_walked_past() {
        let ids = ["a", "b", "c", "d", "e", "f", "z"];
        let mut index = IdIndex::default();
        index.reserve(ids.len(), |n| ids[n]);
        let start = index.start("z");
        let mask = index.slots.len() - 1;
        // The other ids fill the slots from z's start on, as ids whose
        // hashes collide with z's would.
        for at in 0..6 {
            index.slots[(start + at) & mask] = at as u32;
        }
        index.len = 6;
        assert_eq!(index.get("z", |n| ids[n]), None);
        index.insert("z", 6, |n| ids[n]);
        assert_eq!(index.slots[(start + 6) & mask], 6);
        assert_eq!(index.get("z", |n| ids[n]), Some(6));
    }
}
