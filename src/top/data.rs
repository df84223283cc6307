//! What `top` shows, read from the store: the tree pane's lines (the text
//! `tree --width W` prints, each row tied to its member), the header's
//! counts, and the selected agent's tab. Read through the views the
//! commands print with, so the pane never disagrees with them.

use crate::error::Result;
use crate::inbox::Target;
use crate::operator::tree_measure::Filter;
use crate::operator::tree_rows::row_now;
use crate::operator::tree_view;
use crate::operator::{inbox_view, log_view, trace, usage};
use crate::tree::Corpus;
use crate::tree::caller::resolve_agent;
use dsh_store::{self as store, Plan, SessionPos};
use std::path::Path;

/// One member of a shown tree (as `tree` draws its row).
pub use crate::operator::tree_view::Member;

/// One line of the tree pane: its text, and the member when it is a row.
pub use crate::operator::tree_view::Line as TreeLine;

/// The tree pane and the header's counts at one moment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Snapshot {
    pub lines: Vec<TreeLine>,
    /// Members by state word (`running`, `idle`, …), in first-seen order.
    pub states: Vec<(String, usize)>,
    /// Tokens every shown tree's model calls reported.
    pub tokens: u64,
    /// Where each budget `top` was given stands (`--budget`).
    pub marks: Vec<crate::top::amount::Mark>,
}

/// The tree pane for the store at `root` (one tree with `agent`) at
/// `width` columns against the clock `now`: the store opened once and
/// walked once, the text `tree --width W` prints with the member of each
/// row it draws (trees folded into its summary line have no rows).
pub fn snapshot(root: &Path, agent: Option<&str>, width: usize, now: i64) -> Result<Snapshot> {
    Ok(Held::read(root, agent)?.snapshot(root, agent, width, now))
}

/// The shown trees between reads: the store as it was opened and every
/// shown row. A change the store's watch ties to a few sessions is drawn
/// again from these with only those rows read again (`patch`); anything
/// else (a new session, a log replaced, a row whose kind changed) is a
/// read of the whole store (`read`). Either way the pane is the text
/// `tree --width W` prints for the store as it is now.
pub struct Held {
    store: store::Store,
    blocks: Vec<tree_view::HeldBlock>,
    /// Each held row's block and place, by session position (`u32::MAX`:
    /// not a held row): 8 bytes a session, made at the first change (a
    /// first frame needs none).
    at: Vec<(u32, u32)>,
    /// What the last pane drawn from these rows keeps to draw a row again.
    draw: Option<tree_view::HeldDraw>,
}

impl Held {
    /// The trees of the store at `root` (the one with `agent`), read whole.
    pub fn read(root: &Path, agent: Option<&str>) -> Result<Held> {
        let store = crate::operator::tree_watch::open(root)?;
        let blocks = {
            let corpus = Corpus::new(&store);
            let only = agent.map(|a| resolve_agent(&store, a)).transpose()?;
            tree_view::hold(&corpus, only)?
        };
        Ok(Held {
            store,
            blocks,
            at: Vec::new(),
            draw: None,
        })
    }

    /// The rows of the sessions at `changed` read again, and `pane` (drawn
    /// from these rows, `snapshot`) made to show them: its lines drawn
    /// again where only those rows' lines and the subtree totals above
    /// them move, else the rows changed and the pane left to be drawn
    /// again whole; or, when a change is more than those rows can say,
    /// nothing changed and the store to be read whole (`read`).
    pub fn patch(&mut self, changed: &[SessionPos], pane: &mut Snapshot, now: i64) -> Patched {
        let Some((was, titled)) = self.reread(changed) else {
            return Patched::Store;
        };
        let at = &self.at;
        let redrawn = !titled
            && self.draw.as_mut().is_some_and(|draw| {
                tree_view::redraw(
                    &self.store,
                    &self.blocks,
                    draw,
                    &mut pane.lines,
                    &was,
                    &|pos| place(at, pos).map(|(_, k)| k),
                    now,
                )
            });
        if !redrawn {
            self.draw = None;
            return Patched::Rows;
        }
        (pane.states, pane.tokens) = counts(&pane.lines);
        Patched::Lines
    }

    /// The rows of the sessions at `changed` read again: what each was,
    /// and whether a tree's title changed; `None` when a change is more
    /// than those rows can say, and then nothing is changed.
    pub fn reread(&mut self, changed: &[SessionPos]) -> Option<(Vec<tree_view::Changed>, bool)> {
        if self.at.is_empty() {
            self.at = vec![(u32::MAX, u32::MAX); self.store.sessions.len()];
            for (b, block) in self.blocks.iter().enumerate() {
                for (r, pos) in block.positions().enumerate() {
                    let place = (u32::try_from(b), u32::try_from(r));
                    if let (Ok(b), Ok(r), Some(slot)) =
                        (place.0, place.1, self.at.get_mut(pos.get()))
                    {
                        *slot = (b, r);
                    }
                }
            }
        }
        let mut fresh = Vec::with_capacity(changed.len());
        for pos in changed {
            let (b, r) = self.place(*pos)?;
            let old = self.blocks.get(b).and_then(|block| block.row(r))?;
            fresh.push((b, r, row_now(&self.store, &old)?));
        }
        let mut was = Vec::with_capacity(fresh.len());
        let mut titled = false;
        for (b, r, (row, title)) in fresh {
            let block = &mut self.blocks[b];
            if r == 0 && block.title != title {
                block.title = title;
                titled = true;
            }
            if let Some(old) = block.replace(r, row) {
                was.push(tree_view::Changed {
                    block: b,
                    place: r,
                    was: old,
                });
            }
        }
        Some((was, titled))
    }

    /// The store the rows were read from.
    pub fn store(&self) -> &store::Store {
        &self.store
    }

    /// Every held row, tree by tree, each in pre-order.
    pub fn rows(&self) -> impl Iterator<Item = crate::operator::tree_rows::Row> + '_ {
        self.blocks.iter().flat_map(|b| b.rows())
    }

    /// The block and place of the held row of the session at `pos`.
    fn place(&self, pos: SessionPos) -> Option<(usize, usize)> {
        place(&self.at, pos)
    }

    /// The row of a change `reread` told of, as it is now, and its place
    /// among `rows`.
    pub fn changed_row(
        &self,
        c: &tree_view::Changed,
    ) -> Option<(usize, crate::operator::tree_rows::Row)> {
        let before: usize = self.blocks.iter().take(c.block).map(|b| b.count()).sum();
        let row = self.blocks.get(c.block)?.row(c.place)?;
        Some((before + c.place, row))
    }

    /// Each held row's session directory and position (what a watch
    /// covers).
    pub fn each_dir(&self, f: &mut dyn FnMut(&Path, SessionPos)) {
        for pos in self.blocks.iter().flat_map(|b| b.positions()) {
            f(&self.store.sessions.dir(pos.get()), pos);
        }
    }

    /// The pane and the header's counts, drawn from the held rows.
    pub fn snapshot(
        &mut self,
        root: &Path,
        agent: Option<&str>,
        width: usize,
        now: i64,
    ) -> Snapshot {
        let options = tree_view::Options {
            filter: Filter::default(),
            all: false,
            usage: true,
            width,
            now,
            hold: tree_view::HOLD_ROWS,
        };
        let (mut lines, draw) =
            tree_view::held_lines(&self.store, &self.blocks, &options, &mut |_| {});
        self.draw = Some(draw);
        let (states, tokens) = counts(&lines);
        // A store in a fleet: each other host's trees below this host's, as
        // `tree --fleet` draws them (lines to read, not agents to act on).
        if agent.is_none() {
            lines.extend(fleet_lines(root, width, now));
        }
        Snapshot {
            lines,
            states,
            tokens,
            marks: Vec::new(),
        }
    }
}

/// The block and place `at` holds for the session at `pos`.
fn place(at: &[(u32, u32)], pos: SessionPos) -> Option<(usize, usize)> {
    match at.get(pos.get()) {
        Some(&(b, r)) if b != u32::MAX => Some((b as usize, r as usize)),
        _ => None,
    }
}

/// What `Held::patch` came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Patched {
    /// The pane's lines were drawn again where they changed.
    Lines,
    /// The rows changed; the pane is to be drawn again from them.
    Rows,
    /// Nothing changed; the store is to be read again.
    Store,
}

/// The header's counts of `lines`: members by state word, in first-seen
/// order, and the tokens of every shown tree (a tree's first member is
/// its root: its subtree is the tree).
fn counts(lines: &[TreeLine]) -> (Vec<(String, usize)>, u64) {
    let mut states: Vec<(String, usize)> = Vec::new();
    let mut tokens = 0u64;
    for m in lines.iter().filter_map(|l| l.member.as_ref()) {
        if m.first {
            tokens = tokens.saturating_add(m.subtree_tokens);
        }
        match states.iter_mut().find(|(s, _)| s == m.state) {
            Some((_, n)) => *n += 1,
            None => states.push((m.state.to_string(), 1)),
        }
    }
    (states, tokens)
}

/// The other hosts' blocks of a store in a fleet, each after a blank
/// line; none for a store in no fleet (or whose fleet files cannot be
/// read: the pane is this host's either way).
fn fleet_lines(root: &Path, width: usize, now: i64) -> Vec<TreeLine> {
    let local = crate::fleet::local::Local::of(root);
    let Ok(Some(m)) = local.membership() else {
        return Vec::new();
    };
    let real = crate::support::clock::now_ms();
    let blocks =
        crate::fleet::tree_view::others(&local, &m.host, real, now, width).unwrap_or_default();
    let mut lines = Vec::new();
    for block in blocks {
        lines.push(TreeLine {
            text: String::new(),
            member: None,
        });
        lines.extend(block.lines().map(|l| TreeLine {
            text: l.to_string(),
            member: None,
        }));
    }
    lines
}

impl Snapshot {
    /// The pane as it reads at `now` with nothing changed in the store:
    /// each last-turn cell that moves with the clock made again, as `tree`
    /// draws it at `now` (`top` between reads).
    pub fn retime(&mut self, now: i64) {
        crate::operator::tree_view::retime(&mut self.lines, now);
    }
}

/// The right pane's tabs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tab {
    Log,
    Inbox,
    Usage,
    Trace,
}

impl Tab {
    pub const ALL: [Tab; 4] = [Tab::Log, Tab::Inbox, Tab::Usage, Tab::Trace];

    pub fn title(self) -> &'static str {
        match self {
            Tab::Log => "Log",
            Tab::Inbox => "Inbox",
            Tab::Usage => "Usage",
            Tab::Trace => "Trace",
        }
    }
}

/// What the selected agent's tab shows, and the ids of its pending
/// messages (the Inbox tab's cursor moves over them).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Detail {
    pub text: String,
    pub pending: Vec<String>,
}

/// The tab `tab` of agent `id`, `width` columns wide; `message` is the
/// message the Trace tab follows.
pub fn detail(
    root: &Path,
    id: &str,
    tab: Tab,
    width: usize,
    message: Option<&str>,
) -> Result<Detail> {
    // The Usage tab adds up the agent's subtree; the others read the agent
    // and, for its name, its ancestry.
    let store = match tab {
        Tab::Usage => store::open(
            root,
            Plan::Whole {
                why: "top's Usage tab adds up a subtree",
            },
        )?,
        _ => store::open(
            root,
            Plan::Ids {
                ids: &[id],
                up: dsh_store::set::Ancestry::Whole,
                ahead: None,
            },
        )?,
    };
    let target = resolve_agent(&store, id)?;
    let corpus = Corpus::new(&store);
    let rec = store.sessions.record(target);
    let view = inbox_view::InboxView::read(&rec)?;
    let pending: Vec<String> = [Target::NextStep, Target::NextTurn]
        .into_iter()
        .flat_map(|t| view.fold.pending(t).into_iter().map(|m| m.id.clone()))
        .collect();
    let text = match tab {
        Tab::Log => {
            let title = log_view::Title::of(&corpus, target, true);
            let opts = log_view::LogOptions {
                last: Some(20),
                reasoning: false,
                full: false,
                json: false,
                follow: false,
                poll: false,
            };
            let mut out = Vec::new();
            log_view::log(&mut out, &rec, &title, opts)?;
            String::from_utf8_lossy(&out).into_owned()
        }
        Tab::Inbox => view.render(Some(width)),
        Tab::Usage => {
            let req = usage::Request {
                agent: Some(target),
                tree: true,
                since: None,
                by: usage::By::Model,
                prices: None,
                table: true,
            };
            let report = usage::report(&corpus, &req);
            let mut text = String::new();
            usage::render_to(&corpus, &report, &req, Some(width), &mut |t| {
                text.push_str(t)
            });
            text
        }
        Tab::Trace => match message {
            Some(m) => trace::trace(&corpus, target, m)?.render(),
            None => "no pending message to trace: choose one in the Inbox tab ([ and ])".into(),
        },
    };
    Ok(Detail { text, pending })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::top::testing::{Copy, store};

    const NOW: i64 = 1_800_000_000_000;
    const WIDTH: usize = 100;

    /// The pane after the rows at `changed` are read again (from `pane`,
    /// drawn from `held`): what the patch came to, and the pane.
    fn patched(
        held: &mut Held,
        root: &Path,
        pane: &Snapshot,
        changed: &[SessionPos],
    ) -> (Patched, Snapshot) {
        let mut pane = pane.clone();
        let how = held.patch(changed, &mut pane, NOW);
        if how == Patched::Rows {
            pane = held.snapshot(root, None, WIDTH, NOW);
        }
        (how, pane)
    }

    /// Every row of every carried store, read again alone, leaves the pane
    /// a read of the whole store draws; on the stores whose rows are plain
    /// (no catalogs) most rows are read so, their lines drawn again alone.
    #[test]
    fn a_row_read_again_draws_what_a_whole_read_draws() {
        let names = crate::top::testing::store_names();
        for name in names {
            let root = store(&name);
            let Ok(mut whole) = Held::read(&root, None) else {
                continue;
            };
            let want = whole.snapshot(&root, None, WIDTH, NOW);
            let rows: Vec<SessionPos> = whole.blocks.iter().flat_map(|b| b.positions()).collect();
            let mut lines = 0;
            for pos in &rows {
                let mut held = Held::read(&root, None).unwrap();
                let pane = held.snapshot(&root, None, WIDTH, NOW);
                let (how, after) = patched(&mut held, &root, &pane, &[*pos]);
                if how != Patched::Store {
                    assert_eq!(after, want, "{name}: row {pos:?} ({how:?})");
                }
                lines += usize::from(how == Patched::Lines);
            }
            if ["team", "rc8-cli", "rc8-inbox", "rc8-live", "zstd"].contains(&name.as_str()) {
                assert!(lines > 1, "{name}: {lines} of {} rows", rows.len());
            }
        }
    }

    /// Append `line` to the log of the session at `pos`.
    fn append(held: &Held, pos: SessionPos, line: &str) {
        let log = held.store.sessions.record(pos.get()).log();
        std::fs::OpenOptions::new()
            .append(true)
            .open(&log)
            .and_then(|mut f| std::io::Write::write_all(&mut f, line.as_bytes()))
            .unwrap();
    }

    /// A turn started in a shown session's log, then a message queued for
    /// it: its row alone is read again (and for the message, its line
    /// alone drawn again), and the pane is what a whole read of the
    /// changed store draws (not what it was).
    #[test]
    fn a_turn_started_is_read_from_its_row_alone() {
        let copy = Copy::of("team", "patch-turn");
        let root = copy.path();
        let mut held = Held::read(root, None).unwrap();
        let before = held.snapshot(root, None, WIDTH, NOW);
        let pos = SessionPos::new(held.store.index_of("rev-0001").unwrap());
        let turn = format!(
            "{{\"type\":\"turn/start\",\"seq\":5,\"time\":{},\"data\":{{\"turn\":2}}}}\n",
            NOW - 5_000
        );
        append(&held, pos, &turn);
        // An open turn's cell is wider than an ended one's: the layout
        // moves, the pane is drawn again from the rows.
        let (how, after) = patched(&mut held, root, &before, &[pos]);
        assert_eq!(how, Patched::Rows);
        assert_ne!(after, before, "the row changed");
        assert_eq!(after, snapshot(root, None, WIDTH, NOW).unwrap());
        let message = crate::inbox::deliver::NewMessage {
            target: Target::NextTurn,
            framing: crate::inbox::framing::Framing::User,
            text: "look again",
            id: None,
        };
        crate::inbox::Inbox::new(&held.store.sessions.dir(pos.get()))
            .deliver(message, crate::inbox::Limits::default())
            .unwrap();
        let (how, queued) = patched(&mut held, root, &after, &[pos]);
        assert_eq!(how, Patched::Lines);
        assert_ne!(queued, after, "the pending count changed");
        assert_eq!(queued, snapshot(root, None, WIDTH, NOW).unwrap());
    }

    /// A model call's tokens move the row's TOKENS cell and every subtree
    /// total above it; a label that outgrows its column draws the pane
    /// again whole. Either way the pane is a whole read's.
    #[test]
    fn tokens_move_the_totals_above_and_a_wider_cell_draws_again() {
        let copy = Copy::of("rc8-cli", "patch-tokens");
        let root = copy.path();
        let mut held = Held::read(root, None).unwrap();
        let before = held.snapshot(root, None, WIDTH, NOW);
        let child = held
            .rows()
            .find(|r| r.depth > 0 && r.activity.is_some())
            .map(|r| r.index)
            .expect("a child whose log reads");
        let log = held.store.sessions.record(child.get()).log();
        let text = std::fs::read_to_string(&log).unwrap();
        let seq = text
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter_map(|v| v["seq"].as_u64())
            .max()
            .unwrap_or(0);
        // The last model call, again, with more tokens: a copy of a line
        // DSH wrote, so the reader takes it as it takes the others.
        let call = text
            .lines()
            .rfind(|l| l.contains("\"usage\""))
            .expect("a model call with usage");
        let mut v: serde_json::Value = serde_json::from_str(call).unwrap();
        v["seq"] = (seq + 1).into();
        append(&held, child, &format!("{v}\n"));
        let (how, after) = patched(&mut held, root, &before, &[child]);
        assert_ne!(how, Patched::Store);
        assert_ne!(after, before, "the tokens moved");
        assert_eq!(after, snapshot(root, None, WIDTH, NOW).unwrap());
    }

    /// A session whose log was replaced (another generation written beside
    /// it) cannot be said by its row: the tree is read whole.
    #[test]
    fn a_replaced_log_is_a_whole_read() {
        let copy = Copy::of("team", "patch-generation");
        let root = copy.path();
        let mut held = Held::read(root, None).unwrap();
        let mut pane = held.snapshot(root, None, WIDTH, NOW);
        let i = held.store.index_of("rev-0001").unwrap();
        let rec = held.store.sessions.record(i);
        std::fs::copy(rec.log(), rec.dir().join("session.v1.jsonl")).unwrap();
        let before = pane.clone();
        assert_eq!(
            held.patch(&[SessionPos::new(i)], &mut pane, NOW),
            Patched::Store
        );
        assert_eq!(pane, before, "nothing changed");
        // A session the held trees do not show is not a row either.
        let past = SessionPos::new(held.store.sessions.len() + 5);
        assert_eq!(held.patch(&[past], &mut pane, NOW), Patched::Store);
    }
}
