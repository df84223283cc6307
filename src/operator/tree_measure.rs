//! `tree`'s first walk: what a block's rows do not say one at a time —
//! which rows a filter keeps (those it wants and their ancestors), which
//! kept row is its parent's last, each subtree's token total, the width
//! each column needs and whether the legend is due. It keeps a frame per
//! open level and, per session, only what the second walk looks up, so a
//! tree need not be held to be drawn.

use super::tree_cells::{Col, NCOLS, tokens_text};
use super::tree_rows::{Row, State};
use dsh_store::SessionPos;

/// Which rows to keep.
#[derive(Debug, Clone, Copy, Default)]
pub struct Filter {
    pub live: bool,
    pub problems: bool,
}

impl Filter {
    fn wants(self, r: &Row) -> bool {
        let live = matches!(r.state, State::Running | State::Idle);
        let problem = r.state.is_problem() || r.pending.is_none();
        (!self.live || live) && (!self.problems || problem)
    }

    fn any(self) -> bool {
        self.live || self.problems
    }
}

/// What the first walk learned of a block.
#[derive(Debug, Clone, Default)]
pub struct Marks {
    /// How many rows are kept.
    pub count: usize,
    /// The kept rows' positions, sorted; `None` when every row is.
    kept: Option<Vec<SessionPos>>,
    /// The positions of kept rows no later kept sibling follows, sorted.
    last: Vec<SessionPos>,
    /// The subtree totals of rows with rows below them, by position.
    totals: Vec<(SessionPos, u64, bool)>,
    /// The widest each column's cells can be, in `COLUMNS` order.
    pub natural: [usize; NCOLS],
    /// Some kept row has messages in DSH's own inbox.
    pub native: bool,
    /// Some kept row's subtree used a token.
    pub tokens: bool,
}

impl Marks {
    pub fn keeps(&self, r: &Row) -> bool {
        self.kept
            .as_ref()
            .is_none_or(|k| k.binary_search(&r.index).is_ok())
    }

    pub fn is_last(&self, r: &Row) -> bool {
        self.last.binary_search(&r.index).is_ok()
    }

    /// Set the subtree total of the row at `pos`, when it has rows below
    /// it (a leaf's total is its own tokens).
    pub fn set_total(&mut self, pos: SessionPos, total: u64) {
        if let Ok(k) = self.totals.binary_search_by_key(&pos, |t| t.0) {
            self.totals[k].1 = total;
        }
    }

    /// The row's subtree total: its own tokens and every row's below it
    /// whose log could be read, and whether some log among them could not
    /// be. Counted before any filter: a total counts the rows it hides.
    pub fn tokens(&self, r: &Row) -> (u64, bool) {
        match self.totals.binary_search_by_key(&r.index, |t| t.0) {
            Ok(k) => (self.totals[k].1, self.totals[k].2),
            Err(_) => r.own_tokens(),
        }
    }
}

/// A row whose subtree is still being walked.
struct Frame {
    index: SessionPos,
    depth: u32,
    wanted: bool,
    /// Some row below is kept.
    kept_below: bool,
    /// Some row is below.
    below: bool,
    tokens: (u64, bool),
    read: bool,
    widths: [usize; NCOLS],
    native: bool,
    /// The last kept row below it at the next level so far.
    last_kept: Option<SessionPos>,
}

/// The first walk's fold over a block's rows in pre-order.
pub struct Measure {
    filter: Filter,
    open: Vec<Frame>,
    marks: Marks,
}

impl Measure {
    /// `heads`: the widths of the column headings.
    pub fn new(filter: Filter, heads: [usize; NCOLS]) -> Measure {
        Measure {
            filter,
            open: Vec::new(),
            marks: Marks {
                kept: filter.any().then(Vec::new),
                natural: heads,
                ..Marks::default()
            },
        }
    }

    /// The next row in pre-order, with its cells' widths (`widths`). A row
    /// closes the rows open at its depth or deeper: in pre-order, a row's
    /// subtree is the rows after it that are deeper.
    pub fn add(&mut self, r: &Row, widths: [usize; NCOLS]) {
        while self.open.last().is_some_and(|f| f.depth >= r.depth) {
            self.close();
        }
        if let Some(parent) = self.open.last_mut() {
            parent.below = true;
        }
        self.open.push(Frame {
            index: r.index,
            depth: r.depth,
            wanted: self.filter.wants(r),
            kept_below: false,
            below: false,
            tokens: r.own_tokens(),
            read: r.activity.is_some(),
            widths,
            native: r.activity.as_ref().is_some_and(|a| a.native_pending > 0),
            last_kept: None,
        });
    }

    fn close(&mut self) {
        let Some(f) = self.open.pop() else { return };
        let m = &mut self.marks;
        if f.wanted || f.kept_below {
            m.count += 1;
            let mut widths = f.widths;
            widths[Col::Tokens.at()] = tokens_text(f.tokens, f.read).chars().count();
            for (n, w) in m.natural.iter_mut().zip(widths) {
                *n = (*n).max(w);
            }
            m.native |= f.native;
            m.tokens |= f.tokens.0 > 0;
            if let Some(kept) = &mut m.kept {
                kept.push(f.index);
            }
            if let Some(parent) = self.open.last_mut() {
                parent.kept_below = true;
                parent.last_kept = Some(f.index);
            }
        }
        if let Some(last) = f.last_kept {
            m.last.push(last);
        }
        if f.below {
            m.totals.push((f.index, f.tokens.0, f.tokens.1));
        }
        if let Some(parent) = self.open.last_mut() {
            parent.tokens = (
                parent.tokens.0.saturating_add(f.tokens.0),
                parent.tokens.1 || f.tokens.1,
            );
        }
    }

    pub fn finish(mut self) -> Marks {
        while !self.open.is_empty() {
            self.close();
        }
        let mut m = self.marks;
        if let Some(kept) = &mut m.kept {
            kept.sort_unstable();
        }
        m.last.sort_unstable();
        m.totals.sort_unstable_by_key(|t| t.0);
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::operator::tree_rows::Facts;
    use crate::tree::v2::{Activity, RowMode};
    use dsh_store::format::TokenCounts;

    /// A row at `depth` in `state`, with `tokens` when its log was read.
    fn row(index: u32, depth: u32, state: State, tokens: Option<u64>) -> Row {
        Row {
            facts: Facts {
                index: SessionPos::new(index as usize),
                parent: None,
                depth,
                state,
                mode: RowMode::Continuable,
                activity: tokens.map(|t| {
                    Box::new(Activity {
                        open_turn: false,
                        last_turn: 1,
                        last_ending: None,
                        turn_time: 0,
                        native_pending: 0,
                        native_parked: false,
                        native_error: false,
                        usage: Some(Box::new(TokenCounts {
                            input_tokens: t,
                            ..TokenCounts::default()
                        })),
                    })
                }),
                pending: Some(0),
            },
            name: format!("n{index}"),
            label: String::new(),
        }
    }

    /// A filter keeps the rows it wants and every row above them; the last
    /// kept child of each kept row is marked; totals count every row
    /// below, kept or not, and say when a log among them was not read.
    #[test]
    fn kept_rows_last_siblings_and_totals() {
        use State::*;
        // root ─ a (running) ─ a1, a2 (corrupt, unread); b ─ b1 (idle)
        let rows = [
            row(0, 0, Inactive, Some(10)),
            row(1, 1, Running, Some(5)),
            row(2, 2, Inactive, Some(1)),
            row(3, 2, Corrupt, None),
            row(4, 1, Inactive, Some(2)),
            row(5, 2, Idle, Some(3)),
        ];
        let table: &[(Filter, &[u32], &[u32])] = &[
            (Filter::default(), &[0, 1, 2, 3, 4, 5], &[3, 4, 5]),
            (
                Filter {
                    live: true,
                    problems: false,
                },
                &[0, 1, 4, 5],
                &[4, 5],
            ),
            (
                Filter {
                    live: false,
                    problems: true,
                },
                &[0, 1, 3],
                &[1, 3],
            ),
            (
                Filter {
                    live: true,
                    problems: true,
                },
                &[],
                &[],
            ),
        ];
        for (filter, kept, last) in table {
            let mut m = Measure::new(*filter, [0; NCOLS]);
            for r in &rows {
                m.add(r, [1; NCOLS]);
            }
            let marks = m.finish();
            let got: Vec<u32> = rows
                .iter()
                .filter(|r| marks.keeps(r))
                .map(|r| r.index.get() as u32)
                .collect();
            assert_eq!(got, kept.to_vec(), "{filter:?}");
            assert_eq!(marks.count, kept.len(), "{filter:?}");
            let got: Vec<u32> = rows
                .iter()
                .filter(|r| marks.keeps(r) && marks.is_last(r))
                .map(|r| r.index.get() as u32)
                .collect();
            assert_eq!(got, last.to_vec(), "{filter:?}");
            let totals: Vec<(u64, bool)> = rows.iter().map(|r| marks.tokens(r)).collect();
            assert_eq!(
                totals,
                [
                    (21, true),
                    (6, true),
                    (1, false),
                    (0, true),
                    (5, false),
                    (3, false)
                ],
                "{filter:?}"
            );
        }
    }
}
