//! A whole transcript handed over event by event, in memory that does not
//! grow with the log: what `Conversation::read` would hold, without holding
//! it. Invariant: every turn, entry and ending handed over is exactly what
//! the whole fold holds for it (its `shadowed` and `replaced` included), or
//! nothing is handed over and the caller folds the log whole.
//!
//! An entry's "compacted later" depends on surface replaces written after
//! it, so the log is read three times, up to the line the first read
//! ended on (a log DSH is still appending to gives one snapshot):
//! 1. the lines that can hold a replace (they name `surfaceOp`, or escape
//!    a character) give the seqs replaces name;
//! 2. a survey replays the surface as runs of seqs (one run per stretch
//!    of appends; a replace cuts runs and puts its entry between them), so
//!    it holds the replaces and their cuts, not the entries; and checks
//!    the log is in order (seqs rising, turns rising, each turn ended while
//!    it is the latest) — a log out of order is left to the whole fold;
//! 3. the events are handed over, each entry with what the survey found.

use crate::error::LogError;
use crate::format::events::safe_int_value as safe_int;
use crate::log::conversation::{Ending, Entry, Turn, entry_item, event_seq_time, replace_range};
use crate::log::log_events::{events_of_line, for_each_line_while};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// One thing the transcript shows, in log order.
#[derive(Debug, Clone, PartialEq)]
pub enum Shown {
    /// A turn starts (its end is not known yet).
    Start(Turn),
    Entry(Entry),
    /// A turn ends (its start included).
    End(Turn),
}

/// What the survey learnt: the stretches of seqs each replace took off the
/// surface, sorted, and how many lines the snapshot holds.
struct Survey {
    /// `(first seq, last seq, the replacing entry's seq)`, disjoint, sorted.
    removed: Vec<(u64, u64, u64)>,
    lines: u64,
}

/// Hand every turn start, entry and turn end of the log at `path` to `f`
/// in order, until `f` returns false. `Ok(false)`: the log is not in the
/// order this needs and nothing was handed over (fold it whole).
pub fn stream(path: &Path, f: &mut dyn FnMut(Shown) -> bool) -> Result<bool, LogError> {
    let (targets, lines) = replace_targets(path)?;
    let Some(survey) = survey(path, &targets, lines)? else {
        return Ok(false);
    };
    hand_over(path, &survey, f)?;
    Ok(true)
}

/// Pass 1: the seqs replaces name, and the snapshot's line count.
fn replace_targets(path: &Path) -> Result<(HashSet<u64>, u64), LogError> {
    let mut targets = HashSet::new();
    let mut lines = 0u64;
    for_each_line_while(path, |line| {
        lines += 1;
        // A key can be spelt with escapes; such a line is parsed too.
        if memchr::memmem::find(line, b"surfaceOp").is_some()
            || memchr::memmem::find(line, b"\\u").is_some()
        {
            events_of_line(line, &mut |ev| {
                if let Some((s, e)) = replace_range(ev) {
                    targets.insert(s);
                    targets.insert(e);
                }
            });
        }
        true
    })?;
    Ok((targets, lines))
}

/// The events of the snapshot's first `lines` lines, to `f` (false stops).
fn each_event(path: &Path, lines: u64, f: &mut dyn FnMut(&Value) -> bool) -> Result<(), LogError> {
    let mut n = 0u64;
    let mut going = true;
    for_each_line_while(path, |line| {
        n += 1;
        if n > lines {
            return false;
        }
        events_of_line(line, &mut |ev| {
            if going {
                going = f(ev);
            }
        });
        going
    })
}

/// Pass 2: replay the surface as runs; `None` when the log is out of order.
fn survey(path: &Path, targets: &HashSet<u64>, lines: u64) -> Result<Option<Survey>, LogError> {
    // Surface order; each run holds the entries whose seqs it spans.
    let mut runs: Vec<(u64, u64)> = Vec::new();
    let mut removed: Vec<(u64, u64, u64)> = Vec::new();
    // Entries whose seq a replace names: only they are looked up.
    let mut named: HashSet<u64> = HashSet::new();
    let mut last_seq: Option<u64> = None;
    let mut last_entry: Option<u64> = None;
    // The latest turn: its number, and whether it has ended.
    let mut latest: Option<(u64, bool)> = None;
    let mut in_order = true;
    each_event(path, lines, &mut |ev| {
        let (seq, _) = event_seq_time(ev);
        let ty = ev["type"].as_str().unwrap_or("");
        let counts = matches!(
            ty,
            "turn/start" | "turn/end" | "user/message" | "assistant/message" | "tool/result"
        );
        if !counts {
            return true;
        }
        if last_seq.is_some_and(|l| seq <= l) {
            in_order = false;
            return false;
        }
        last_seq = Some(seq);
        let data = &ev["data"];
        match ty {
            "turn/start" => {
                let n = turn_number(data);
                if latest.is_some_and(|(l, _)| n <= l) {
                    in_order = false;
                    return false;
                }
                latest = Some((n, false));
            }
            "turn/end" => {
                let n = turn_number(data);
                match latest {
                    // A turn this log never started: the fold passes it over.
                    Some((l, _)) if n > l => {}
                    None => {}
                    Some((l, false)) if n == l => latest = Some((l, true)),
                    // An earlier turn's end, or a second end: out of order.
                    Some(_) => {
                        in_order = false;
                        return false;
                    }
                }
            }
            _ => {
                if targets.contains(&seq) {
                    named.insert(seq);
                }
                let find = |runs: &[(u64, u64)], q: u64| {
                    named
                        .contains(&q)
                        .then(|| runs.iter().position(|&(lo, hi)| lo <= q && q <= hi))
                        .flatten()
                };
                let cut = replace_range(ev).and_then(|(start, end)| {
                    let (s, e) = (find(&runs, start)?, find(&runs, end)?);
                    (s < e || (s == e && start <= end)).then_some((s, e, start, end))
                });
                match cut {
                    Some((s, e, start, end)) => {
                        let (lo_s, hi_s) = runs[s];
                        let (lo_e, hi_e) = runs[e];
                        if s == e {
                            removed.push((start, end, seq));
                        } else {
                            removed.push((start, hi_s, seq));
                            removed.extend(runs[s + 1..e].iter().map(|&(lo, hi)| (lo, hi, seq)));
                            removed.push((lo_e, end, seq));
                        }
                        let mut middle = Vec::with_capacity(3);
                        if start > lo_s {
                            middle.push((lo_s, start - 1));
                        }
                        middle.push((seq, seq));
                        if end < hi_e {
                            middle.push((end + 1, hi_e));
                        }
                        runs.splice(s..=e, middle);
                    }
                    None => match runs.last_mut() {
                        Some(run) if Some(run.1) == last_entry => run.1 = seq,
                        _ => runs.push((seq, seq)),
                    },
                }
                last_entry = Some(seq);
            }
        }
        true
    })?;
    if !in_order {
        return Ok(None);
    }
    removed.sort_unstable();
    Ok(Some(Survey { removed, lines }))
}

fn turn_number(data: &Value) -> u64 {
    safe_int(data.get("turn")).unwrap_or(0).max(0) as u64
}

/// Pass 3: the events, each entry with its place on the surface.
fn hand_over(
    path: &Path,
    survey: &Survey,
    f: &mut dyn FnMut(Shown) -> bool,
) -> Result<(), LogError> {
    let removed = &survey.removed;
    // Entries each replace took off, counted as they go by (they come
    // before the replace's own entry).
    let mut took: HashMap<u64, usize> = HashMap::new();
    let replacers: HashSet<u64> = removed.iter().map(|r| r.2).collect();
    let mut turn = 0u64;
    let mut latest: Option<Turn> = None;
    each_event(path, survey.lines, &mut |ev| {
        let (seq, time) = event_seq_time(ev);
        let data = &ev["data"];
        match ev["type"].as_str().unwrap_or("") {
            "turn/start" => {
                turn = turn_number(data);
                let t = Turn {
                    number: turn,
                    start_seq: seq,
                    started: time,
                    end: None,
                };
                latest = Some(t.clone());
                f(Shown::Start(t))
            }
            "turn/end" => {
                let n = turn_number(data);
                match latest.as_mut() {
                    Some(t) if t.number == n && t.end.is_none() => {
                        t.end = Some((seq, time, Ending::of(&data["reason"])));
                        f(Shown::End(t.clone()))
                    }
                    _ => true,
                }
            }
            ty @ ("user/message" | "assistant/message" | "tool/result") => {
                let Some(item) = entry_item(ty, data) else {
                    return true;
                };
                let at = removed.partition_point(|r| r.0 <= seq);
                let by = at
                    .checked_sub(1)
                    .map(|i| removed[i])
                    .filter(|r| seq <= r.1)
                    .map(|r| r.2);
                if let Some(by) = by {
                    *took.entry(by).or_default() += 1;
                }
                let replaced = if replacers.contains(&seq) {
                    took.remove(&seq).unwrap_or(0)
                } else {
                    0
                };
                f(Shown::Entry(Entry {
                    seq,
                    time,
                    turn: safe_int(data.get("turn")).map_or(turn, |t| t.max(0) as u64),
                    replaced,
                    shadowed: by.is_some(),
                    item,
                }))
            }
            _ => true,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::conversation::Conversation;

    /// What a line shows, comparable between the fold and the stream.
    fn key(kind: &str, t: Option<&Turn>, e: Option<&Entry>) -> String {
        match (t, e) {
            (Some(t), _) => format!("{kind} {} {} {}", t.number, t.start_seq, t.started),
            (_, Some(e)) => format!("{kind} {e:?}"),
            _ => unreachable!(),
        }
    }

    fn whole(path: &Path) -> Vec<(u64, String)> {
        let c = Conversation::read(path).unwrap();
        let mut out = Vec::new();
        for t in &c.turns {
            out.push((t.start_seq, key("start", Some(t), None)));
            if let Some(end) = &t.end {
                out.push((end.0, key(&format!("end {:?}", end), Some(t), None)));
            }
        }
        out.extend(
            c.entries
                .iter()
                .map(|e| (e.seq, key("entry", None, Some(e)))),
        );
        out.sort_by_key(|l| l.0);
        out
    }

    fn streamed(path: &Path) -> Option<Vec<(u64, String)>> {
        let mut out = Vec::new();
        let ok = stream(path, &mut |s| {
            out.push(match &s {
                Shown::Start(t) => (t.start_seq, key("start", Some(t), None)),
                Shown::End(t) => {
                    let end = t.end.as_ref().unwrap();
                    (end.0, key(&format!("end {:?}", end), Some(t), None))
                }
                Shown::Entry(e) => (e.seq, key("entry", None, Some(e))),
            });
            true
        })
        .unwrap();
        ok.then_some(out)
    }

    /// A small deterministic generator (xorshift).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
    }

    /// Random logs of turns, appends and replaces (named seqs that are
    /// entries, turn starts, gone or in the future; sometimes out of
    /// order): whenever the stream takes a log, it shows what the whole
    /// fold shows; and it takes every log written in order.
    #[test]
    fn the_stream_shows_what_the_whole_fold_shows() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("session.jsonl");
        let (mut taken, mut ordered_logs) = (0, 0);
        for round in 0..400u64 {
            let mut rng = Rng(round.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
            let disorder = round % 4 == 3;
            let mut text = String::from(
                "{\"type\":\"session\",\"version\":0,\"id\":\"s\",\"createdAt\":1,\"delegationDepth\":0}\n",
            );
            let (mut seq, mut turn, mut open) = (1u64, 0u64, false);
            let mut seqs: Vec<u64> = Vec::new();
            for _ in 0..(5 + rng.next(60)) {
                let s = if disorder && rng.next(10) == 0 {
                    seq.saturating_sub(rng.next(4))
                } else {
                    seq
                };
                seq += 1;
                let line = match rng.next(10) {
                    0 | 1 => {
                        turn += if disorder && rng.next(3) == 0 { 0 } else { 1 };
                        open = true;
                        format!(
                            "{{\"type\":\"turn/start\",\"seq\":{s},\"time\":{s},\"data\":{{\"turn\":{turn}}}}}"
                        )
                    }
                    2 if disorder || open => {
                        open = false;
                        let n = turn.saturating_sub(if disorder { rng.next(2) } else { 0 });
                        format!(
                            "{{\"type\":\"turn/end\",\"seq\":{s},\"time\":{s},\"data\":{{\"turn\":{n},\"reason\":{{\"kind\":\"completed\"}}}}}}"
                        )
                    }
                    3 | 4 if !seqs.is_empty() => {
                        let a = seqs[rng.next(seqs.len() as u64) as usize];
                        let b = seqs[rng.next(seqs.len() as u64) as usize] + rng.next(2);
                        let (a, b) = if rng.next(4) == 0 {
                            (b, a)
                        } else {
                            (a.min(b), a.max(b))
                        };
                        format!(
                            "{{\"type\":\"assistant/message\",\"seq\":{s},\"time\":{s},\"data\":{{\"message\":{{\"content\":[{{\"type\":\"text\",\"text\":\"summary {s}\"}}]}}}},\"surfaceOp\":{{\"start\":{a},\"end\":{b}}}}}"
                        )
                    }
                    5 => format!(
                        "{{\"type\":\"assistant/chunk\",\"seq\":{s},\"time\":{s},\"data\":{{}}}}"
                    ),
                    6 => format!(
                        "{{\"type\":\"tool/result\",\"seq\":{s},\"time\":{s},\"data\":{{\"message\":{{\"content\":[{{\"toolCallId\":\"c{s}\",\"content\":[{{\"type\":\"text\",\"text\":\"r\"}}]}}]}}}},\"surfaceOp\":\"append\"}}"
                    ),
                    _ => format!(
                        "{{\"type\":\"user/message\",\"seq\":{s},\"time\":{s},\"data\":{{\"content\":[{{\"type\":\"text\",\"text\":\"m{s}\"}}],\"source\":{{\"kind\":\"user\"}}}},\"surfaceOp\":\"append\"}}"
                    ),
                };
                seqs.push(s);
                text.push_str(&line);
                text.push('\n');
            }
            std::fs::write(&path, &text).unwrap();
            let want = whole(&path);
            if !disorder {
                ordered_logs += 1;
            }
            match streamed(&path) {
                Some(got) => {
                    taken += 1;
                    assert_eq!(got, want, "round {round}:\n{text}");
                }
                None => assert!(
                    disorder,
                    "round {round}: an ordered log was refused:\n{text}"
                ),
            }
        }
        // The comparison ran on every ordered log and some disordered ones.
        assert!(
            taken > ordered_logs,
            "{taken} taken, {ordered_logs} ordered"
        );
    }
}
