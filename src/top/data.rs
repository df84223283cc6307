//! What `top` shows, read from the store: the tree pane's lines (the text
//! `tree --width W` prints, each row tied to its member), the header's
//! counts, and the selected agent's tab. Read through the views the
//! commands print with, so the pane never disagrees with them.

use crate::error::Result;
use crate::inbox::Target;
use crate::operator::tree_measure::Filter;
use crate::operator::{inbox_view, log_view, trace, usage};
use crate::tree::Corpus;
use crate::tree::caller::resolve_agent;
use dsh_store::{self as store, Plan};
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
    pub marks: Vec<crate::top::budget::Mark>,
}

/// The tree pane for the store at `root` (one tree with `agent`) at
/// `width` columns against the clock `now`: the store opened once and
/// walked once, the text `tree --width W` prints with the member of each
/// row it draws (trees folded into its summary line have no rows);
/// `dirs` is told each drawn row's session directory.
pub fn snapshot(
    root: &Path,
    agent: Option<&str>,
    width: usize,
    now: i64,
    dirs: &mut dyn FnMut(&Path),
) -> Result<Snapshot> {
    use crate::operator::tree_view;
    let store = crate::operator::tree_watch::open(root)?;
    let corpus = Corpus::new(&store);
    let only = agent.map(|a| resolve_agent(&store, a)).transpose()?;
    let options = tree_view::Options {
        filter: Filter::default(),
        all: false,
        usage: true,
        width,
        now,
        hold: tree_view::HOLD_ROWS,
    };
    let mut states: Vec<(String, usize)> = Vec::new();
    let mut tokens = 0u64;
    let mut lines = tree_view::lines(&corpus, only, &options, &mut |m| {
        if let Some(i) = store.index_of(&m.id) {
            dirs(&store.sessions.dir(i));
        }
        // A tree's first member is its root: its subtree is the tree.
        if m.first {
            tokens = tokens.saturating_add(m.subtree_tokens);
        }
        match states.iter_mut().find(|(s, _)| s == m.state) {
            Some((_, n)) => *n += 1,
            None => states.push((m.state.to_string(), 1)),
        }
    })?;
    // A store in a fleet: each other host's trees below this host's, as
    // `tree --fleet` draws them (lines to read, not agents to act on).
    if agent.is_none() {
        lines.extend(fleet_lines(root, width, now));
    }
    Ok(Snapshot {
        lines,
        states,
        tokens,
        marks: Vec::new(),
    })
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
