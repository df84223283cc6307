//! `list_agents`: both contracts' semantics and their byte-exact rendered
//! text (contract §5).

use super::Context;
use crate::error::Result;
use crate::store::descriptor::Mode;
use crate::support::json_out;
use crate::tree::names::{NameRef, Names};
use crate::tree::v1::{Diagnostic, V1Row, V1Status};
use crate::tree::v2::{Member, MemberKind, V2Status};
use serde_json::json;

/// The v1 `scope` argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Children,
    Descendants,
}

impl Scope {
    pub const NAMES: &[&str] = &["children", "descendants"];

    pub fn parse(s: &str) -> Option<Scope> {
        match s {
            "children" => Some(Scope::Children),
            "descendants" => Some(Scope::Descendants),
            _ => None,
        }
    }
}

/// One v1 entry as the tool returns it: a row the tool keeps (a
/// continuable child or a diagnostic), with its parent and depth for the
/// descendants scope. Compact, since a listing holds one per descendant.
#[derive(Debug, Clone)]
pub struct V1Entry {
    pub id: Box<str>,
    pub shown: Shown,
    pub at: Option<(std::sync::Arc<str>, u64)>,
}

/// What a v1 entry shows after its id.
#[derive(Debug, Clone)]
pub enum Shown {
    Child {
        label: Option<Box<str>>,
        status: V1Status,
    },
    Diagnostic(Diagnostic),
}

/// rc.8 `list_agents` for the context's caller.
pub fn list_v1(cx: &Context, scope: Scope) -> Vec<V1Entry> {
    let corpus = &cx.corpus;
    let caller = cx.caller.id.as_str();
    let positions = match scope {
        Scope::Children => corpus.v1_children(caller),
        Scope::Descendants => corpus.v1_descendants(caller),
    };
    let entries = crate::support::parallel::par_map(&positions, |p| {
        let (id, shown) = match corpus.resolve_v1(p.index)? {
            // One-shot children cannot be continued; the tool drops them.
            V1Row::Child { mode, .. } if mode != Mode::Continuable => return None,
            V1Row::Child {
                id, label, status, ..
            } => (
                id,
                Shown::Child {
                    label: label.map(String::into_boxed_str),
                    status,
                },
            ),
            V1Row::Diagnostic { id, reason } => (id, Shown::Diagnostic(reason)),
        };
        let at = (scope == Scope::Descendants).then(|| (p.parent.clone(), p.depth));
        Some(V1Entry {
            id: id.into_boxed_str(),
            shown,
            at,
        })
    });
    corpus.store.release_glances();
    // Collected in place, so the kept entries reuse the buffer: std does
    // that through `filter_map`, not through `flatten`.
    #[allow(clippy::filter_map_identity)]
    entries.into_iter().filter_map(|e| e).collect()
}

/// The v1 text handed to `out` a row at a time: the listing's text is
/// never held whole beside its rows.
pub fn render_v1_to(entries: &[V1Entry], out: &mut dyn FnMut(&str)) {
    use std::fmt::Write;
    if entries.is_empty() {
        return out("(no subagents)");
    }
    let mut line = String::new();
    for (n, e) in entries.iter().enumerate() {
        line.clear();
        if n > 0 {
            line.push('\n');
        }
        let id = &e.id;
        let _ = match &e.shown {
            Shown::Child { status, .. } => write!(line, "{id} [{}]", status.as_str()),
            Shown::Diagnostic(reason) => write!(line, "{id} [diagnostic: {}]", reason.as_str()),
        };
        if let Some((p, d)) = &e.at {
            let _ = write!(line, " parent={p} depth={d}");
        }
        if let Shown::Child { label, .. } = &e.shown {
            let _ = write!(line, " — {}", label.as_deref().unwrap_or(""));
        }
        out(&line);
    }
}

/// The v1 listing as JSON, handed to `out` an entry at a time.
pub fn json_v1_to(entries: &[V1Entry], out: &mut dyn FnMut(&str)) {
    let items = entries.iter().map(|e| {
        let id = &*e.id;
        let mut v = match &e.shown {
            Shown::Child { label, status } => {
                json!({"kind":"child","id":id,"label":label.as_deref().unwrap_or(""),"status":status.as_str()})
            }
            Shown::Diagnostic(reason) => {
                json!({"kind":"diagnostic","id":id,"reason":reason.as_str()})
            }
        };
        if let Some((p, d)) = &e.at {
            v["parent"] = json!(&**p);
            v["depth"] = json!(d);
        }
        v
    });
    json_out::array_to(items, out);
}

/// A listed v2 row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct V2Row {
    pub name: NameRef,
    pub status: V2Status,
    /// Where the description is in the listing's `descriptions`, if any.
    description: Option<(usize, usize)>,
}

/// A v2 listing: its rows, and their names held as steps.
#[derive(Debug, Default)]
pub struct V2Listing {
    pub rows: Vec<V2Row>,
    pub names: Names,
    /// Every row's description, one after another: a string apiece would
    /// cost an allocation each at a million rows.
    descriptions: String,
}

impl V2Listing {
    /// The description of `row`, if it has one.
    pub fn description(&self, row: &V2Row) -> Option<&str> {
        row.description
            .map(|(start, end)| &self.descriptions[start..end])
    }
}

/// The listed rows of a v2 tree, made as the walk hands each member over
/// (every member's name is taken, listed or not: a one-shot's listed
/// children name it in their paths).
pub fn v2_rows(members: impl Iterator<Item = Member>) -> V2Listing {
    let mut names = Names::default();
    let mut descriptions = String::new();
    let mut rows = Vec::with_capacity(members.size_hint().1.unwrap_or(0));
    rows.extend(members.filter_map(|m| {
        let name = names.take(&m.name);
        if !m.kind.is_listed() {
            return None;
        }
        let status = m.status();
        let description = match &m.kind {
            MemberKind::Root => Some("root agent"),
            MemberKind::Continuable { label } if !label.is_empty() => Some(label.as_str()),
            _ => None,
        };
        Some(V2Row {
            name,
            status,
            description: description.map(|d| {
                let start = descriptions.len();
                descriptions.push_str(d);
                (start, descriptions.len())
            }),
        })
    }));
    V2Listing {
        rows,
        names,
        descriptions,
    }
}

/// Seed-001 `list_agents`: the whole tree holding the caller.
pub fn list_v2(cx: &Context) -> Result<V2Listing> {
    let root = cx.root()?;
    // The walk classifies its members as it is made: what was read ahead
    // is all taken by then.
    let walk = cx.corpus.v2_walk(root, false);
    cx.corpus.store.release_glances();
    let mut listing = v2_rows(walk);
    // A root log DSH itself could not reopen (two writers left duplicate
    // seqs, say) is a problem here too, not an inactive root. Resumed from
    // the scan cache a send left, if any; a listing writes no cache.
    let rec = cx.corpus.record(root);
    let look = crate::store::scan_cache::ScanCache::default();
    if let Some(first) = listing.rows.first_mut()
        && look.inspect(&rec.log(), &rec.dir()).is_err()
    {
        first.status = V2Status::Unavailable;
    }
    Ok(listing)
}

/// The v2 text handed to `out` a row at a time (see `render_v1_to`).
pub fn render_v2_to(listing: &V2Listing, out: &mut dyn FnMut(&str)) {
    use std::fmt::Write;
    let mut line = String::new();
    for (n, r) in listing.rows.iter().enumerate() {
        line.clear();
        if n > 0 {
            line.push('\n');
        }
        listing.names.write(r.name, &mut line);
        let _ = write!(line, " [{}]", r.status.as_str());
        if let Some(d) = listing.description(r) {
            let _ = write!(line, " — {d}");
        }
        out(&line);
    }
}

/// The v2 listing as JSON, handed to `out` a row at a time.
pub fn json_v2_to(listing: &V2Listing, out: &mut dyn FnMut(&str)) {
    let items = listing.rows.iter().map(|r| {
        let mut v = json!({"name": listing.names.name(r.name), "status": r.status.as_str()});
        if let Some(d) = listing.description(r) {
            v["description"] = json!(d);
        }
        v
    });
    json_out::array_to(items, out);
}
