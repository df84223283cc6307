//! The header probe: the first record of a session log, raw or Zstandard
//! (told by its magic bytes), read the way DSH rc.8 reads it, with a
//! bounded first read; and, for a log enumeration reads ahead
//! (`store::ahead`), the rest of it in the same open, judged as a glance.

use super::ahead::{AHEAD_MAX, Glance, ReadAhead};
use super::header::{HeaderParse, parse_header_line, validate_for_restore};
use super::limits::MAX_HEADER;
use super::lines::{Line, Lines};
use super::reader::{Inspection, Resume, Scanner, scan_raw, scan_zstd};
use super::zstd_frames::{self, Frame, FrameError, FrameReader, ZSTD_MAGIC};
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};

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
    Open(super::error::StoreError),
    Io(io::Error),
    Corrupt(String),
}

pub(super) fn sniff(file: &mut impl BufRead) -> io::Result<Encoding> {
    let head = file.fill_buf()?;
    Ok(if head.len() >= 4 && head[..4] == ZSTD_MAGIC {
        Encoding::Zstd
    } else {
        Encoding::Raw
    })
}

/// The encoding of an opened log, from its first bytes (read in place).
pub(super) fn sniff_file(file: &File) -> Encoding {
    use std::os::unix::fs::FileExt;
    let mut head = [0u8; 4];
    match file.read_exact_at(&mut head, 0) {
        Ok(()) if head == ZSTD_MAGIC => Encoding::Zstd,
        _ => Encoding::Raw,
    }
}

/// The first read of a header probe; a longer header takes more reads.
const HEADER_READ: usize = 1024;

/// Read just the header record (DSH `readFirstLine` / `readFirstZstdLine`)
/// of a log already opened (or not) by `open_regular`.
pub fn read_first_line_of(
    opened: Result<File, super::error::StoreError>,
) -> Result<(Encoding, FirstLine), HeaderError> {
    let file = opened.map_err(HeaderError::Open)?;
    // Headers are a few hundred bytes; a larger first read would copy most
    // of a small log that the listing reads again anyway.
    let (encoding, first, _) = first_line(BufReader::with_capacity(HEADER_READ, file))?;
    Ok((encoding, first))
}

/// `read_first_line_of` a log opened with its metadata, and for a log whose
/// header `ahead` wants, the rest of it read through the same open file and
/// inspected: one open for both.
pub fn read_first_line_ahead(
    opened: Result<(File, std::fs::Metadata), super::error::StoreError>,
    ahead: &dyn ReadAhead,
) -> (Result<(Encoding, FirstLine), HeaderError>, Option<Glance>) {
    use std::os::unix::fs::MetadataExt;
    let (file, meta) = match opened {
        Ok(opened) => opened,
        Err(e) => return (Err(HeaderError::Open(e)), None),
    };
    let len = meta.len();
    let id = (meta.dev(), meta.ino());
    // Reading stops at the length the log had when opened, as an
    // inspection's does. When most logs are wanted, a log of up to
    // `AHEAD_MAX` is read whole at once, into this thread's buffer, and
    // scanned in place; otherwise the first read is any header probe's, so a
    // log that is not wanted costs nothing more.
    if ahead.likely() && len <= AHEAD_MAX {
        thread_local! {
            static WHOLE: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        return WHOLE.with(|whole| {
            let mut whole = whole.borrow_mut();
            whole.clear();
            // Room for the whole log: one read takes it, and the `take`
            // ends there without another call.
            whole.reserve(len as usize);
            if let Err(e) = file.take(len).read_to_end(&mut whole) {
                return (Err(HeaderError::Io(e)), None);
            }
            read_ahead_from(
                &whole[..],
                ahead,
                |lines, scanner| scan_raw(lines.into_inner(), scanner, None, id),
                |frames, scanner, at| scan_zstd(frames, scanner, None, at, id),
            )
        });
    }
    let capacity = if ahead.likely() {
        AHEAD_MAX as usize
    } else {
        HEADER_READ
    };
    read_ahead_from(
        BufReader::with_capacity(capacity, file.take(len)),
        ahead,
        |lines, scanner| {
            let reader = lines.into_inner();
            if reader.get_ref().limit() == 0 {
                return scan_raw(reader.buffer(), scanner, None, id);
            }
            scan_raw(read_on(reader), scanner, None, id)
        },
        |frames, scanner, at| {
            if frames.get_ref().get_ref().limit() == 0 {
                return scan_zstd(frames, scanner, None, at, id);
            }
            scan_zstd(frames.map_inner(read_on), scanner, None, at, id)
        },
    )
}

type Scanned = Result<(Inspection, Option<Resume>), String>;

/// The header probe of `reader`, and when `ahead` wants the header, the
/// log's rest scanned by `raw` (the lines after the header) or `zstd` (the
/// frames after the header frame, and where they start).
fn read_ahead_from<R: BufRead>(
    reader: R,
    ahead: &dyn ReadAhead,
    raw: impl FnOnce(Lines<R>, Scanner) -> Scanned,
    zstd: impl FnOnce(FrameReader<R>, Scanner, u64) -> Scanned,
) -> (Result<(Encoding, FirstLine), HeaderError>, Option<Glance>) {
    let (encoding, first, rest) = match first_line(reader) {
        Ok(read) => read,
        Err(e) => return (Err(e), None),
    };
    let glance = match (&first, rest) {
        (FirstLine::Parsed(HeaderParse::Valid(header)), Some(rest)) if ahead.wanted(header) => {
            let scanned = validate_for_restore(header).and_then(|()| match rest {
                Rest::Raw(lines, header_len) => raw(
                    lines,
                    Scanner::new((**header).clone(), Encoding::Raw, header_len),
                ),
                Rest::Zstd(frames, plain_len, frame_len) => zstd(
                    frames,
                    Scanner::new((**header).clone(), Encoding::Zstd, plain_len),
                    frame_len,
                ),
            });
            // Its header is the one just enumerated: the same bytes.
            Some(Glance::judged(
                scanned.map(|(inspection, _)| inspection),
                |_| true,
                ahead.dialect(),
                ahead.usage(),
            ))
        }
        _ => None,
    };
    (Ok((encoding, first)), glance)
}

/// A probe's reader read on through an inspection's buffer: what the probe's
/// buffer holds, then the rest of the file.
fn read_on(
    probe: BufReader<io::Take<File>>,
) -> BufReader<io::Chain<io::Cursor<Vec<u8>>, io::Take<File>>> {
    let held = io::Cursor::new(probe.buffer().to_vec());
    BufReader::with_capacity(64 * 1024, held.chain(probe.into_inner()))
}

/// What follows a header a probe read: a raw log's lines and the header's
/// length with its newline, or a Zstandard log's frames, the header frame's
/// plaintext length and its length in the file.
enum Rest<R> {
    Raw(Lines<R>, u64),
    Zstd(FrameReader<R>, u64, u64),
}

/// The header record of a log from its first bytes, and what follows it.
fn first_line<R: BufRead>(
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
            let len = line.len() as u64 + 1;
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
            let mut plain = zstd_frames::decode_frame(&frame).map_err(|_| {
                HeaderError::Corrupt(
                    "corrupt Zstandard session log: header frame failed validation".into(),
                )
            })?;
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

pub(super) fn check_header_frame(plain: &[u8]) -> Result<(), String> {
    if plain.is_empty() || plain.iter().position(|b| *b == b'\n') != Some(plain.len() - 1) {
        return Err(
            "corrupt Zstandard session log: first frame is not exactly one header line".into(),
        );
    }
    Ok(())
}
