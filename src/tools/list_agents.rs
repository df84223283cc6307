//! `list_agents`: both contracts' semantics and their byte-exact rendered
//! text (contract §5).

use super::Context;
use crate::error::Result;
use crate::support::json_out;
use crate::tree::names::{NameRef, Names};
use crate::tree::v1::{Diagnostic, V1Row, V1Status};
use crate::tree::v2::{Member, MemberKind, V2Status};
use dsh_store::format::Mode;
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

/// The v1 entries as the tool returns them, their text in one buffer: a
/// listing holds one per descendant, and a string apiece would cost an
/// allocation each at a million.
#[derive(Debug, Clone, Default)]
pub struct V1Listing {
    entries: Vec<V1Entry>,
    text: String,
}

/// One v1 entry: a row the tool keeps (a continuable child or a
/// diagnostic), with its parent and depth for the descendants scope. Its
/// id, label and parent id follow one another in the listing's text from
/// `start` (32 bytes an entry).
#[derive(Debug, Clone)]
struct V1Entry {
    start: usize,
    id_len: u32,
    /// `ABSENT`: no label (a diagnostic).
    label_len: u32,
    /// `ABSENT`: no parent shown (children scope).
    parent_len: u32,
    depth: u32,
    shown: Shown,
}

const ABSENT: u32 = u32::MAX;

/// What a v1 entry shows after its id.
#[derive(Debug, Clone, Copy)]
enum Shown {
    Child(V1Status),
    Diagnostic(Diagnostic),
}

/// An entry's id, label and parent id.
struct Texts<'l> {
    id: &'l str,
    label: Option<&'l str>,
    parent: Option<&'l str>,
}

impl V1Listing {
    /// Append `s` to the text; its length, or `ABSENT` for none. A piece
    /// is one line of a log at most, far below 4 GiB.
    fn put(&mut self, s: Option<&str>) -> u32 {
        match s {
            Some(s) => {
                self.text.push_str(s);
                u32::try_from(s.len()).unwrap_or(ABSENT - 1)
            }
            None => ABSENT,
        }
    }

    fn texts(&self, e: &V1Entry) -> Texts<'_> {
        let mut at = e.start;
        let mut take = |len: u32| {
            (len != ABSENT).then(|| {
                let s = &self.text[at..at + len as usize];
                at += len as usize;
                s
            })
        };
        let id = take(e.id_len).unwrap_or_default();
        let label = take(e.label_len);
        let parent = take(e.parent_len);
        Texts { id, label, parent }
    }
}

/// One resolved v1 entry as the tool shows it (`parent` and `depth` for
/// the descendants scope).
struct V1View<'l> {
    id: &'l str,
    shown: Shown,
    label: Option<&'l str>,
    parent: Option<&'l str>,
    depth: u32,
}

/// rc.8 `list_agents` for the context's caller: its entries in order with
/// their parent ids, resolved a batch at a time in parallel as they are
/// asked for, so neither the candidates nor the rows of a large listing
/// are ever all held.
fn v1_entries<'c>(
    cx: &'c Context,
    scope: Scope,
) -> impl Iterator<Item = (V1Row, Option<&'c str>, u32)> + 'c {
    let corpus = &cx.corpus;
    let caller = cx.caller.id.as_str();
    let mut candidates: Box<dyn Iterator<Item = crate::tree::v1::Position> + 'c> = match scope {
        Scope::Children => Box::new(corpus.v1_children(caller)),
        Scope::Descendants => Box::new(corpus.v1_descendants(caller)),
    };
    std::iter::from_fn(move || {
        let batch: Vec<_> = candidates.by_ref().take(4096).collect();
        (!batch.is_empty()).then_some(batch)
    })
    .flat_map(move |batch| {
        let rows = crate::support::parallel::par_map(&batch, |p| {
            match corpus.resolve_v1(p.index.get())? {
                // One-shot children cannot be continued; the tool drops them.
                V1Row::Child { mode, .. } if mode != Mode::Continuable => None,
                row => Some((row, *p)),
            }
        });
        rows.into_iter().flatten().map(move |(row, p)| {
            let parent = (scope == Scope::Descendants)
                .then(|| p.parent.map_or(caller, |i| corpus.id(i.get())));
            (row, parent, p.depth)
        })
    })
}

/// A resolved row's view.
fn v1_view<'l>(row: &'l V1Row, parent: Option<&'l str>, depth: u32) -> V1View<'l> {
    match row {
        V1Row::Child {
            id, label, status, ..
        } => V1View {
            id,
            shown: Shown::Child(*status),
            // rc.8 shows a missing label as an empty one.
            label: Some(label.as_deref().unwrap_or("")),
            parent,
            depth,
        },
        V1Row::Diagnostic { id, reason } => V1View {
            id,
            shown: Shown::Diagnostic(*reason),
            label: None,
            parent,
            depth,
        },
    }
}

/// rc.8 `list_agents` for the context's caller, held (the bridge's answer).
pub fn list_v1(cx: &Context, scope: Scope) -> V1Listing {
    let mut listing = V1Listing::default();
    for (row, parent, depth) in v1_entries(cx, scope) {
        let v = v1_view(&row, parent, depth);
        let start = listing.text.len();
        let id_len = listing.put(Some(v.id));
        let label_len = listing.put(v.label);
        let parent_len = listing.put(v.parent);
        listing.entries.push(V1Entry {
            start,
            id_len,
            label_len,
            parent_len,
            depth,
            shown: v.shown,
        });
    }
    cx.corpus.store.release_glances();
    listing
}

/// rc.8 `list_agents` handed to `out` as its entries are resolved: no
/// entry is held, so a listing of a million costs none of its rows.
pub fn stream_v1(cx: &Context, scope: Scope, as_json: bool, out: &mut dyn FnMut(&str)) {
    let entries = v1_entries(cx, scope);
    if as_json {
        json_out::array_to(
            entries.map(|(row, parent, depth)| v1_json(&v1_view(&row, parent, depth))),
            out,
        );
    } else {
        let mut line = String::new();
        let mut n = 0;
        for (row, parent, depth) in entries {
            v1_line(&mut line, n, &v1_view(&row, parent, depth));
            out(&line);
            n += 1;
        }
        if n == 0 {
            out(NO_SUBAGENTS);
        }
    }
    cx.corpus.store.release_glances();
}

/// rc.8's text for a listing with no entry.
const NO_SUBAGENTS: &str = "(no subagents)";

/// One v1 entry's text (`n`: its place, the first has no line break).
fn v1_line(line: &mut String, n: usize, v: &V1View) {
    use std::fmt::Write;
    line.clear();
    if n > 0 {
        line.push('\n');
    }
    let id = v.id;
    let _ = match v.shown {
        Shown::Child(status) => write!(line, "{id} [{}]", status.as_str()),
        Shown::Diagnostic(reason) => write!(line, "{id} [diagnostic: {}]", reason.as_str()),
    };
    if let Some(p) = v.parent {
        let _ = write!(line, " parent={p} depth={}", v.depth);
    }
    if let Some(label) = v.label {
        let _ = write!(line, " — {label}");
    }
}

/// One v1 entry as JSON.
fn v1_json(v: &V1View) -> serde_json::Value {
    let mut j = match v.shown {
        Shown::Child(status) => {
            json!({"kind":"child","id":v.id,"label":v.label.unwrap_or_default(),"status":status.as_str()})
        }
        Shown::Diagnostic(reason) => {
            json!({"kind":"diagnostic","id":v.id,"reason":reason.as_str()})
        }
    };
    if let Some(p) = v.parent {
        j["parent"] = json!(p);
        j["depth"] = json!(v.depth);
    }
    j
}

impl V1Listing {
    fn view(&self, e: &V1Entry) -> V1View<'_> {
        let t = self.texts(e);
        V1View {
            id: t.id,
            shown: e.shown,
            label: t.label,
            parent: t.parent,
            depth: e.depth,
        }
    }
}

/// The v1 text handed to `out` a row at a time: the listing's text is
/// never held whole beside its rows.
pub fn render_v1_to(listing: &V1Listing, out: &mut dyn FnMut(&str)) {
    if listing.entries.is_empty() {
        return out(NO_SUBAGENTS);
    }
    let mut line = String::new();
    for (n, e) in listing.entries.iter().enumerate() {
        v1_line(&mut line, n, &listing.view(e));
        out(&line);
    }
}

/// The v1 listing as JSON, handed to `out` an entry at a time.
pub fn json_v1_to(listing: &V1Listing, out: &mut dyn FnMut(&str)) {
    json_out::array_to(
        listing.entries.iter().map(|e| v1_json(&listing.view(e))),
        out,
    );
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

/// Whether a member is a row of the v2 listing, and if so its status and
/// description.
fn listed(m: &Member) -> Option<(V2Status, Option<&str>)> {
    m.kind
        .is_listed()
        .then(|| (m.status(), description(&m.kind)))
}

/// A listed member's description.
fn description(kind: &MemberKind) -> Option<&str> {
    match kind {
        MemberKind::Root => Some("root agent"),
        MemberKind::Continuable { label } if !label.is_empty() => Some(label.as_str()),
        _ => None,
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
        let (status, description) = listed(&m)?;
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

/// The tree holding the caller, walked: its root, and whether the root's
/// log reads (a root log DSH itself could not reopen, two writers having
/// left duplicate seqs say, is a problem here too, not an inactive root).
fn v2_tree<'c, 'a>(cx: &'c Context<'a>) -> Result<(crate::tree::v2::V2Walk<'c, 'a>, bool)> {
    let root = cx.root()?;
    // Resumed from the scan cache a send left, if any; a listing writes no
    // cache.
    let rec = cx.corpus.record(root);
    let look = dsh_store::accel::ScanCache::default();
    let root_reads = look.inspect(&rec.log(), &rec.dir()).is_ok();
    // What was read ahead is taken as the walk classifies its members; the
    // rest is released when the walk is done (`list_v2`, `stream_v2`).
    let walk = cx.corpus.v2_walk(root, false);
    Ok((walk, root_reads))
}

/// Seed-001 `list_agents`: the whole tree holding the caller, held.
pub fn list_v2(cx: &Context) -> Result<V2Listing> {
    let (walk, root_reads) = v2_tree(cx)?;
    let mut listing = v2_rows(walk);
    cx.corpus.store.release_glances();
    if let Some(first) = listing.rows.first_mut()
        && !root_reads
    {
        first.status = V2Status::Unavailable;
    }
    Ok(listing)
}

/// Seed-001 `list_agents` handed to `out` as the walk goes: no row is
/// held, so a tree of a million members costs none of its rows.
pub fn stream_v2(cx: &Context, as_json: bool, out: &mut dyn FnMut(&str)) -> Result<()> {
    let (walk, root_reads) = v2_tree(cx)?;
    let mut first = true;
    let rows = walk.filter_map(|m| {
        if !m.kind.is_listed() {
            return None;
        }
        let mut status = m.status();
        if std::mem::take(&mut first) && !root_reads {
            status = V2Status::Unavailable;
        }
        Some((m, status))
    });
    if as_json {
        json_out::array_to(
            rows.map(|(m, status)| v2_json(&m.name, status, description(&m.kind))),
            out,
        );
    } else {
        let mut line = String::new();
        for (n, (m, status)) in rows.enumerate() {
            v2_line(&mut line, n, &m.name, status, description(&m.kind));
            out(&line);
        }
    }
    cx.corpus.store.release_glances();
    Ok(())
}

/// One v2 row's text (`n`: its place, the first has no line break).
fn v2_line(line: &mut String, n: usize, name: &str, status: V2Status, description: Option<&str>) {
    use std::fmt::Write;
    line.clear();
    if n > 0 {
        line.push('\n');
    }
    let _ = write!(line, "{name} [{}]", status.as_str());
    if let Some(d) = description {
        let _ = write!(line, " — {d}");
    }
}

/// One v2 row as JSON.
fn v2_json(name: &str, status: V2Status, description: Option<&str>) -> serde_json::Value {
    let mut v = json!({"name": name, "status": status.as_str()});
    if let Some(d) = description {
        v["description"] = json!(d);
    }
    v
}

/// The v2 text handed to `out` a row at a time (see `render_v1_to`).
pub fn render_v2_to(listing: &V2Listing, out: &mut dyn FnMut(&str)) {
    let mut line = String::new();
    let mut name = String::new();
    for (n, r) in listing.rows.iter().enumerate() {
        name.clear();
        listing.names.write(r.name, &mut name);
        v2_line(&mut line, n, &name, r.status, listing.description(r));
        out(&line);
    }
}

/// The v2 listing as JSON, handed to `out` a row at a time.
pub fn json_v2_to(listing: &V2Listing, out: &mut dyn FnMut(&str)) {
    let items = listing.rows.iter().map(|r| {
        v2_json(
            &listing.names.name(r.name),
            r.status,
            listing.description(r),
        )
    });
    json_out::array_to(items, out);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inbox::deliver::Limits;
    use crate::tools::Contract;
    use dsh_store::format::Dialect;
    use dsh_store::format::Header;
    use dsh_store::set::ReadAhead;
    use dsh_store::{self as store, Plan, Store};
    use std::path::{Path, PathBuf};

    /// Reads every log ahead, whole.
    struct Every(Dialect);

    impl ReadAhead for Every {
        fn wanted(&self, _: &Header) -> bool {
            true
        }
        fn dialect(&self) -> Dialect {
            self.0
        }
    }

    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            let target = to.join(entry.file_name());
            if entry.file_type().unwrap().is_dir() {
                copy(&entry.path(), &target);
            } else {
                std::fs::copy(entry.path(), target).unwrap();
            }
        }
    }

    /// Every subagent's log cut to its header line.
    fn cut_subagent_logs(root: &Path) -> usize {
        let mut cut = 0;
        for project in std::fs::read_dir(root).unwrap() {
            for session in std::fs::read_dir(project.unwrap().path()).unwrap() {
                let log: PathBuf = session.unwrap().path().join("session.jsonl");
                let Ok(text) = std::fs::read_to_string(&log) else {
                    continue;
                };
                let header = text.lines().next().unwrap_or_default();
                if header.contains(r#""origin":"subagent""#) {
                    std::fs::write(&log, format!("{header}\n")).unwrap();
                    cut += 1;
                }
            }
        }
        cut
    }

    fn listing(store: &Store, contract: Contract, caller: &str) -> String {
        let cx = Context::new(store, contract, Some(caller), None, Limits::default()).unwrap();
        let mut text = String::new();
        match contract {
            Contract::V1 => stream_v1(&cx, Scope::Descendants, false, &mut |s| text.push_str(s)),
            Contract::V2 => stream_v2(&cx, false, &mut |s| text.push_str(s)).unwrap(),
        }
        text
    }

    /// A listing takes what was read of each log while the store was
    /// enumerated, and opens none again: logs cut short afterwards list as
    /// they read then, under both contracts.
    #[test]
    fn a_listing_lists_what_was_read_ahead() {
        /// Removes the copy when the test ends, passed or failed.
        struct Removed(PathBuf);
        impl Drop for Removed {
            fn drop(&mut self) {
                let _ = std::fs::remove_dir_all(&self.0);
            }
        }
        let carried = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/stores/team");
        let root = std::env::temp_dir().join(format!("dsh-agents-listed-{}", std::process::id()));
        let _removed = Removed(root.clone());
        for (contract, dialect) in [
            (Contract::V1, Dialect::Rc8),
            (Contract::V2, Dialect::Seed001),
        ] {
            let _ = std::fs::remove_dir_all(&root);
            copy(&carried, &root);
            let want = listing(
                &store::open(&root, Plan::Survey).unwrap(),
                contract,
                "lead-1",
            );
            let ahead = store::open(
                &root,
                Plan::WholeAhead {
                    ahead: &Every(dialect),
                    why: "test",
                },
            )
            .unwrap();
            assert!(cut_subagent_logs(&root) > 3);
            assert_eq!(listing(&ahead, contract, "lead-1"), want, "{contract:?}");
            // Read now, the cut logs list otherwise: the test can fail.
            assert_ne!(
                listing(
                    &store::open(&root, Plan::Survey).unwrap(),
                    contract,
                    "lead-1"
                ),
                want
            );
        }
    }
}
