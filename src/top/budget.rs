//! `watch --budget`: budgets on subtrees, in tokens or money, checked each
//! time the store changes. At 80% of a budget a warning event, at 100% an
//! exceeded event and, with `--on-exceed interrupt`, an interrupt of every
//! agent of the subtree that is mid-turn — the operator's own interrupt
//! (`operator::deliver`), which parks the agent's queue and deletes
//! nothing. Invariant: each level of a budget is reported once (spending
//! only grows), and each running turn in an exceeded subtree is
//! interrupted once; a turn that starts later in it is interrupted in its
//! turn. What a subtree spent is what `usage AGENT --tree` counts.

use crate::error::{Error, Result};
use crate::inbox::Limits;
use crate::operator::store_watch::{Changes, StoreWatch};
use crate::operator::usage::{self, Prices};
use crate::support::refresh::{Due, Refresh};
use crate::top::amount::{Amount, Level, Mark, level_of};
use crate::top::events::{Change, Event, Sink};
use crate::tree::Corpus;
use crate::tree::caller::resolve_agent;
use crate::tree::preorder::Preorder;
use dsh_store::files::current_log;
use dsh_store::format::TokenCounts;
use dsh_store::{self as store, Plan, SessionPos};
use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::Path;

/// One budget: an agent's subtree may spend `limit`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Budget {
    pub agent: String,
    pub limit: Amount,
}

/// What is wrong with a budget spec.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    #[error("no budget given")]
    Empty,
    /// An item that is not `AGENT=LIMIT`, or whose limit does not parse.
    #[error(
        "\"{item}\" is not AGENT=LIMIT with LIMIT tokens (200000, 200k, 1.5m) or money ($5, $0.50)"
    )]
    Item { item: String },
    /// Two budgets on one agent.
    #[error("two budgets for \"{agent}\"")]
    Twice { agent: String },
}

/// Parse `reviewer=200k,lead=$5`: a comma-separated list of `AGENT=LIMIT`,
/// LIMIT a token count (a `k`, `m` or `g` suffix multiplies by a thousand,
/// million, billion) or `$` and an amount of money (at most six decimals).
/// A limit of zero is refused (it would be over before anything ran).
pub fn parse_spec(spec: &str) -> Result<Vec<Budget>, SpecError> {
    let mut out: Vec<Budget> = Vec::new();
    for item in spec.split(',').map(str::trim).filter(|i| !i.is_empty()) {
        let bad = || SpecError::Item {
            item: item.to_string(),
        };
        let (agent, limit) = item.split_once('=').ok_or_else(bad)?;
        let agent = agent.trim();
        let limit = parse_limit(limit.trim()).ok_or_else(bad)?;
        if agent.is_empty() || limit.value() == 0 {
            return Err(bad());
        }
        if out.iter().any(|b| b.agent == agent) {
            return Err(SpecError::Twice {
                agent: agent.to_string(),
            });
        }
        out.push(Budget {
            agent: agent.to_string(),
            limit,
        });
    }
    if out.is_empty() {
        return Err(SpecError::Empty);
    }
    Ok(out)
}

fn parse_limit(text: &str) -> Option<Amount> {
    if let Some(money) = text.strip_prefix('$') {
        return decimal(money, 6).map(Amount::Micros);
    }
    let lower = text.to_ascii_lowercase();
    let (digits, scale) = match lower.as_bytes().last()? {
        b'k' => (&lower[..lower.len() - 1], 3),
        b'm' => (&lower[..lower.len() - 1], 6),
        b'g' => (&lower[..lower.len() - 1], 9),
        _ => (&lower[..], 0),
    };
    decimal(digits, scale).map(Amount::Tokens)
}

/// `text` (digits, at most one `.`) times 10^`scale`, when that is a
/// whole number that fits.
fn decimal(text: &str, scale: u32) -> Option<u64> {
    let (whole, frac) = text.split_once('.').unwrap_or((text, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() && frac.is_empty() || !digits(whole) || !digits(frac) {
        return None;
    }
    if frac.len() > scale as usize {
        return None;
    }
    let mut n: u64 = if whole.is_empty() {
        0
    } else {
        whole.parse().ok()?
    };
    for k in 0..scale as usize {
        let d = frac.as_bytes().get(k).map_or(0, |b| u64::from(b - b'0'));
        n = n.checked_mul(10)?.checked_add(d)?;
    }
    Some(n)
}

/// The whole store: a budget counts what its whole subtree spent.
fn open(root: &Path) -> Result<store::Store> {
    Ok(store::open(
        root,
        Plan::Whole {
            why: "a budget counts what its whole subtree spent",
        },
    )?)
}

/// Each budget's agent as a Session id; an agent the store does not hold
/// is an error about `--budget` (a budget on nothing would watch nothing).
pub fn agent_ids(root: &Path, budgets: &[Budget]) -> Result<Vec<String>> {
    if budgets.is_empty() {
        return Ok(Vec::new());
    }
    let store = open(root)?;
    budgets
        .iter()
        .map(|b| resolve_agent(&store, &b.agent).map(|i| store.sessions.id(i).to_string()))
        .collect::<Result<_, _>>()
        .map_err(|error| Error::Flag {
            flag: "--budget",
            error,
        })
}

/// Where each budget stands now; a budget whose agent is not in the store
/// has no mark.
pub fn marks(root: &Path, budgets: &[Budget], prices: Option<&Prices>) -> Result<Vec<Mark>> {
    if budgets.is_empty() {
        return Ok(Vec::new());
    }
    let store = open(root)?;
    let corpus = Corpus::new(&store);
    let mut look = Look::new();
    Ok(budgets
        .iter()
        .filter_map(|b| {
            let agent = resolve_agent(&store, &b.agent).ok()?;
            let s = spent(&corpus, &mut look, agent, b.limit, prices);
            Some(Mark {
                id: corpus.id(agent).to_string(),
                agent: b.agent.clone(),
                spent: s.amount,
                limit: b.limit,
                level: level_of(s.amount.value(), b.limit.value()),
            })
        })
        .collect())
}

/// How `watch` runs.
pub struct Options {
    pub budgets: Vec<Budget>,
    pub prices: Option<Prices>,
    pub interrupt: bool,
    /// Check once and stop, rather than following the store.
    pub once: bool,
    pub json: bool,
    pub exec: Option<String>,
    pub limits: Limits,
}

/// What one budget's subtree spent, and its sessions (the budget's agent
/// first).
struct Spent {
    amount: Amount,
    sessions: Vec<usize>,
    unpriced: Vec<String>,
}

/// Each session's own spend as read in one look at the store: every budget
/// of that look counts a session from the same read of its log, so two
/// budgets over one subtree never see it at two moments (a checker's own
/// budget seen spent before its reviewer's, which counts it too). Read
/// with the prices, if any, whatever the budget counts.
type Look = HashMap<usize, usage::Spend>;

fn spent(
    corpus: &Corpus,
    look: &mut Look,
    agent: usize,
    limit: Amount,
    prices: Option<&Prices>,
) -> Spent {
    let money = matches!(limit, Amount::Micros(_));
    let mut tokens = TokenCounts::default();
    let mut cost = 0.0f64;
    let mut sessions = Vec::new();
    let mut unpriced: Vec<String> = Vec::new();
    for v in Preorder::new(corpus, std::iter::once(agent)) {
        let s = look
            .entry(v.index)
            .or_insert_with(|| usage::session_spend(corpus, v.index, prices));
        tokens.add(&s.tokens);
        cost += s.cost;
        for m in s.unpriced.iter().filter(|_| money) {
            if !unpriced.contains(m) {
                unpriced.push(m.clone());
            }
        }
        sessions.push(v.index);
    }
    let amount = if money {
        // Costs are non-negative (the table is checked); the cast saturates.
        Amount::Micros((cost * 1e6).round() as u64)
    } else {
        Amount::Tokens(tokens.total())
    };
    Spent {
        amount,
        sessions,
        unpriced,
    }
}

/// `watch --budget`: check every budget now and each time the store
/// changes (until Ctrl-C or a closed output), or once with `once`. The
/// store is opened once and held while the watch can say which sessions
/// changed: only their spend is read again (and their liveness probed
/// again); a new session, or a change the watch cannot place, opens it
/// again.
pub fn run(root: &Path, opts: &Options, out: &mut dyn Write) -> Result<()> {
    let mut sink = Sink::new(out, opts.json, opts.exec.as_deref());
    // Each budget's agent by its Session id, resolved once: a name that
    // later means another session does not move a budget.
    let ids = agent_ids(root, &opts.budgets)?;
    let mut seen = Seen {
        ids,
        levels: vec![Level::Under; opts.budgets.len()],
        interrupted: HashSet::new(),
        unpriced_said: HashSet::new(),
    };
    crate::support::signals::install();
    let mut watch = StoreWatch::new();
    let mut refresh = Refresh::new();
    // The budgets are looked at again when the store says something
    // changed (and rarely for safety), not at every tick.
    if wait_due(&watch, &mut refresh, &mut Changes::default()).is_none() {
        return Ok(());
    }
    loop {
        refresh.reading();
        let mut started = std::time::Instant::now();
        if !opts.once {
            watch.begin_all(root);
        }
        let store = open(root)?;
        let corpus = Corpus::new(&store);
        if !opts.once {
            for i in 0..store.sessions.len() {
                watch.cover_session(&store.sessions.dir(i), SessionPos::new(i));
            }
        }
        let mut look = Look::new();
        loop {
            if !seen.look(&corpus, &mut look, opts, &mut sink)? {
                return Ok(());
            }
            refresh.read(started, started.elapsed(), watch.complete());
            if opts.once || crate::support::signals::view_done() {
                return Ok(());
            }
            let mut told = Changes::default();
            let Some(due) = wait_due(&watch, &mut refresh, &mut told) else {
                return Ok(());
            };
            let s = &store.sessions;
            let placed = due == Due::Changed
                && !told.other
                && told.sessions.iter().all(|pos| {
                    // The log read is still the session's.
                    let i = pos.get();
                    i < s.len() && {
                        let rec = s.record(i);
                        current_log(&rec.dir()).as_deref() == Some(rec.log().as_path())
                    }
                });
            if !placed {
                break;
            }
            refresh.reading();
            started = std::time::Instant::now();
            crate::support::debug::plan(|| {
                format!("watch: {} session(s) read again", told.sessions.len())
            });
            for pos in &told.sessions {
                look.remove(&pos.get());
                corpus.relive(pos.get());
            }
        }
    }
}

/// Wait until a look is due (told changes gathered into `told`); `None`
/// once a stop is asked.
fn wait_due(watch: &StoreWatch, refresh: &mut Refresh, told: &mut Changes) -> Option<Due> {
    loop {
        if let Some(due) = refresh.due(std::time::Instant::now()) {
            return Some(due);
        }
        if crate::support::signals::view_done() {
            return None;
        }
        let changes = watch.wait_changes(crate::support::refresh::TICK);
        if changes.any() {
            told.add(changes);
            refresh.changed();
        }
    }
}

/// What a watch has said so far.
struct Seen {
    /// Each budget's agent's Session id.
    ids: Vec<String>,
    /// The highest level each budget was said at.
    levels: Vec<Level>,
    /// Each (session, turn) interrupted.
    interrupted: HashSet<(String, u64)>,
    unpriced_said: HashSet<String>,
}

impl Seen {
    /// Check every budget against the store `corpus` reads (each
    /// session's spend from `look`, read when missing); `false` once the
    /// output is closed.
    fn look(
        &mut self,
        corpus: &Corpus,
        look: &mut Look,
        opts: &Options,
        sink: &mut Sink,
    ) -> Result<bool> {
        let store = corpus.store;
        let now = crate::support::clock::now_ms();
        for (k, budget) in opts.budgets.iter().enumerate() {
            let Some(agent) = store.index_of(&self.ids[k]) else {
                continue;
            };
            let s = spent(corpus, look, agent, budget.limit, opts.prices.as_ref());
            for model in s.unpriced {
                if self.unpriced_said.insert(model.clone()) {
                    eprintln!(
                        "watch: no price for {model}: its calls count nothing toward money budgets"
                    );
                }
            }
            let level = level_of(s.amount.value(), budget.limit.value());
            let event = |change| Event {
                time: now,
                id: self.ids[k].clone(),
                name: budget.agent.clone(),
                change,
            };
            if level > self.levels[k] {
                self.levels[k] = level;
                let (spent, limit) = (s.amount, budget.limit);
                let change = match level {
                    Level::Exceeded => Change::BudgetExceeded { spent, limit },
                    _ => Change::BudgetWarning { spent, limit },
                };
                if !sink.emit(&event(change))? {
                    return Ok(false);
                }
            }
            if level == Level::Exceeded && opts.interrupt {
                let budget_name = budget.agent.clone();
                for (i, turn) in running(corpus, &s.sessions) {
                    let id = corpus.id(i).to_string();
                    if !self.interrupted.insert((id.clone(), turn)) {
                        continue;
                    }
                    let change =
                        match crate::operator::deliver::interrupt_as_user(corpus, i, opts.limits) {
                            Ok(_) => Change::BudgetInterrupted {
                                turn,
                                budget: budget_name.clone(),
                            },
                            // Its turn ended between the look and the request.
                            Err(e) => {
                                eprintln!("watch: could not interrupt {id}: {e}");
                                continue;
                            }
                        };
                    let e = Event {
                        time: now,
                        id,
                        name: String::new(),
                        change,
                    };
                    if !sink.emit(&e)? {
                        return Ok(false);
                    }
                }
            }
        }
        Ok(true)
    }
}

/// The sessions of `subtree` that are mid-turn, and the turn each is in
/// (its log's last; 0 when it cannot be read).
fn running(corpus: &Corpus, subtree: &[usize]) -> Vec<(usize, u64)> {
    subtree
        .iter()
        .copied()
        .filter(|i| corpus.live(*i).is_working())
        .map(|i| {
            let turn = dsh_store::log::inspect(&corpus.record(i).log()).map_or(0, |r| r.last_turn);
            (i, turn)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs() {
        let t = |agent: &str, n| Budget {
            agent: agent.into(),
            limit: Amount::Tokens(n),
        };
        let m = |agent: &str, n| Budget {
            agent: agent.into(),
            limit: Amount::Micros(n),
        };
        let cases: &[(&str, Result<Vec<Budget>, SpecError>)] = &[
            ("reviewer=200k", Ok(vec![t("reviewer", 200_000)])),
            (
                "reviewer=200k,lead=$5",
                Ok(vec![t("reviewer", 200_000), m("lead", 5_000_000)]),
            ),
            (
                " a = 1.5M , b=$0.25 ",
                Ok(vec![t("a", 1_500_000), m("b", 250_000)]),
            ),
            ("a=1200", Ok(vec![t("a", 1200)])),
            ("a=2g", Ok(vec![t("a", 2_000_000_000)])),
            (
                "reviewer/checker=$.5",
                Ok(vec![m("reviewer/checker", 500_000)]),
            ),
            ("", Err(SpecError::Empty)),
            (" , ", Err(SpecError::Empty)),
            ("a", Err(SpecError::Item { item: "a".into() })),
            ("=5", Err(SpecError::Item { item: "=5".into() })),
            ("a=0", Err(SpecError::Item { item: "a=0".into() })),
            (
                "a=1.5",
                Err(SpecError::Item {
                    item: "a=1.5".into(),
                }),
            ),
            (
                "a=1.2345k",
                Err(SpecError::Item {
                    item: "a=1.2345k".into(),
                }),
            ),
            (
                "a=$1.0000001",
                Err(SpecError::Item {
                    item: "a=$1.0000001".into(),
                }),
            ),
            (
                "a=-5",
                Err(SpecError::Item {
                    item: "a=-5".into(),
                }),
            ),
            (
                "a=5x",
                Err(SpecError::Item {
                    item: "a=5x".into(),
                }),
            ),
            ("a=$", Err(SpecError::Item { item: "a=$".into() })),
            (
                "a=99999999999999999999",
                Err(SpecError::Item {
                    item: "a=99999999999999999999".into(),
                }),
            ),
            ("a=1,a=2", Err(SpecError::Twice { agent: "a".into() })),
        ];
        for (spec, want) in cases {
            assert_eq!(&parse_spec(spec), want, "{spec:?}");
        }
    }
}
