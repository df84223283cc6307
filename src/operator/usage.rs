//! `usage`: the tokens each agent's model calls reported (`store::format::usage`),
//! per agent (own, and rolled up over its subtree), per model or per turn,
//! with a cost when the user gives a price table. One streaming read of
//! each selected log, a few hundred in parallel; nothing is written.
//! Invariant: what a report holds grows with the store by a few bytes a
//! session (its counts packed in walk order), never by a row a session:
//! rows are made again from the packed counts each time they are read.

use crate::tree::Corpus;
use crate::tree::preorder::{Preorder, Visit};
use dsh_store::format::TokenCounts;
use dsh_store::format::safe_int_value;
use serde_json::Value;
use std::collections::{BTreeMap, VecDeque};

/// How the report is grouped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum By {
    Agent,
    Model,
    Turn,
}

/// Per-million-token prices of one model, in the user's currency.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Price {
    #[serde(default)]
    pub input: f64,
    #[serde(default)]
    pub cache_read: f64,
    #[serde(default)]
    pub cache_write: f64,
    #[serde(default)]
    pub output: f64,
}

/// A price table: `"provider/model"` (or `"model"`, for any provider) to
/// its prices.
pub type Prices = BTreeMap<String, Price>;

/// The highest price a table may give a million tokens: one unit of the
/// currency a token. Past it a total could leave the numbers a cost is
/// written in (`inf`), and no model is priced so.
pub const MAX_PRICE: f64 = 1e6;

/// Parse a price table (JSON); the error says what is wrong with it.
pub fn parse_prices(bytes: &[u8]) -> Result<Prices, PriceError> {
    let prices: Prices = serde_json::from_slice(bytes).map_err(PriceError::Json)?;
    for (model, p) in &prices {
        let all = [p.input, p.cache_read, p.cache_write, p.output];
        if !all.iter().all(|v| (0.0..=MAX_PRICE).contains(v)) {
            return Err(PriceError::OutOfRange {
                model: model.clone(),
            });
        }
    }
    Ok(prices)
}

/// What is wrong with a price table.
#[derive(Debug, thiserror::Error)]
pub enum PriceError {
    /// Not JSON of the table's shape.
    #[error(transparent)]
    Json(serde_json::Error),
    /// A price that is negative or past `MAX_PRICE`.
    #[error("\"{model}\": each price (a million tokens) must be a number from 0 to {MAX_PRICE}")]
    OutOfRange { model: String },
}

fn price_of<'p>(prices: &'p Prices, provider: &str, model: &str) -> Option<&'p Price> {
    prices
        .get(&format!("{provider}/{model}"))
        .or_else(|| prices.get(model))
}

fn cost(t: &TokenCounts, p: &Price) -> f64 {
    (t.input_tokens as f64 * p.input
        + t.cache_read_tokens as f64 * p.cache_read
        + t.cache_write_tokens as f64 * p.cache_write
        + t.output_tokens as f64 * p.output)
        / 1e6
}

/// What one session's own model calls used, by model and by turn.
#[derive(Debug, Default, Clone)]
struct SessionUsage {
    total: TokenCounts,
    /// (provider, model) → counts.
    models: BTreeMap<(String, String), TokenCounts>,
    /// turn → counts.
    turns: BTreeMap<u64, TokenCounts>,
    /// The cost when every call's model has a price; `None` when some
    /// model has none.
    cost: Option<f64>,
    unreadable: bool,
}

/// What a report needs of each session beyond its total.
#[derive(Clone, Copy)]
struct Needs {
    models: bool,
    turns: bool,
}

/// Every log read whole while the store is enumerated, keeping what its
/// calls used: a report of totals then opens and reads each log once, as a
/// listing does.
pub struct EveryLog;

impl dsh_store::set::ReadAhead for EveryLog {
    fn wanted(&self, _: &dsh_store::format::Header) -> bool {
        true
    }
    fn dialect(&self) -> dsh_store::format::Dialect {
        dsh_store::format::Dialect::Rc8
    }
    fn usage(&self) -> bool {
        true
    }
}

/// Whether a report needs only each session's total (what `EveryLog`
/// keeps), not its calls one by one.
pub fn totals_only(by: By, since: Option<i64>, prices: bool) -> bool {
    by == By::Agent && since.is_none() && !prices
}

fn read_session(
    corpus: &Corpus,
    index: usize,
    since: Option<i64>,
    prices: Option<&Prices>,
    needs: Needs,
) -> SessionUsage {
    let rec = corpus.record(index);
    let mut u = SessionUsage::default();
    // Totals alone are what the listing's own read of the log counts
    // (`Inspection::usage`): read ahead with the store, or now.
    if !needs.models && !needs.turns && since.is_none() {
        use dsh_store::set::Glance;
        match corpus.store.take_glance(index) {
            Some(Glance::Read { usage, .. }) => u.total = usage,
            Some(Glance::Unreadable) => u.unreadable = true,
            None => match dsh_store::log::inspect(&rec.log()) {
                Ok(i) => u.total = i.usage,
                Err(_) => u.unreadable = true,
            },
        }
        return u;
    }
    let read = dsh_store::log::for_each_own_event(&rec.log(), &rec.header, |ev| {
        if ev["type"] != "assistant/message" {
            return;
        }
        if since.is_some_and(|t| safe_int_value(ev.get("time")).unwrap_or(0) < t) {
            return;
        }
        let data = &ev["data"];
        let usage = &data["usage"];
        let get = |f: &str| usage.get(f).and_then(Value::as_u64);
        let mut one = TokenCounts::default();
        one.add_call(usage.is_object(), get);
        if one.calls == 0 {
            return;
        }
        u.total.add(&one);
        if needs.turns {
            let turn = safe_int_value(data.get("turn")).unwrap_or(0).max(0) as u64;
            u.turns.entry(turn).or_default().add(&one);
        }
        if needs.models {
            let source = &data["message"]["source"];
            let provider = source["provider"].as_str().unwrap_or("?").to_string();
            let model = source["model"].as_str().unwrap_or("?").to_string();
            u.models.entry((provider, model)).or_default().add(&one);
        }
    });
    u.unreadable = read.is_err();
    u.cost = prices.and_then(|p| {
        u.models
            .iter()
            .try_fold(0.0, |sum, ((provider, model), t)| {
                price_of(p, provider, model).map(|price| sum + cost(t, price))
            })
    });
    u
}

/// What one session's own calls spent, for a budget: its tokens, the cost
/// of its calls whose model has a price (a call without one costs nothing
/// here), and the models that have none.
#[derive(Debug, Default, Clone)]
pub struct Spend {
    pub tokens: TokenCounts,
    pub cost: f64,
    pub unpriced: Vec<String>,
}

/// One session's `Spend`, its log read once.
pub fn session_spend(corpus: &Corpus, index: usize, prices: Option<&Prices>) -> Spend {
    let needs = Needs {
        models: prices.is_some(),
        turns: false,
    };
    let u = read_session(corpus, index, None, prices, needs);
    let mut spend = Spend {
        tokens: u.total,
        ..Spend::default()
    };
    if let Some(p) = prices {
        for ((provider, model), t) in &u.models {
            match price_of(p, provider, model) {
                Some(price) => spend.cost += cost(t, price),
                None => spend.unpriced.push(format!("{provider}/{model}")),
            }
        }
    }
    spend
}

/// One row of the report: an agent (by its position in the store), a
/// model, or an agent's turn. Rows are made as the report is read out
/// (`Report::rows`), names when the row is written.
#[derive(Debug, Clone)]
pub struct Row {
    pub session: Option<usize>,
    pub depth: usize,
    pub model: Option<(String, String)>,
    pub turn: Option<u64>,
    pub tokens: TokenCounts,
    /// With `--tree`: the agent's and every descendant's tokens.
    pub subtree: Option<TokenCounts>,
    /// With `--prices`: `None` inside when some call's model has no price.
    pub cost: Option<Option<f64>>,
    pub unreadable: bool,
}

/// What `usage` was asked.
pub struct Request<'p> {
    /// One agent (with `tree`, its subtree), or every session.
    pub agent: Option<usize>,
    pub tree: bool,
    pub since: Option<i64>,
    pub by: By,
    pub prices: Option<&'p Prices>,
    /// The rows will be shown as a table: each column's width is taken
    /// as the logs are read, so showing them reads nothing twice.
    pub table: bool,
}

/// How many sessions' logs are read at once (in parallel): what a report
/// holds while reading grows with this, never with the store.
const READ_AT_ONCE: usize = 256;

/// How many bytes of packed counts a report keeps: the sessions past them
/// are read again as their rows are read out. Below about 150,000 sessions
/// every log is read once; at a million, about one and a half times, and
/// the report holds 2 MiB, not 13.
const KEEP_BYTES: usize = 2 << 20;

/// A report, read: each session's counts packed in the walk's order (a few
/// bytes a session, see `pack`), rows made again from them each time they
/// are read out, so a million sessions hold no million rows.
pub struct Report<'p> {
    by: By,
    agent: Option<usize>,
    descend: bool,
    /// Whether rows carry their subtree's total (`--tree`, by agent).
    tree: bool,
    since: Option<i64>,
    prices: Option<&'p Prices>,
    needs: Needs,
    /// By agent: a flags byte, the six counts, the cost; by turn: how many
    /// turns, then each turn and its six counts (`pack`). At most about
    /// `KEEP_BYTES`.
    packed: Vec<u8>,
    /// How many of the walk's first sessions `packed` holds.
    kept: usize,
    /// With `Request::table`: each column's widest cell.
    widths: Option<Vec<usize>>,
    /// With `--tree`: the subtree totals of the sessions with children, in
    /// the walk's order (a leaf's is its own).
    subtrees: Vec<TokenCounts>,
    /// By model: the rows (one a model).
    models: Vec<Row>,
    /// The models no price was given for, in the order first met.
    pub unpriced: Vec<String>,
}

const UNREADABLE: u8 = 1;
const COSTED: u8 = 2;

fn pack_counts(out: &mut Vec<u8>, t: &TokenCounts) {
    for n in t.counts() {
        crate::support::varint::put(out, n);
    }
}

fn unpack_counts(bytes: &[u8], at: &mut usize) -> TokenCounts {
    let mut next = || crate::support::varint::read(bytes, at).unwrap_or(0);
    TokenCounts {
        calls: next(),
        input_tokens: next(),
        cache_read_tokens: next(),
        cache_write_tokens: next(),
        output_tokens: next(),
        reasoning_tokens: next(),
    }
}

/// Every visited session of the report, in the order its rows show.
fn walk<'c, 'a>(
    corpus: &'c Corpus<'a>,
    agent: Option<usize>,
    descend: bool,
) -> impl Iterator<Item = Visit> + 'c {
    let roots: Box<dyn Iterator<Item = usize> + 'c> = match agent {
        Some(a) => Box::new(std::iter::once(a)),
        None => Box::new(corpus.roots()),
    };
    // Without its subtree, one agent is one row.
    let take = if descend { usize::MAX } else { 1 };
    Preorder::new(corpus, roots).take(take)
}

/// The subtree totals of `--tree`, made in one pass: each open session
/// with children adds up itself and what has closed below it, and hands
/// its total to its parent when the walk leaves it. The stack grows with
/// the depth only.
#[derive(Default)]
struct Subtrees {
    open: Vec<(usize, TokenCounts, usize)>,
    totals: Vec<TokenCounts>,
}

impl Subtrees {
    fn visit(&mut self, v: &Visit, own: TokenCounts) {
        self.close_to(v.depth);
        if v.children > 0 {
            self.open.push((v.depth, own, self.totals.len()));
            self.totals.push(TokenCounts::default());
        } else if let Some((_, sum, _)) = self.open.last_mut() {
            sum.add(&own);
        }
    }

    /// Close every open session at `depth` or below it.
    fn close_to(&mut self, depth: usize) {
        while self.open.last().is_some_and(|(d, _, _)| *d >= depth) {
            let Some((_, sum, slot)) = self.open.pop() else {
                break;
            };
            self.totals[slot] = sum;
            if let Some((_, above, _)) = self.open.last_mut() {
                above.add(&sum);
            }
        }
    }
}

/// Read the report: every selected log once, `READ_AT_ONCE` at a time.
pub fn report<'p>(corpus: &Corpus, req: &Request<'p>) -> Report<'p> {
    report_keeping(corpus, req, KEEP_BYTES)
}

/// `report`, keeping at most about `keep` bytes of packed counts.
fn report_keeping<'p>(corpus: &Corpus, req: &Request<'p>, keep: usize) -> Report<'p> {
    let descend = req.agent.is_none() || req.tree;
    let mut r = Report {
        by: req.by,
        agent: req.agent,
        descend,
        tree: req.tree && req.by == By::Agent,
        since: req.since,
        prices: req.prices,
        needs: Needs {
            models: req.by == By::Model || req.prices.is_some(),
            turns: req.by == By::Turn,
        },
        packed: Vec::new(),
        kept: 0,
        widths: None,
        subtrees: Vec::new(),
        models: Vec::new(),
        unpriced: Vec::new(),
    };
    let mut widths = req.table.then(|| heads_widths(req));
    let mut subtrees = Subtrees::default();
    let mut models: BTreeMap<(String, String), TokenCounts> = BTreeMap::new();
    let mut one = Vec::new();
    let mut rows = VecDeque::new();
    let mut visits = walk(corpus, req.agent, descend);
    loop {
        let chunk: Vec<Visit> = visits.by_ref().take(READ_AT_ONCE).collect();
        if chunk.is_empty() {
            break;
        }
        for (v, u) in chunk.iter().zip(r.read(corpus, &chunk)) {
            if let Some(prices) = req.prices {
                for (provider, model) in u.models.keys() {
                    let name = format!("{provider}/{model}");
                    if price_of(prices, provider, model).is_none() && !r.unpriced.contains(&name) {
                        r.unpriced.push(name);
                    }
                }
            }
            if req.by == By::Model {
                for (m, t) in u.models {
                    models.entry(m).or_default().add(&t);
                }
                continue;
            }
            if r.tree {
                subtrees.visit(v, u.total);
            }
            one.clear();
            r.pack(&u, &mut one);
            if let Some(w) = widths.as_mut() {
                r.unpack(v, &one, &mut 0, None, &mut rows);
                for row in rows.drain(..) {
                    widen(w, &cells(corpus, &row, req));
                }
            }
            // The kept sessions are the walk's first ones (once past
            // `keep`, nothing more is kept): rows read the rest
            // again, in order.
            if r.packed.len() < keep {
                r.packed.extend_from_slice(&one);
                r.kept += 1;
            }
        }
    }
    subtrees.close_to(0);
    r.subtrees = subtrees.totals;
    r.models = models
        .into_iter()
        .map(|((provider, model), t)| Row {
            session: None,
            depth: 0,
            cost: req
                .prices
                .map(|p| price_of(p, &provider, &model).map(|price| cost(&t, price))),
            model: Some((provider, model)),
            turn: None,
            tokens: t,
            subtree: None,
            unreadable: false,
        })
        .collect();
    if let Some(w) = widths.as_mut() {
        for row in &r.models {
            widen(w, &cells(corpus, row, req));
        }
        // A parent's subtree total was known only when the walk left it.
        if let Some(k) = head(req).iter().position(|h| *h == "SUBTREE") {
            for t in &r.subtrees {
                w[k] = w[k].max(t.total().to_string().len());
            }
        }
    }
    r.widths = widths;
    r
}

/// Each heading's width: where a table's widths start.
fn heads_widths(req: &Request) -> Vec<usize> {
    head(req).iter().map(|h| h.len()).collect()
}

/// Widen each column to its cell in `cells`.
fn widen(w: &mut [usize], cells: &[String]) {
    for (w, cell) in w.iter_mut().zip(cells) {
        *w = (*w).max(super::table::text_width(cell));
    }
}

impl Report<'_> {
    /// The usage of `chunk`'s sessions, read in parallel.
    fn read(&self, corpus: &Corpus, chunk: &[Visit]) -> Vec<SessionUsage> {
        crate::support::parallel::par_map(chunk, |v| {
            read_session(corpus, v.index, self.since, self.prices, self.needs)
        })
    }

    /// One session's usage, packed: by agent a flags byte, the six counts
    /// and the cost; by turn how many turns, then each turn and its counts.
    fn pack(&self, u: &SessionUsage, out: &mut Vec<u8>) {
        match self.by {
            By::Agent => {
                let cost = u.cost.filter(|_| self.prices.is_some());
                let flags = if u.unreadable { UNREADABLE } else { 0 }
                    | if cost.is_some() { COSTED } else { 0 };
                out.push(flags);
                pack_counts(out, &u.total);
                if let Some(c) = cost {
                    out.extend_from_slice(&c.to_le_bytes());
                }
            }
            By::Turn => {
                crate::support::varint::put(out, u.turns.len() as u64);
                for (turn, t) in &u.turns {
                    crate::support::varint::put(out, *turn);
                    pack_counts(out, t);
                }
            }
            By::Model => {}
        }
    }

    /// The rows of one session packed at `bytes[*at..]`, onto `out`;
    /// `slot` is its subtree's total when it has children (`--tree`).
    fn unpack(
        &self,
        v: &Visit,
        bytes: &[u8],
        at: &mut usize,
        slot: Option<TokenCounts>,
        out: &mut VecDeque<Row>,
    ) -> Option<()> {
        let row = |tokens, turn, subtree, cost, unreadable| Row {
            session: Some(v.index),
            depth: v.depth,
            model: None,
            turn,
            tokens,
            subtree,
            cost,
            unreadable,
        };
        match self.by {
            By::Turn => {
                let n = crate::support::varint::read(bytes, at)?;
                for _ in 0..n {
                    let turn = crate::support::varint::read(bytes, at)?;
                    let tokens = unpack_counts(bytes, at);
                    out.push_back(row(tokens, Some(turn), None, None, false));
                }
            }
            By::Agent => {
                let flags = *bytes.get(*at)?;
                *at += 1;
                let tokens = unpack_counts(bytes, at);
                let cost = if flags & COSTED != 0 {
                    let b: [u8; 8] = bytes.get(*at..*at + 8)?.try_into().ok()?;
                    *at += 8;
                    Some(f64::from_le_bytes(b))
                } else {
                    None
                };
                let subtree = self.tree.then(|| {
                    if v.children > 0 {
                        slot.unwrap_or_default()
                    } else {
                        tokens
                    }
                });
                let priced = self.prices.is_some();
                out.push_back(row(
                    tokens,
                    None,
                    subtree,
                    priced.then_some(cost),
                    flags & UNREADABLE != 0,
                ));
            }
            By::Model => {}
        }
        Some(())
    }

    /// The report's rows, made again from what was packed, and, past what
    /// was kept, from the logs read again a chunk at a time.
    pub fn rows<'s>(&'s self, corpus: &'s Corpus<'_>) -> Box<dyn Iterator<Item = Row> + 's> {
        if self.by == By::Model {
            return Box::new(self.models.iter().cloned());
        }
        Box::new(Rows {
            report: self,
            corpus,
            visits: Box::new(walk(corpus, self.agent, self.descend)),
            seen: 0,
            at: 0,
            ready: VecDeque::new(),
            again: VecDeque::new(),
            bytes: Vec::new(),
            slots: self.subtrees.iter(),
        })
    }
}

/// A report's rows as they are read out.
struct Rows<'s, 'c, 'a, 'p> {
    report: &'s Report<'p>,
    corpus: &'c Corpus<'a>,
    visits: Box<dyn Iterator<Item = Visit> + 'c>,
    /// How many of the kept sessions were visited.
    seen: usize,
    /// Where the next session's bytes start (in the kept bytes, then in
    /// `bytes`).
    at: usize,
    /// One session's rows not yet handed out.
    ready: VecDeque<Row>,
    /// Sessions past the kept ones, read again, whose rows are to come;
    /// their bytes are `bytes`.
    again: VecDeque<Visit>,
    bytes: Vec<u8>,
    slots: std::slice::Iter<'s, TokenCounts>,
}

impl Iterator for Rows<'_, '_, '_, '_> {
    type Item = Row;

    fn next(&mut self) -> Option<Row> {
        loop {
            if let Some(row) = self.ready.pop_front() {
                return Some(row);
            }
            let kept = self.seen < self.report.kept;
            let v = if kept {
                self.seen += 1;
                self.visits.next()?
            } else {
                if self.again.is_empty() {
                    let chunk: Vec<Visit> = self.visits.by_ref().take(READ_AT_ONCE).collect();
                    if chunk.is_empty() {
                        return None;
                    }
                    self.bytes.clear();
                    self.at = 0;
                    for u in self.report.read(self.corpus, &chunk) {
                        self.report.pack(&u, &mut self.bytes);
                    }
                    self.again.extend(chunk);
                }
                self.again.pop_front()?
            };
            let slot = if self.report.tree && v.children > 0 {
                self.slots.next().copied()
            } else {
                None
            };
            let bytes = if kept {
                &self.report.packed[..]
            } else {
                &self.bytes[..]
            };
            self.report
                .unpack(&v, bytes, &mut self.at, slot, &mut self.ready)?;
        }
    }
}

/// An agent's v2 name (`lead`, `reviewer/checker`), or its id when its
/// tree cannot be walked.
fn name_of(corpus: &Corpus, index: usize) -> String {
    corpus.root_of(index).map_or_else(
        |_| corpus.id(index).to_string(),
        |r| corpus.v2_name(r, index),
    )
}

/// The columns of a report.
/// The headings of the six counts and their total, in the order rows
/// show them (`TokenCounts::counts`, then `total`).
pub const COUNT_HEADS: [&str; 7] = [
    "CALLS",
    "INPUT",
    "CACHE READ",
    "CACHE WRITE",
    "OUTPUT",
    "REASONING",
    "TOTAL",
];

fn head(req: &Request) -> Vec<&'static str> {
    let mut head: Vec<&str> = match req.by {
        By::Agent => vec!["AGENT", "SESSION"],
        By::Model => vec!["PROVIDER/MODEL"],
        By::Turn => vec!["AGENT", "TURN"],
    };
    head.extend(COUNT_HEADS);
    if req.tree && req.by == By::Agent {
        head.push("SUBTREE");
    }
    if req.prices.is_some() && req.by != By::Turn {
        head.push("COST");
    }
    head
}

/// One row's cells, made when written (twice: for the widths, then the
/// line), never all held at once.
fn cells(corpus: &Corpus, r: &Row, req: &Request) -> Vec<String> {
    let mut c: Vec<String> = match (req.by, r.session, &r.model) {
        // Indented under its parent, an agent shows its last name step.
        (By::Agent, Some(i), _) => {
            let name = name_of(corpus, i);
            let last = crate::tree::name_path::last_step(&name, corpus.id(i));
            let mut first = format!("{}{last}", "  ".repeat(r.depth));
            if r.unreadable {
                first.push_str(" (unreadable)");
            }
            vec![first, corpus.id(i).to_string()]
        }
        (By::Turn, Some(i), _) => vec![name_of(corpus, i), r.turn.unwrap_or(0).to_string()],
        (_, _, Some((provider, model))) => vec![format!("{provider}/{model}")],
        _ => vec![String::new()],
    };
    let t = &r.tokens;
    c.extend(
        t.counts()
            .into_iter()
            .chain([t.total()])
            .map(|n| n.to_string()),
    );
    if let Some(s) = &r.subtree {
        c.push(s.total().to_string());
    }
    if let Some(cost) = &r.cost {
        c.push(cost.map_or("?".to_string(), cost_text));
    }
    c
}

/// The columns a narrow terminal leaves out, first to last: the session id
/// (the agent's name already identifies it), then the finer counts.
/// TOTAL, SUBTREE and COST always stay, and a count is never cut.
const GIVE_WAY: [&str; 7] = [
    "SESSION",
    "CACHE WRITE",
    "REASONING",
    "CACHE READ",
    "CALLS",
    "INPUT",
    "OUTPUT",
];

/// Which columns show in `width` terminal columns (all without one).
fn shown(head: &[&str], w: &[usize], width: Option<usize>) -> Vec<bool> {
    let mut keep = vec![true; head.len()];
    let Some(width) = width else { return keep };
    let total = |keep: &[bool]| {
        let kept: Vec<usize> = w
            .iter()
            .zip(keep)
            .filter(|(_, k)| **k)
            .map(|(w, _)| *w)
            .collect();
        kept.iter().sum::<usize>() + 2 * kept.len().saturating_sub(1)
    };
    for name in GIVE_WAY {
        if total(&keep) <= width {
            break;
        }
        if let Some(k) = head.iter().position(|h| *h == name) {
            keep[k] = false;
        }
    }
    keep
}

/// A cost to four decimals; a cost that is not zero never shows as
/// `0.0000`.
fn cost_text(v: f64) -> String {
    if v > 0.0 && v < 0.00005 {
        "<0.0001".to_string()
    } else {
        format!("{v:.4}")
    }
}

/// The report as a text table handed to `out` a line at a time: columns
/// padded to their widest cell (a first pass), counts right-aligned, and
/// a total line. With a `width`, columns give way (`GIVE_WAY`) until the
/// table fits; names are cut (to 12 at least) only when that is not enough.
pub fn render_to(
    corpus: &Corpus,
    report: &Report,
    req: &Request,
    width: Option<usize>,
    out: &mut dyn FnMut(&str),
) {
    let head = head(req);
    let names = match req.by {
        By::Model => 1,
        _ => 2,
    };
    let mut w = report.widths.clone().unwrap_or_else(|| {
        let mut w = heads_widths(req);
        for r in report.rows(corpus) {
            widen(&mut w, &cells(corpus, &r, req));
        }
        w
    });
    let mut sum = TokenCounts::default();
    let keep = shown(&head, &w, width);
    if let Some(width) = width {
        let rest: usize = w
            .iter()
            .zip(&keep)
            .skip(1)
            .filter(|(_, k)| **k)
            .map(|(w, _)| w + 2)
            .sum();
        w[0] = w[0].min(width.saturating_sub(rest).max(12));
    }
    let mut line = String::new();
    let mut put = |c: &[String], out: &mut dyn FnMut(&str)| {
        line.clear();
        for (k, cell) in c.iter().enumerate() {
            if !keep[k] {
                continue;
            }
            if k > 0 {
                line.push_str("  ");
            }
            // Only the first column is ever narrowed to fit; a count read
            // again wider than when its width was taken is shown whole.
            let cell = if k == 0 {
                crate::operator::table::cut_to(cell, w[k])
            } else {
                cell.clone()
            };
            let pad = " ".repeat(w[k].saturating_sub(super::table::text_width(&cell)));
            if k < names {
                line.push_str(&cell);
                line.push_str(&pad);
            } else {
                line.push_str(&pad);
                line.push_str(&cell);
            }
        }
        let kept = line.trim_end().len();
        line.truncate(kept);
        line.push('\n');
        out(&line);
    };
    put(&head.iter().map(|h| h.to_string()).collect::<Vec<_>>(), out);
    for r in report.rows(corpus) {
        sum.add(&r.tokens);
        put(&cells(corpus, &r, req), out);
    }
    out(&format!(
        "{} model calls, {} tokens ({} input, {} cache read, {} cache write, {} output)",
        sum.calls,
        sum.total(),
        sum.input_tokens,
        sum.cache_read_tokens,
        sum.cache_write_tokens,
        sum.output_tokens
    ));
}

/// The report as JSON, handed to `out` a row at a time:
/// `{"rows": [...], "unpriced": [...]}`.
pub fn json_to(corpus: &Corpus, report: &Report, out: &mut dyn FnMut(&str)) {
    use crate::support::json_out;
    out("{\"rows\":");
    json_out::array_to(
        report.rows(corpus).map(|r| {
            let mut v = serde_json::json!({ "tokens": r.tokens });
            if let Some(i) = r.session {
                v["agent"] = name_of(corpus, i).into();
                v["id"] = corpus.id(i).into();
                v["depth"] = r.depth.into();
            }
            if let Some((provider, model)) = &r.model {
                v["provider"] = provider.as_str().into();
                v["model"] = model.as_str().into();
            }
            if let Some(t) = r.turn {
                v["turn"] = t.into();
            }
            if let Some(s) = &r.subtree {
                v["subtree"] = serde_json::json!(s);
            }
            if let Some(c) = &r.cost {
                v["cost"] = serde_json::json!(c);
            }
            if r.unreadable {
                v["unreadable"] = true.into();
            }
            v
        }),
        out,
    );
    out(&format!(
        ",\"unpriced\":{}}}",
        json_out::text(&report.unpriced)
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(calls: u64) -> TokenCounts {
        TokenCounts {
            calls,
            ..TokenCounts::default()
        }
    }

    /// Each case: the walk as (depth, children, own calls), and the
    /// subtree totals of the sessions with children, in walk order.
    #[test]
    fn subtree_totals_are_made_in_one_pass() {
        type Walk = &'static [(usize, usize, u64)];
        let cases: &[(&str, Walk, &[u64])] = &[
            ("a leaf", &[(0, 0, 5)], &[]),
            ("flat", &[(0, 3, 1), (1, 0, 2), (1, 0, 4), (1, 0, 8)], &[15]),
            (
                "chain",
                &[(0, 1, 1), (1, 1, 2), (2, 1, 4), (3, 0, 8)],
                &[15, 14, 12],
            ),
            (
                "branches closed by a shallower sibling",
                &[(0, 2, 1), (1, 1, 2), (2, 0, 4), (1, 0, 8)],
                &[15, 6],
            ),
            (
                "two roots",
                &[(0, 1, 1), (1, 0, 2), (0, 1, 16), (1, 0, 32)],
                &[3, 48],
            ),
        ];
        for (what, walk, want) in cases {
            let mut s = Subtrees::default();
            for (k, (depth, children, own)) in walk.iter().enumerate() {
                let v = Visit {
                    index: k,
                    parent: None,
                    depth: *depth,
                    children: *children,
                };
                s.visit(&v, counts(*own));
            }
            s.close_to(0);
            let got: Vec<u64> = s.totals.iter().map(|t| t.calls).collect();
            assert_eq!(got, *want, "{what}");
            assert!(s.open.is_empty(), "{what}: everything closed");
        }
    }

    /// A report that keeps no counts, some, or all of them reads the same
    /// rows, widths and totals: the sessions it did not keep are read again.
    #[test]
    fn a_report_keeping_fewer_counts_shows_the_same() {
        struct Removed(std::path::PathBuf);
        impl Drop for Removed {
            fn drop(&mut self) {
                let _ = std::fs::remove_dir_all(&self.0);
            }
        }
        let root = std::env::temp_dir().join(format!("dsh-agents-usage-{}", std::process::id()));
        let _removed = Removed(root.clone());
        let id = |i: usize| format!("s{i:03}");
        for i in 0..60usize {
            let dir = root.join("_no-cwd").join(id(i));
            std::fs::create_dir_all(&dir).unwrap();
            let mut log = if i == 0 {
                format!(
                    r#"{{"type":"session","version":0,"id":"{}","createdAt":1,"delegationDepth":0}}"#,
                    id(0)
                )
            } else {
                format!(
                    r#"{{"type":"session","version":0,"id":"{}","createdAt":{},"delegationDepth":1,"parentSession":"{}","origin":"subagent","name":"n{i}"}}"#,
                    id(i),
                    i + 1,
                    id((i - 1) / 3)
                ) + "\n"
                    + r#"{"type":"subagent/descriptor","seq":0,"time":1,"data":{"version":2,"mode":"continuable","provider":"spawn","label":"w"}}"#
            };
            log.push('\n');
            // Session i makes i % 4 calls, in turns 1 and 2, of two models,
            // with counts of one to seven digits.
            for call in 0..i % 4 {
                let model = if (i + call) % 2 == 0 {
                    "chat"
                } else {
                    "reasoner"
                };
                log += &format!(
                    r#"{{"type":"assistant/message","seq":{},"time":{},"data":{{"turn":{},"step":1,"message":{{"role":"assistant","content":[],"source":{{"kind":"model","provider":"deepseek","model":"{model}"}},"id":"a"}},"usage":{{"inputTokens":{},"cacheReadTokens":{},"outputTokens":{},"reasoningTokens":{}}}}}}}"#,
                    call + 1,
                    10 * call + 1,
                    1 + call % 2,
                    7usize.pow((i % 8) as u32) + call,
                    i * 13,
                    call,
                    i,
                );
                log.push('\n');
            }
            std::fs::write(dir.join("session.jsonl"), log).unwrap();
        }
        let store = dsh_store::open(&root, dsh_store::Plan::Survey).unwrap();
        let corpus = Corpus::new(&store);
        let prices = parse_prices(br#"{"deepseek/chat": {"input": 0.27, "output": 1.1}}"#).unwrap();
        for by in [By::Agent, By::Model, By::Turn] {
            for tree in [false, true] {
                for priced in [false, true] {
                    for agent in [None, Some(1)] {
                        let req = Request {
                            agent,
                            tree,
                            since: None,
                            by,
                            prices: priced.then_some(&prices),
                            table: true,
                        };
                        let show = |keep| {
                            let report = report_keeping(&corpus, &req, keep);
                            let mut text = String::new();
                            render_to(&corpus, &report, &req, None, &mut |t| text.push_str(t));
                            let mut json = String::new();
                            json_to(&corpus, &report, &mut |t| json.push_str(t));
                            (text, json, report.unpriced.clone())
                        };
                        let whole = show(usize::MAX);
                        assert!(whole.0.lines().count() > 2, "{by:?}: {}", whole.0);
                        for keep in [0, 1, 40, 200] {
                            assert_eq!(
                                show(keep),
                                whole,
                                "{by:?} tree {tree} priced {priced} agent {agent:?} keeping {keep}"
                            );
                        }
                    }
                }
            }
        }
    }
}
