//! `tree` as a command draws it: one frame of the chosen trees (text or
//! JSON, fitted to a width), and `--watch`, which redraws the frame when it
//! changes until Ctrl-C, overwriting the last one on a terminal.

use super::tree_measure::Filter;
use super::tree_view;
use crate::error::Result;
use crate::tree::Corpus;
use crate::tree::caller::resolve_agent;
use dsh_store::{self as store, Plan};

/// What `tree` draws.
#[derive(Debug, Clone)]
pub struct TreeView {
    pub agent: Option<String>,
    pub all: bool,
    pub usage: bool,
    pub filter: Filter,
    pub json: bool,
    /// `--width`, else the terminal's, else `tree_view::PIPE_WIDTH`.
    pub width: Option<usize>,
    /// The clock relative times are shown against.
    pub now: i64,
}

/// The store a tree view reads: every session.
pub fn open(root: &std::path::Path) -> Result<store::Store> {
    Ok(store::open(
        root,
        Plan::Whole {
            why: "a tree shows every session",
        },
    )?)
}

impl TreeView {
    pub fn frame(&self, root: &std::path::Path) -> Result<String> {
        let mut text = String::new();
        self.frame_to(root, &mut |t| text.push_str(t))?;
        Ok(text)
    }

    /// The text frame as lines, each row's with its member (for a clock
    /// that moves between reads).
    pub fn lines(&self, root: &std::path::Path) -> Result<Vec<tree_view::Line>> {
        self.with_trees(root, |corpus, only| {
            tree_view::lines(corpus, only, &self.options(), &mut |_| {})
        })
    }

    /// Each member of the JSON frame with its tree's root id, a member at a
    /// time (`tree_view::members_to`).
    pub fn members(
        &self,
        root: &std::path::Path,
        each: &mut dyn FnMut(&str, serde_json::Value),
    ) -> Result<()> {
        self.with_trees(root, |corpus, only| {
            tree_view::members_to(corpus, only, self.filter, tree_view::HOLD_ROWS, each)
        })
    }

    /// `f` on the store at `root` and the tree `agent` names (every tree
    /// without one).
    fn with_trees<T>(
        &self,
        root: &std::path::Path,
        f: impl FnOnce(&Corpus, Option<usize>) -> Result<T>,
    ) -> Result<T> {
        let store = open(root)?;
        let corpus = Corpus::new(&store);
        let only = self
            .agent
            .as_deref()
            .map(|a| resolve_agent(&store, a))
            .transpose()?;
        f(&corpus, only)
    }

    /// How the text frame is drawn.
    fn options(&self) -> tree_view::Options {
        tree_view::Options {
            filter: self.filter,
            all: self.all,
            usage: self.usage,
            width: self
                .width
                .or_else(crate::operator::table::terminal_width)
                .unwrap_or(tree_view::PIPE_WIDTH),
            now: self.now,
            hold: tree_view::HOLD_ROWS,
        }
    }

    /// The frame handed to `out` in pieces, as it is rendered.
    pub fn frame_to(&self, root: &std::path::Path, out: &mut dyn FnMut(&str)) -> Result<()> {
        self.with_trees(root, |corpus, only| {
            if self.json {
                tree_view::json_to(corpus, only, self.filter, tree_view::HOLD_ROWS, out)
            } else {
                tree_view::text_to(corpus, only, &self.options(), out)
            }
        })
    }
}

/// `tree --watch`: redraw when the frame changes, until Ctrl-C. On a
/// terminal each frame overwrites the last in one write (no flicker);
/// piped, each changed frame is printed after a blank line. The store is
/// read when it says it changed; between reads the clock moves the
/// relative times (each read at the display clock then, or at `fixed`).
pub fn watch(root: &std::path::Path, view: &TreeView, fixed: Option<i64>) -> Result<()> {
    use std::io::Write;
    crate::support::signals::install();
    let tty = rustix::termios::isatty(std::io::stdout());
    let mut watch = crate::operator::store_watch::StoreWatch::new();
    let mut refresh = crate::support::refresh::Refresh::new();
    let clock = || fixed.unwrap_or_else(crate::support::clock::now_ms);
    let mut lines: Vec<tree_view::Line> = Vec::new();
    let mut json = String::new();
    let mut tick = std::time::Instant::now();
    let mut last = String::new();
    let mut out = std::io::stdout().lock();
    while !crate::support::signals::view_done() {
        let now = std::time::Instant::now();
        if refresh.due(now).is_some() {
            refresh.reading();
            watch.begin_all(root);
            let at = TreeView {
                now: clock(),
                ..view.clone()
            };
            if view.json {
                json = at.frame(root)?;
            } else {
                lines = at.lines(root)?;
            }
            refresh.read(now, now.elapsed(), watch.complete());
            tick = now + std::time::Duration::from_secs(1);
        } else if now >= tick {
            tree_view::retime(&mut lines, clock());
            tick = now + std::time::Duration::from_secs(1);
        } else {
            let wait = tick.saturating_duration_since(now);
            if watch.wait(wait.min(crate::support::refresh::TICK)) {
                refresh.changed();
            }
            continue;
        }
        let frame = if view.json {
            json.clone()
        } else {
            let texts: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
            texts.join("\n")
        };
        if frame != last {
            let text = if tty {
                let lines: Vec<String> = frame.lines().map(|l| format!("{l}\x1b[K")).collect();
                let clear = if last.is_empty() { "\x1b[2J" } else { "" };
                format!("{clear}\x1b[H{}\n\x1b[J", lines.join("\n"))
            } else if last.is_empty() {
                format!("{frame}\n")
            } else {
                format!("\n{frame}\n")
            };
            if out
                .write_all(text.as_bytes())
                .and_then(|()| out.flush())
                .is_err()
            {
                return Ok(());
            }
            last = frame;
        }
    }
    Ok(())
}
