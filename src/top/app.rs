//! The `top` model: which row is selected, which subtrees are folded, the
//! tab, the one-line editor, the interrupt confirmation, the name filter
//! and the help overlay. `App::handle` turns a key into what to do, with no
//! terminal and no store: the loop (`term`) does the actions and reports
//! back in the status line.

use super::amount::Level;
use super::data::{Member, Snapshot, Tab};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::borrow::Cow;
use std::collections::HashSet;

/// What a key asks the loop to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    Quit,
    /// Queue `text` for `agent`: its next turn, or (`steer`) its next step.
    Send {
        agent: String,
        text: String,
        steer: bool,
    },
    Interrupt {
        agent: String,
    },
    Cancel {
        agent: String,
        message: String,
    },
}

/// What the keyboard is bound to right now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    Normal,
    /// Typing a followup (`steer`: a steer) for `agent`.
    Edit {
        agent: String,
        steer: bool,
        text: String,
    },
    /// Asked "interrupt `agent`? y/n".
    Confirm {
        agent: String,
    },
    /// Typing a name filter.
    Filter,
    Help,
}

#[derive(Debug, Clone)]
pub struct App {
    pub snapshot: Snapshot,
    /// The selected member's id (kept across refreshes).
    pub selected: Option<String>,
    pub folded: HashSet<String>,
    pub tab: Tab,
    pub mode: Mode,
    /// Rows whose name holds this are shown (with the rows above them).
    pub filter: String,
    /// The pending messages of the selected agent, and the one the Inbox
    /// tab's cursor is on (the Trace tab follows it).
    pub pending: Vec<String>,
    pub message: usize,
    pub status: String,
}

impl App {
    pub fn new(snapshot: Snapshot) -> App {
        let mut app = App {
            snapshot: Snapshot::default(),
            selected: None,
            folded: HashSet::new(),
            tab: Tab::Log,
            mode: Mode::Normal,
            filter: String::new(),
            pending: Vec::new(),
            message: 0,
            status: String::new(),
        };
        app.refresh(snapshot);
        app
    }

    /// Take a new snapshot in, keeping the selection when its agent is
    /// still shown (else the first row).
    pub fn refresh(&mut self, snapshot: Snapshot) {
        self.snapshot = snapshot;
        let shown = self.rows();
        let kept = self
            .selected
            .as_ref()
            .is_some_and(|s| shown.iter().any(|m| *m.id == **s));
        if !kept {
            self.selected = shown.first().map(|m| m.id.to_string());
        }
    }

    /// The pending messages of the selected agent (after a refresh of its tab).
    pub fn set_pending(&mut self, pending: Vec<String>) {
        self.pending = pending;
        self.message = self.message.min(self.pending.len().saturating_sub(1));
    }

    /// The message the Inbox cursor is on.
    pub fn message(&self) -> Option<&str> {
        self.pending.get(self.message).map(String::as_str)
    }

    /// Line `k`'s parent's line (rows only: each member names its
    /// parent's line, so a walk up the tree is a step a level).
    fn parent_line(&self, k: usize) -> Option<u32> {
        self.snapshot.lines.get(k)?.member.as_ref()?.parent
    }

    /// The agent of line `k`.
    fn line_id(&self, k: u32) -> Option<&str> {
        Some(&self.snapshot.lines.get(k as usize)?.member.as_ref()?.id)
    }

    /// The members above line `k`'s, nearest first.
    fn ancestors_at(&self, k: usize) -> impl Iterator<Item = &Member> + '_ {
        let lines = &self.snapshot.lines;
        let mut next = self.parent_line(k);
        // A tree has no cycle; a step a line bounds the walk all the same.
        let mut steps = 0usize;
        std::iter::from_fn(move || {
            let p = next? as usize;
            steps += 1;
            if steps > lines.len() {
                return None;
            }
            next = self.parent_line(p);
            lines.get(p)?.member.as_ref()
        })
    }

    /// The members a filter keeps: each whose name holds it and every
    /// member above one (`None` without a filter). Made once a look, so a
    /// filter costs a walk up from each match, not a scan a line.
    fn kept(&self) -> Option<HashSet<&str>> {
        if self.filter.is_empty() {
            return None;
        }
        let f = self.filter.to_lowercase();
        let mut kept = HashSet::new();
        for (k, l) in self.snapshot.lines.iter().enumerate() {
            let Some(m) = &l.member else { continue };
            if m.name.to_lowercase().contains(&f) && kept.insert(&*m.id) {
                for a in self.ancestors_at(k) {
                    if !kept.insert(&*a.id) {
                        break;
                    }
                }
            }
        }
        Some(kept)
    }

    /// Whether the line is shown: not below a folded member, and (with a
    /// filter) kept by it.
    fn shows(&self, k: usize, kept: Option<&HashSet<&str>>) -> bool {
        let Some(m) = self.snapshot.lines.get(k).and_then(|l| l.member.as_ref()) else {
            return true;
        };
        if !self.folded.is_empty() && self.ancestors_at(k).any(|a| self.folded.contains(&*a.id)) {
            return false;
        }
        kept.is_none_or(|k| k.contains(&*m.id))
    }

    /// The tree pane's lines as shown, each with whether it is selected; a
    /// folded row says how many rows it hides.
    /// The tree pane's lines as shown: each line's text, whether it is the
    /// selection, and how far into a budget (`--budget`) its member's
    /// subtree is.
    pub fn visible(&self) -> Vec<(Cow<'_, str>, bool, Level)> {
        let kept = self.kept();
        self.snapshot
            .lines
            .iter()
            .enumerate()
            .filter(|(k, _)| self.shows(*k, kept.as_ref()))
            .map(|(_, l)| match &l.member {
                Some(m) => {
                    let hidden = self.hidden_below(m);
                    // Only a folded row's text is made anew: a frame of
                    // 100,000 rows copies none of them.
                    let text = if hidden > 0 {
                        Cow::Owned(format!("{} [+{hidden}]", l.text))
                    } else {
                        Cow::Borrowed(l.text.as_str())
                    };
                    let level = self
                        .snapshot
                        .marks
                        .iter()
                        .filter(|k| *k.id == *m.id)
                        .map(|k| k.level)
                        .max()
                        .unwrap_or(Level::Under);
                    (text, self.selected.as_deref() == Some(&*m.id), level)
                }
                None => (Cow::Borrowed(l.text.as_str()), false, Level::Under),
            })
            .collect()
    }

    fn hidden_below(&self, m: &Member) -> usize {
        if !self.folded.contains(&*m.id) {
            return 0;
        }
        (0..self.snapshot.lines.len())
            .filter(|k| self.ancestors_at(*k).any(|a| a.id == m.id))
            .count()
    }

    /// The shown members, in order.
    pub fn rows(&self) -> Vec<&Member> {
        let kept = self.kept();
        self.snapshot
            .lines
            .iter()
            .enumerate()
            .filter(|(k, _)| self.shows(*k, kept.as_ref()))
            .filter_map(|(_, l)| l.member.as_ref())
            .collect()
    }

    fn move_by(&mut self, step: isize) {
        let rows = self.rows();
        if rows.is_empty() {
            return;
        }
        let at = self
            .selected
            .as_ref()
            .and_then(|s| rows.iter().position(|m| *m.id == **s))
            .unwrap_or(0);
        let last = rows.len() - 1;
        let to = at.saturating_add_signed(step).min(last);
        self.selected = Some(rows[to].id.to_string());
    }

    fn has_children(&self, id: &str) -> bool {
        self.snapshot
            .lines
            .iter()
            .filter_map(|l| l.member.as_ref())
            .any(|m| m.parent.is_some_and(|p| self.line_id(p) == Some(id)))
    }

    /// What `key` does.
    pub fn handle(&mut self, key: KeyEvent) -> Vec<Action> {
        let ctrl_c =
            key.code == KeyCode::Char('c') && key.modifiers.contains(KeyModifiers::CONTROL);
        if ctrl_c {
            return vec![Action::Quit];
        }
        match std::mem::replace(&mut self.mode, Mode::Normal) {
            Mode::Help => Vec::new(),
            Mode::Confirm { agent } => match key.code {
                KeyCode::Char('y') | KeyCode::Char('Y') => vec![Action::Interrupt { agent }],
                _ => {
                    self.status = format!("not interrupted: {agent}");
                    Vec::new()
                }
            },
            Mode::Filter => {
                match key.code {
                    KeyCode::Enter => {}
                    KeyCode::Esc => self.filter.clear(),
                    KeyCode::Backspace => {
                        self.filter.pop();
                        self.mode = Mode::Filter;
                    }
                    KeyCode::Char(c) => {
                        self.filter.push(c);
                        self.mode = Mode::Filter;
                    }
                    _ => self.mode = Mode::Filter,
                }
                self.refresh(self.snapshot.clone());
                Vec::new()
            }
            Mode::Edit {
                agent,
                steer,
                mut text,
            } => match key.code {
                KeyCode::Esc => {
                    self.status = "not sent".into();
                    Vec::new()
                }
                KeyCode::Enter if text.trim().is_empty() => {
                    self.status = "an empty message is not sent".into();
                    Vec::new()
                }
                KeyCode::Enter => vec![Action::Send { agent, text, steer }],
                KeyCode::Backspace => {
                    text.pop();
                    self.mode = Mode::Edit { agent, steer, text };
                    Vec::new()
                }
                KeyCode::Char(c) => {
                    text.push(c);
                    self.mode = Mode::Edit { agent, steer, text };
                    Vec::new()
                }
                _ => {
                    self.mode = Mode::Edit { agent, steer, text };
                    Vec::new()
                }
            },
            Mode::Normal => self.normal(key),
        }
    }

    fn normal(&mut self, key: KeyEvent) -> Vec<Action> {
        let agent = self.selected.clone();
        match key.code {
            KeyCode::Char('q') => return vec![Action::Quit],
            KeyCode::Char('j') | KeyCode::Down => self.move_by(1),
            KeyCode::Char('k') | KeyCode::Up => self.move_by(-1),
            KeyCode::Char('g') | KeyCode::Home => self.move_by(isize::MIN / 2),
            KeyCode::Char('G') | KeyCode::End => self.move_by(isize::MAX / 2),
            KeyCode::Char('h') | KeyCode::Left => {
                if let Some(a) = agent.filter(|a| self.has_children(a)) {
                    self.folded.insert(a);
                }
            }
            KeyCode::Char('l') | KeyCode::Right => {
                if let Some(a) = agent {
                    self.folded.remove(&a);
                }
            }
            KeyCode::Enter => {
                if let Some(a) = agent.filter(|a| self.has_children(a))
                    && !self.folded.remove(&a)
                {
                    self.folded.insert(a);
                }
            }
            KeyCode::Tab => {
                let at = Tab::ALL.iter().position(|t| *t == self.tab).unwrap_or(0);
                self.tab = Tab::ALL[(at + 1) % Tab::ALL.len()];
            }
            KeyCode::Char(c @ '1'..='4') => {
                self.tab = Tab::ALL[usize::from(c as u8 - b'1')];
            }
            KeyCode::Char(']') => {
                self.message = (self.message + 1).min(self.pending.len().saturating_sub(1));
            }
            KeyCode::Char('[') => self.message = self.message.saturating_sub(1),
            KeyCode::Char(c @ ('s' | 'S')) => {
                if let Some(agent) = agent {
                    self.mode = Mode::Edit {
                        agent,
                        steer: c == 'S',
                        text: String::new(),
                    };
                }
            }
            KeyCode::Char('i') => {
                if let Some(agent) = agent {
                    self.mode = Mode::Confirm { agent };
                }
            }
            KeyCode::Char('c') if self.tab == Tab::Inbox => {
                if let (Some(agent), Some(message)) = (agent, self.message()) {
                    return vec![Action::Cancel {
                        agent,
                        message: message.to_string(),
                    }];
                }
                self.status = "no pending message to cancel".into();
            }
            KeyCode::Char('/') => self.mode = Mode::Filter,
            KeyCode::Char('?') => self.mode = Mode::Help,
            _ => {}
        }
        Vec::new()
    }
}

/// Every binding, for the help overlay and the README.
pub const BINDINGS: &[(&str, &str)] = &[
    ("j/k, arrows", "move"),
    ("g/G", "first / last row"),
    ("h/l, Enter", "fold / unfold a subtree"),
    ("Tab, 1-4", "Log, Inbox, Usage, Trace"),
    ("s", "followup (next turn) to the agent"),
    ("S", "steer (next step) to the agent"),
    ("i", "interrupt (asks y/n)"),
    ("[ / ]", "choose a pending message (Inbox, Trace)"),
    ("c", "cancel that message (Inbox tab)"),
    ("/", "filter by name (Enter keeps, Esc clears)"),
    ("?", "this help (any key closes)"),
    ("q, Ctrl-C", "quit"),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::top::data::{Member, TreeLine};

    fn key(c: KeyCode) -> KeyEvent {
        KeyEvent::new(c, KeyModifiers::NONE)
    }

    fn row(id: &str, name: &str, parent: Option<u32>) -> TreeLine {
        TreeLine {
            text: format!("{name} row"),
            member: Some(Member {
                id: id.into(),
                name: name.into(),
                parent,
                state: "idle",
                subtree_tokens: 0,
                first: parent.is_none(),
                last: None,
            }),
        }
    }

    fn app() -> App {
        App::new(Snapshot {
            lines: vec![
                TreeLine {
                    text: "tree lead".into(),
                    member: None,
                },
                row("lead-1", "lead", None),
                row("rev-1", "reviewer", Some(1)),
                row("chk-1", "reviewer/checker", Some(2)),
                row("sct-1", "scout", Some(1)),
            ],
            states: Vec::new(),
            tokens: 0,
            marks: Vec::new(),
        })
    }

    fn typed(app: &mut App, text: &str) -> Vec<Action> {
        let mut out = Vec::new();
        for c in text.chars() {
            out.extend(app.handle(key(KeyCode::Char(c))));
        }
        out
    }

    #[test]
    fn keys_move_fold_and_filter() {
        let mut a = app();
        assert_eq!(a.selected.as_deref(), Some("lead-1"));
        for (k, want) in [
            (KeyCode::Char('j'), "rev-1"),
            (KeyCode::Down, "chk-1"),
            (KeyCode::Char('k'), "rev-1"),
            (KeyCode::Char('G'), "sct-1"),
            (KeyCode::Char('g'), "lead-1"),
        ] {
            assert!(a.handle(key(k)).is_empty());
            assert_eq!(a.selected.as_deref(), Some(want), "{k:?}");
        }
        // Fold the reviewer: its checker is hidden, and the row says so.
        a.handle(key(KeyCode::Char('j')));
        a.handle(key(KeyCode::Char('h')));
        let shown: Vec<String> = a.visible().into_iter().map(|v| v.0.into_owned()).collect();
        assert!(
            shown.contains(&"reviewer row [+1]".to_string()),
            "{shown:?}"
        );
        assert!(!shown.iter().any(|l| l.starts_with("reviewer/checker")));
        a.handle(key(KeyCode::Char('j')));
        assert_eq!(
            a.selected.as_deref(),
            Some("sct-1"),
            "a folded row is skipped"
        );
        a.handle(key(KeyCode::Char('k')));
        a.handle(key(KeyCode::Enter));
        assert_eq!(a.visible().len(), 5, "Enter unfolds");
        // The filter keeps matches and the rows above them.
        a.handle(key(KeyCode::Char('/')));
        typed(&mut a, "check");
        a.handle(key(KeyCode::Enter));
        let ids: Vec<&str> = a.rows().iter().map(|m| &*m.id).collect();
        assert_eq!(ids, ["lead-1", "rev-1", "chk-1"]);
        a.handle(key(KeyCode::Char('/')));
        a.handle(key(KeyCode::Esc));
        assert_eq!(a.rows().len(), 4, "Esc clears the filter");
    }

    #[test]
    fn followup_steer_interrupt_and_cancel() {
        let mut a = app();
        a.handle(key(KeyCode::Char('j')));
        a.handle(key(KeyCode::Char('s')));
        assert!(typed(&mut a, "hi there").is_empty(), "typing sends nothing");
        a.handle(key(KeyCode::Backspace));
        assert_eq!(
            a.handle(key(KeyCode::Enter)),
            [Action::Send {
                agent: "rev-1".into(),
                text: "hi ther".into(),
                steer: false
            }]
        );
        a.handle(key(KeyCode::Char('S')));
        typed(&mut a, "now");
        assert_eq!(
            a.handle(key(KeyCode::Enter)),
            [Action::Send {
                agent: "rev-1".into(),
                text: "now".into(),
                steer: true
            }]
        );
        // An empty message and Esc send nothing.
        a.handle(key(KeyCode::Char('s')));
        assert!(a.handle(key(KeyCode::Enter)).is_empty());
        a.handle(key(KeyCode::Char('s')));
        typed(&mut a, "x");
        assert!(a.handle(key(KeyCode::Esc)).is_empty());
        // Interrupt asks first: only y does it; Esc is never an interrupt.
        a.handle(key(KeyCode::Char('i')));
        assert!(a.handle(key(KeyCode::Char('n'))).is_empty());
        a.handle(key(KeyCode::Char('i')));
        assert!(a.handle(key(KeyCode::Esc)).is_empty());
        a.handle(key(KeyCode::Char('i')));
        assert_eq!(
            a.handle(key(KeyCode::Char('y'))),
            [Action::Interrupt {
                agent: "rev-1".into()
            }]
        );
        // Cancel works in the Inbox tab, on the message under the cursor.
        a.set_pending(vec!["m-1".into(), "m-2".into()]);
        assert!(a.handle(key(KeyCode::Char('c'))).is_empty(), "not in Log");
        a.handle(key(KeyCode::Char('2')));
        a.handle(key(KeyCode::Char(']')));
        assert_eq!(
            a.handle(key(KeyCode::Char('c'))),
            [Action::Cancel {
                agent: "rev-1".into(),
                message: "m-2".into()
            }]
        );
        // Help closes on any key; q and Ctrl-C quit.
        a.handle(key(KeyCode::Char('?')));
        assert_eq!(a.mode, Mode::Help);
        assert!(a.handle(key(KeyCode::Char('q'))).is_empty());
        assert_eq!(a.handle(key(KeyCode::Char('q'))), [Action::Quit]);
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        a.handle(key(KeyCode::Char('s')));
        assert_eq!(a.handle(ctrl_c), [Action::Quit], "even while typing");
    }
}
