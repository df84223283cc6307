//! `top`'s terminal and loop: the alternate screen in raw mode (restored on
//! quit, on an error, on a panic — ratatui's hook — and on SIGTERM, SIGHUP
//! and SIGINT), keys handed to the model, its actions done through the
//! operator commands' own calls. The store is read again when it says it
//! changed, after an action or a resize, and rarely for safety
//! (`refresh`); between reads only the clock moves the pane, without a
//! read (an unchanged re-read changes nothing on screen).

use super::app::{Action, App, Mode};
use super::data::{self, Detail, Patched};
use super::view::{self, Shown};
use crate::error::{Error, Result};
use crate::inbox::{Inbox, Limits, Target};
use crate::operator::deliver;
use crate::operator::store_watch::{Changes, StoreWatch};
use crate::support::refresh::{Due, Refresh};
use crate::support::signals;
use crate::tree::Corpus;
use crate::tree::caller::resolve_agent;
use dsh_store::{self as store, Plan};
use ratatui::crossterm::event::{self, Event, KeyEventKind};
use ratatui::crossterm::execute;
use std::path::Path;
use std::time::{Duration, Instant};

/// How often the clock moves the pane's relative times.
const TICK: Duration = Duration::from_secs(1);

/// Run `top` on the store at `root` (one tree with `agent`). `now`: a
/// fixed clock for relative times (`DSH_AGENTS_NOW_MS`), else the real one.
/// The budgets `top` colours (`--budget`), and the prices money budgets
/// are counted with.
#[derive(Default, Clone, Copy)]
pub struct Budgets<'a> {
    pub budgets: &'a [crate::top::budget::Budget],
    pub prices: Option<&'a crate::operator::usage::Prices>,
}

/// The tree pane drawn from `held`, and where each budget stands.
fn pane(
    held: &mut data::Held,
    root: &Path,
    agent: Option<&str>,
    width: usize,
    now: i64,
    budgets: Budgets,
) -> Result<data::Snapshot> {
    let mut snap = held.snapshot(root, agent, width, now);
    snap.marks = crate::top::budget::marks(root, budgets.budgets, budgets.prices)?;
    Ok(snap)
}

pub fn run(
    root: &Path,
    agent: Option<&str>,
    now: Option<i64>,
    limits: Limits,
    budgets: Budgets,
) -> Result<()> {
    if !rustix::termios::isatty(std::io::stdout()) {
        return Err(Error::usage(
            "top needs a terminal on standard output; for frames a pipe can take, use `tree --watch`",
        ));
    }
    // Fail before the screen is taken: a bad store or agent is said plainly.
    let mut held = data::Held::read(root, agent)?;
    pane(
        &mut held,
        root,
        agent,
        100,
        now.unwrap_or_else(crate::support::clock::now_ms),
        budgets,
    )?;
    drop(held);
    signals::install();
    signals::install_hangup();
    let colour = std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let mut terminal = ratatui::init();
    watchdog();
    let _ = execute!(std::io::stdout(), event::EnableBracketedPaste);
    let result = run_loop(&mut terminal, root, agent, now, limits, colour, budgets);
    let _ = execute!(std::io::stdout(), event::DisableBracketedPaste);
    ratatui::restore();
    result
}

/// How long a stop signal may go unanswered by the loop (a read of a big
/// store in progress) before the watchdog ends the process.
const ANSWER: Duration = Duration::from_secs(2);

/// End the process when its terminal is gone or a stop signal goes
/// unanswered. crossterm's reader spins on a terminal that hung up
/// (crossterm issue 793: the tty stays readable, `read` returns 0 or EIO,
/// and the reader retries at once, never returning even from a `poll` with
/// a timeout), so the loop would never see the hangup and would hold a
/// core forever. A gone terminal fails `tcgetattr` with EIO: the process
/// then exits 129, as a SIGHUP would have it.
fn watchdog() {
    std::thread::spawn(|| {
        let mut asked: Option<Instant> = None;
        loop {
            std::thread::sleep(Duration::from_millis(200));
            if rustix::termios::tcgetattr(std::io::stdout()).is_err() {
                std::process::exit(signals::exit_status().map_or(129, i32::from));
            }
            if signals::stop_requested() {
                let since = *asked.get_or_insert_with(Instant::now);
                if since.elapsed() >= ANSWER {
                    ratatui::restore();
                    std::process::exit(signals::exit_status().map_or(130, i32::from));
                }
            }
        }
    });
}

fn run_loop(
    terminal: &mut ratatui::DefaultTerminal,
    root: &Path,
    agent: Option<&str>,
    now: Option<i64>,
    limits: Limits,
    colour: bool,
    budgets: Budgets,
) -> Result<()> {
    let clock = || now.unwrap_or_else(crate::support::clock::now_ms);
    let store_label = root.display().to_string();
    let mut width = view::tree_width(terminal.size().map_or(80, |s| s.width));
    let mut watch = StoreWatch::with_fleet_rows(true);
    let mut refresh = Refresh::new();
    // The shown trees as last read, and what the watch told since.
    let mut held: Option<data::Held> = None;
    let mut told = Changes::default();
    let mut app = App::new(data::Snapshot::default());
    let mut detail = Detail::default();
    let mut detail_due = true;
    let mut tick = Instant::now() + TICK;
    // A frame is drawn when something on it changed (a read, the clock's
    // tick, a key, a resize), not at every turn of the loop: a pane of
    // 100,000 rows costs a walk of them a frame.
    let mut redraw = true;
    loop {
        if signals::stop_requested() {
            return Ok(());
        }
        let changes = watch.changes();
        if changes.any() {
            told.add(changes);
            refresh.changed();
        }
        if let Some(due) = refresh.due(Instant::now()) {
            width = view::tree_width(terminal.size().map_or(80, |s| s.width));
            refresh.reading();
            let start = Instant::now();
            let told = std::mem::take(&mut told);
            // A change the watch tied to shown sessions reads those rows
            // again (and draws only their lines, when it can); anything
            // else reads the store.
            let mut patched = None;
            if due == Due::Changed
                && !told.other
                && let Some(h) = held.as_mut()
            {
                patched = Some(h.patch(&told.sessions, &mut app.snapshot, clock()));
                crate::support::debug::plan(|| {
                    format!(
                        "top: {} row(s) read again: {patched:?}",
                        told.sessions.len()
                    )
                });
            }
            let read = match (patched, held.as_mut()) {
                (Some(Patched::Lines), _) => Ok(None),
                (Some(Patched::Rows), Some(h)) => {
                    pane(h, root, agent, width, clock(), budgets).map(Some)
                }
                _ => {
                    watch.begin(root);
                    data::Held::read(root, agent).and_then(|mut h| {
                        h.each_dir(&mut |d, pos| watch.cover_session(d, pos));
                        let s = pane(&mut h, root, agent, width, clock(), budgets);
                        held = Some(h);
                        s.map(Some)
                    })
                }
            };
            // A pane patched in place keeps where each budget stands
            // up to date too.
            let read = match read {
                Ok(None) if !budgets.budgets.is_empty() => {
                    crate::top::budget::marks(root, budgets.budgets, budgets.prices).map(|m| {
                        app.snapshot.marks = m;
                        None
                    })
                }
                r => r,
            };
            if read.is_err() {
                // What the pane shows and the held rows may differ now:
                // the next read is whole.
                held = None;
            }
            refresh.read(start, start.elapsed(), watch.complete());
            match read {
                // An unchanged read leaves the model as it was.
                Ok(Some(s)) if s != app.snapshot => app.refresh(s),
                Ok(_) => {}
                Err(e) => app.status = format!("error: {e}"),
            }
            detail_due = true;
            redraw = true;
            tick = Instant::now() + TICK;
        } else if Instant::now() >= tick {
            if now.is_none() {
                app.snapshot.retime(clock());
            }
            redraw = true;
            tick = Instant::now() + TICK;
        }
        if detail_due {
            detail = match &app.selected {
                Some(id) => {
                    let pane = usize::from(terminal.size().map_or(80, |s| s.width))
                        .saturating_sub(width + 4)
                        .max(20);
                    data::detail(root, id, app.tab, pane, app.message()).unwrap_or_else(|e| {
                        Detail {
                            text: format!("error: {e}"),
                            pending: Vec::new(),
                        }
                    })
                }
                None => Detail::default(),
            };
            app.set_pending(detail.pending.clone());
            detail_due = false;
            redraw = true;
        }
        if std::mem::replace(&mut redraw, false) {
            let clock_text = crate::support::clock::rfc3339(clock());
            terminal
                .draw(|f| {
                    view::draw(
                        f,
                        &app,
                        &Shown {
                            store: &store_label,
                            clock: &clock_text,
                            detail: &detail.text,
                            colour,
                        },
                    )
                })
                .map_err(|e| dsh_store::StoreError::io("the terminal", e))?;
        }
        // Keys wait at most this long, so a change the store tells of is
        // looked at within it (a wake costs one read of the watch).
        if !event::poll(Duration::from_millis(25)).unwrap_or(false) {
            continue;
        }
        redraw = true;
        let before = (app.selected.clone(), app.tab, app.message);
        match event::read() {
            Ok(Event::Key(key)) if key.kind != KeyEventKind::Release => {
                for action in app.handle(key) {
                    if action == Action::Quit {
                        return Ok(());
                    }
                    app.status = act(root, &action, limits);
                    refresh.ask();
                }
            }
            Ok(Event::Paste(text)) => {
                if let Mode::Edit { text: typed, .. } = &mut app.mode {
                    typed.push_str(&text.replace(['\r', '\n'], " "));
                }
            }
            Ok(Event::Resize(..)) => refresh.ask(),
            _ => {}
        }
        // Another agent or tab: its pane is read, the store is not.
        if (app.selected.clone(), app.tab, app.message) != before {
            detail_due = true;
        }
    }
}

/// Do `action`; what the status line says of it.
fn act(root: &Path, action: &Action, limits: Limits) -> String {
    match try_act(root, action, limits) {
        Ok(said) => said,
        Err(e) => format!("error: {e}"),
    }
}

fn try_act(root: &Path, action: &Action, limits: Limits) -> Result<String> {
    let store = store::open(
        root,
        Plan::Whole {
            why: "top acts on any session",
        },
    )?;
    let corpus = Corpus::new(&store);
    match action {
        Action::Quit => Ok(String::new()),
        Action::Send { agent, text, steer } => {
            let target = resolve_agent(&store, agent)?;
            deliver::refuse_unrunnable(&corpus, target)?;
            let list = if *steer {
                Target::NextStep
            } else {
                Target::NextTurn
            };
            let (_, receipt) = deliver::send_as_user(&corpus, target, text, list, None, limits)?;
            Ok(format!(
                "{} {} queued for {agent}",
                if *steer { "steer" } else { "followup" },
                receipt.message_id
            ))
        }
        Action::Interrupt { agent } => {
            let target = resolve_agent(&store, agent)?;
            deliver::refuse_uninterruptible(&corpus, target)?;
            deliver::interrupt_as_user(&corpus, target, limits)
        }
        Action::Cancel { agent, message } => {
            let target = resolve_agent(&store, agent)?;
            let m = Inbox::new(&store.sessions.dir(target)).cancel(message, limits)?;
            Ok(format!("canceled message {} to {agent}", m.id))
        }
    }
}
