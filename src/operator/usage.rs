//! `usage`: the tokens each agent's model calls reported (`store::usage`),
//! per agent (own, and rolled up over its subtree), per model or per turn,
//! with a cost when the user gives a price table. One streaming read of
//! each selected log, a few hundred in parallel; nothing is written.
//! Invariant: what a report holds grows with the store by a few bytes a
//! session (its counts packed in walk order), never by a row a session:
//! rows are made again from the packed counts each time they are read.

use crate::store::events::safe_int_value;
use crate::store::usage::TokenCounts;
use crate::tree::Corpus;
use crate::tree::preorder::{Preorder, Visit};
use serde_json::Value;
use std::collections::BTreeMap;

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

/// Parse a price table (JSON); the error says what is wrong with it.
pub fn parse_prices(bytes: &[u8]) -> Result<Prices, PriceError> {
    let prices: Prices = serde_json::from_slice(bytes).map_err(PriceError::Json)?;
    for (model, p) in &prices {
        let all = [p.input, p.cache_read, p.cache_write, p.output];
        if all.iter().any(|v| !v.is_finite() || *v < 0.0) {
            return Err(PriceError::Negative {
                model: model.clone(),
            });
        }
    }
    Ok(prices)
}

/// What is wrong with a price table.
#[derive(Debug)]
pub enum PriceError {
    /// Not JSON of the table's shape.
    Json(serde_json::Error),
    /// A price that is negative or not finite.
    Negative { model: String },
}

impl std::fmt::Display for PriceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PriceError::Json(e) => write!(f, "{e}"),
            PriceError::Negative { model } => {
                write!(f, "\"{model}\": prices must be non-negative numbers")
            }
        }
    }
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

impl crate::store::ahead::ReadAhead for EveryLog {
    fn wanted(&self, _: &crate::store::header::Header) -> bool {
        true
    }
    fn dialect(&self) -> crate::store::descriptor::Dialect {
        crate::store::descriptor::Dialect::Rc8
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
        use crate::store::ahead::Glance;
        match corpus.store.take_glance(index) {
            Some(Glance::Read { usage, .. }) => u.total = usage,
            Some(Glance::Unreadable) => u.unreadable = true,
            None => match crate::store::reader::inspect(&rec.log()) {
                Ok(i) => u.total = i.usage,
                Err(_) => u.unreadable = true,
            },
        }
        return u;
    }
    let read = crate::store::reader::for_each_own_event(&rec.log(), &rec.header, |ev| {
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
}

/// How many sessions' logs are read at once (in parallel): what a report
/// holds while reading grows with this, never with the store.
const READ_AT_ONCE: usize = 256;

/// A report, read: each session's counts packed in the walk's order (a few
/// bytes a session, see `pack`), rows made again from them each time they
/// are read out, so a million sessions hold no million rows.
pub struct Report {
    by: By,
    agent: Option<usize>,
    descend: bool,
    /// Whether rows carry their subtree's total (`--tree`, by agent).
    tree: bool,
    priced: bool,
    /// By agent: a flags byte, the six counts, the cost; by turn: how many
    /// turns, then each turn and its six counts.
    packed: Vec<u8>,
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
pub fn report(corpus: &Corpus, req: &Request) -> Report {
    let descend = req.agent.is_none() || req.tree;
    let needs = Needs {
        models: req.by == By::Model || req.prices.is_some(),
        turns: req.by == By::Turn,
    };
    let mut r = Report {
        by: req.by,
        agent: req.agent,
        descend,
        tree: req.tree && req.by == By::Agent,
        priced: req.prices.is_some(),
        packed: Vec::new(),
        subtrees: Vec::new(),
        models: Vec::new(),
        unpriced: Vec::new(),
    };
    let mut subtrees = Subtrees::default();
    let mut models: BTreeMap<(String, String), TokenCounts> = BTreeMap::new();
    let mut visits = walk(corpus, req.agent, descend);
    loop {
        let chunk: Vec<Visit> = visits.by_ref().take(READ_AT_ONCE).collect();
        if chunk.is_empty() {
            break;
        }
        let used = crate::support::parallel::par_map(&chunk, |v| {
            read_session(corpus, v.index, req.since, req.prices, needs)
        });
        for (v, u) in chunk.iter().zip(used) {
            if let Some(prices) = req.prices {
                for (provider, model) in u.models.keys() {
                    let name = format!("{provider}/{model}");
                    if price_of(prices, provider, model).is_none() && !r.unpriced.contains(&name) {
                        r.unpriced.push(name);
                    }
                }
            }
            match req.by {
                By::Agent => {
                    let cost = u.cost.filter(|_| r.priced);
                    let flags = if u.unreadable { UNREADABLE } else { 0 }
                        | if cost.is_some() { COSTED } else { 0 };
                    r.packed.push(flags);
                    pack_counts(&mut r.packed, &u.total);
                    if let Some(c) = cost {
                        r.packed.extend_from_slice(&c.to_le_bytes());
                    }
                    if req.tree {
                        subtrees.visit(v, u.total);
                    }
                }
                By::Model => {
                    for (m, t) in u.models {
                        models.entry(m).or_default().add(&t);
                    }
                }
                By::Turn => {
                    crate::support::varint::put(&mut r.packed, u.turns.len() as u64);
                    for (turn, t) in &u.turns {
                        crate::support::varint::put(&mut r.packed, *turn);
                        pack_counts(&mut r.packed, t);
                    }
                }
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
    r
}

impl Report {
    /// The report's rows, made again from what was packed.
    pub fn rows<'s>(&'s self, corpus: &'s Corpus<'_>) -> Box<dyn Iterator<Item = Row> + 's> {
        if self.by == By::Model {
            return Box::new(self.models.iter().cloned());
        }
        let mut at = 0;
        let mut slots = self.subtrees.iter();
        let mut turns_left = 0u64;
        let mut current: Option<Visit> = None;
        let mut visits = walk(corpus, self.agent, self.descend);
        Box::new(std::iter::from_fn(move || {
            let bytes = &self.packed;
            if self.by == By::Turn {
                while turns_left == 0 {
                    current = Some(visits.next()?);
                    turns_left = crate::support::varint::read(bytes, &mut at)?;
                }
                turns_left -= 1;
                let v = current?;
                let turn = crate::support::varint::read(bytes, &mut at)?;
                return Some(Row {
                    session: Some(v.index),
                    depth: v.depth,
                    model: None,
                    turn: Some(turn),
                    tokens: unpack_counts(bytes, &mut at),
                    subtree: None,
                    cost: None,
                    unreadable: false,
                });
            }
            let v = visits.next()?;
            let flags = *bytes.get(at)?;
            at += 1;
            let tokens = unpack_counts(bytes, &mut at);
            let cost = if flags & COSTED != 0 {
                let b: [u8; 8] = bytes.get(at..at + 8)?.try_into().ok()?;
                at += 8;
                Some(f64::from_le_bytes(b))
            } else {
                None
            };
            let subtree = self.tree.then(|| {
                if v.children > 0 {
                    slots.next().copied().unwrap_or_default()
                } else {
                    tokens
                }
            });
            Some(Row {
                session: Some(v.index),
                depth: v.depth,
                model: None,
                turn: None,
                tokens,
                subtree,
                cost: self.priced.then_some(cost),
                unreadable: flags & UNREADABLE != 0,
            })
        }))
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
            let last = name.rsplit('/').next().unwrap_or(&name);
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
    let mut w: Vec<usize> = head.iter().map(|h| h.len()).collect();
    let mut sum = TokenCounts::default();
    for r in report.rows(corpus) {
        sum.add(&r.tokens);
        for (k, cell) in cells(corpus, &r, req).iter().enumerate() {
            w[k] = w[k].max(cell.chars().count());
        }
    }
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
            let cell = crate::operator::table::cut_to(cell, w[k]);
            let pad = " ".repeat(w[k].saturating_sub(cell.chars().count()));
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
}
