//! Where each session's children lie in the corpus's children array: a
//! bit a session says whether it has any, and only the sessions that do
//! get a start (4 bytes each). Invariant: the spans answer exactly what a
//! start per session would — a session without children has the empty
//! span — while a store of a million siblings holds about 190 KiB here,
//! not 4 MiB.

use dsh_store::SessionPos;
use std::ops::Range;

pub struct ChildSpans {
    /// Bit `p % 64` of word `p / 64`: the session at `p` has children.
    has: Vec<u64>,
    /// Sessions with children before each word (its rank's first part).
    before: Vec<u32>,
    /// The children of the `r`-th parent (by position) are
    /// `starts[r]..starts[r + 1]` of the children array.
    starts: Vec<u32>,
}

impl ChildSpans {
    /// The spans and the children array, grouped by parent, each group in
    /// the order `edges` gives it. `edges` lists every `(child, parent)`
    /// pair by position, in the same order each time it is called (three
    /// times: nothing a pair is held).
    pub fn build<I>(sessions: usize, edges: impl Fn() -> I) -> (Self, Vec<SessionPos>)
    where
        I: Iterator<Item = (usize, usize)>,
    {
        let mut has = vec![0u64; sessions.div_ceil(64)];
        for (_, parent) in edges() {
            has[parent / 64] |= 1 << (parent % 64);
        }
        let mut before = Vec::with_capacity(has.len());
        let mut parents = 0u32;
        for word in &has {
            before.push(parents);
            parents += word.count_ones();
        }
        let mut spans = ChildSpans {
            has,
            before,
            starts: vec![0; parents as usize + 1],
        };
        for (_, parent) in edges() {
            let r = spans.rank(parent);
            spans.starts[r + 1] += 1;
        }
        for r in 0..parents as usize {
            spans.starts[r + 1] += spans.starts[r];
        }
        let mut children = vec![SessionPos::default(); spans.starts[parents as usize] as usize];
        // Each parent's start moves to its end as its children are placed,
        // which is the next parent's start: shifted back after.
        for (child, parent) in edges() {
            let r = spans.rank(parent);
            children[spans.starts[r] as usize] = SessionPos::new(child);
            spans.starts[r] += 1;
        }
        for r in (0..parents as usize).rev() {
            spans.starts[r + 1] = spans.starts[r];
        }
        spans.starts[0] = 0;
        (spans, children)
    }

    /// How many sessions before `p` have children (`p` itself must).
    fn rank(&self, p: usize) -> usize {
        let below = self.has[p / 64] & ((1u64 << (p % 64)) - 1);
        self.before[p / 64] as usize + below.count_ones() as usize
    }

    /// The span of the children array holding the children of `p`.
    pub fn span(&self, p: usize) -> Range<usize> {
        match self.has.get(p / 64) {
            Some(word) if word & (1 << (p % 64)) != 0 => {
                let r = self.rank(p);
                self.starts[r] as usize..self.starts[r + 1] as usize
            }
            _ => 0..0,
        }
    }

    /// Every span of a parent, in position order.
    pub fn spans(&self) -> impl Iterator<Item = Range<usize>> + '_ {
        self.starts.windows(2).map(|w| w[0] as usize..w[1] as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The spans against a list of children a session, on shapes whose
    /// parents fall inside and across the 64-session words.
    #[test]
    fn spans_match_a_list_per_session() {
        let shapes: Vec<(usize, Vec<Option<usize>>)> = vec![
            (0, vec![]),
            (1, vec![None]),
            // Flat: everything under the last session.
            (200, (0..200).map(|i| (i != 199).then_some(199)).collect()),
            // A chain.
            (130, (0..130usize).map(|i| i.checked_sub(1)).collect()),
            // 8-ary, parents across word boundaries.
            (
                1000,
                (0..1000).map(|i| (i > 0).then(|| (i - 1) / 8)).collect(),
            ),
            // Scattered: parent positions 63, 64, 127, 128 and 0.
            (
                300,
                (0..300)
                    .map(|i| [Some(63), Some(64), Some(127), Some(128), Some(0), None][i % 6])
                    .collect(),
            ),
        ];
        for (n, parent) in shapes {
            let edges = || (0..n).filter_map(|i| parent[i].map(|p| (i, p)));
            let (spans, children) = ChildSpans::build(n, edges);
            for p in 0..n + 70 {
                let want: Vec<SessionPos> = (0..n)
                    .filter(|&i| parent[i] == Some(p))
                    .map(SessionPos::new)
                    .collect();
                assert_eq!(children[spans.span(p)], want[..], "n {n}, parent {p}");
            }
            let total: usize = spans.spans().map(|s| s.len()).sum();
            assert_eq!(total, children.len(), "n {n}");
        }
    }
}
