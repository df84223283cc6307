//! Which logs a listing will inspect, guessed while the store is still
//! being enumerated (`store::set::ahead`): a subagent whose parent is the top of
//! the listed tree, or reaches it through the edges probed so far. The
//! guess sees only sessions probed before (directory order, in parallel),
//! so a child found before its parent is simply inspected later, and its
//! own children, found after it, are still read ahead once the edges above
//! them are known. The edges the last listing saw (`store::accel::edge_cache`)
//! are known from the start, so with them the order does not matter. A
//! guess is never an answer.

use crate::tree::Corpus;
use dsh_store::accel::{SUBAGENT, edge_key as key};
use dsh_store::format::Dialect;
use dsh_store::format::Header;
use dsh_store::set::PassThrough;
use dsh_store::set::ReadAhead;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::path::Path;
use std::sync::RwLock;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The guess for one listing. Sessions are held by 32 bits of a hash of
/// their id (8 bytes an edge: a million sessions cost 16 MiB less than
/// whole keys would): a collision only reads a log the listing may not
/// need, or reads later one it needs.
pub struct ListingAhead {
    top: u32,
    /// Each session probed with a parent (through an edge the listing
    /// walks): its parent, or `IN_TREE` once it is known to reach the top.
    up: RwLock<Edges>,
    /// Only `origin: "subagent"` edges lead down (v2); rc.8's descendants
    /// walk every `parentSession` edge.
    subagent_edges: bool,
    /// The whole subtree, not only the top's children.
    deep: bool,
    dialect: Dialect,
    /// Headers judged, and how many were wanted: whether the next one is
    /// likely wanted.
    judged: AtomicUsize,
    wanted: AtomicUsize,
}

/// Child → parent, by keys that are hashes already.
type Edges = HashMap<u32, u32, BuildHasherDefault<PassThrough>>;

/// Headers judged before the share wanted is believed.
const SAMPLE: usize = 64;

const IN_TREE: u32 = u32::MAX;

/// The 32 bits of an id's key a guess holds.
fn short(key: u64) -> u32 {
    (key >> 32) as u32 ^ key as u32
}

/// Steps walked up before a guess gives up: a long chain of sessions whose
/// top is not known yet costs a later read, never a quadratic walk.
const MAX_WALK: usize = 32;

impl ListingAhead {
    fn new(top: &str, subagent_edges: bool, deep: bool, dialect: Dialect) -> Self {
        ListingAhead {
            top: short(key(top)),
            up: RwLock::new(Edges::default()),
            subagent_edges,
            deep,
            dialect,
            judged: AtomicUsize::new(0),
            wanted: AtomicUsize::new(0),
        }
    }

    /// For the v2 tree holding `caller`, an exact Session id; `None` when
    /// the caller is not found by its path (the listing then reads as
    /// before).
    pub fn v2(store_root: &Path, caller: &str) -> Option<Self> {
        let located = dsh_store::open(
            store_root,
            dsh_store::Plan::Exactly {
                ids: &[caller],
                up: dsh_store::set::Ancestry::Whole,
                ahead: None,
            },
        )
        .ok()?;
        let corpus = Corpus::new(&located);
        let root = corpus.root_of(located.index_of(caller)?).ok()?;
        Some(ListingAhead::new(
            corpus.id(root),
            true,
            true,
            Dialect::Seed001,
        ))
    }

    /// For rc.8's listing of `caller`'s children, or of its descendants.
    pub fn v1(caller: &str, descendants: bool) -> Self {
        ListingAhead::new(caller, false, descendants, Dialect::Rc8)
    }

    /// Start from the edges an earlier listing saw (`edge_cache::load`):
    /// each is believed until the probe of its child replaces it.
    pub fn with_edges(self, edges: &[(u64, u64)]) -> Self {
        if !self.deep {
            return self;
        }
        let mut up = self.up.write().unwrap_or_else(|e| e.into_inner());
        up.reserve(edges.len());
        for &(child, parent) in edges {
            if !self.subagent_edges || parent & SUBAGENT != 0 {
                up.insert(short(child), short(parent & !SUBAGENT));
            }
        }
        drop(up);
        self
    }
}

impl ReadAhead for ListingAhead {
    fn wanted(&self, header: &Header) -> bool {
        self.judged.fetch_add(1, Ordering::Relaxed);
        let wanted = self.guess(header);
        if wanted {
            self.wanted.fetch_add(1, Ordering::Relaxed);
        }
        wanted
    }

    fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// Until `SAMPLE` headers are judged, yes; then while at least half
    /// of them were wanted.
    fn likely(&self) -> bool {
        let judged = self.judged.load(Ordering::Relaxed);
        judged < SAMPLE || self.wanted.load(Ordering::Relaxed) * 2 >= judged
    }
}

impl ListingAhead {
    fn guess(&self, header: &Header) -> bool {
        let Some(parent) = header.parent() else {
            return false;
        };
        if self.subagent_edges && !header.origin_subagent {
            return false;
        }
        let parent = short(key(parent));
        if !self.deep {
            return parent == self.top && header.origin_subagent;
        }
        let mut up = self.up.write().unwrap_or_else(|e| e.into_inner());
        let in_tree = self.reaches_top(&mut up, parent);
        up.insert(
            short(key(header.id())),
            if in_tree { IN_TREE } else { parent },
        );
        in_tree && header.origin_subagent
    }

    /// Whether `at` reaches the top; the sessions passed on the way are
    /// marked when it does, so the next walk through them is one step.
    fn reaches_top(&self, up: &mut Edges, from: u32) -> bool {
        let mut passed = Vec::new();
        let mut at = from;
        let found = (0..MAX_WALK).find_map(|_| {
            if at == self.top {
                return Some(true);
            }
            match up.get(&at) {
                Some(&IN_TREE) => Some(true),
                Some(&parent) => {
                    passed.push(at);
                    at = parent;
                    None
                }
                None => Some(false),
            }
        });
        if found == Some(true) {
            for session in passed {
                up.insert(session, IN_TREE);
            }
        }
        found == Some(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dsh_store::format::{HeaderParse, parse_header_line};

    fn header(id: &str, parent: &str, subagent: bool) -> Header {
        let origin = if subagent {
            r#","origin":"subagent""#
        } else {
            ""
        };
        let text = format!(
            r#"{{"type":"session","version":0,"id":"{id}","createdAt":1,"delegationDepth":1,"parentSession":"{parent}"{origin}}}"#
        );
        match parse_header_line(&text) {
            HeaderParse::Valid(h) => *h,
            _ => panic!("not a header: {text}"),
        }
    }

    /// Each guess in the order the probes see the headers: (id, parent,
    /// subagent, wanted).
    #[test]
    fn guesses_follow_the_edges_each_listing_walks() {
        type Seen = &'static [(&'static str, &'static str, bool, bool)];
        let v2 = || ListingAhead::new("top", true, true, Dialect::Seed001);
        let children = || ListingAhead::v1("top", false);
        let descendants = || ListingAhead::v1("top", true);
        let cases: [(&str, ListingAhead, Seen); 4] = [
            (
                "v2: subagent edges, the whole subtree",
                v2(),
                &[
                    ("a", "top", true, true),
                    ("fork", "top", false, false),
                    ("a1", "a", true, true),
                    ("below-fork", "fork", true, false),
                    ("other", "elsewhere", true, false),
                ],
            ),
            (
                "v2: a child probed before its parent is left for later, \
                 its own children are not",
                v2(),
                &[
                    ("b1", "b", true, false),
                    ("b", "top", true, true),
                    ("b11", "b1", true, true),
                    ("b111", "b11", true, true),
                ],
            ),
            (
                "v1 children: the top's subagents only",
                children(),
                &[("a", "top", true, true), ("a1", "a", true, false)],
            ),
            (
                "v1 descendants: every edge leads down, subagents are read",
                descendants(),
                &[
                    ("fork", "top", false, false),
                    ("below-fork", "fork", true, true),
                    ("a", "top", true, true),
                    ("a1", "a", true, true),
                ],
            ),
        ];
        for (what, ahead, seen) in cases {
            for (id, parent, subagent, wanted) in seen {
                assert_eq!(
                    ahead.wanted(&header(id, parent, *subagent)),
                    *wanted,
                    "{what}: {id}"
                );
            }
        }
    }

    /// With the edges an earlier listing saw, a child probed before its
    /// parent is read ahead too; a stale edge only guesses wrong.
    #[test]
    fn saved_edges_make_the_order_not_matter() {
        let edges = [
            (key("b"), key("top") | SUBAGENT),
            (key("b1"), key("b") | SUBAGENT),
            (key("fork"), key("top")),
            (key("f1"), key("fork") | SUBAGENT),
        ];
        let v2 = ListingAhead::new("top", true, true, Dialect::Seed001).with_edges(&edges);
        for (id, parent, wanted) in [
            ("b11", "b1", true),
            ("f11", "f1", false),
            ("b1", "b", true),
            ("b", "top", true),
            ("x1", "x", false),
        ] {
            assert_eq!(v2.wanted(&header(id, parent, true)), wanted, "v2 {id}");
        }
        let v1 = ListingAhead::v1("top", true).with_edges(&edges);
        assert!(
            v1.wanted(&header("f11", "f1", true)),
            "v1 walks the fork edge"
        );
    }

    /// The first read takes a log whole while at least half of the headers
    /// judged (after the first `SAMPLE`) were wanted.
    #[test]
    fn whole_first_reads_follow_the_share_wanted() {
        for (wanted_of_100, likely) in [(100, true), (50, true), (49, false), (0, false)] {
            let ahead = ListingAhead::v1("top", false);
            assert!(ahead.likely(), "before any header");
            for n in 0..100 {
                let parent = if n < wanted_of_100 { "top" } else { "other" };
                ahead.wanted(&header(&format!("s{n}"), parent, true));
            }
            assert_eq!(ahead.likely(), likely, "{wanted_of_100} of 100 wanted");
        }
    }
}
