//! One `top` frame: a header (store, counts by state, tokens, clock), the
//! tree pane (the text `tree --width W` prints, W the pane's inner width,
//! the selected row reversed), the selected agent's tabs, the status line
//! and the key hints on the bottom line; the help overlay on top. Colour
//! only where `NO_COLOR` is unset; the selection is shown by reversal, so
//! it shows without colour too.

use super::app::{App, BINDINGS, Mode};
use super::data::Tab;
use crate::top::amount::Level;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Tabs};

/// The tree pane's inner width for a terminal `width` columns wide: more
/// than half of it, at least 40 columns (`tree`'s narrowest).
pub fn tree_width(width: u16) -> usize {
    let pane = (width as usize * 3 / 5).max(42);
    pane.saturating_sub(2).max(40)
}

/// What the frame shows besides the model.
pub struct Shown<'a> {
    pub store: &'a str,
    pub clock: &'a str,
    pub detail: &'a str,
    pub colour: bool,
}

/// Where the TOKENS cells sit in the tree pane's rows (characters, from
/// the column title to the next one's), when the width left the column.
fn tokens_cells(snapshot: &crate::top::data::Snapshot) -> Option<(usize, usize)> {
    let head = snapshot
        .lines
        .iter()
        .find(|l| l.member.is_none() && l.text.starts_with("NAME"))?;
    // The titles are ASCII: bytes are characters.
    let from = head.text.find("TOKENS")?;
    let to = head.text[from..]
        .find("LABEL")
        .map_or(usize::MAX, |k| from + k);
    Some((from, to))
}

pub fn draw(frame: &mut Frame, app: &App, shown: &Shown) {
    let area = frame.area();
    let [head, body, status, hints] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(3),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(area);
    let tree_cols = u16::try_from(tree_width(area.width) + 2)
        .unwrap_or(u16::MAX)
        .min(area.width);
    let [left, right] =
        Layout::horizontal([Constraint::Length(tree_cols), Constraint::Min(0)]).areas(body);
    let colour = |c: Color| {
        if shown.colour {
            Style::default().fg(c)
        } else {
            Style::default()
        }
    };
    // Header.
    let counts: Vec<String> = app
        .snapshot
        .states
        .iter()
        .map(|(s, n)| format!("{n} {s}"))
        .collect();
    // A budget at 80% or past it is said in the header too.
    let budgets: String = app
        .snapshot
        .marks
        .iter()
        .filter(|m| m.level > Level::Under)
        .map(|m| format!(" · {} {} of {}", m.agent, m.spent, m.limit))
        .collect();
    let header = format!(
        "{} · {} · {} tokens{budgets} · {}",
        shown.store,
        if counts.is_empty() {
            "no agents".to_string()
        } else {
            counts.join(", ")
        },
        app.snapshot.tokens,
        shown.clock
    );
    frame.render_widget(
        Paragraph::new(header).style(Style::default().add_modifier(Modifier::BOLD)),
        head,
    );
    // Tree pane.
    let visible = app.visible();
    let inner_height = usize::from(left.height.saturating_sub(2));
    let at = visible.iter().position(|(_, sel, _)| *sel).unwrap_or(0);
    let skip = at.saturating_sub(inner_height.saturating_sub(1));
    let tokens = tokens_cells(&app.snapshot);
    // Only the rows the pane shows become lines.
    let lines: Vec<Line> = visible
        .into_iter()
        .skip(skip)
        .take(inner_height)
        .map(|(text, selected, level)| {
            let style = if selected {
                Style::default().add_modifier(Modifier::REVERSED)
            } else if text.contains(" corrupt ")
                || text.contains(" unavailable ")
                || text.contains(" unsupported ")
            {
                colour(Color::Red)
            } else if text.contains(" running ") {
                colour(Color::Green)
            } else {
                Style::default()
            };
            if selected || level == Level::Under {
                return Line::from(Span::styled(text, style));
            }
            // A budget at 80% shows its agent's tokens yellow, a spent
            // one red (bold either way, so it shows without colour too).
            let mark = match level {
                Level::Exceeded => colour(Color::Red),
                _ => colour(Color::Yellow),
            }
            .add_modifier(Modifier::BOLD);
            let chars: Vec<char> = text.chars().collect();
            let (from, to) = tokens.unwrap_or((0, chars.len()));
            let (from, to) = (from.min(chars.len()), to.min(chars.len()));
            let part = |a: usize, b: usize| chars[a..b].iter().collect::<String>();
            Line::from(vec![
                Span::styled(part(0, from), style),
                Span::styled(part(from, to), mark),
                Span::styled(part(to, chars.len()), style),
            ])
        })
        .collect();
    frame.render_widget(
        Paragraph::new(lines).block(Block::default().borders(Borders::ALL).title(" tree ")),
        left,
    );
    // Tabs and the selected agent's tab.
    let [tabs_area, detail_area] =
        Layout::vertical([Constraint::Length(1), Constraint::Min(0)]).areas(right);
    let titles: Vec<String> = Tab::ALL
        .iter()
        .enumerate()
        .map(|(k, t)| format!("{} {}", k + 1, t.title()))
        .collect();
    let selected_tab = Tab::ALL.iter().position(|t| *t == app.tab).unwrap_or(0);
    frame.render_widget(
        Tabs::new(titles)
            .select(selected_tab)
            .highlight_style(Style::default().add_modifier(Modifier::REVERSED)),
        tabs_area,
    );
    let detail_lines: Vec<&str> = shown.detail.lines().collect();
    let room = usize::from(detail_area.height.saturating_sub(2));
    // The log follows its tail; the other tabs start at their top.
    let from = if app.tab == Tab::Log {
        detail_lines.len().saturating_sub(room)
    } else {
        0
    };
    let title = match (&app.selected, app.tab) {
        (Some(id), Tab::Inbox | Tab::Trace) => match app.message() {
            Some(m) => format!(" {id} · message {m} "),
            None => format!(" {id} "),
        },
        (Some(id), _) => format!(" {id} "),
        (None, _) => " no agent ".to_string(),
    };
    frame.render_widget(
        Paragraph::new(detail_lines[from..].join("\n"))
            .block(Block::default().borders(Borders::ALL).title(title)),
        detail_area,
    );
    // Status: the editor, the question, the filter, or what happened last.
    let status_text = match &app.mode {
        Mode::Edit { agent, steer, text } => format!(
            "{} to {agent}: {text}▏ (Enter sends, Esc drops)",
            if *steer { "steer" } else { "followup" }
        ),
        Mode::Confirm { agent } => format!("interrupt {agent}? y/n"),
        Mode::Filter => format!("filter: {}▏ (Enter keeps, Esc clears)", app.filter),
        _ => app.status.clone(),
    };
    frame.render_widget(Paragraph::new(status_text), status);
    frame.render_widget(
        Paragraph::new("q quit  j/k move  h/l fold  Tab/1-4 tabs  s followup  S steer  i interrupt  c cancel  / filter  ? help")
            .style(colour(Color::DarkGray)),
        hints,
    );
    if app.mode == Mode::Help {
        let lines: Vec<Line> = BINDINGS
            .iter()
            .map(|(k, what)| Line::from(format!("{k:<12} {what}")))
            .collect();
        let h = u16::try_from(lines.len() + 2)
            .unwrap_or(u16::MAX)
            .min(area.height);
        let w = 60.min(area.width);
        let popup = Rect {
            x: area.x + (area.width - w) / 2,
            y: area.y + (area.height - h) / 2,
            width: w,
            height: h,
        };
        frame.render_widget(Clear, popup);
        frame.render_widget(
            Paragraph::new(lines).block(Block::default().borders(Borders::ALL).title(" keys ")),
            popup,
        );
    }
}

/// The frame `top` draws for the store at `root` (shown as `label`) in a
/// `w`×`h` terminal after `keys`, as text without colour: what the frame
/// tests pin, and what the benchmark times as `top`'s first frame.
pub fn frame_text(
    root: &std::path::Path,
    label: &str,
    w: u16,
    h: u16,
    keys: &[char],
    now: i64,
    clock: &str,
) -> crate::error::Result<String> {
    use crate::top::data;
    use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    let mut app = App::new(data::snapshot(root, None, tree_width(w), now)?);
    for k in keys {
        app.handle(KeyEvent::new(KeyCode::Char(*k), KeyModifiers::NONE));
    }
    let pane = usize::from(w).saturating_sub(tree_width(w) + 4).max(20);
    let detail = match app.selected.clone() {
        Some(id) => data::detail(root, &id, app.tab, pane, app.message())?,
        None => data::Detail::default(),
    };
    app.set_pending(detail.pending.clone());
    // A test backend cannot fail (its error type has no values).
    let mut terminal = ratatui::Terminal::new(ratatui::backend::TestBackend::new(w, h))
        .unwrap_or_else(|e| match e {});
    terminal
        .draw(|f| {
            draw(
                f,
                &app,
                &Shown {
                    store: label,
                    clock,
                    detail: &detail.text,
                    colour: false,
                },
            )
        })
        .unwrap_or_else(|e| match e {});
    Ok(format!("{}", terminal.backend()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::top::data;
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    const NOW: i64 = 1_800_000_000_000;

    use crate::top::testing::store;

    /// The frame `top` draws for `store` in a `w`×`h` terminal, after `keys`.
    fn frame(name: &str, w: u16, h: u16, keys: &[char]) -> String {
        frame_text(
            &store(name),
            name,
            w,
            h,
            keys,
            NOW,
            "2027-01-15T08:00:00.000Z",
        )
        .unwrap()
    }

    #[test]
    fn frames_at_80_and_120_columns() {
        for (name, w, h, keys) in [
            ("team", 80, 24, &[][..]),
            ("team", 120, 40, &[][..]),
            // The corrupt and the unavailable rows are rows, never dropped.
            ("team", 120, 40, &['G'][..]),
            ("team", 80, 24, &['?'][..]),
            ("rc8-inbox", 120, 30, &['j', '2'][..]),
            ("rc8-cli", 100, 30, &['3'][..]),
        ] {
            let keys_name: String = keys
                .iter()
                .map(|k| if *k == '?' { 'h' } else { *k })
                .collect();
            insta::assert_snapshot!(
                format!("{name}-{w}x{h}-{keys_name}"),
                frame(name, w, h, keys)
            );
        }
    }

    /// The tree pane holds what `tree --width W` prints for the store.
    #[test]
    fn the_tree_pane_is_the_tree_command_text() {
        let names = crate::top::testing::store_names();
        let (mut compared, mut tied) = (0, 0);
        for name in &names {
            for w in [80, 120] {
                let snap = data::snapshot(&store(name), None, tree_width(w), NOW);
                let view = crate::operator::tree_watch::TreeView {
                    agent: None,
                    all: false,
                    usage: true,
                    filter: Default::default(),
                    json: false,
                    width: Some(tree_width(w)),
                    now: NOW,
                };
                match (snap, view.frame(&store(name))) {
                    (Ok(snap), Ok(text)) => {
                        let pane: Vec<&str> = snap.lines.iter().map(|l| l.text.as_str()).collect();
                        assert_eq!(pane, text.lines().collect::<Vec<_>>(), "{name} at {w}");
                        compared += 1;
                        tied += usize::from(snap.lines.iter().any(|l| l.member.is_some()));
                    }
                    // A store `tree` refuses, the pane refuses alike.
                    (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{name}"),
                    (a, b) => panic!("{name} at {w}: {:?} against {:?}", a.err(), b.err()),
                }
            }
        }
        assert!(compared >= 2 * 15, "{compared} panes compared");
        // Each row's line is tied to its member.
        assert!(tied >= 2 * 10, "{tied} panes with members");
    }

    /// A store in a fleet shows each other host's trees below its own, as
    /// lines to read: this host's rows, and what the cursor can select,
    /// are as before.
    #[test]
    fn a_fleet_stores_pane_shows_the_other_hosts_below_its_own() {
        let copy = crate::top::testing::Copy::of("team", "fleet");
        let root = copy.path().to_path_buf();
        let w = 120;
        let alone = data::snapshot(&root, None, tree_width(w), NOW).unwrap();
        let local = crate::fleet::local::Local::of(&root);
        local
            .join(&crate::fleet::local::Membership {
                host: "a".into(),
                hub: "nats://127.0.0.1:1".into(),
                creds: "a.nk".into(),
                tls_ca: None,
            })
            .unwrap();
        let rows: Vec<Vec<u8>> = crate::fleet::rows::read(&store("rc8-cli"), "b")
            .unwrap()
            .values()
            .map(|r| serde_json::to_vec(r).unwrap())
            .collect();
        local
            .set_rows("b", &rows.iter().map(Vec::as_slice).collect::<Vec<_>>())
            .unwrap();
        let joined = data::snapshot(&root, None, tree_width(w), NOW).unwrap();
        let text = |s: &data::Snapshot| -> Vec<String> {
            s.lines.iter().map(|l| l.text.clone()).collect()
        };
        let all = text(&joined);
        let (mine, theirs) = all.split_at(alone.lines.len());
        assert_eq!(mine, text(&alone));
        assert_eq!(theirs[0], "");
        assert_eq!(theirs[1], "host b · never heard from");
        assert!(
            theirs.iter().any(|l| l.starts_with("└─ b5543822")),
            "{theirs:?}"
        );
        let selectable = |s: &data::Snapshot| s.lines.iter().filter(|l| l.member.is_some()).count();
        assert_eq!(selectable(&joined), selectable(&alone));
    }

    /// Between reads the clock moves the pane's last-turn cells as a read
    /// at the later clock draws them, at every width (cells cut, columns
    /// left out) and for every span of time a cell can show.
    #[test]
    fn a_pane_made_again_at_a_later_clock_is_what_a_read_then_draws() {
        let mut moved = 0;
        for name in ["team", "rc8-inbox", "rc8-cli", "rc8-live"] {
            for w in [60, 80, 120, 200] {
                let read = |now| data::snapshot(&store(name), None, tree_width(w), now).unwrap();
                // A day after the rc8 stores' turns, where their cells say
                // `3 h ago` and `open 1 d` and move with the clock.
                let near = 1_796_342_400_000;
                let first = read(near);
                // Each span from the read, and the same spans one after
                // another on one pane (as the ticks of a running `top`).
                let mut rolling = first.clone();
                for later in [1_000, 59_000, 61_000, 3 * 3_600_000, 8 * 86_400_000] {
                    let mut again = first.clone();
                    again.retime(near + later);
                    rolling.retime(near + later);
                    let fresh = read(near + later);
                    let texts = |s: &data::Snapshot| -> Vec<String> {
                        s.lines.iter().map(|l| l.text.clone()).collect()
                    };
                    assert_eq!(texts(&again), texts(&fresh), "{name} {w} +{later}");
                    assert_eq!(
                        texts(&rolling),
                        texts(&fresh),
                        "{name} {w} rolled to +{later}"
                    );
                    assert_eq!(again, fresh, "{name} {w} +{later}: the same snapshot");
                    moved += usize::from(texts(&again) != texts(&first));
                }
            }
        }
        // The stores hold turns whose cells do move.
        assert!(moved >= 6, "{moved}");
    }

    /// A budget's agent shows its TOKENS cell yellow at 80% and red when
    /// spent; other rows, and the cell's neighbours, keep their style.
    #[test]
    fn a_budget_colours_its_agents_tokens() {
        use crate::top::amount::Amount;
        use crate::top::amount::{Level, Mark};
        use ratatui::style::Color;
        let root = store("rc8-live");
        let w = 120;
        for (level, want) in [
            (Level::Warning, Color::Yellow),
            (Level::Exceeded, Color::Red),
        ] {
            let mut snap = data::snapshot(&root, None, tree_width(w), NOW).unwrap();
            snap.marks = vec![Mark {
                id: "parent-1".into(),
                agent: "lead".into(),
                spent: Amount::Tokens(33),
                limit: Amount::Tokens(40),
                level,
            }];
            let mut app = App::new(snap);
            // Select another row: a selected row is shown reversed.
            app.selected = None;
            let mut terminal = Terminal::new(TestBackend::new(w, 20)).unwrap();
            terminal
                .draw(|f| {
                    draw(
                        f,
                        &app,
                        &Shown {
                            store: "rc8-live",
                            clock: "2027-01-15T08:00:00.000Z",
                            detail: "",
                            colour: true,
                        },
                    )
                })
                .unwrap();
            let buf = terminal.backend().buffer().clone();
            let row_text = |y: u16| -> String { (0..w).map(|x| buf[(x, y)].symbol()).collect() };
            let head = (0..20).find(|y| row_text(*y).contains("NAME")).unwrap();
            let t = row_text(head);
            let col = u16::try_from(t[..t.find("TOKENS").unwrap()].chars().count()).unwrap();
            let lead = (0..20)
                .find(|y| row_text(*y).contains("│lead "))
                .unwrap_or_else(|| panic!("no lead row:\n{buf:?}"));
            let worker = lead + 1;
            assert_eq!(buf[(col, lead)].fg, want, "{level:?}: the lead's tokens");
            assert_eq!(buf[(col, worker)].fg, Color::Reset, "another row's tokens");
            assert_ne!(buf[(col - 3, lead)].fg, want, "the cell before");
            assert!(
                row_text(0).contains("lead 33 tokens of 40 tokens"),
                "{}",
                row_text(0)
            );
        }
    }
}
