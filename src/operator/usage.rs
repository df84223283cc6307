//! `usage`: the tokens each agent's model calls reported (`store::usage`),
//! per agent (own, and rolled up over its subtree), per model or per turn,
//! with a cost when the user gives a price table. One streaming read of
//! each selected log, in parallel; nothing is written.

use crate::store::events::safe_int_value;
use crate::store::usage::TokenCounts;
use crate::tree::Corpus;
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
/// model, or an agent's turn. Names are made when the row is written, so
/// 100,000 rows hold no text.
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

/// The report's rows, and the models no price was given for.
pub fn report(corpus: &Corpus, req: &Request) -> (Vec<Row>, Vec<String>) {
    // The sessions, in tree pre-order, with their depth below the first.
    let mut order: Vec<(usize, usize)> = Vec::new();
    let mut seen = vec![false; corpus.store.sessions.len()];
    let starts: Vec<usize> = match req.agent {
        Some(a) => vec![a],
        None => corpus.roots().collect(),
    };
    let descend = req.agent.is_none() || req.tree;
    for start in starts {
        let mut stack = vec![(start, 0usize)];
        while let Some((i, depth)) = stack.pop() {
            if std::mem::replace(&mut seen[i], true) {
                continue;
            }
            order.push((i, depth));
            if descend {
                let kids: Vec<usize> = corpus.subagent_children_of(corpus.id(i)).collect();
                stack.extend(kids.into_iter().rev().map(|k| (k, depth + 1)));
            }
        }
    }
    let indices: Vec<usize> = order.iter().map(|(i, _)| *i).collect();
    let needs = Needs {
        models: req.by == By::Model || req.prices.is_some(),
        turns: req.by == By::Turn,
    };
    let used = crate::support::parallel::par_map(&indices, |i| {
        read_session(corpus, *i, req.since, req.prices, needs)
    });
    let mut unpriced: Vec<String> = Vec::new();
    if let Some(prices) = req.prices {
        for u in &used {
            for (provider, model) in u.models.keys() {
                let name = format!("{provider}/{model}");
                if price_of(prices, provider, model).is_none() && !unpriced.contains(&name) {
                    unpriced.push(name);
                }
            }
        }
    }
    let priced = |c: Option<f64>| req.prices.map(|_| c);
    let rows = match req.by {
        By::Agent => {
            // Subtree totals: each row adds itself to every ancestor row
            // still open above it (pre-order, by depth).
            let mut subtree: Vec<TokenCounts> = used.iter().map(|u| u.total).collect();
            let mut open: Vec<usize> = Vec::new();
            for (k, (_, depth)) in order.iter().enumerate() {
                open.truncate(*depth);
                let own = used[k].total;
                for a in &open {
                    subtree[*a].add(&own);
                }
                open.push(k);
            }
            order
                .iter()
                .zip(&used)
                .enumerate()
                .map(|(k, ((i, depth), u))| Row {
                    session: Some(*i),
                    depth: *depth,
                    model: None,
                    turn: None,
                    tokens: u.total,
                    subtree: req.tree.then_some(subtree[k]),
                    cost: priced(u.cost),
                    unreadable: u.unreadable,
                })
                .collect()
        }
        By::Model => {
            let mut models: BTreeMap<(String, String), TokenCounts> = BTreeMap::new();
            for u in &used {
                for (m, t) in &u.models {
                    models.entry(m.clone()).or_default().add(t);
                }
            }
            models
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
                .collect()
        }
        By::Turn => {
            let mut rows = Vec::new();
            for ((i, depth), u) in order.iter().zip(&used) {
                for (turn, t) in &u.turns {
                    rows.push(Row {
                        session: Some(*i),
                        depth: *depth,
                        model: None,
                        turn: Some(*turn),
                        tokens: *t,
                        subtree: None,
                        cost: None,
                        unreadable: false,
                    });
                }
            }
            rows
        }
    };
    (rows, unpriced)
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
fn head(req: &Request) -> Vec<&'static str> {
    let mut head: Vec<&str> = match req.by {
        By::Agent => vec!["AGENT", "SESSION"],
        By::Model => vec!["PROVIDER/MODEL"],
        By::Turn => vec!["AGENT", "TURN"],
    };
    head.extend([
        "CALLS",
        "INPUT",
        "CACHE READ",
        "CACHE WRITE",
        "OUTPUT",
        "REASONING",
        "TOTAL",
    ]);
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
        [
            t.calls,
            t.input_tokens,
            t.cache_read_tokens,
            t.cache_write_tokens,
            t.output_tokens,
            t.reasoning_tokens,
            t.total(),
        ]
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
    rows: &[Row],
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
    for r in rows {
        sum.add(&r.tokens);
        for (k, cell) in cells(corpus, r, req).iter().enumerate() {
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
    for r in rows {
        put(&cells(corpus, r, req), out);
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
pub fn json_to(corpus: &Corpus, rows: &[Row], unpriced: &[String], out: &mut dyn FnMut(&str)) {
    use crate::support::json_out;
    out("{\"rows\":");
    json_out::array_to(
        rows.iter().map(|r| {
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
    out(&format!(",\"unpriced\":{}}}", json_out::text(&unpriced)));
}
