//! Walking a log's committed events: every line after the header, raw or
//! Zstandard, decoded into events (packed rows expanded), optionally only
//! the session's own (after its inherited cut). For logs that already
//! inspect cleanly; the inspection itself is `store::log::reader`.

use crate::error::LogError;
use crate::files::lines::{Line, Lines};
use crate::format::header::Header;
use crate::format::limits::MAX_LINE;
use crate::format::packed::decode_storage_record;
use crate::log::header_probe::{Encoding, frame_err, sniff};

use crate::files::sidecar::open_regular;
use crate::log::zstd_frames::{self, Frame, FrameReader};
use std::io::BufReader;
use std::path::Path;

/// Every committed event of the log at `path`, in order, decoded (packed
/// rows expanded); the header is skipped. For logs that already inspect
/// cleanly: a line that does not parse is passed over.
pub fn for_each_event(path: &Path, mut f: impl FnMut(&serde_json::Value)) -> Result<(), LogError> {
    for_each_line(path, |line| events_of_line(line, &mut f))
}

/// `for_each_event` over the session's own events only: those after its
/// inherited cut (`seedLength`, or the inherited `session/end-seed`).
pub fn for_each_own_event(
    path: &Path,
    header: &Header,
    mut f: impl FnMut(&serde_json::Value),
) -> Result<(), LogError> {
    let generation = header.generation().unwrap_or(0);
    let mut cut = crate::format::header::header_cut(header);
    for_each_event(path, |ev| {
        let seq = ev["seq"].as_u64().unwrap_or(0);
        let ty = ev["type"].as_str().unwrap_or("");
        if crate::format::generation::is_inherited_marker(
            generation,
            ty,
            ev["data"]["inherited"] == true,
        ) {
            cut = Some(seq);
        }
        if cut.is_some_and(|c| seq >= c) {
            f(ev);
        }
    })
}

/// Call `f` on each event one log line holds (a packed line holds several;
/// a line that is not a record holds none).
pub fn events_of_line(line: &[u8], f: &mut dyn FnMut(&serde_json::Value)) {
    let mut scratch = String::new();
    let parsed = crate::format::json::parse_borrowed(line, &mut scratch)
        .and_then(|v| decode_storage_record(v).ok());
    for event in parsed.into_iter().flatten() {
        f(&event.to_value());
    }
}

/// Call `f` on every complete line after the header of the log at `path`,
/// raw or Zstandard (empty lines and lines over the cap are skipped).
pub fn for_each_line(path: &Path, mut f: impl FnMut(&[u8])) -> Result<(), LogError> {
    for_each_line_while(path, |line| {
        f(line);
        true
    })
}

/// `for_each_line` until `f` returns false: the rest is not read.
pub fn for_each_line_while(path: &Path, mut f: impl FnMut(&[u8]) -> bool) -> Result<(), LogError> {
    let file = open_regular(path)?;
    let mut reader = BufReader::with_capacity(64 * 1024, file);
    let mut line_no = 0u64;
    let mut on_line = |line: &[u8]| {
        line_no += 1;
        line_no == 1 || line.is_empty() || f(line)
    };
    match sniff(&mut reader)? {
        Encoding::Raw => {
            let mut lines = Lines::new(reader, MAX_LINE);
            loop {
                let more = match lines.next_line()? {
                    Line::Complete(l) => on_line(l),
                    Line::TooLong(_) => on_line(b""),
                    Line::End { .. } => break,
                };
                if !more {
                    break;
                }
            }
        }
        Encoding::Zstd => {
            let mut frames = FrameReader::new(reader);
            let mut lines = zstd_frames::FrameLines::default();
            while let Some(Frame::Complete(frame)) = frames.next_frame().map_err(frame_err)? {
                if !zstd_frames::each_text_of_frame(&frame, &mut |text| {
                    lines.feed(text, &mut on_line)
                })? {
                    return Ok(());
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::zstd_frames::encode_frame;

    /// A walk that stops early does not decode the rest of a big frame: a
    /// torn checksum at the end of a 1 MB frame fails the whole walk but
    /// not a walk that stopped at its first line (the head read `log
    /// --last` makes, which held the whole frame's text before).
    #[test]
    fn a_walk_that_stops_early_reads_a_big_frame_a_piece_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("session.jsonl.zstd");
        let mut bytes =
            encode_frame(b"{\"type\":\"session\",\"version\":0,\"id\":\"a\"}\n").unwrap();
        let mut text = String::new();
        let mut i = 0;
        while text.len() < 1 << 20 {
            text.push_str(&format!(
                "{{\"type\":\"x\",\"seq\":{i},\"data\":\"{i:0>80}\"}}\n"
            ));
            i += 1;
        }
        let mut big = encode_frame(text.as_bytes()).unwrap();
        let n = big.len();
        big[n - 1] ^= 0xFF;
        bytes.extend_from_slice(&big);
        std::fs::write(&path, &bytes).unwrap();

        let mut first = Vec::new();
        for_each_line_while(&path, |l| {
            first = l.to_vec();
            false
        })
        .unwrap();
        assert!(
            first.starts_with(b"{\"type\":\"x\",\"seq\":0,"),
            "{first:?}"
        );
        assert!(for_each_line(&path, |_| {}).is_err());
    }
}
