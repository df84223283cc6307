//! Parent → children indexes over an enumerated store, in sibling order,
//! the one cycle-safe walk up `parentSession`, the liveness of each
//! session probed at most once per command, and what a listing reads of
//! each log (read ahead, or now).

use super::collate::sibling_order;
use super::error::TreeError;
use crate::inbox::liveness::{self, LiveState, Liveness};
use crate::store::ahead::Glance;
use crate::store::descriptor::{Dialect, Identity};
use crate::store::{SessionRecord, Store};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU8, Ordering};

pub struct Corpus<'a> {
    pub store: &'a Store,
    /// Every record with a string `parentSession` (forks included).
    all_children: HashMap<&'a str, Vec<usize>>,
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
        let mut all_children: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, rec) in store.sessions.iter().enumerate() {
            if let Some(parent) = rec.header.parent() {
                all_children.entry(parent).or_default().push(i);
            }
        }
        for siblings in all_children.values_mut() {
            siblings.sort_by(|a, b| {
                let (a, b) = (&store.sessions[*a].header, &store.sessions[*b].header);
                sibling_order(a.created_at, a.id(), b.created_at, b.id())
            });
        }
        let mut catalog_identity = HashMap::new();
        for (parent, siblings) in all_children.iter_mut() {
            let Some(p) = store.index_of(parent) else {
                continue;
            };
            let rec = &store.sessions[p];
            if !crate::store::catalog::has_catalogs(rec.generation) {
                continue;
            }
            // A catalog that cannot be read leaves the headers' order and
            // the children's own descriptors (the parent's log is then
            // unreadable, which its own row says).
            if let Ok(rows) = crate::store::catalog::read(rec) {
                catalog_order(store, siblings, &rows, &mut catalog_identity);
            }
        }
        Corpus {
            store,
            all_children,
            catalog_identity,
            live: (0..store.sessions.len())
                .map(|_| AtomicU8::new(LIVE_UNKNOWN))
                .collect(),
        }
    }

    /// The identity the parent's catalog records for `index`, if any.
    pub fn catalog_identity(&self, index: usize) -> Option<&Identity> {
        self.catalog_identity.get(&index)
    }

    pub fn record(&self, index: usize) -> &'a SessionRecord {
        &self.store.sessions[index]
    }

    pub fn id(&self, index: usize) -> &'a str {
        self.store.sessions[index].header.id()
    }

    /// All children of `id` in sibling order, forks included.
    pub fn children_of(&self, id: &str) -> &[usize] {
        self.all_children.get(id).map_or(&[], Vec::as_slice)
    }

    /// Children of `id` reached through `origin:"subagent"` edges.
    pub fn subagent_children_of(&self, id: &str) -> impl Iterator<Item = usize> + '_ {
        self.children_of(id)
            .iter()
            .copied()
            .filter(|i| self.store.sessions[*i].header.origin_subagent)
    }

    /// The session's parent when it is a string naming a session in the store.
    pub fn parent_of(&self, index: usize) -> Option<usize> {
        self.store.sessions[index]
            .header
            .parent()
            .and_then(|p| self.store.index_of(p))
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
            if !self.store.sessions[current].header.origin_subagent {
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
        (0..self.store.sessions.len()).filter(|i| !self.store.sessions[*i].header.origin_subagent)
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
    pub fn live(&self, index: usize) -> Liveness {
        if let Some(l) = live_of(self.live[index].load(Ordering::Relaxed)) {
            return l;
        }
        let rec = &self.store.sessions[index];
        let l = liveness::probe_listed(&rec.dir(), rec.present);
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
    siblings: &mut Vec<usize>,
    rows: &[crate::store::catalog::CatalogRow],
    identities: &mut HashMap<usize, Identity>,
) {
    let mut named = Vec::new();
    for row in rows {
        if let Some(pos) = siblings
            .iter()
            .position(|i| *store.sessions[*i].header.id() == *row.child_id)
        {
            let index = siblings.remove(pos);
            if let Some(identity) = &row.identity {
                identities.insert(index, identity.clone());
            }
            named.push(index);
        }
    }
    named.append(siblings);
    *siblings = named;
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
