//! Inspecting one session log the way DSH rc.8 reads it: after the header
//! (`store::log::header_probe`), a streaming scan of event lines with torn-tail
//! tolerance and the "defect before a committed `turn/end` is corruption"
//! rule, resumable from a scan cache. Memory holds one line (or one frame)
//! at a time, never the whole log. Walking the events of a clean log is
//! `store::log::log_events`.

use crate::error::LogError;
use crate::error::ZstdCorruption;
use crate::files::lines::{Line, Lines};
use crate::files::sidecar::{open_regular_meta, tail_hash};
use crate::format::descriptor::{DescriptorError, Dialect, Identity, IdentityFold};
use crate::format::ending::Ending;
use crate::format::events::validate_event;
use crate::format::header::{Header, HeaderParse, parse_header_line, validate_for_restore};
use crate::format::jv::Jv;
use crate::format::limits::{MAX_HEADER, MAX_LINE};
use crate::format::packed::decode_storage_record;
use crate::format::surface::Surface;
use crate::log::native_inbox::NativeInbox;
use crate::log::zstd_frames::{self, Frame, FrameReader};
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

pub use crate::log::header_probe::Encoding;
use crate::log::header_probe::{check_header_frame, frame_err, sniff, sniff_file};
pub use crate::log::log_events::{events_of_line, for_each_line, for_each_own_event};

/// What a full read of a log establishes.
#[derive(Debug, Clone)]
pub struct Inspection {
    pub header: Header,
    pub encoding: Encoding,
    /// Listing identity under rc.8 rules (contract v1).
    pub rc8: Option<Identity>,
    /// Listing identity under seed-001 rules (contract v2).
    pub seed001: Option<Identity>,
    /// Committed events (the next seq to write).
    pub events: u64,
    /// Byte length of the committed prefix (raw logs: where a repair truncates).
    pub committed_bytes: u64,
    /// Whether the committed log ends inside a turn.
    pub open_turn: bool,
    /// The highest turn number seen (turns continue across a fork seed).
    pub last_turn: u64,
    /// How the last ended turn ended, and the time of the last turn
    /// boundary (a start while a turn is open).
    pub last_ending: Option<Ending>,
    pub turn_time: i64,
    /// The newest `session/title`.
    pub title: Option<String>,
    /// DSH's own inbox, replayed from `seedLength`.
    pub native: NativeInbox,
    /// rc.8's resume authority: the first descriptor in the session's own
    /// suffix (from `seedLength`). `None`: none there; `Some(Err)`: malformed.
    pub own_descriptor: Option<Result<Option<Identity>, DescriptorError>>,
    /// The tokens the session's own model calls reported.
    pub usage: crate::format::usage::TokenCounts,
}

impl Inspection {
    /// DSH left its own queue parked: items are pending and nothing will
    /// run them until a waking send. Either the last turn ended aborted (an
    /// interrupt, as rc.8's packages record it), or the agent is resident
    /// and idle with its turn still open: the rc.8 `dsh` CLI cancels a turn
    /// with `step/end` and no `turn/end`. An open turn in a log nobody holds
    /// is a crash instead: the next process repairs it and runs the items.
    pub fn native_parked(&self, resident_idle: bool) -> bool {
        self.native.pending() > 0
            && if self.open_turn {
                resident_idle
            } else {
                matches!(self.last_ending, Some(Ending::Aborted(_)))
            }
    }
}

/// DSH `inspect`: `Err` is any reason the log cannot be read ("unavailable").
pub fn inspect(path: &Path) -> Result<Inspection, LogError> {
    scan(path, None, false).map(|(i, _)| i)
}

/// The shape of `Resume` this build writes (2: turn endings; 3: DSH's inbox;
/// 4: token usage).
const RESUME_FORMAT: u32 = 4;

/// Where a scan may resume: the state after a committed prefix that ends
/// on a record boundary (raw) or a frame boundary (zstd), with no pending
/// defect. Only ever used for logs that grow by appending, as DSH's do.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Resume {
    /// `RESUME_FORMAT` of the writer: a cache of another shape is ignored.
    #[serde(default)]
    format: u32,
    dev: u64,
    ino: u64,
    /// File offset to continue reading at.
    offset: u64,
    /// The raw header record, re-validated on resume.
    header: String,
    encoding_zstd: bool,
    count: u64,
    line_no: u64,
    rc8: Option<Identity>,
    seed001: Option<Identity>,
    open_turn: bool,
    #[serde(default)]
    last_turn: u64,
    #[serde(default)]
    last_ending: Option<Ending>,
    #[serde(default)]
    turn_time: i64,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    native: NativeInbox,
    own_descriptor: Option<Result<Option<Identity>, DescriptorError>>,
    /// The inherited cut found so far in a log that carries it in an
    /// event (generation 2 on).
    #[serde(default)]
    cut: Option<u64>,
    #[serde(default)]
    usage: crate::format::usage::TokenCounts,
    /// `tail_hash` of the bytes before `offset`.
    #[serde(default)]
    tail_hash: u64,
}

/// `inspect`, resuming from `resume` when it still describes the log, and
/// with the point a later scan may resume from.
pub fn inspect_from(
    path: &Path,
    resume: Option<Resume>,
) -> Result<(Inspection, Option<Resume>), LogError> {
    scan(path, resume, true)
}

/// Without `keep`, no resume point is made: sealing one costs a read of the
/// log's tail, which a listing of every log would pay for nothing.
fn scan(
    path: &Path,
    resume: Option<Resume>,
    keep: bool,
) -> Result<(Inspection, Option<Resume>), LogError> {
    use std::io::{Seek, SeekFrom};
    use std::os::unix::fs::MetadataExt;
    let (file, meta) = open_regular_meta(path)?;
    let (dev, ino) = (meta.dev(), meta.ino());
    // The generation the log's file name carries, which its header must
    // declare; a file by another name is read by its header's.
    let file_generation = path
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(crate::files::log_name::LogName::parse)
        .map(|n| n.generation);
    // A cache may only skip work: it must still describe these very bytes.
    let resume = resume.filter(|r| {
        r.format == RESUME_FORMAT
            && r.dev == dev
            && r.ino == ino
            && r.offset <= meta.len()
            && tail_hash(&file, r.offset) == Some(r.tail_hash)
    });
    let probe = if keep { Some(file.try_clone()?) } else { None };
    // Reading stops at the length the log had when it was opened: the read
    // that would only find its end is never made (a listing of many small
    // logs saves one call a log), and appends after the open wait for the
    // next read, as appends during any read do.
    let len = meta.len();
    let mut file = file;
    if let Some(r) = &resume {
        file.seek(SeekFrom::Start(r.offset))?;
    }
    let from = resume.as_ref().map_or(0, |r| r.offset);
    // A resumed read starts past the magic: it is read in place there.
    let encoding = (from > 0).then(|| sniff_file(&file));
    // A buffer no larger than what is left to read: most logs a listing
    // reads are a few hundred bytes, and 64 KiB a log is allocator work.
    let room = usize::try_from(len - from).map_or(64 * 1024, |n| n.clamp(512, 64 * 1024));
    let mut reader = BufReader::with_capacity(room, file.take(len - from));
    let encoding = match encoding {
        Some(e) => e,
        None => sniff(&mut reader)?,
    };
    if let Some(r) = resume {
        if r.encoding_zstd != (encoding == Encoding::Zstd) {
            return Err(LogError::StaleCache);
        }
        let header = parse_header_record(r.header.as_bytes(), file_generation)?;
        let mut scanner = Scanner::new(header, encoding, r.offset);
        scanner.count = r.count;
        scanner.line_no = r.line_no;
        scanner.rc8.identity = r.rc8;
        scanner.seed001.identity = r.seed001;
        scanner.open_turn = r.open_turn;
        scanner.last_turn = r.last_turn;
        scanner.last_ending = r.last_ending;
        scanner.turn_time = r.turn_time;
        scanner.title = r.title;
        scanner.native = r.native;
        // The surface nodes are not cached (they grow with the log): a
        // resumed scan checks appends and rereads the log for a replace.
        scanner.surface = Surface::resumed(scanner.generation);
        scanner.own_descriptor = r.own_descriptor;
        if crate::format::generation::cut_in_log(scanner.generation) {
            scanner.cut = scanner.cut.or(r.cut);
        }
        scanner.usage = r.usage;
        let header_line = r.header;
        let scanned = match encoding {
            Encoding::Raw => scan_raw(reader, scanner, keep.then_some(header_line), (dev, ino)),
            Encoding::Zstd => scan_zstd(
                FrameReader::new(reader),
                scanner,
                keep.then_some(header_line),
                r.offset,
                (dev, ino),
            ),
        };
        return seal(scanned, &probe);
    }
    let scanned = match encoding {
        Encoding::Raw => {
            let mut lines = Lines::new(reader, MAX_HEADER);
            let (record, len) = match lines.next_line()? {
                Line::Complete(l) => (String::from_utf8_lossy(l).into_owned(), l.len() + 1),
                Line::TooLong(_) => {
                    return Err(LogError::HeaderTooLong);
                }
                Line::End { .. } => return Err(LogError::Empty { zstd: false }),
            };
            let header = parse_header_record(record.as_bytes(), file_generation)?;
            let scanner = Scanner::new(header, Encoding::Raw, len as u64);
            scan_raw(
                lines.into_inner(),
                scanner,
                keep.then_some(record),
                (dev, ino),
            )
        }
        Encoding::Zstd => {
            let mut frames = FrameReader::new(reader);
            let first = match frames.next_frame().map_err(frame_err)? {
                Some(Frame::Complete(f)) => f,
                _ => return Err(LogError::Empty { zstd: true }),
            };
            let plain = zstd_frames::decode_frame(&first)
                .map_err(|_| ZstdCorruption::FrameInvalid { at: 0 })?;
            check_header_frame(&plain)?;
            let record = String::from_utf8_lossy(&plain[..plain.len() - 1]).into_owned();
            let header = parse_header_record(record.as_bytes(), file_generation)?;
            let scanner = Scanner::new(header, Encoding::Zstd, plain.len() as u64);
            scan_zstd(
                frames,
                scanner,
                keep.then_some(record),
                first.len() as u64,
                (dev, ino),
            )
        }
    };
    seal(scanned, &probe)
}

/// Stamp a fresh resume point with the hash of the bytes it covers (none
/// is kept without a file to hash).
fn seal(
    scanned: Result<(Inspection, Option<Resume>), LogError>,
    file: &Option<File>,
) -> Result<(Inspection, Option<Resume>), LogError> {
    let (inspection, resume) = scanned?;
    let resume = resume.and_then(|mut r| {
        r.tail_hash = tail_hash(file.as_ref()?, r.offset)?;
        Some(r)
    });
    Ok((inspection, resume))
}

fn parse_header_record(record: &[u8], file: Option<u32>) -> Result<Header, LogError> {
    match parse_header_line(&String::from_utf8_lossy(record)) {
        HeaderParse::Valid(h) => {
            let file = file.or(h.generation()).unwrap_or(0);
            validate_for_restore(&h, file)?;
            Ok(*h)
        }
        HeaderParse::NotHeader(why) => Err(LogError::NotHeader(why)),
        HeaderParse::Retired => Err(LogError::RetiredHeader),
    }
}

fn resume_point(
    s: &Scanner,
    header: Option<String>,
    offset: u64,
    id: (u64, u64),
) -> Option<Resume> {
    let header = header?;
    s.issue.is_none().then(|| Resume {
        format: RESUME_FORMAT,
        dev: id.0,
        ino: id.1,
        offset,
        header,
        encoding_zstd: s.encoding == Encoding::Zstd,
        count: s.count,
        line_no: s.line_no,
        rc8: s.rc8.identity.clone(),
        seed001: s.seed001.identity.clone(),
        open_turn: s.open_turn,
        last_turn: s.last_turn,
        last_ending: s.last_ending.clone(),
        turn_time: s.turn_time,
        title: s.title.clone(),
        native: s.native.clone(),
        own_descriptor: s.own_descriptor.clone(),
        cut: s.cut,
        usage: s.usage,
        tail_hash: 0,
    })
}

/// `header`: the raw header record, for the resume point; `None` when no
/// resume point is wanted.
pub fn scan_raw<R: BufRead>(
    reader: R,
    mut scanner: Scanner,
    header: Option<String>,
    id: (u64, u64),
) -> Result<(Inspection, Option<Resume>), LogError> {
    let mut lines = Lines::new(reader, MAX_LINE);
    loop {
        match lines.next_line()? {
            Line::Complete(line) => {
                let n = line.len() as u64 + 1;
                scanner.consume_line(line, n)?;
            }
            Line::TooLong(n) => scanner.consume_too_long(n),
            // A final record without a newline is a torn tail.
            Line::End { .. } => break,
        }
    }
    let resume = resume_point(&scanner, header, scanner.committed_bytes, id);
    Ok((scanner.finish()?, resume))
}

pub fn scan_zstd<R: BufRead>(
    mut frames: FrameReader<R>,
    mut scanner: Scanner,
    header: Option<String>,
    mut offset: u64,
    id: (u64, u64),
) -> Result<(Inspection, Option<Resume>), LogError> {
    let mut fragment: Vec<u8> = Vec::new();
    loop {
        match frames.next_frame().map_err(frame_err)? {
            Some(Frame::Complete(f)) => {
                let plain = zstd_frames::decode_frame(&f)
                    .map_err(|_| ZstdCorruption::FrameInvalid { at: offset })?;
                offset += f.len() as u64;
                scanner.write(&mut fragment, &plain)?;
            }
            Some(Frame::Torn(f)) => {
                check_complete(&scanner, &fragment)?;
                let resume = resume_point(&scanner, header, offset, id);
                let plain = zstd_frames::decode_torn_prefix(&f);
                scanner.write(&mut fragment, &plain)?;
                return Ok((scanner.finish()?, resume));
            }
            None => {
                check_complete(&scanner, &fragment)?;
                let resume = resume_point(&scanner, header, offset, id);
                return Ok((scanner.finish()?, resume));
            }
        }
    }
}

/// In zstd mode only the torn final frame may hold a partial record.
fn check_complete(scanner: &Scanner, fragment: &[u8]) -> Result<(), LogError> {
    if scanner.issue.is_some() || !fragment.is_empty() || scanner.skipping > 0 {
        return Err(ZstdCorruption::TornRecord.into());
    }
    Ok(())
}

/// DSH's `SessionLogScanner` plus the restore-time checks and listing folds.
pub struct Scanner {
    header: Header,
    encoding: Encoding,
    count: u64,
    line_no: u64,
    issue: Option<LogError>,
    committed_bytes: u64,
    bytes: u64,
    rc8: IdentityFold,
    seed001: IdentityFold,
    open_turn: bool,
    last_turn: u64,
    last_ending: Option<Ending>,
    turn_time: i64,
    title: Option<String>,
    native: NativeInbox,
    own_descriptor: Option<Result<Option<Identity>, DescriptorError>>,
    surface: Surface,
    /// The log's format generation.
    generation: u32,
    usage: crate::format::usage::TokenCounts,
    /// Where the session's own events start (`seedLength`, or the seq of
    /// the inherited `session/end-seed`); `None` while a seeded log of
    /// generation 2 on has not reached that marker yet.
    cut: Option<u64>,
    /// Bytes of an over-long zstd-decoded line being skipped.
    skipping: u64,
}

impl Scanner {
    pub fn new(header: Header, encoding: Encoding, header_bytes: u64) -> Self {
        let generation = header.generation().unwrap_or(0);
        let cut = crate::format::header::header_cut(&header);
        Scanner {
            generation,
            cut,
            usage: Default::default(),
            header,
            encoding,
            count: 0,
            line_no: 0,
            issue: None,
            committed_bytes: header_bytes,
            bytes: header_bytes,
            rc8: IdentityFold::default(),
            seed001: IdentityFold::default(),
            open_turn: false,
            last_turn: 0,
            last_ending: None,
            turn_time: 0,
            title: None,
            native: NativeInbox::default(),
            own_descriptor: None,
            surface: Surface::new(generation),
            skipping: 0,
        }
    }

    /// Feed decoded plaintext that may split records across calls.
    fn write(&mut self, fragment: &mut Vec<u8>, chunk: &[u8]) -> Result<(), LogError> {
        let mut rest = chunk;
        while let Some(nl) = memchr::memchr(b'\n', rest) {
            let len;
            if self.skipping > 0 || fragment.len() + nl > MAX_LINE {
                len = self.skipping + fragment.len() as u64 + nl as u64 + 1;
                self.skipping = 0;
                fragment.clear();
                self.consume_too_long(len);
            } else if fragment.is_empty() {
                len = nl as u64 + 1;
                self.consume_line(&rest[..nl], len)?;
            } else {
                fragment.extend_from_slice(&rest[..nl]);
                let line = std::mem::take(fragment);
                len = line.len() as u64 + 1;
                self.consume_line(&line, len)?;
            }
            rest = &rest[nl + 1..];
        }
        if self.skipping > 0 || fragment.len() + rest.len() > MAX_LINE {
            self.skipping += (fragment.len() + rest.len()) as u64;
            fragment.clear();
        } else {
            fragment.extend_from_slice(rest);
        }
        Ok(())
    }

    /// A committed line over the line cap: malformed, like an unparsable one.
    fn consume_too_long(&mut self, len: u64) {
        self.line_no += 1;
        self.bytes += len;
        if self.issue.is_none() {
            self.issue = Some(LogError::LineTooLong { line: self.line_no });
        }
    }

    fn consume_line(&mut self, line: &[u8], len: u64) -> Result<(), LogError> {
        self.line_no += 1;
        self.bytes += len;
        let mut scratch = String::new();
        let parsed = crate::format::json::parse_borrowed(line, &mut scratch)
            .ok_or(())
            .and_then(|v| decode_storage_record(v).map_err(|_| ()));
        let Ok(decoded) = parsed else {
            if self.issue.is_none() {
                self.issue = Some(LogError::Unparsable { line: self.line_no });
            }
            return Ok(());
        };
        // JavaScript throws reading `.type` of `null`; that aborts the read.
        if decoded.iter().any(Jv::is_null) {
            return Err(LogError::NullRecord { line: self.line_no });
        }
        let ends_turn = decoded
            .iter()
            .any(|e| e.get("type").and_then(Jv::as_str) == Some("turn/end"));
        if let Some(issue) = &self.issue {
            if ends_turn {
                return Err(issue.clone());
            }
            return Ok(());
        }
        for (k, event) in decoded.iter().enumerate() {
            let expected = self.count + k as u64;
            if event.get("seq").and_then(Jv::as_f64) != Some(expected as f64) {
                let issue = LogError::SeqGap {
                    line: self.line_no,
                    expected,
                };
                if ends_turn {
                    return Err(issue);
                }
                self.issue = Some(issue);
                return Ok(());
            }
        }
        for event in &decoded {
            self.accept(event)?;
        }
        self.committed_bytes = self.bytes;
        Ok(())
    }

    fn accept(&mut self, event: &Jv) -> Result<(), LogError> {
        validate_event(event, self.count as usize, self.generation).map_err(|error| {
            LogError::Event {
                session: self.header.id().to_string(),
                error,
            }
        })?;
        self.surface
            .apply(event, self.count)
            .map_err(|error| LogError::Surface {
                session: self.header.id().to_string(),
                error,
            })?;
        let data = &event["data"];
        match event.get("type").and_then(Jv::as_str) {
            Some("subagent/descriptor") => {
                let data = data.to_value();
                self.rc8.apply_in(&data, Dialect::Rc8, self.generation);
                self.seed001
                    .apply_in(&data, Dialect::Seed001, self.generation);
                if self.own_descriptor.is_none() && self.own() {
                    self.own_descriptor = Some(crate::format::descriptor::parse_in(
                        &data,
                        Dialect::Rc8,
                        self.generation,
                    ));
                }
            }
            Some(ty)
                if crate::format::generation::is_inherited_marker(
                    self.generation,
                    ty,
                    matches!(data.get("inherited"), Some(Jv::Bool(true))),
                ) =>
            {
                if self.header.is_seeded != Some(Ok(true)) {
                    return Err(LogError::StrayEndSeed {
                        session: self.header.id().to_string(),
                        generation: self.generation,
                    });
                }
                self.cut = Some(self.count);
            }
            Some(t @ ("turn/start" | "turn/end")) => {
                self.open_turn = t == "turn/start";
                let turn = data["turn"].as_u64().unwrap_or(0);
                self.last_turn = self.last_turn.max(turn);
                self.turn_time = event["time"].as_i64().unwrap_or(0);
                if t == "turn/end" {
                    self.last_ending = Some(Ending::of(&data["reason"].to_value()));
                }
            }
            Some("assistant/message") if self.own() => {
                let usage = data.get("usage");
                self.usage.add_call(matches!(usage, Some(Jv::Obj(_))), |f| {
                    usage.and_then(|u| u.get(f)).and_then(Jv::as_u64)
                });
            }
            Some("agent/inbox/spliced") if self.own() => {
                self.native.apply(&data.to_value(), self.count);
            }
            Some("session/title") => {
                if let Some(t) = data["title"].as_str() {
                    self.title = Some(t.to_string());
                }
            }
            _ => {}
        }
        self.count += 1;
        Ok(())
    }

    /// Whether the event being accepted is the session's own (after the
    /// inherited cut).
    fn own(&self) -> bool {
        self.cut.is_some_and(|cut| self.count >= cut)
    }

    fn finish(self) -> Result<Inspection, LogError> {
        if self.cut.is_none() {
            return Err(LogError::MissingEndSeed {
                session: self.header.id().to_string(),
                generation: self.generation,
            });
        }
        Ok(Inspection {
            header: self.header,
            encoding: self.encoding,
            rc8: self.rc8.identity,
            seed001: self.seed001.identity,
            events: self.count,
            committed_bytes: self.committed_bytes,
            open_turn: self.open_turn,
            last_turn: self.last_turn,
            last_ending: self.last_ending,
            turn_time: self.turn_time,
            title: self.title,
            native: self.native,
            own_descriptor: self.own_descriptor,
            usage: self.usage,
        })
    }
}
