//! Contract v1: rc.8's `listChildren` / `listDescendants` over the header
//! corpus (`reference/dsh-store.md` §7) and its row resolution.

use super::corpus::Corpus;
use crate::inbox::liveness::{LiveState, Liveness};
use dsh_store::SessionPos;
use dsh_store::format::{Dialect, Mode};
use dsh_store::set::Glance;

/// A v1 candidate with its durable direct parent and depth, by position
/// in the store (12 bytes: a listing holds one per descendant).
#[derive(Debug, Clone, Copy)]
pub struct Position {
    pub index: SessionPos,
    /// The parent's position, `None` for the listing's own root (which the
    /// store may not hold).
    pub parent: Option<SessionPos>,
    pub depth: u32,
}

/// rc.8's status words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum V1Status {
    Running,
    Idle,
    Ready,
}

impl V1Status {
    pub fn as_str(self) -> &'static str {
        match self {
            V1Status::Running => "running",
            V1Status::Idle => "idle",
            V1Status::Ready => "ready",
        }
    }
}

/// rc.8's diagnostic reasons.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Diagnostic {
    Corrupt,
    Unavailable,
}

impl Diagnostic {
    pub fn as_str(self) -> &'static str {
        match self {
            Diagnostic::Corrupt => "corrupt",
            Diagnostic::Unavailable => "unavailable",
        }
    }
}

/// A resolved v1 row (rc.8 `resolveCandidateRows` + the tool projection).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum V1Row {
    Child {
        id: String,
        mode: Mode,
        label: Option<String>,
        status: V1Status,
    },
    Diagnostic {
        id: String,
        reason: Diagnostic,
    },
}

/// rc.8's descendants of a session, in its order (`v1_descendants`).
pub struct V1Descendants<'c, 'a> {
    corpus: &'c Corpus<'a>,
    visited: Vec<u64>,
    /// The children of each session on the path still to visit, with their
    /// parent and depth.
    frames: Vec<(&'c [SessionPos], Option<SessionPos>, u32)>,
}

impl Iterator for V1Descendants<'_, '_> {
    type Item = Position;

    fn next(&mut self) -> Option<Position> {
        loop {
            let (children, parent, depth) = self.frames.last_mut()?;
            let Some((&index, rest)) = children.split_first() else {
                self.frames.pop();
                continue;
            };
            *children = rest;
            let (parent, depth) = (*parent, *depth);
            let i = index.get();
            let (word, bit) = (i / 64, 1u64 << (i % 64));
            if self.visited[word] & bit != 0 {
                continue;
            }
            self.visited[word] |= bit;
            let below = self.corpus.children_of(self.corpus.id(i));
            if !below.is_empty() {
                self.frames.push((below, Some(index), depth + 1));
            }
            if self.corpus.store.sessions.origin_subagent(i) {
                return Some(Position {
                    index,
                    parent,
                    depth,
                });
            }
        }
    }
}

impl<'a> Corpus<'a> {
    /// rc.8 `listChildren` candidates, made as they are asked for (a
    /// million children are not held as a million positions).
    pub fn v1_children(&self, parent: &str) -> impl Iterator<Item = Position> + '_ {
        self.subagent_children_of(parent).map(|index| Position {
            index: SessionPos::new(index),
            parent: None,
            depth: 1,
        })
    }

    /// rc.8 `descendantCandidates`: iterative pre-order, cycle-safe; ordinary
    /// and one-shot sessions are traversal nodes; only subagent-origin
    /// records become candidates. Made as they are asked for: the walk holds
    /// a bit a session and a frame a level, never the candidates.
    pub fn v1_descendants(&self, root: &str) -> V1Descendants<'_, 'a> {
        // Ids are unique in the store: a session is visited once by position.
        let mut visited = vec![0u64; self.store.sessions.len().div_ceil(64)];
        if let Some(r) = self.store.index_of(root) {
            visited[r / 64] |= 1 << (r % 64);
        }
        V1Descendants {
            corpus: self,
            visited,
            frames: vec![(self.children_of(root), None, 1)],
        }
    }

    /// Resolve one v1 candidate; `None` when rc.8 omits it.
    pub fn resolve_v1(&self, index: usize) -> Option<V1Row> {
        let id = self.id(index).to_string();
        let diagnostic = |reason| {
            Some(V1Row::Diagnostic {
                id: id.clone(),
                reason,
            })
        };
        let glance = self.listing_glance(index, Dialect::Rc8);
        // A lock that cannot be probed may be held: idle, never ready.
        let live = match self.live(index) {
            Liveness::Unknown => Liveness::Live {
                state: LiveState::Idle,
            },
            l => l,
        };
        if let Liveness::Live { state } = live {
            // A live session is read from its in-memory projection in DSH; a
            // snapshot that throws is corrupt, a missing identity is omitted.
            let Glance::Read { identity, .. } = glance else {
                return diagnostic(Diagnostic::Corrupt);
            };
            let identity = identity?;
            let status = if state == LiveState::Running {
                V1Status::Running
            } else {
                V1Status::Idle
            };
            return Some(V1Row::Child {
                id,
                mode: identity.mode,
                label: identity.label,
                status,
            });
        }
        let Glance::Read {
            same_header,
            identity,
            ..
        } = glance
        else {
            return diagnostic(Diagnostic::Unavailable);
        };
        if !same_header {
            return diagnostic(Diagnostic::Corrupt);
        }
        match identity {
            None => diagnostic(Diagnostic::Corrupt),
            Some(identity) => Some(V1Row::Child {
                id,
                mode: identity.mode,
                label: identity.label,
                status: V1Status::Ready,
            }),
        }
    }
}
