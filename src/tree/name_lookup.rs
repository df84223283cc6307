//! Opening just enough of the store for a v2 tool that names its target:
//! the caller located by path, its root found up its ancestry, and the
//! sessions the name could mean found through the name index, each read
//! from the store. Anything that does not fit this path (an unnamed or
//! unlocated caller, a cycle above it, no usable cache) scans instead.

use super::Corpus;
use crate::store::header::ROOT_NAME;
use crate::store::name_index::{NameIndex, Opened};
use crate::store::{Plan, Store, StoreError};
use std::path::Path;

/// The store a v2 `send_message` / `interrupt_agent` from `caller` to
/// `agent` needs. `cache`: the name index's directory (`None`: scan).
pub fn open_for_name(
    root: &Path,
    cache: Option<&Path>,
    caller: Option<&str>,
    agent: &str,
) -> Result<Store, StoreError> {
    let whole = |why: &str| crate::store::open(root, Plan::Whole { why });
    let (Some(cache), Some(caller)) = (cache, caller) else {
        return whole(if cache.is_none() {
            "no name index (--no-cache)"
        } else {
            "no caller named"
        });
    };
    // Every log located here is inspected under the v2 rules (the caller's
    // ancestry, the candidates): read whole as it is probed, opened once.
    let ahead = crate::store::ahead::Located(crate::store::descriptor::Dialect::Seed001);
    let located = match crate::store::open(
        root,
        Plan::Exactly {
            ids: &[caller],
            up: crate::store::locate::Ancestry::Whole,
            ahead: Some(&ahead),
        },
    ) {
        Ok(located) => located,
        Err(StoreError::NotLocated { .. }) => {
            return whole("the caller is not an exact id found by its path");
        }
        Err(e) => return Err(e),
    };
    // A cache inside the store would be a project directory to DSH.
    if crate::store::name_index::inside_store(cache, &located.root) {
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
    // Every session each step of the name path could be, level by level.
    let mut candidates: Vec<String> = vec![agent.to_string()];
    if agent != ROOT_NAME {
        let mut level = vec![tree_root];
        for segment in agent.split('/') {
            let mut next: Vec<String> = level
                .iter()
                .flat_map(|p| index.children_named(p, segment))
                .collect();
            // An unnamed member's segment is its Session id (the resolver
            // decides whether it really is a child there).
            if next.is_empty() {
                next.push(segment.to_string());
            }
            candidates.extend(next.iter().cloned());
            level = next;
            if level.is_empty() {
                break;
            }
        }
    }
    let also: Vec<&str> = candidates.iter().map(String::as_str).collect();
    crate::support::debug::plan(|| {
        format!(
            "located the caller {caller} and {} candidate(s) for \"{agent}\" through the name index",
            candidates.len()
        )
    });
    located.locate_more(&also)
}
