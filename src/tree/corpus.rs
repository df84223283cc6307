//! Parent → children indexes over an enumerated store, in sibling order,
//! the one cycle-safe walk up `parentSession`, the liveness of each
//! session probed at most once per command, and what a listing reads of
//! each log (read ahead, or now).

use super::child_spans::ChildSpans;
use super::collate::sibling_order;
use super::error::TreeError;
use crate::inbox::liveness::{self, LiveState, Liveness};
use dsh_store::format::{Dialect, Identity};
use dsh_store::set::Glance;
use dsh_store::{SessionPos, SessionRecord, Store};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU8, Ordering};

pub struct Corpus<'a> {
    pub store: &'a Store,
    /// Every record with a string `parentSession` (forks included),
    /// grouped by parent in sibling order: the children of the session at
    /// position `p` are `children[spans.span(p)]` (4 bytes a child and 4
    /// a parent, where a map of lists cost 40 and more).
    children: Vec<SessionPos>,
    spans: ChildSpans,
    /// The children of parents the store does not hold, by parent id.
    orphans: HashMap<&'a str, Vec<SessionPos>>,
    /// Children named by their parent's catalog (generation 4): the mode
    /// and label the parent recorded, which the listing shows.
    catalog_identity: HashMap<usize, Identity>,
    /// Each session's liveness once probed (`LIVE_UNKNOWN` before): one
    /// byte a session, shared by the threads that probe.
    live: Vec<AtomicU8>,
}

const LIVE_UNKNOWN: u8 = 0;

pub(super) fn live_code(l: Liveness) -> u8 {
    match l {
        Liveness::NotLive => 1,
        Liveness::Live {
            state: LiveState::Idle,
        } => 2,
        Liveness::Live {
            state: LiveState::Running,
        } => 3,
        Liveness::Unknown => 4,
    }
}

pub(super) fn live_of(code: u8) -> Option<Liveness> {
    match code {
        1 => Some(Liveness::NotLive),
        2 => Some(Liveness::Live {
            state: LiveState::Idle,
        }),
        3 => Some(Liveness::Live {
            state: LiveState::Running,
        }),
        4 => Some(Liveness::Unknown),
        _ => None,
    }
}

impl<'a> Corpus<'a> {
    pub fn new(store: &'a Store) -> Self {
        let sessions = store.sessions.len();
        // Positions fit in 32 bits: the id index holds no more. A parent
        // is looked up again on each pass (the orphans', then the spans'
        // three) rather than held: nothing but the children array and a
        // bit a session is kept.
        let parent = |i: usize| {
            let p = store.sessions.parent(i)?;
            let at = store.sessions.parent_at(i).or_else(|| store.index_of(p));
            Some((p, at))
        };
        let mut orphans: HashMap<&str, Vec<SessionPos>> = HashMap::new();
        for i in 0..sessions {
            if let Some((p, None)) = parent(i) {
                orphans.entry(p).or_default().push(SessionPos::new(i));
            }
        }
        let (spans, mut children) = ChildSpans::build(sessions, || {
            (0..sessions).filter_map(|i| parent(i).and_then(|(_, at)| Some((i, at?))))
        });
        let s = &store.sessions;
        // Ties keep enumeration order (positions rise in it), so an
        // in-place sort gives the stable sort's answer without its
        // scratch (4 MiB for a million siblings).
        let order = |a: &SessionPos, b: &SessionPos| {
            let (i, j) = (a.get(), b.get());
            sibling_order(s.created_at(i), s.id(i), s.created_at(j), s.id(j)).then(a.cmp(b))
        };
        for span in spans.spans() {
            children[span].sort_unstable_by(order);
        }
        for siblings in orphans.values_mut() {
            siblings.sort_unstable_by(order);
        }
        let mut catalog_identity = HashMap::new();
        for p in 0..sessions {
            if !dsh_store::set::has_catalogs(s.generation(p)) {
                continue;
            }
            let siblings = &mut children[spans.span(p)];
            if siblings.is_empty() {
                continue;
            }
            // A catalog that cannot be read leaves the headers' order and
            // the children's own descriptors (the parent's log is then
            // unreadable, which its own row says).
            if let Ok(rows) = dsh_store::set::read_catalog(&s.record(p)) {
                catalog_order(store, siblings, &rows, &mut catalog_identity);
            }
        }
        Corpus {
            store,
            children,
            spans,
            orphans,
            catalog_identity,
            live: (0..sessions).map(|_| AtomicU8::new(LIVE_UNKNOWN)).collect(),
        }
    }

    /// The identity the parent's catalog records for `index`, if any.
    pub fn catalog_identity(&self, index: usize) -> Option<&Identity> {
        self.catalog_identity.get(&index)
    }

    /// The session at `index`, made whole (the columns answer `id`,
    /// `parent_of` and the order without making one).
    pub fn record(&self, index: usize) -> SessionRecord {
        self.store.sessions.record(index)
    }

    pub fn id(&self, index: usize) -> &'a str {
        self.store.sessions.id(index)
    }

    /// All children of `id` in sibling order, forks included, by position.
    pub fn children_of(&self, id: &str) -> &[SessionPos] {
        match self.store.index_of(id) {
            Some(p) => &self.children[self.spans.span(p)],
            None => self.orphans.get(id).map_or(&[], Vec::as_slice),
        }
    }

    /// Children of `id` reached through `origin:"subagent"` edges.
    pub fn subagent_children_of(&self, id: &str) -> impl Iterator<Item = usize> + '_ {
        self.children_of(id)
            .iter()
            .map(|i| i.get())
            .filter(|i| self.store.sessions.origin_subagent(*i))
    }

    /// All children of the session at `p` in sibling order, forks
    /// included (by position: no id is looked up).
    pub fn children_at(&self, p: usize) -> &[SessionPos] {
        &self.children[self.spans.span(p)]
    }

    /// Children of the session at `p` reached through `origin:"subagent"`
    /// edges, in sibling order.
    pub fn subagent_children_at(&self, p: usize) -> impl Iterator<Item = usize> + '_ {
        self.children_at(p)
            .iter()
            .map(|i| i.get())
            .filter(|i| self.store.sessions.origin_subagent(*i))
    }

    /// The session's parent when it is a string naming a session in the store.
    pub fn parent_of(&self, index: usize) -> Option<usize> {
        let sessions = &self.store.sessions;
        sessions
            .parent_at(index)
            .or_else(|| sessions.parent(index).and_then(|p| self.store.index_of(p)))
    }

    /// The strict ancestors of `index`, nearest first, through
    /// `parentSession`. The walk ends at a parent the store does not hold;
    /// coming back to a session already passed yields one `Err` and ends.
    pub fn ancestors(&self, index: usize) -> Ancestors<'_, 'a> {
        Ancestors {
            corpus: self,
            walk: vec![index],
            seen: HashSet::from([index]),
            done: false,
        }
    }

    /// Whether `ancestor` is a strict ancestor of `index`.
    pub fn is_ancestor(&self, ancestor: usize, index: usize) -> bool {
        self.ancestors(index).any(|a| a == Ok(ancestor))
    }

    /// The v2 root of a session: follow `parentSession` while the session is
    /// a subagent. A parent missing from the store ends the walk there.
    pub fn root_of(&self, index: usize) -> Result<usize, TreeError> {
        let mut current = index;
        let mut up = self.ancestors(index);
        loop {
            if !self.store.sessions.origin_subagent(current) {
                return Ok(current);
            }
            match up.next() {
                None => return Ok(current),
                Some(parent) => current = parent?,
            }
        }
    }

    /// Tree roots: every session that is not a subagent.
    pub fn roots(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.store.sessions.len()).filter(|i| !self.store.sessions.origin_subagent(*i))
    }

    /// What a listing needs of a session's log: the glance read ahead
    /// while the store was enumerated (taken once), or the log read now.
    /// A child its parent's catalog names (generation 4) shows the mode and
    /// label recorded there.
    pub fn listing_glance(&self, index: usize, dialect: Dialect) -> Glance {
        let glance = self.store.take_glance(index).unwrap_or_else(|| {
            let rec = self.record(index);
            Glance::inspect(&rec.header, &rec.log(), dialect)
        });
        self.with_catalog(index, glance)
    }

    /// A glance with the identity the parent's catalog records, where it
    /// records one (generation 4), in place of the child's descriptor's.
    fn with_catalog(&self, index: usize, glance: Glance) -> Glance {
        match (glance, self.catalog_identity(index)) {
            (
                Glance::Read {
                    same_header,
                    identity: _,
                    usage,
                },
                Some(recorded),
            ) => Glance::Read {
                same_header,
                identity: Some(recorded.clone()),
                usage,
            },
            (glance, _) => glance,
        }
    }

    /// The liveness of a session, probed once per command.
    /// The session's liveness probed afresh (its files, not the listing
    /// the store was opened with), and kept for `live`.
    pub fn relive(&self, index: usize) -> Liveness {
        let l = liveness::probe(&self.store.sessions.dir(index));
        if let Some(slot) = self.live.get(index) {
            slot.store(live_code(l), Ordering::Relaxed);
        }
        l
    }

    pub fn live(&self, index: usize) -> Liveness {
        if let Some(l) = live_of(self.live[index].load(Ordering::Relaxed)) {
            return l;
        }
        let sessions = &self.store.sessions;
        let l = liveness::probe_listed(&sessions.dir(index), sessions.present(index));
        self.live[index].store(live_code(l), Ordering::Relaxed);
        l
    }
}

/// Put the children `rows` name first, in the catalog's order, the others
/// after them in sibling order; note each named child's recorded identity.
/// Edges stay the headers': a row naming a session that is not a child of
/// this parent is passed over.
fn catalog_order(
    store: &Store,
    siblings: &mut [SessionPos],
    rows: &[dsh_store::set::CatalogRow],
    identities: &mut HashMap<usize, Identity>,
) {
    let mut rest = siblings.to_vec();
    let mut named = Vec::new();
    for row in rows {
        if let Some(pos) = rest
            .iter()
            .position(|i| *store.sessions.id(i.get()) == *row.child_id)
        {
            let index = rest.remove(pos);
            if let Some(identity) = &row.identity {
                identities.insert(index.get(), identity.clone());
            }
            named.push(index);
        }
    }
    named.append(&mut rest);
    siblings.copy_from_slice(&named);
}

pub struct Ancestors<'c, 'a> {
    corpus: &'c Corpus<'a>,
    walk: Vec<usize>,
    seen: HashSet<usize>,
    done: bool,
}

impl Iterator for Ancestors<'_, '_> {
    type Item = Result<usize, TreeError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let current = *self.walk.last()?;
        let Some(parent) = self.corpus.parent_of(current) else {
            self.done = true;
            return None;
        };
        self.walk.push(parent);
        if !self.seen.insert(parent) {
            self.done = true;
            let ids = self
                .walk
                .iter()
                .map(|i| self.corpus.id(*i).to_string())
                .collect();
            return Some(Err(TreeError::ParentCycle { ids }));
        }
        Some(Ok(parent))
    }
}
