//! The subagent trees under some roots in preorder, found as they are
//! walked. Invariant: what the walk holds grows with the tree's depth,
//! never its width — a frame a level (a million siblings hold one frame,
//! not a million stacked positions) and a bit of seen a session — so a
//! command that streams a report over a store holds no list of its
//! sessions.

use crate::tree::Corpus;

/// One session of the walk, every parent before its children.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Visit {
    pub index: usize,
    /// The session it hangs under (visited before it); `None` for a root.
    pub parent: Option<usize>,
    /// How far below its root it is (a root is 0).
    pub depth: usize,
    /// How many of its subagent children the walk visits after it.
    pub children: usize,
}

/// The walk: each root, then its subagent children in sibling order, each
/// session once.
pub struct Preorder<'c, 'a, R> {
    corpus: &'c Corpus<'a>,
    roots: R,
    /// Each open session and how far into its children (forks included)
    /// the walk has gone.
    frames: Vec<(usize, usize)>,
    seen: Vec<bool>,
}

impl<'c, 'a, R: Iterator<Item = usize>> Preorder<'c, 'a, R> {
    pub fn new(corpus: &'c Corpus<'a>, roots: R) -> Self {
        Preorder {
            corpus,
            roots,
            frames: Vec::new(),
            seen: vec![false; corpus.store.sessions.len()],
        }
    }
}

impl<R: Iterator<Item = usize>> Iterator for Preorder<'_, '_, R> {
    type Item = Visit;

    fn next(&mut self) -> Option<Visit> {
        loop {
            let (index, parent) = match self.frames.last_mut() {
                Some((p, gone)) => {
                    let kids = &self.corpus.children_at(*p)[*gone..];
                    let sessions = &self.corpus.store.sessions;
                    match kids.iter().position(|c| sessions.origin_subagent(c.get())) {
                        Some(k) => {
                            *gone += k + 1;
                            (kids[k].get(), Some(*p))
                        }
                        None => {
                            self.frames.pop();
                            continue;
                        }
                    }
                }
                None => (self.roots.next()?, None),
            };
            if std::mem::replace(&mut self.seen[index], true) {
                continue;
            }
            let seen = &self.seen;
            let children = self
                .corpus
                .subagent_children_at(index)
                .filter(|c| !seen[*c])
                .count();
            let depth = self.frames.len();
            self.frames.push((index, 0));
            return Some(Visit {
                index,
                parent,
                depth,
                children,
            });
        }
    }
}
