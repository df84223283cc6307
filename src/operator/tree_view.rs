//! `tree`: every tree in the store drawn for people — one block per root
//! with the hierarchy indented, each agent's state, mode, last turn and
//! pending inbox — or as JSON with parent ids and depths. Roots with no
//! subagents fold into one summary line unless `--all`. Rows never wrap:
//! the view fits the width it is given, cutting names and labels.
//!
//! A block is walked twice: a first walk measures it (`tree_measure`), a
//! second draws it. A block of up to `HOLD_ROWS` rows keeps its rows from
//! the first walk; a larger one is read again, so a tree of any size is
//! drawn in memory that does not grow with it.

use super::table::{cut_to, pad_to, split_at_width, text_width};
use super::tree_cells::{
    Branches, COLUMNS, Clocked, Col, NCOLS, ShortIds, cells, tokens_text, widths,
};
use super::tree_held::Held;
pub use super::tree_held::HeldBlock;
use super::tree_measure::{Filter, Marks, Measure};
use super::tree_rows::{Row, Rows, root_row};
use crate::error::Result;
use crate::support::clock::rfc3339;
use crate::support::json_out;
use crate::tree::Corpus;
use crate::tree::collate::sibling_order;
use crate::tree::v2::Traversal;
use dsh_store::{SessionPos, Store};
use serde_json::json;
use std::borrow::Cow;

/// The width rows are fitted to when the output is not a terminal.
pub const PIPE_WIDTH: usize = 100;

/// The most rows a block keeps between its walks (about 170 bytes each);
/// a larger block is read a second time instead.
pub const HOLD_ROWS: usize = 1 << 17;

/// How the view is drawn for people.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    pub filter: Filter,
    /// Roots with no subagents get a block too.
    pub all: bool,
    /// The TOKENS column, for a tree whose agents used tokens.
    pub usage: bool,
    pub width: usize,
    /// The clock relative times are shown against.
    pub now: i64,
    /// The most rows a block keeps between its walks.
    pub hold: usize,
}

/// Where a block's rows come from for drawing.
enum Source<'c, 'a> {
    Held(Held),
    /// Rows a caller holds (`HeldBlock`).
    Borrowed(&'c Held),
    /// Too many to hold: walked again from the root's row, where the first
    /// walk went.
    Again(&'c Corpus<'a>, Row, Traversal),
}

/// One root and its agents, measured.
struct Block<'c, 'a> {
    title: Option<String>,
    marks: Marks,
    source: Source<'c, 'a>,
}

impl<'c> Block<'c, '_> {
    /// The kept rows in pre-order, with what the first walk learned.
    fn rows(self) -> (Marks, Box<dyn Iterator<Item = Cow<'c, Row>> + Send + 'c>) {
        let rows: Box<dyn Iterator<Item = Cow<'c, Row>> + Send + 'c> = match self.source {
            Source::Held(held) => Box::new(held.into_rows().map(Cow::Owned)),
            Source::Borrowed(held) => Box::new(held.iter().map(Cow::Owned)),
            Source::Again(corpus, first, course) => {
                Box::new(Rows::along(corpus, first, course).map(Cow::Owned))
            }
        };
        (self.marks, rows)
    }
}

/// A walk of at least this many rows reads on a thread of its own while
/// this one measures or writes the rows already read.
const PIPED_ROWS: usize = 4096;

/// Each of `rows` handed to `each`, in order; the rows come back once done.
fn each_row<T: Send, I: Iterator<Item = T> + Send>(mut rows: I, each: impl FnMut(T)) -> I {
    if rows.size_hint().1.is_some_and(|n| n < PIPED_ROWS) {
        rows.by_ref().for_each(each);
        rows
    } else {
        crate::support::parallel::piped(rows, each)
    }
}

/// The first walk of `root`'s tree; `short` when widths are wanted.
fn measure<'c, 'a>(
    corpus: &'c Corpus<'a>,
    root: usize,
    filter: Filter,
    hold: usize,
    mut short: Option<&mut ShortIds>,
) -> Block<'c, 'a> {
    let (first, title) = root_row(corpus, root);
    let mut rows = Rows::new(corpus, first.clone());
    let mut held = rows
        .size_hint()
        .1
        .is_some_and(|n| n <= hold)
        .then(Held::default);
    let mut fold = Fold::new(filter);
    rows = each_row(rows, |r| {
        fold.add(&r, short.as_deref_mut());
        if let Some(h) = &mut held {
            h.push(r);
        }
    });
    Block {
        title,
        marks: fold.finish(),
        source: match held {
            Some(held) => Source::Held(held),
            None => Source::Again(corpus, first, rows.course()),
        },
    }
}

/// The first walk's measure of a block, a row at a time.
struct Fold {
    measure: Measure,
    branches: Branches,
}

impl Fold {
    fn new(filter: Filter) -> Fold {
        Fold {
            measure: Measure::new(filter, COLUMNS.map(|(_, h)| h.len())),
            branches: Branches::default(),
        }
    }

    /// `r` measured; its cells' widths when `short` is given.
    fn add(&mut self, r: &Row, short: Option<&mut ShortIds>) {
        let w = short.map_or([0; NCOLS], |s| widths(r, &mut self.branches, s));
        self.measure.add(r, w);
    }

    fn finish(self) -> Marks {
        self.measure.finish()
    }
}

/// Every block `text_rows_to` would draw (all of them, the folded ones
/// too), its rows held.
pub fn hold(corpus: &Corpus, only: Option<usize>) -> Result<Vec<HeldBlock>> {
    let mut blocks = Vec::new();
    for root in roots(corpus, only)? {
        let (first, title) = root_row(corpus, root.get());
        let mut held = Held::default();
        for r in Rows::new(corpus, first) {
            held.push(r);
        }
        blocks.push(HeldBlock::new(root, title, held));
    }
    Ok(blocks)
}

/// The measure of a held block, drawn from the caller's rows.
fn measure_held<'c>(b: &'c HeldBlock, filter: Filter, short: &mut ShortIds) -> Block<'c, 'c> {
    let mut fold = Fold::new(filter);
    for r in b.held().iter() {
        fold.add(&r, Some(&mut *short));
    }
    Block {
        title: b.title.clone(),
        marks: fold.finish(),
        source: Source::Borrowed(b.held()),
    }
}

/// The roots drawn, in sibling order: every root, or the one above `only`.
fn roots(corpus: &Corpus, only: Option<usize>) -> Result<Vec<SessionPos>> {
    let mut roots: Vec<SessionPos> = match only {
        Some(i) => vec![SessionPos::new(corpus.root_of(i)?)],
        None => corpus.roots().map(SessionPos::new).collect(),
    };
    let s = &corpus.store.sessions;
    roots.sort_by(|a, b| {
        let (a, b) = (a.get(), b.get());
        sibling_order(s.created_at(a), s.id(a), s.created_at(b), s.id(b))
    });
    Ok(roots)
}

/// The session id at a position (a row's own or its parent's).
fn id_at(store: &Store, index: SessionPos) -> &str {
    if index.get() < store.sessions.len() {
        store.sessions.id(index.get())
    } else {
        ""
    }
}

/// The view for people, fitted to `o.width` columns, handed to `out`
/// piece by piece as each block is drawn: neither the trees nor the view
/// are ever held whole.
pub fn text_to(
    corpus: &Corpus,
    only: Option<usize>,
    o: &Options,
    out: &mut dyn FnMut(&str),
) -> Result<()> {
    text_rows_to(corpus, only, o, out, None)
}

/// What each drawn row is handed to: the row, and what `top` keeps of it.
type MemberSink<'s> = dyn FnMut(&Row, Member) + 's;

/// As `text_to`, handing `row` the member of each row it draws, in the
/// order the rows are written (`top` ties its lines to its members so).
pub fn text_rows_to(
    corpus: &Corpus,
    only: Option<usize>,
    o: &Options,
    out: &mut dyn FnMut(&str),
    row: Option<&mut MemberSink>,
) -> Result<()> {
    let roots = roots(corpus, only)?;
    draw_to(
        corpus.store,
        roots.iter().map(|r| r.get()),
        &mut |root, short| (root, measure(corpus, root, o.filter, o.hold, Some(short))),
        o,
        out,
        row,
    );
    Ok(())
}

/// `text_rows_to` for the blocks a caller holds (`hold`), none read
/// again; each block's marks are handed to `marks` as it is measured.
fn held_text_rows_to(
    store: &Store,
    blocks: &[HeldBlock],
    o: &Options,
    out: &mut dyn FnMut(&str),
    row: Option<&mut MemberSink>,
    marks: &mut dyn FnMut(&Marks),
) {
    draw_to(
        store,
        blocks.iter(),
        &mut |b, short| {
            let block = measure_held(b, o.filter, short);
            marks(&block.marks);
            (b.root.get(), block)
        },
        o,
        out,
        row,
    );
}

/// The blocks of `roots` (each measured by `block_of` when its turn comes,
/// with its root's position) drawn as `text_rows_to` says.
fn draw_to<'c, 'a, T>(
    store: &Store,
    roots: impl Iterator<Item = T>,
    block_of: &mut dyn FnMut(T, &mut ShortIds) -> (usize, Block<'c, 'a>),
    o: &Options,
    out: &mut dyn FnMut(&str),
    mut row: Option<&mut MemberSink>,
) {
    let mut short = ShortIds::new(store);
    let mut drawn = 0usize;
    // The roots folded into the summary line: how many, and their ids as
    // far as the line can show them.
    let mut bare = 0usize;
    let mut bare_ids = String::new();
    for root in roots {
        let (root, block) = block_of(root, &mut short);
        if block.marks.count == 0 {
            continue;
        }
        if !o.all && block.marks.count == 1 {
            if text_width(&bare_ids) <= o.width {
                if bare > 0 {
                    bare_ids.push_str(", ");
                }
                bare_ids.push_str(store.sessions.id(root));
            }
            bare += 1;
            continue;
        }
        if drawn > 0 {
            out("\n\n");
        }
        drawn += 1;
        let title = match &block.title {
            Some(t) => format!(
                "tree {} · {}",
                store.sessions.id(root),
                t.replace('\n', " ")
            ),
            None => format!("tree {}", store.sessions.id(root)),
        };
        out(&cut_to(&title, o.width));
        fit(block, o, &mut short, out, &mut |marks, r, first, last| {
            // A member is made only for a caller that takes it.
            if let Some(row) = row.as_mut() {
                row(r, member_of(store, marks, r, first, last, o.now));
            }
        });
    }
    if drawn == 0 && bare == 0 {
        // An empty filtered view says what was filtered.
        out(match (o.filter.live, o.filter.problems) {
            (false, false) => "(no sessions)",
            (true, false) => "(no live agents)",
            (false, true) => "(no problems)",
            (true, true) => "(no live agents with problems)",
        });
    } else if bare > 0 {
        // Ids past what the line shows were not kept: the line is cut
        // before them either way.
        let line = format!("{bare} session(s) without subagents (--all lists them): {bare_ids}");
        if drawn > 0 {
            out("\n\n");
        }
        out(&cut_to(&line, o.width));
    }
}

/// The widths the columns get in `width` terminal columns, from the widest
/// cell of each (`natural`, in `cols` order; two spaces between columns).
/// When they do not all fit, in this order: a long last-turn text is cut
/// to 24, the label to 16; then the label, the mode and the tokens are
/// left out; then the last turn is cut to 12, then left out, then the
/// pending count; what is still too wide (a name wider than the terminal)
/// is cut at the line's end. The name is never cut before that: it is the
/// row's only identifier. `None` is a column left out.
fn layout(cols: &[Col], natural: &[usize], width: usize) -> Vec<Option<usize>> {
    let mut w: Vec<Option<usize>> = natural.iter().map(|n| Some(*n)).collect();
    let total = |w: &[Option<usize>]| {
        let kept: Vec<usize> = w.iter().flatten().copied().collect();
        kept.iter().sum::<usize>() + 2 * kept.len().saturating_sub(1)
    };
    let at = |c: Col| cols.iter().position(|k| *k == c);
    let shrink = |w: &mut Vec<Option<usize>>, c: Col, min: usize| {
        let over = total(w).saturating_sub(width);
        if let Some(k) = at(c)
            && let Some(cur) = w[k]
            && over > 0
        {
            w[k] = Some(cur.saturating_sub(over).max(min.min(cur)));
        }
    };
    let drop = |w: &mut Vec<Option<usize>>, c: Col| {
        if total(w) > width
            && let Some(k) = at(c)
        {
            w[k] = None;
        }
    };
    // NAME is a row's only identifier (an unnamed member's shortest unique
    // id prefix): it is never cut while another column can give way.
    shrink(&mut w, Col::Last, 24);
    shrink(&mut w, Col::Label, 16);
    drop(&mut w, Col::Label);
    drop(&mut w, Col::Mode);
    drop(&mut w, Col::Tokens);
    shrink(&mut w, Col::Last, 12);
    drop(&mut w, Col::Last);
    drop(&mut w, Col::Pending);
    w
}

/// Told of each row as its line is made: the block's marks, the row,
/// whether it is the block's first, and where its last-turn cell sits.
type DrawnRow<'r> = dyn FnMut(&Marks, &Row, bool, Option<LastCellAt>) + 'r;

/// How a block's columns are laid out in its lines.
struct Layout {
    head: Vec<String>,
    /// The shown columns' places among `cols`, with their widths.
    shown: Vec<(usize, usize)>,
    /// Where the last turn's cell sits in a line that is not cut at its end.
    last_at: Option<LastCellAt>,
    usage: bool,
    width: usize,
}

impl Layout {
    fn of(marks: &Marks, o: &Options) -> Layout {
        // A tree whose agents reported no tokens (a store written without a
        // model, or before DSH recorded usage) keeps the name room it had.
        let usage = o.usage && marks.tokens;
        let shown_cols: Vec<(Col, &str, usize)> = COLUMNS
            .iter()
            .zip(marks.natural)
            .filter(|((c, _), _)| usage || *c != Col::Tokens)
            .map(|((c, h), n)| (*c, *h, n))
            .collect();
        let cols: Vec<Col> = shown_cols.iter().map(|c| c.0).collect();
        let natural: Vec<usize> = shown_cols.iter().map(|c| c.2).collect();
        let head: Vec<String> = shown_cols.iter().map(|c| c.1.to_string()).collect();
        let w = layout(&cols, &natural, o.width);
        let shown: Vec<(usize, usize)> = w
            .iter()
            .enumerate()
            .filter_map(|(k, w)| w.map(|w| (k, w)))
            .collect();
        let mut last_at = None;
        let mut start = 0usize;
        for (n, (k, w)) in shown.iter().enumerate() {
            start += if n > 0 { 2 } else { 0 };
            if cols[*k] == Col::Last {
                last_at = Some(LastCellAt { start, width: *w });
                break;
            }
            start += w;
        }
        Layout {
            head,
            shown,
            last_at,
            usage,
            width: o.width,
        }
    }

    /// `c`'s line written into `buf` after its newline (`buf` starts with
    /// it); whether it was cut at its end.
    fn line(&self, c: &[String], buf: &mut String) -> bool {
        buf.truncate(1);
        for (n, (k, w)) in self.shown.iter().enumerate() {
            if n > 0 {
                buf.push_str("  ");
            }
            buf.push_str(&pad_to(&cut_to(&c[*k], *w), *w));
        }
        let kept = 1 + buf[1..].trim_end().len();
        buf.truncate(kept);
        if text_width(&buf[1..]) > self.width {
            let cut = cut_to(&buf[1..], self.width);
            buf.truncate(1);
            buf.push_str(&cut);
            return true;
        }
        false
    }

    /// Row `r`'s line (`branches`: the drawing of the rows before it).
    fn row(
        &self,
        r: &Row,
        marks: &Marks,
        branches: &mut Branches,
        short: &mut ShortIds,
        now: i64,
        buf: &mut String,
    ) -> bool {
        let c = cells(
            r,
            marks.is_last(r),
            marks.tokens(r),
            branches,
            short,
            self.usage,
            now,
        );
        self.line(&c, buf)
    }
}

/// A block's header and rows, each line after a newline: columns padded
/// to their widest cell (found by the first walk) and fitted to the width
/// by `layout`; no row exceeds it. A legend follows when a row shows
/// messages held in DSH's own inbox.
fn fit(
    block: Block,
    o: &Options,
    short: &mut ShortIds,
    out: &mut dyn FnMut(&str),
    row: &mut DrawnRow,
) {
    let (marks, rows) = block.rows();
    let layout = Layout::of(&marks, o);
    let mut buf = String::from("\n");
    layout.line(&layout.head, &mut buf);
    out(&buf);
    let mut branches = Branches::default();
    let mut first = true;
    // What comes back is spent.
    let _ = each_row(rows, |r| {
        if !marks.keeps(&r) {
            return;
        }
        let cut = layout.row(&r, &marks, &mut branches, short, o.now, &mut buf);
        row(
            &marks,
            &r,
            std::mem::replace(&mut first, false),
            layout.last_at.filter(|_| !cut),
        );
        out(&buf);
    });
    let width = o.width;
    if marks.native {
        out("\n");
        out(&cut_to(
            "PENDING n+md: n queued here, m in DSH's own inbox (parked: after an abort)",
            width,
        ));
    }
}

/// The trees as JSON, handed to `out` a member at a time: at 100,000
/// members one `Value` of the whole view was most of a command's memory.
pub fn json_to(
    corpus: &Corpus,
    only: Option<usize>,
    filter: Filter,
    hold: usize,
    out: &mut dyn FnMut(&str),
) -> Result<()> {
    out("[");
    let mut written = 0usize;
    for root in roots(corpus, only)? {
        let root = root.get();
        let block = measure(corpus, root, filter, hold, None);
        if block.marks.count == 0 {
            continue;
        }
        if written > 0 {
            out(",");
        }
        written += 1;
        out(&format!(
            "{{\"root\":{},\"title\":{},\"members\":",
            json_out::text(&corpus.id(root)),
            json_out::text(&block.title)
        ));
        let (marks, rows) = block.rows();
        // The members' array, a member at a time (`json_out::array_to`'s
        // bytes).
        out("[");
        let mut members = 0usize;
        let _ = each_row(rows, |r| {
            if !marks.keeps(&r) {
                return;
            }
            if members > 0 {
                out(",");
            }
            members += 1;
            out(&json_out::text(&member_json(corpus, &marks, &r)));
        });
        out("]");
        out("}");
    }
    out("]");
    Ok(())
}

/// Each member `json_to` writes, as its JSON object with its tree's root
/// id, handed to `each` a member at a time (the fleet's rows: nothing of
/// the whole view is held).
pub fn members_to(
    corpus: &Corpus,
    only: Option<usize>,
    filter: Filter,
    hold: usize,
    each: &mut dyn FnMut(&str, serde_json::Value),
) -> Result<()> {
    for root in roots(corpus, only)? {
        let root = root.get();
        let block = measure(corpus, root, filter, hold, None);
        if block.marks.count == 0 {
            continue;
        }
        let root_id = corpus.id(root);
        let (marks, rows) = block.rows();
        let _ = each_row(rows, |r| {
            if marks.keeps(&r) {
                each(root_id, member_json(corpus, &marks, &r));
            }
        });
    }
    Ok(())
}

/// One line of a drawn view: its text, and the member when it is a row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub text: String,
    pub member: Option<Member>,
}

/// The text `text_to` writes, as its lines, each row's line with its
/// member (`row` sees each member first). The text comes a line at a time
/// ("\n" first), each row's member handed over just before its line:
/// lines are made as they come, and neither the whole text nor a list of
/// members is held beside them.
pub fn lines(
    corpus: &Corpus,
    only: Option<usize>,
    o: &Options,
    row: &mut dyn FnMut(&Member),
) -> Result<Vec<Line>> {
    lines_of(corpus.store, row, |out, sink| {
        text_rows_to(corpus, only, o, out, Some(sink))
    })
    .map(|(lines, _)| lines)
}

/// What a draw of held blocks keeps, so a row can be drawn again alone.
#[derive(Debug)]
pub struct HeldDraw {
    options: Options,
    /// Each block's marks.
    marks: Vec<Marks>,
    /// Each drawn row's line, by position (`u32::MAX`: not drawn).
    line_of: Vec<u32>,
    /// The store's ids in order, once a row drawn again needed them.
    sorted: Option<Vec<SessionPos>>,
}

/// `lines` of the blocks a caller holds (`hold`), none read again, and
/// what `redraw` needs to draw some of their rows again.
pub fn held_lines(
    store: &Store,
    blocks: &[HeldBlock],
    o: &Options,
    row: &mut dyn FnMut(&Member),
) -> (Vec<Line>, HeldDraw) {
    let mut marks = Vec::with_capacity(blocks.len());
    let (lines, line_of) = lines_of(store, row, |out, sink| {
        held_text_rows_to(store, blocks, o, out, Some(sink), &mut |m| {
            marks.push(m.clone())
        });
        Ok(())
    })
    .unwrap_or_default();
    let draw = HeldDraw {
        options: *o,
        marks,
        line_of,
        sorted: None,
    };
    (lines, draw)
}

/// A held row that changed: its block, its place there, and the row it
/// was when `lines` were drawn.
pub struct Changed {
    pub block: usize,
    pub place: usize,
    pub was: Row,
}

/// The changed rows of held `blocks` drawn again in `lines` (as
/// `held_lines` drew them, at the clock `now`), with every line whose
/// subtree total they move; `place` finds a row's place in its block.
/// `false` when the change moves more than those lines — a column's
/// width, the TOKENS column or the legend appearing or going, a log that
/// became readable or unreadable — and nothing is changed: draw the
/// blocks again (`held_lines`).
pub fn redraw(
    store: &Store,
    blocks: &[HeldBlock],
    draw: &mut HeldDraw,
    lines: &mut [Line],
    changed: &[Changed],
    place: &dyn Fn(SessionPos) -> Option<usize>,
    now: i64,
) -> bool {
    let mut marks = draw.marks.clone();
    let mut again: Vec<(usize, usize)> = Vec::new();
    let mut short = ShortIds::kept(store, draw.sorted.take());
    for c in changed {
        let (Some(block), Some(m)) = (blocks.get(c.block), marks.get_mut(c.block)) else {
            return false;
        };
        let Some(now_row) = block.row(c.place) else {
            return false;
        };
        let now_row = &now_row;
        let native = |r: &Row| r.activity.as_ref().is_some_and(|a| a.native_pending > 0);
        if c.was.activity.is_some() != now_row.activity.is_some()
            || native(&c.was) != native(now_row)
        {
            return false;
        }
        // Widths of the cells a change can move (the drawing and the name
        // stay): the layout stays when no cell grows past its column and
        // none that was the widest shrinks.
        let mut none = Branches::default();
        let before = widths(&c.was, &mut none, &mut short);
        let after = widths(now_row, &mut none, &mut short);
        let natural = m.natural;
        let fits = |col: usize, was: usize, now: usize| {
            now <= natural[col] && (now >= was || was < natural[col])
        };
        let moves = |col: &Col| !matches!(col, Col::Name | Col::Tokens);
        if !COLUMNS
            .iter()
            .filter(|(col, _)| moves(col))
            .all(|(col, _)| fits(col.at(), before[col.at()], after[col.at()]))
        {
            return false;
        }
        // Its own tokens move its total and every total above it.
        let (was, _) = c.was.own_tokens();
        let (is, _) = now_row.own_tokens();
        let mut at = Some(now_row.index);
        let mut first = true;
        while let Some(pos) = at {
            let Some(k) = place(pos) else { break };
            let Some(r) = block.row(k) else { break };
            let (total, partial) = if first {
                m.tokens(&c.was)
            } else {
                m.tokens(&r)
            };
            let moved = total.saturating_sub(was).saturating_add(is);
            let cell = |t| {
                tokens_text((t, partial), r.activity.is_some())
                    .chars()
                    .count()
            };
            if (total > 0) != (moved > 0) || !fits(5, cell(total), cell(moved)) {
                return false;
            }
            m.set_total(pos, moved);
            again.push((c.block, k));
            at = r.parent;
            first = false;
        }
    }
    again.sort_unstable();
    again.dedup();
    for (b, k) in again {
        let block = &blocks[b];
        let m = &marks[b];
        let Some(r) = block.row(k) else {
            continue;
        };
        let r = &r;
        let Some(&line) = draw.line_of.get(r.index.get()) else {
            continue;
        };
        let Some(l) = lines.get_mut(line as usize).filter(|_| line != u32::MAX) else {
            continue;
        };
        // The drawing of its ancestors, as the rows before it left it.
        let mut chain = Vec::new();
        let mut up = r.parent;
        while let Some(k) = up.and_then(place) {
            chain.push(k);
            up = block.parent_at(k);
        }
        let mut branches = Branches::default();
        let mut scratch = String::new();
        for &k in chain.iter().rev() {
            if let Some(a) = block.row(k) {
                branches.next(a.depth, m.is_last(&a), &mut scratch);
            }
        }
        let layout = Layout::of(m, &draw.options);
        let mut buf = String::from("\n");
        let cut = layout.row(r, m, &mut branches, &mut short, now, &mut buf);
        let parent = l.member.as_ref().and_then(|m| m.parent);
        let mut member = member_of(store, m, r, k == 0, layout.last_at.filter(|_| !cut), now);
        member.parent = parent;
        *l = Line {
            text: buf[1..].to_string(),
            member: Some(member),
        };
    }
    draw.marks = marks;
    draw.sorted = short.into_sorted();
    true
}

/// The lines `draw` writes, each row's line with its member, and each
/// drawn row's line by position.
fn lines_of(
    store: &Store,
    row: &mut dyn FnMut(&Member),
    draw: impl FnOnce(&mut dyn FnMut(&str), &mut MemberSink) -> Result<()>,
) -> Result<(Vec<Line>, Vec<u32>)> {
    let lines: std::cell::RefCell<Vec<Line>> = Default::default();
    let member: std::cell::RefCell<Option<Member>> = Default::default();
    // Each drawn session's line (by store position), so a member's parent
    // is its parent's line: 4 bytes a session, not an id a row.
    let mut line_of: Vec<u32> = Vec::new();
    draw(
        &mut |t| {
            let mut lines = lines.borrow_mut();
            let mut parts = t.split('\n');
            if let Some(first) = parts.next() {
                match lines.last_mut() {
                    Some(l) => l.text.push_str(first),
                    None => lines.push(Line {
                        text: first.to_string(),
                        member: None,
                    }),
                }
            }
            for part in parts {
                // A line is done when the next one starts: its text keeps
                // no room it grew into.
                if let Some(l) = lines.last_mut() {
                    l.text.shrink_to_fit();
                }
                lines.push(Line {
                    text: part.to_string(),
                    member: member.borrow_mut().take(),
                });
            }
        },
        &mut |r: &Row, mut m: Member| {
            row(&m);
            let line = u32::try_from(lines.borrow().len()).unwrap_or(u32::MAX);
            let at = r.index.get();
            if line_of.len() <= at {
                line_of.resize(store.sessions.len().max(at + 1), u32::MAX);
            }
            line_of[at] = line;
            m.parent = r
                .parent
                .and_then(|p| line_of.get(p.get()).copied())
                .filter(|&l| l != u32::MAX);
            *member.borrow_mut() = Some(m);
        },
    )?;
    let mut lines = lines.into_inner();
    // As `str::lines`: a last newline ends a line, it starts none.
    if lines
        .last()
        .is_some_and(|l| l.text.is_empty() && l.member.is_none())
        && lines.len() > 1
    {
        lines.pop();
    }
    Ok((lines, line_of))
}

/// `lines` as they read at `now` with nothing changed in the store: each
/// last-turn cell that moves with the clock made again, as `tree` draws it
/// at `now`.
pub fn retime(lines: &mut [Line], now: i64) {
    for line in lines {
        if let Some(last) = line.member.as_mut().and_then(|m| m.last.as_mut()) {
            last.retime(&mut line.text, now);
        }
    }
}

/// What `top` needs of a member of a shown tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// Boxed, not `String`: a hundred thousand rows hold no spare room.
    pub id: Box<str>,
    pub name: Box<str>,
    /// Its parent's line in the same `lines` (none for a tree's root or a
    /// parent not drawn): a walk up the pane follows lines, not ids.
    pub parent: Option<u32>,
    pub state: &'static str,
    /// Its subtree's tokens (a tree's first member: the tree's).
    pub subtree_tokens: u64,
    /// Whether it is its tree's first member (the tree's root).
    pub first: bool,
    /// Its last-turn cell when that moves with the clock and is shown.
    pub last: Option<LastCell>,
}

/// Where a block's last-turn cells sit in its lines (characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LastCellAt {
    pub start: usize,
    pub width: usize,
}

/// A row's last-turn cell: where it sits in the row's line and what it
/// says, so the line can be made again at a later clock without a read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LastCell {
    pub at: LastCellAt,
    pub clocked: Clocked,
    /// The clock the line's cell was last made at.
    pub drawn: DrawnAt,
}

/// The clock a cell was drawn at: not part of what a row says (two
/// snapshots of the same store are equal whenever their cells were drawn).
#[derive(Debug, Clone, Copy, Eq)]
pub struct DrawnAt(pub i64);

impl PartialEq for DrawnAt {
    fn eq(&self, _: &DrawnAt) -> bool {
        true
    }
}

impl LastCell {
    /// `line` (as `tree` drew it at the clock this cell was drawn at) made
    /// the line `tree` draws at `now` for the same row: the cell made
    /// again, and only when its text moved (a cell past a week says the
    /// day and never moves).
    pub fn retime(&mut self, line: &mut String, now: i64) {
        let before = self.drawn.0;
        if self.clocked.settled(before) && now >= before {
            return;
        }
        self.drawn = DrawnAt(now);
        let text = self.clocked.text(now);
        if text == self.clocked.text(before) {
            return;
        }
        let LastCellAt { start, width } = self.at;
        let Some((before_cell, rest)) = split_at_width(line, start) else {
            return;
        };
        // A cell trimmed at the line's end leaves less than its width.
        let after = split_at_width(rest, width).map_or("", |(_, after)| after);
        let mut out = before_cell.to_string();
        out.push_str(&pad_to(&cut_to(&text, width), width));
        out.push_str(after);
        out.truncate(out.trim_end().len());
        *line = out;
    }
}

fn member_of(
    store: &Store,
    marks: &Marks,
    r: &Row,
    first: bool,
    last: Option<LastCellAt>,
    now: i64,
) -> Member {
    Member {
        id: id_at(store, r.index).into(),
        name: r.name.as_str().into(),
        // `lines` finds its parent's line.
        parent: None,
        state: r.state.as_str(),
        subtree_tokens: marks.tokens(r).0,
        first,
        last: last.and_then(|at| {
            let clocked = Clocked::of(r.activity.as_deref()?)?;
            Some(LastCell {
                at,
                clocked,
                drawn: DrawnAt(now),
            })
        }),
    }
}

/// One member of `tree --json`.
fn member_json(corpus: &Corpus, marks: &Marks, r: &Row) -> serde_json::Value {
    let tokens = marks.tokens(r);
    json!({
        "id": id_at(corpus.store, r.index),
        "name": r.name,
        "parent": r.parent.map(|p| id_at(corpus.store, p)),
        "depth": r.depth,
        "state": r.state.as_str(),
        "mode": r.mode.as_str(),
        // An open turn has no ending yet (the last ending is an
        // earlier turn's): null, not that turn's word.
        "lastTurn": r.activity.as_ref().map(|a| {
            let ended = a.last_ending.as_ref().filter(|_| !a.open_turn);
            json!({
                "turn": a.last_turn,
                "open": a.open_turn,
                "ending": ended.map(|e| e.word()),
                "endingDetail": ended.map(|e| e.describe()),
                "time": rfc3339(a.turn_time),
            })
        }),
        "pending": r.pending,
        "tokens": r.activity.as_ref().map(|a| a.tokens()),
        "subtreeTokens": tokens.0,
        "subtreeTokensPartial": tokens.1,
        "pendingDsh": r.activity.as_ref().map(|a| a.native_pending),
        "parkedDsh": r.activity.as_ref().map(|a| a.native_parked),
        "label": r.label,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use dsh_store::{self as store, Plan};

    /// A tree long enough to be read on a thread of its own comes out
    /// whole and in pre-order, held or read again.
    #[test]
    fn a_long_tree_read_on_its_own_thread_comes_in_order() {
        struct Removed(std::path::PathBuf);
        impl Drop for Removed {
            fn drop(&mut self) {
                let _ = std::fs::remove_dir_all(&self.0);
            }
        }
        let root = std::env::temp_dir().join(format!("dsh-agents-piped-{}", std::process::id()));
        let _removed = Removed(root.clone());
        let n = PIPED_ROWS + 200;
        // An 8-wide tree: session i > 0 hangs below (i - 1) / 8.
        let id = |i: usize| {
            if i == 0 {
                "root".to_string()
            } else {
                format!("s{i:06}")
            }
        };
        for i in 0..n {
            let dir = root.join("_no-cwd").join(id(i));
            std::fs::create_dir_all(&dir).unwrap();
            let mut log = if i == 0 {
                r#"{"type":"session","version":0,"id":"root","createdAt":1,"delegationDepth":0}"#
                    .to_string()
            } else {
                format!(
                    r#"{{"type":"session","version":0,"id":"{}","createdAt":{},"delegationDepth":1,"parentSession":"{}","origin":"subagent"}}"#,
                    id(i),
                    i + 1,
                    id((i - 1) / 8)
                ) + "\n"
                    + r#"{"type":"subagent/descriptor","seq":0,"time":1,"data":{"version":2,"mode":"continuable","provider":"spawn","label":"w"}}"#
                    + "\n"
                    + r#"{"type":"session/end-seed","seq":1,"time":1,"data":{}}"#
            };
            log.push('\n');
            std::fs::write(dir.join("session.jsonl"), log).unwrap();
        }
        let mut want = Vec::new();
        let mut stack = vec![0usize];
        while let Some(i) = stack.pop() {
            want.push(id(i));
            stack.extend(((8 * i + 1)..(8 * i + 9).min(n)).rev());
        }
        let store = store::open(&root, Plan::Survey).unwrap();
        let corpus = Corpus::new(&store);
        for hold in [usize::MAX, 0] {
            let mut json = String::new();
            json_to(&corpus, None, Filter::default(), hold, &mut |s| {
                json.push_str(s)
            })
            .unwrap();
            let v: serde_json::Value = serde_json::from_str(&json).unwrap();
            let got: Vec<&str> = v[0]["members"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m["id"].as_str().unwrap())
                .collect();
            assert_eq!(got, want, "hold {hold}");
            let o = Options {
                filter: Filter::default(),
                all: false,
                usage: true,
                width: 100,
                now: 0,
                hold,
            };
            let mut text = String::new();
            text_to(&corpus, None, &o, &mut |s| text.push_str(s)).unwrap();
            // A title, the heading, and a row a member.
            assert_eq!(text.lines().count(), n + 2, "hold {hold}");
        }
    }

    /// A block read twice draws as one whose rows were kept: every carried
    /// store, with each filter, fold and width, as text and as JSON.
    #[test]
    fn a_tree_read_again_draws_as_one_held() {
        let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut stores: Vec<std::path::PathBuf> = Vec::new();
        for dir in [
            here.join("testdata/stores"),
            here.join("../shared/conformance/v1/stores"),
        ] {
            if let Ok(entries) = std::fs::read_dir(dir) {
                stores.extend(entries.flatten().map(|e| e.path()).filter(|p| p.is_dir()));
            }
        }
        stores.sort();
        let filters = [(false, false), (true, false), (false, true), (true, true)];
        let mut rows_drawn = 0;
        for root in &stores {
            let Ok(store) = store::open(root, Plan::Survey) else {
                continue;
            };
            let corpus = Corpus::new(&store);
            for ((live, problems), (all, usage, width)) in filters.iter().zip([
                (false, true, 100),
                (true, false, 40),
                (true, true, 200),
                (false, true, 60),
            ]) {
                let filter = Filter {
                    live: *live,
                    problems: *problems,
                };
                let draw = |hold: usize| {
                    let o = Options {
                        filter,
                        all,
                        usage,
                        width,
                        now: 1_800_000_000_000,
                        hold,
                    };
                    let (mut text, mut json) = (String::new(), String::new());
                    text_to(&corpus, None, &o, &mut |s| text.push_str(s)).unwrap();
                    json_to(&corpus, None, filter, hold, &mut |s| json.push_str(s)).unwrap();
                    (text, json)
                };
                let held = draw(usize::MAX);
                assert_eq!(draw(0), held, "{} {filter:?}", root.display());
                rows_drawn += held.0.lines().filter(|l| l.contains("─ ")).count();
            }
        }
        // The stores have trees to draw: the comparison can fail.
        assert!(rows_drawn > 20, "{rows_drawn} rows below roots");
    }

    #[test]
    fn layout_gives_way_in_order() {
        use Col::*;
        let cols = [Name, State, Mode, Last, Pending, Tokens, Label];
        // NAME 14, STATE 11, MODE 11, LAST 31, PENDING 7, TOKENS 6, LABEL 30.
        let natural = [14, 11, 11, 31, 7, 6, 30];
        // 110 columns of cells and 12 of separators.
        let table: &[(usize, [Option<usize>; NCOLS])] = &[
            (
                200,
                [
                    Some(14),
                    Some(11),
                    Some(11),
                    Some(31),
                    Some(7),
                    Some(6),
                    Some(30),
                ],
            ),
            // The last turn gives way first, down to 24, then the label.
            (
                118,
                [
                    Some(14),
                    Some(11),
                    Some(11),
                    Some(27),
                    Some(7),
                    Some(6),
                    Some(30),
                ],
            ),
            (
                102,
                [
                    Some(14),
                    Some(11),
                    Some(11),
                    Some(24),
                    Some(7),
                    Some(6),
                    Some(17),
                ],
            ),
            // A label that would get under 16 is left out, then the mode,
            // then the tokens.
            (
                100,
                [
                    Some(14),
                    Some(11),
                    Some(11),
                    Some(24),
                    Some(7),
                    Some(6),
                    None,
                ],
            ),
            (
                80,
                [Some(14), Some(11), None, Some(24), Some(7), Some(6), None],
            ),
            (
                65,
                [Some(14), Some(11), None, Some(24), Some(7), None, None],
            ),
            // Then the last turn down to 12, then it and the pending count
            // are left out; the name is never cut.
            (
                60,
                [Some(14), Some(11), None, Some(22), Some(7), None, None],
            ),
            (
                50,
                [Some(14), Some(11), None, Some(12), Some(7), None, None],
            ),
            (40, [Some(14), Some(11), None, None, Some(7), None, None]),
            (30, [Some(14), Some(11), None, None, None, None, None]),
        ];
        for (width, want) in table {
            assert_eq!(layout(&cols, &natural, *width), want.to_vec(), "{width}");
        }
    }
}
