//! Reading only the end of a raw log: where its last N turns start, found
//! by scanning backwards for `turn/start` lines, and its events from there
//! on. `log --last N` on a large log then costs what those turns hold, not
//! what the log holds. A Zstandard log cannot be entered from the end: its
//! turn starts are counted in a first pass over its lines (no JSON parsed),
//! and only the last turns' events are parsed in a second. A subagent's
//! identity for a title is read from the log's head, where DSH writes it.

use super::error::LogError;
use super::limits::MAX_LINE;
use super::lines::{Line, Lines};
use super::reader::events_of_line;
use super::sidecar::open_regular;
use super::zstd_frames::ZSTD_MAGIC;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::os::unix::fs::FileExt;
use std::path::Path;

/// How much of the log one backward step reads.
const STEP: u64 = 1 << 20;

/// The byte offset of the line that starts the `turns`-th last turn of
/// the raw log at `path`, when an earlier turn starts before it (with no
/// more turns than that, `--last` shows the whole log, events before the
/// first turn included); `None` then, or when the log is Zstandard or
/// cannot be read.
pub fn start_of_last_turns(path: &Path, turns: usize) -> Option<u64> {
    if turns == 0 {
        return None;
    }
    let file = open_regular(path).ok()?;
    let mut magic = [0u8; 4];
    if file.read_exact_at(&mut magic, 0).is_ok() && magic == ZSTD_MAGIC {
        return None;
    }
    let len = file.metadata().ok()?.len();
    let needle: &[u8] = b"\n{\"type\":\"turn/start\"";
    let mut found = 0usize;
    let mut nth: Option<u64> = None;
    let mut end = len;
    // Each step overlaps the next by the needle's length, so a match that
    // straddles two steps is seen once, in the later one.
    let mut buf = Vec::new();
    while end > 0 {
        let start = end.saturating_sub(STEP);
        let take = (end - start) as usize;
        let over = if end < len { needle.len() - 1 } else { 0 };
        buf.resize(take + over, 0);
        let got = read_at_most(&file, &mut buf, start);
        buf.truncate(got);
        let mut hay = &buf[..];
        while let Some(at) = memchr::memmem::rfind(hay, needle) {
            found += 1;
            if found == turns {
                nth = Some(start + at as u64 + 1);
            } else if found > turns {
                return nth;
            }
            hay = &hay[..at];
        }
        end = start;
    }
    None
}

fn read_at_most(file: &std::fs::File, buf: &mut [u8], at: u64) -> usize {
    let mut done = 0;
    while done < buf.len() {
        match file.read_at(&mut buf[done..], at + done as u64) {
            Ok(0) | Err(_) => break,
            Ok(n) => done += n,
        }
    }
    done
}

/// Call `f` on every event of the raw log at `path` from byte `offset` (a
/// line start) on, as `reader::for_each_event` does from the start.
pub fn for_each_event_from(
    path: &Path,
    offset: u64,
    mut f: impl FnMut(&serde_json::Value),
) -> Result<(), LogError> {
    let mut file = open_regular(path)?;
    file.seek(SeekFrom::Start(offset))?;
    let reader = BufReader::with_capacity(64 * 1024, file.by_ref());
    let mut lines = Lines::new(reader, MAX_LINE);
    loop {
        match lines.next_line()? {
            Line::Complete(l) if !l.is_empty() => events_of_line(l, &mut f),
            Line::Complete(_) | Line::TooLong(_) => {}
            Line::End { .. } => return Ok(()),
        }
    }
}

/// A line that starts a turn, as DSH and this tool write it.
const TURN_START: &[u8] = b"{\"type\":\"turn/start\"";

/// How many turns the log at `path` starts (its lines, raw or Zstandard).
pub fn count_turn_starts(path: &Path) -> Result<usize, LogError> {
    let mut n = 0;
    super::reader::for_each_line(path, |l| {
        if l.starts_with(TURN_START) {
            n += 1;
        }
    })?;
    Ok(n)
}

/// Call `f` on every event from the start of turn `skip + 1` (counting
/// turn starts) on, parsing no line before it.
pub fn for_each_event_after_turns(
    path: &Path,
    skip: usize,
    f: &mut dyn FnMut(&serde_json::Value),
) -> Result<(), LogError> {
    let mut seen = 0;
    super::reader::for_each_line(path, |l| {
        if seen <= skip && l.starts_with(TURN_START) {
            seen += 1;
        }
        if seen > skip {
            events_of_line(l, f);
        }
    })
}

/// The listing identity (last descriptor wins) of the log at `path` as
/// its head holds it: the events up to the session's first own
/// `step/start` or `turn/end`. DSH writes a session's descriptors before that (in the
/// creation seed, or a one-shot's first pre-step), so a title read from
/// the end of a large log does not read the log whole. (`tree` and the
/// model tools fold the whole log.)
pub fn head_identity(
    path: &Path,
    header: &super::header::Header,
    dialect: super::descriptor::Dialect,
) -> Result<Option<super::descriptor::Identity>, LogError> {
    let generation = header.generation().unwrap_or(0);
    let mut cut = super::header::header_cut(header);
    let mut fold = super::descriptor::IdentityFold::default();
    let mut done = false;
    super::log_events::for_each_line_while(path, |l| {
        events_of_line(l, &mut |ev| {
            let seq = ev["seq"].as_u64().unwrap_or(0);
            let ty = ev["type"].as_str().unwrap_or("");
            match ty {
                "subagent/descriptor" => fold.apply_in(&ev["data"], dialect, generation),
                "step/start" | "turn/end" if cut.is_some_and(|c| seq >= c) => done = true,
                _ if super::generation::is_inherited_marker(
                    generation,
                    ty,
                    ev["data"]["inherited"] == true,
                ) =>
                {
                    cut = Some(seq);
                }
                _ => {}
            }
        });
        !done
    })?;
    Ok(fold.identity)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::descriptor::{Dialect, Mode};

    fn descriptor(seq: u64, mode: &str, label: &str) -> String {
        format!(
            r#"{{"type":"subagent/descriptor","seq":{seq},"time":1,"data":{{"version":2,"mode":"{mode}","provider":"spawn","label":"{label}"}}}}"#
        )
    }

    fn ev(seq: u64, ty: &str) -> String {
        format!(r#"{{"type":"{ty}","seq":{seq},"time":1,"data":{{"turn":1}}}}"#)
    }

    /// The head's identity: the descriptors before the session's first own
    /// step, last wins; a fork's inherited steps do not end the head.
    #[test]
    fn head_identity_reads_up_to_the_first_own_step() {
        let header = r#"{"type":"session","version":0,"id":"k","createdAt":1,"parentSession":"p","origin":"subagent","delegationDepth":1}"#;
        let fork = r#"{"type":"session","version":0,"id":"k","createdAt":1,"parentSession":"p","origin":"subagent","delegationDepth":1,"seedLength":3}"#;
        type Case<'a> = (&'a str, Vec<String>, Option<(Mode, &'a str)>);
        let cases: Vec<Case> = vec![
            (
                header,
                vec![
                    descriptor(0, "continuable", "a"),
                    ev(1, "turn/start"),
                    ev(2, "step/start"),
                ],
                Some((Mode::Continuable, "a")),
            ),
            (
                header,
                vec![
                    ev(0, "turn/start"),
                    descriptor(1, "one-shot", "b"),
                    ev(2, "step/start"),
                ],
                Some((Mode::OneShot, "b")),
            ),
            (
                header,
                vec![
                    ev(0, "turn/start"),
                    ev(1, "step/start"),
                    descriptor(2, "one-shot", "late"),
                ],
                None,
            ),
            (
                fork,
                vec![
                    descriptor(0, "continuable", "parent's"),
                    ev(1, "step/start"),
                    ev(2, "turn/end"),
                    descriptor(3, "continuable", "own"),
                    ev(4, "step/start"),
                    descriptor(5, "one-shot", "after"),
                ],
                Some((Mode::Continuable, "own")),
            ),
        ];
        let tmp = tempfile::tempdir().unwrap();
        for (k, (header, lines, want)) in cases.into_iter().enumerate() {
            let path = tmp.path().join(format!("{k}.jsonl"));
            let body: String = std::iter::once(header.to_string())
                .chain(lines)
                .map(|l| l + "\n")
                .collect();
            std::fs::write(&path, body).unwrap();
            let crate::store::header::HeaderParse::Valid(parsed) =
                crate::store::header::parse_header_line(header)
            else {
                panic!("case {k}: a header")
            };
            let got = head_identity(&path, &parsed, Dialect::Seed001).unwrap();
            let got = got.map(|i| (i.mode, i.label.unwrap_or_default()));
            let want = want.map(|(m, l)| (m, l.to_string()));
            assert_eq!(got, want, "case {k}");
        }
    }
}
