//! `tree`'s columns and a row's cells: the drawing before a name, an
//! unnamed member's shortest unique id prefix, the last turn, the pending
//! counts and the token total as people read them, and how wide each cell
//! can be (which the first walk of a tree measures).

use super::table::text_width;
use super::tree_rows::Row;
use crate::support::clock::{since, when};
use crate::tree::v2::Activity;
use dsh_store::{SessionPos, Store};
use std::borrow::Cow;

/// A column of the view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Col {
    Name,
    State,
    Mode,
    Last,
    Pending,
    Tokens,
    Label,
}

impl Col {
    /// Its place in `COLUMNS` and in every width array (the variants are
    /// declared in `COLUMNS` order; a test holds them to it).
    pub const fn at(self) -> usize {
        self as usize
    }
}

/// How many columns the view has: written here once, every width array
/// takes it from here.
pub const NCOLS: usize = 7;

/// Every column, in order, with its heading.
pub const COLUMNS: [(Col, &str); NCOLS] = [
    (Col::Name, "NAME"),
    (Col::State, "STATE"),
    (Col::Mode, "MODE"),
    (Col::Last, "LAST TURN"),
    (Col::Pending, "PENDING"),
    (Col::Tokens, "TOKENS"),
    (Col::Label, "LABEL"),
];

/// The drawing before each row's name (`│  ├─ `), one row at a time in
/// order: in pre-order the nearest earlier row at a depth is the ancestor
/// there.
#[derive(Default)]
pub struct Branches {
    /// `continues[level]`: the ancestor at `level` has later siblings.
    continues: Vec<bool>,
}

impl Branches {
    /// `last`: no later sibling follows the row.
    pub fn next(&mut self, depth: u32, last: bool, out: &mut String) {
        let d = depth as usize;
        self.continues.resize(d + 1, false);
        self.continues[d] = !last;
        if d == 0 {
            return;
        }
        for more in &self.continues[1..d] {
            out.push_str(if *more { "│  " } else { "   " });
        }
        out.push_str(if last { "└─ " } else { "├─ " });
    }
}

/// The shortest unique prefixes of the store's long ids, for the rows of
/// unnamed members: at least 8 characters, and ids of 12 or fewer shown
/// whole. The store's ids are sorted the first time a long one is asked
/// for, once a command.
pub struct ShortIds<'a> {
    /// The store's sessions by position, in id order (4 bytes a session).
    sorted: Option<Vec<SessionPos>>,
    store: &'a Store,
}

impl<'a> ShortIds<'a> {
    pub fn new(store: &'a Store) -> ShortIds<'a> {
        ShortIds {
            sorted: None,
            store,
        }
    }

    /// `new`, with the ids' order an earlier one made for the same store
    /// (`into_sorted`), so a view drawn again a row at a time does not
    /// sort every id each time.
    pub fn kept(store: &'a Store, sorted: Option<Vec<SessionPos>>) -> ShortIds<'a> {
        ShortIds { sorted, store }
    }

    /// The ids' order, if it was made.
    pub fn into_sorted(self) -> Option<Vec<SessionPos>> {
        self.sorted
    }

    pub fn prefix<'s>(&mut self, id: &'s str) -> &'s str {
        if id.chars().count() <= 12 {
            return id;
        }
        let s = &self.store.sessions;
        let sorted = self.sorted.get_or_insert_with(|| {
            let mut sorted: Vec<SessionPos> = (0..s.len()).map(SessionPos::new).collect();
            sorted.sort_unstable_by(|a, b| s.id(a.get()).cmp(s.id(b.get())));
            sorted
        });
        let common = |k: usize| {
            id.bytes()
                .zip(s.id(sorted[k].get()).bytes())
                .take_while(|(a, b)| a == b)
                .count()
        };
        let at = sorted.partition_point(|&p| s.id(p.get()) < id);
        let before = at.checked_sub(1).map_or(0, common);
        let same = at < sorted.len() && s.id(sorted[at].get()) == id;
        let next = at + usize::from(same);
        let after = if next < sorted.len() { common(next) } else { 0 };
        let mut n = before.max(after).saturating_add(1).max(8);
        while n < id.len() && !id.is_char_boundary(n) {
            n += 1;
        }
        &id[..n.min(id.len())]
    }
}

fn last_text(a: Option<&Activity>, now: i64) -> String {
    match a {
        None => "-".into(),
        Some(a) => match Clocked::of(a) {
            Some(c) => c.text(now),
            None => "no turns".into(),
        },
    }
}

/// A last-turn cell that moves with the clock: its fixed words and the
/// time they are followed by, so the cell can be made again at a later
/// clock without reading the log (`top` between reads).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clocked {
    /// `turn 3 open ` or `completed ` (the common endings borrowed, not
    /// allocated: `top` keeps one a row).
    pub words: std::borrow::Cow<'static, str>,
    pub at: i64,
    /// An open turn shows how long it has run (`3 s`), an ended one when
    /// it ended (`3 s ago`).
    pub open: bool,
}

impl Clocked {
    /// `None`: the cell does not move with the clock.
    pub fn of(a: &Activity) -> Option<Clocked> {
        use dsh_store::log::Ending;
        use std::borrow::Cow;
        let (words, open) = match a {
            a if a.open_turn => (Cow::Owned(format!("turn {} open ", a.last_turn)), true),
            Activity {
                last_ending: Some(e),
                ..
            } => (
                match e {
                    Ending::Completed => Cow::Borrowed("completed "),
                    Ending::Interrupted => Cow::Borrowed("interrupted "),
                    Ending::Blocked => Cow::Borrowed("blocked "),
                    e => Cow::Owned(format!("{} ", e.describe())),
                },
                false,
            ),
            _ => return None,
        };
        Some(Clocked {
            words,
            at: a.turn_time,
            open,
        })
    }

    /// Whether the cell has stopped moving at `now`: past a week it says
    /// the day, whatever the clock does after.
    pub fn settled(&self, now: i64) -> bool {
        now.saturating_sub(self.at) >= 7 * 86_400_000
    }

    pub fn text(&self, now: i64) -> String {
        let time = if self.open {
            since(now, self.at)
        } else {
            when(now, self.at)
        };
        format!("{}{time}", self.words)
    }
}

/// How wide a last-turn cell can grow as the clock moves (its time at its
/// widest: `on 2026-12-01`, `since 2026-12-01`), so a watched view or a
/// golden file keeps its layout.
fn last_bound(a: Option<&Activity>) -> usize {
    match a {
        None => 1,
        Some(a) if a.open_turn => format!("turn {} open ", a.last_turn).chars().count() + 16,
        Some(Activity {
            last_ending: Some(e),
            ..
        }) => e.describe().chars().count() + " on 2026-12-01".len(),
        Some(_) => "no turns".len(),
    }
}

/// The sidecar count, then DSH's own (`2+1d`, `0+3d parked`).
fn pending_text(r: &Row) -> String {
    let sidecar = r.pending.map_or("?".to_string(), |n| n.to_string());
    match &r.activity {
        Some(a) if a.native_pending > 0 => format!(
            "{sidecar}+{}d{}",
            a.native_pending,
            if a.native_parked { " parked" } else { "" }
        ),
        _ => sidecar,
    }
}

/// A TOKENS cell for a subtree total: the known total, `+` when some log
/// at or below the row could not be read, `?` when nothing was read
/// (`read`: the row's own log was).
pub fn tokens_text(tokens: (u64, bool), read: bool) -> String {
    match tokens {
        (0, true) if !read => "?".to_string(),
        (n, partial) => format!(
            "{}{}",
            dsh_store::format::short_tokens(n),
            if partial { "+" } else { "" }
        ),
    }
}

/// The NAME cell: the drawing shows the path; a row names its last step,
/// and an unnamed member its id's shortest unique prefix (which every
/// command that takes an agent accepts), not a cut id.
fn name_cell(r: &Row, last: bool, branches: &mut Branches, short: &mut ShortIds) -> String {
    let mut name = String::new();
    branches.next(r.depth, last, &mut name);
    let id = short.store.sessions.id(r.index.get());
    let step = r.step(id);
    if step == id {
        name.push_str(short.prefix(step));
    } else {
        name.push_str(step);
    }
    name
}

/// Column `col`'s cell of row `r`: the one place a column's value is
/// made. `last`: no later sibling follows the row; `tokens`: its subtree
/// total.
#[allow(clippy::too_many_arguments)]
fn cell<'r>(
    col: Col,
    r: &'r Row,
    last: bool,
    tokens: (u64, bool),
    branches: &mut Branches,
    short: &mut ShortIds,
    now: i64,
) -> Cow<'r, str> {
    match col {
        Col::Name => name_cell(r, last, branches, short).into(),
        Col::State => r.state.as_str().into(),
        Col::Mode => r.mode.as_str().into(),
        Col::Last => last_text(r.activity.as_deref(), now).into(),
        Col::Pending => pending_text(r).into(),
        Col::Tokens => tokens_text(tokens, r.activity.is_some()).into(),
        Col::Label if r.label.contains('\n') => r.label.replace('\n', " ").into(),
        Col::Label => r.label.as_str().into(),
    }
}

/// A row's cells in `COLUMNS` order, TOKENS left out unless `usage`; made
/// when needed and never all held at once. `tokens`: the row's subtree
/// total.
#[allow(clippy::too_many_arguments)]
pub fn cells(
    r: &Row,
    last: bool,
    tokens: (u64, bool),
    branches: &mut Branches,
    short: &mut ShortIds,
    usage: bool,
    now: i64,
) -> Vec<String> {
    COLUMNS
        .iter()
        .filter(|(col, _)| usage || *col != Col::Tokens)
        .map(|(col, _)| cell(*col, r, last, tokens, branches, short, now).into_owned())
        .collect()
}

/// How wide each of a row's cells can be, in `COLUMNS` order: its cell's
/// width, but for TOKENS (its subtree total is known only below it) and
/// the last turn (as wide as the clock can make it). The drawing is as
/// wide whatever the siblings.
pub fn widths(r: &Row, branches: &mut Branches, short: &mut ShortIds) -> [usize; NCOLS] {
    COLUMNS.map(|(col, _)| match col {
        Col::Tokens => 0,
        Col::Last => last_bound(r.activity.as_deref()),
        _ => text_width(&cell(col, r, false, (0, false), branches, short, 0)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_column_is_at_its_place_in_the_table() {
        for (k, (col, _)) in COLUMNS.iter().enumerate() {
            assert_eq!(col.at(), k, "{col:?}");
        }
    }

    #[test]
    fn last_turn_room_does_not_move_with_the_clock() {
        use dsh_store::log::Ending;
        let a = |ending: Ending, open: bool| Activity {
            last_turn: 3,
            open_turn: open,
            last_ending: Some(ending),
            turn_time: 0,
            native_pending: 0,
            native_parked: false,
            native_error: false,
            usage: Default::default(),
        };
        let day = 86_400_000;
        for (act, t) in [
            (a(Ending::Completed, false), 0),
            (a(Ending::Aborted("parent".into()), false), 0),
            (a(Ending::Completed, true), 0),
        ] {
            let bound = last_bound(Some(&act));
            for now in [t, t + 999, t + 59_000, t + 3 * day, t + 30 * day, t - day] {
                let text = last_text(Some(&act), now);
                assert!(text.chars().count() <= bound, "{text:?} > {bound}");
            }
        }
    }
}
