//! Reading only the end of a raw log: where its last N turns start, found
//! by scanning backwards for `turn/start` lines, and its events from there
//! on. `log --last N` on a large log then costs what those turns hold, not
//! what the log holds. A Zstandard log is entered from its last frames
//! (delimited without decoding, decoded last first) when every frame ends a
//! line; else its turn starts are counted in a first pass over its lines (no
//! JSON parsed), and only the last turns' events are parsed in a second.
//! Either way the events folded are the ones a whole read folds from there.
//! A subagent's identity for a title is read from the log's head, where DSH
//! writes it.

#![deny(clippy::cast_possible_truncation, clippy::arithmetic_side_effects)]

use crate::error::LogError;
use crate::files::lines::{Line, Lines};
use crate::files::sidecar::open_regular;
use crate::format::limits::MAX_LINE;
use crate::log::reader::events_of_line;
use crate::log::zstd_frames::ZSTD_MAGIC;
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
        let take = usize::try_from(end.saturating_sub(start)).unwrap_or(0);
        let over = if end < len {
            needle.len().saturating_sub(1)
        } else {
            0
        };
        buf.resize(take.saturating_add(over), 0);
        let got = read_at_most(&file, &mut buf, start);
        buf.truncate(got);
        let mut hay = &buf[..];
        while let Some(at) = memchr::memmem::rfind(hay, needle) {
            found = found.saturating_add(1);
            if found == turns {
                nth = Some(start.saturating_add(at as u64).saturating_add(1));
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
        match file.read_at(&mut buf[done..], at.saturating_add(done as u64)) {
            Ok(0) | Err(_) => break,
            Ok(n) => done = done.saturating_add(n),
        }
    }
    done
}

/// Call `f` on every event of the raw log at `path` from byte `offset` (a
/// line start) on, as `log_events::for_each_event` does from the start.
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

/// Where the `turns`-th last turn of the Zstandard log at `path` starts:
/// the byte offset of its frame and the offset within that frame's text,
/// when an earlier turn starts before it. The frames are delimited without
/// decoding, then decoded from the last one back until enough turns are
/// seen, so the cost follows what the last turns hold. `None` (read it the
/// long way) when the log is raw, cannot be read, holds no more turns, or
/// has a frame that does not end a line: only when every frame ends one is
/// a frame's start a line's start.
pub fn zstd_start_of_last_turns(path: &Path, turns: usize) -> Option<(u64, usize)> {
    use crate::log::zstd_frames::{Frame, FrameReader};
    if turns == 0 {
        return None;
    }
    let file = open_regular(path).ok()?;
    let mut magic = [0u8; 4];
    if file.read_exact_at(&mut magic, 0).is_err() || magic != ZSTD_MAGIC {
        return None;
    }
    let mut frames: Vec<(u64, usize)> = Vec::new();
    let mut reader = FrameReader::new(BufReader::with_capacity(64 * 1024, &file));
    let mut at = 0u64;
    while let Ok(Some(Frame::Complete(frame))) = reader.next_frame() {
        frames.push((at, frame.len()));
        at = at.checked_add(frame.len() as u64)?;
    }
    let mut found = 0usize;
    let mut nth: Option<(u64, usize)> = None;
    let mut buf = Vec::new();
    for &(offset, len) in frames.iter().rev() {
        buf.resize(len, 0);
        if read_at_most(&file, &mut buf, offset) != len {
            return None;
        }
        // Only the frame's last turn starts matter: enough to reach the
        // `turns`-th last, and one more to know an earlier one exists.
        let starts = FrameTurnStarts::of(&buf, turns.saturating_add(1).saturating_sub(found))?;
        if !starts.ends_line() {
            return None;
        }
        for &at in starts.last.iter().rev() {
            found = found.saturating_add(1);
            if found == turns {
                nth = Some((offset, at));
            } else if found > turns {
                return nth;
            }
        }
    }
    None
}

/// The turn starts of one frame's text, found as it is decoded a piece at
/// a time (the frame's text is never held).
struct FrameTurnStarts {
    keep: usize,
    /// Where the last lines starting a turn begin, in order (at most
    /// `keep`).
    last: std::collections::VecDeque<usize>,
    /// The end of what was fed, less than a pattern long: a match spanning
    /// two pieces is found once, in the later one. It starts as a newline
    /// before the text, since a turn's line may start the frame (the frame
    /// before it ended a line).
    window: Vec<u8>,
    /// How much of `window` came before the piece being searched.
    carried: usize,
    /// How much text came before it.
    before: usize,
    last_byte: Option<u8>,
}

/// A line that starts a turn, with the newline before it.
const AFTER_NEWLINE: &[u8] = b"\n{\"type\":\"turn/start\"";

impl FrameTurnStarts {
    fn new(keep: usize) -> FrameTurnStarts {
        FrameTurnStarts {
            keep,
            last: std::collections::VecDeque::with_capacity(keep.min(64)),
            window: vec![b'\n'],
            carried: 1,
            before: 0,
            last_byte: None,
        }
    }

    /// Decode `frame` and find its turn starts; `None` when it does not
    /// decode.
    fn of(frame: &[u8], keep: usize) -> Option<FrameTurnStarts> {
        let mut starts = FrameTurnStarts::new(keep);
        crate::log::zstd_frames::each_piece_of_frame(frame, &mut |piece| {
            starts.feed(piece);
            true
        })
        .ok()?;
        Some(starts)
    }

    fn feed(&mut self, piece: &[u8]) {
        self.window.extend_from_slice(piece);
        for i in memchr::memmem::find_iter(&self.window, AFTER_NEWLINE) {
            // The line starts after the newline at `i`; the window's
            // carried bytes end where the text before this piece ends.
            let line = self
                .before
                .saturating_add(i)
                .saturating_add(1)
                .saturating_sub(self.carried);
            if self.last.len() == self.keep {
                self.last.pop_front();
            }
            self.last.push_back(line);
        }
        self.before = self.before.saturating_add(piece.len());
        self.last_byte = piece.last().copied().or(self.last_byte);
        self.carried = self.window.len().min(AFTER_NEWLINE.len().saturating_sub(1));
        self.window
            .drain(..self.window.len().saturating_sub(self.carried));
    }

    /// Whether the text ends a line (so the next frame starts one).
    fn ends_line(&self) -> bool {
        self.last_byte == Some(b'\n')
    }
}

/// Call `f` on every event of the Zstandard log at `path` from byte
/// `within` of the text of the frame at byte `frame` (a line start there)
/// on; a torn final frame ends it, as a whole read does.
pub fn for_each_event_from_frame(
    path: &Path,
    frame: u64,
    within: usize,
    f: &mut dyn FnMut(&serde_json::Value),
) -> Result<(), LogError> {
    use crate::log::zstd_frames::{Frame, FrameReader, each_piece_of_frame};
    let mut file = open_regular(path)?;
    file.seek(SeekFrom::Start(frame))?;
    let mut frames = FrameReader::new(BufReader::with_capacity(64 * 1024, file));
    let mut lines = crate::log::zstd_frames::FrameLines::default();
    // What of the first frame's text is still to be skipped.
    let mut skip = within;
    while let Some(Frame::Complete(bytes)) = frames
        .next_frame()
        .map_err(crate::log::header_probe::frame_err)?
    {
        each_piece_of_frame(&bytes, &mut |piece| {
            let from = skip.min(piece.len());
            skip = skip.saturating_sub(from);
            lines.feed(&piece[from..], &mut |line| {
                if !line.is_empty() {
                    events_of_line(line, f);
                }
                true
            })
        })?;
        skip = 0;
    }
    Ok(())
}

/// How many turns the log at `path` starts (its lines, raw or Zstandard).
pub fn count_turn_starts(path: &Path) -> Result<usize, LogError> {
    let mut n: usize = 0;
    crate::log::reader::for_each_line(path, |l| {
        if l.starts_with(TURN_START) {
            n = n.saturating_add(1);
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
    let mut seen: usize = 0;
    crate::log::reader::for_each_line(path, |l| {
        if seen <= skip && l.starts_with(TURN_START) {
            seen = seen.saturating_add(1);
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
    header: &crate::format::header::Header,
    dialect: crate::format::descriptor::Dialect,
) -> Result<Option<crate::format::descriptor::Identity>, LogError> {
    let generation = header.generation().unwrap_or(0);
    let mut cut = crate::format::header::header_cut(header);
    let mut fold = crate::format::descriptor::IdentityFold::default();
    let mut done = false;
    crate::log::log_events::for_each_line_while(path, |l| {
        events_of_line(l, &mut |ev| {
            let seq = ev["seq"].as_u64().unwrap_or(0);
            let ty = ev["type"].as_str().unwrap_or("");
            match ty {
                "subagent/descriptor" => fold.apply_in(&ev["data"], dialect, generation),
                "step/start" | "turn/end" if cut.is_some_and(|c| seq >= c) => done = true,
                _ if crate::format::generation::is_inherited_marker(
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
    use crate::format::descriptor::{Dialect, Mode};

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
            let crate::format::header::HeaderParse::Valid(parsed) =
                crate::format::header::parse_header_line(header)
            else {
                panic!("case {k}: a header")
            };
            let got = head_identity(&path, &parsed, Dialect::Seed001).unwrap();
            let got = got.map(|i| (i.mode, i.label.unwrap_or_default()));
            let want = want.map(|(m, l)| (m, l.to_string()));
            assert_eq!(got, want, "case {k}");
        }
    }

    /// A Zstandard log entered from its last frames folds the same events
    /// as the two-pass read, for every N; a frame that does not end a line
    /// sends it the long way.
    #[test]
    fn turn_starts_are_found_across_the_pieces_a_frame_decodes_in() {
        let text = format!(
            "{}\n{}\nx{}\n{}\n",
            ev(0, "turn/start"),
            ev(1, "step/start"),
            ev(2, "turn/start"),
            ev(3, "turn/start")
        );
        // Every line start of a turn, found in the whole text at once.
        let want: Vec<usize> = std::iter::once(0)
            .chain(memchr::memmem::find_iter(text.as_bytes(), AFTER_NEWLINE).map(|i| i + 1))
            .collect();
        assert_eq!(want.len(), 2, "the `x` line is not a turn's: {want:?}");
        let bytes = text.as_bytes();
        let mut splits: Vec<Vec<&[u8]>> = (0..=bytes.len())
            .map(|k| vec![&bytes[..k], &bytes[k..]])
            .collect();
        splits.push(bytes.chunks(1).collect());
        splits.push(bytes.chunks(7).collect());
        for pieces in &splits {
            for keep in 1..=3 {
                let mut s = FrameTurnStarts::new(keep);
                for p in pieces {
                    s.feed(p);
                }
                let tail = &want[want.len().saturating_sub(keep)..];
                assert_eq!(
                    s.last.iter().copied().collect::<Vec<_>>(),
                    tail,
                    "{pieces:?}"
                );
                assert!(s.ends_line());
            }
        }
        let mut s = FrameTurnStarts::new(1);
        s.feed(b"{\"type\":\"turn/start\"}\n{");
        assert!(!s.ends_line(), "a frame that ends inside a line");
    }

    #[test]
    fn a_zstd_log_is_entered_from_its_last_frames_when_every_frame_ends_a_line() {
        use crate::log::zstd_frames::encode_frame;
        let header = r#"{"type":"session","version":0,"id":"z","createdAt":1,"delegationDepth":0}"#;
        let mut lines = vec![header.to_string()];
        for t in 0..4u64 {
            lines.push(ev(t * 3, "turn/start"));
            lines.push(ev(t * 3 + 1, "step/start"));
            lines.push(ev(t * 3 + 2, "turn/end"));
        }
        // Frames of 1, 2 and 3 lines in turn: turn starts fall at frame
        // starts and inside frames.
        let mut frames: Vec<String> = Vec::new();
        let mut at = 0;
        for size in [1, 2, 3].iter().cycle() {
            if at >= lines.len() {
                break;
            }
            let end = (at + size).min(lines.len());
            frames.push(lines[at..end].iter().map(|l| format!("{l}\n")).collect());
            at = end;
        }
        let tmp = tempfile::tempdir().unwrap();
        let write = |name: &str, frames: &[String]| {
            let path = tmp.path().join(name);
            let mut bytes = Vec::new();
            for f in frames {
                bytes.extend(encode_frame(f.as_bytes()).unwrap());
            }
            std::fs::write(&path, bytes).unwrap();
            path
        };
        let path = write("lines.jsonl.zst", &frames);
        type Feed<'a> = &'a mut dyn FnMut(&mut dyn FnMut(&serde_json::Value));
        let seqs = |feed: Feed| {
            let mut out = Vec::new();
            feed(&mut |v| out.push(v["seq"].as_u64().unwrap()));
            out
        };
        for n in 1..=5usize {
            let start = zstd_start_of_last_turns(&path, n);
            if n >= 4 {
                assert_eq!(start, None, "n {n}: no earlier turn");
                continue;
            }
            let (frame, within) = start.expect("a start");
            let got = seqs(&mut |f| for_each_event_from_frame(&path, frame, within, f).unwrap());
            let want = seqs(&mut |f| for_each_event_after_turns(&path, 4 - n, f).unwrap());
            assert_eq!(got, want, "n {n}");
            assert_eq!(got.len(), 3 * n, "n {n}");
        }
        // A line split across two frames: the long way.
        let joined: String = frames.concat();
        let (a, b) = joined.split_at(joined.len() - 10);
        let split = write("split.jsonl.zst", &[a.to_string(), b.to_string()]);
        assert_eq!(zstd_start_of_last_turns(&split, 1), None);
        // A raw log is not entered this way.
        let raw = tmp.path().join("raw.jsonl");
        std::fs::write(&raw, joined).unwrap();
        assert_eq!(zstd_start_of_last_turns(&raw, 1), None);
    }
}
