//! The header probe: the first record of a session log, raw or Zstandard
//! (told by its magic bytes), read the way DSH rc.8 reads it, with a
//! bounded first read; and, for a log enumeration reads ahead
//! (`store::set::ahead`), the rest of it in the same open, judged as a glance.

#![deny(clippy::cast_possible_truncation, clippy::arithmetic_side_effects)]

use crate::error::LogError;
use crate::error::ZstdCorruption;
use crate::files::lines::{Line, Lines};
use crate::format::header::{HeaderParse, parse_header_line};
use crate::format::limits::MAX_HEADER;
use crate::log::zstd_frames::{self, Frame, FrameError, FrameReader, ZSTD_MAGIC};
use std::fs::File;
use std::io::{self, BufRead, BufReader};

/// How a log's bytes are encoded, by content rather than by file name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Raw,
    Zstd,
}

/// The first record of a log, as enumeration sees it.
#[derive(Debug)]
pub enum FirstLine {
    /// No complete first record yet (DSH skips the session).
    Missing,
    Parsed(HeaderParse),
}

/// A failure that makes DSH's listing fail as a whole (zstd header frames).
#[derive(Debug)]
pub enum HeaderError {
    /// The log could not be opened (or is not a regular file).
    Open(crate::error::StoreError),
    Io(io::Error),
    Corrupt(ZstdCorruption),
}

pub fn sniff(file: &mut impl BufRead) -> io::Result<Encoding> {
    let head = file.fill_buf()?;
    Ok(if head.len() >= 4 && head[..4] == ZSTD_MAGIC {
        Encoding::Zstd
    } else {
        Encoding::Raw
    })
}

/// The encoding of an opened log, from its first bytes (read in place).
pub fn sniff_file(file: &File) -> Encoding {
    use std::os::unix::fs::FileExt;
    let mut head = [0u8; 4];
    match file.read_exact_at(&mut head, 0) {
        Ok(()) if head == ZSTD_MAGIC => Encoding::Zstd,
        _ => Encoding::Raw,
    }
}

/// The first read of a header probe; a longer header takes more reads.
pub const HEADER_READ: usize = 1024;

/// Read just the header record (DSH `readFirstLine` / `readFirstZstdLine`)
/// of a log already opened (or not) by `open_regular`.
pub fn read_first_line_of(
    opened: Result<File, crate::error::StoreError>,
) -> Result<(Encoding, FirstLine), HeaderError> {
    let file = opened.map_err(HeaderError::Open)?;
    // Headers are a few hundred bytes; a larger first read would copy most
    // of a small log that the listing reads again anyway.
    let (encoding, first, _) = first_line(BufReader::with_capacity(HEADER_READ, file))?;
    Ok((encoding, first))
}

/// What follows a header a probe read: a raw log's lines and the header's
/// length with its newline, or a Zstandard log's frames, the header frame's
/// plaintext length and its length in the file.
pub enum Rest<R> {
    Raw(Lines<R>, u64),
    Zstd(FrameReader<R>, u64, u64),
}

/// The header record of a log from its first bytes, and what follows it.
pub fn first_line<R: BufRead>(
    mut reader: R,
) -> Result<(Encoding, FirstLine, Option<Rest<R>>), HeaderError> {
    let encoding = sniff(&mut reader).map_err(HeaderError::Io)?;
    let (line, rest) = match encoding {
        Encoding::Raw => {
            let mut lines = Lines::new(reader, MAX_HEADER);
            let line = match lines.next_line().map_err(HeaderError::Io)? {
                Line::Complete(l) => l.to_vec(),
                Line::TooLong(_) => {
                    return Ok((
                        encoding,
                        FirstLine::Parsed(HeaderParse::NotHeader(
                            "header line is longer than the 1 MiB header cap",
                        )),
                        None,
                    ));
                }
                Line::End { .. } => return Ok((encoding, FirstLine::Missing, None)),
            };
            let len = (line.len() as u64).saturating_add(1);
            (line, Rest::Raw(lines, len))
        }
        Encoding::Zstd => {
            let mut frames = FrameReader::new(reader);
            let frame = match frames.next_frame() {
                Ok(Some(Frame::Complete(f))) => f,
                Ok(_) => return Ok((encoding, FirstLine::Missing, None)),
                Err(FrameError::Io(e)) => return Err(HeaderError::Io(e)),
                Err(FrameError::Corrupt(m)) => return Err(HeaderError::Corrupt(m)),
            };
            let mut plain = zstd_frames::decode_frame(&frame)
                .map_err(|_| HeaderError::Corrupt(ZstdCorruption::HeaderFrameInvalid))?;
            check_header_frame(&plain).map_err(HeaderError::Corrupt)?;
            let plain_len = plain.len() as u64;
            plain.pop();
            (plain, Rest::Zstd(frames, plain_len, frame.len() as u64))
        }
    };
    Ok((
        encoding,
        FirstLine::Parsed(parse_header_line(&String::from_utf8_lossy(&line))),
        Some(rest),
    ))
}

pub fn check_header_frame(plain: &[u8]) -> Result<(), ZstdCorruption> {
    if plain.is_empty() || plain.iter().position(|b| *b == b'\n') != plain.len().checked_sub(1) {
        return Err(ZstdCorruption::HeaderNotOneLine);
    }
    Ok(())
}

/// A frame reader's failure as the inspection reports it.
pub fn frame_err(e: FrameError) -> LogError {
    match e {
        FrameError::Io(e) => LogError::io(e),
        FrameError::Corrupt(c) => LogError::Zstd(c),
    }
}
