//! Opening just enough of the store for a v2 tool that names its target:
//! the caller located by path, its root found up its ancestry, and the
//! sessions the name could mean found through the name index, each read
//! from the store. Anything that does not fit this path (an unnamed or
//! unlocated caller, a cycle above it, no usable cache) scans instead.

use super::Corpus;
use dsh_store::accel::{NameIndex, Opened};
use dsh_store::{Plan, Store, StoreError};
use std::path::Path;

/// The store a v2 `send_message` / `interrupt_agent` from `caller` to
/// `agent` needs. `cache`: the name index's directory (`None`: scan);
/// `read_ahead`: each located log read whole as it is probed.
pub fn open_for_name(
    root: &Path,
    cache: Option<&Path>,
    caller: Option<&str>,
    agent: &str,
    read_ahead: bool,
) -> Result<Store, StoreError> {
    let whole = |why: &str| dsh_store::open(root, Plan::Whole { why });
    let (Some(cache), Some(caller)) = (cache, caller) else {
        return whole(if cache.is_none() {
            "no name index (--no-cache)"
        } else {
            "no caller named"
        });
    };
    // Every log located here is inspected under the v2 rules (the caller's
    // ancestry, the candidates): read whole as it is probed, opened once.
    let ahead = dsh_store::set::Located(dsh_store::format::Dialect::Seed001);
    let located = match dsh_store::open(
        root,
        Plan::Exactly {
            ids: &[caller],
            up: dsh_store::set::Ancestry::Whole,
            ahead: read_ahead.then_some(&ahead),
        },
    ) {
        Ok(located) => located,
        Err(StoreError::NotLocated { .. }) => {
            return whole("the caller is not an exact id found by its path");
        }
        Err(e) => return Err(e),
    };
    // A cache inside the store would be a project directory to DSH.
    if dsh_store::files::inside_store(cache, &located.root) {
        return whole("the name index would lie inside the store");
    }
    let corpus = Corpus::new(&located);
    let Some(tree_root) = located
        .index_of(caller)
        .and_then(|i| corpus.root_of(i).ok())
        .map(|r| corpus.id(r).to_string())
    else {
        return whole("the caller's root is not found up its ancestry");
    };
    let index = match NameIndex::open(cache, &located.root)? {
        Opened::Index(index) => index,
        Opened::Scanned(store) => {
            crate::support::debug::plan(|| {
                "whole store: the name index did not fit the store (rebuilt from this scan)".into()
            });
            return Ok(*store);
        }
    };
    // Every session each step of the name path could be, level by level,
    // walked by the one name rule over the index's edges.
    let mut candidates: Vec<String> = vec![agent.to_string()];
    super::name_path::walk(&Indexed(&index), tree_root, agent, |level| {
        for id in level {
            // An id stands in for an unnamed child under each parent alike.
            if !candidates.contains(id) {
                candidates.push(id.clone());
            }
        }
    });
    let also: Vec<&str> = candidates.iter().map(String::as_str).collect();
    crate::support::debug::plan(|| {
        format!(
            "located the caller {caller} and {} candidate(s) for \"{agent}\" through the name index",
            candidates.len()
        )
    });
    located.locate_more(&also)
}

/// The name index's edges. It holds named children only: an unnamed
/// child's id is a candidate the located store then confirms or not.
struct Indexed<'i>(&'i NameIndex);

impl super::name_path::Children for Indexed<'_> {
    type Node = String;

    fn named(&self, parent: &String, segment: &str) -> Vec<String> {
        self.0.children_named(parent, segment)
    }

    fn unnamed(&self, _parent: &String, segment: &str) -> Vec<String> {
        vec![segment.to_string()]
    }
}
