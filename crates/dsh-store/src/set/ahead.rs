//! Reading a log whole while enumeration has it open: which logs a command
//! has read so (`ReadAhead`: a v2 tool's located sessions, `usage`'s every
//! log), and what is kept of each (`Glance`). A log read this way is opened
//! and read once (contract §9): its header probe goes on to the end of the
//! file, and the command never opens it again.

use crate::error::LogError;
use crate::files::lines::Lines;
use crate::format::descriptor::{Dialect, Identity, Mode};
use crate::format::header::Header;
use crate::format::header::{HeaderParse, validate_for_restore};
use crate::format::usage::TokenCounts;
use crate::log::header_probe::{Encoding, FirstLine, HEADER_READ, HeaderError, Rest, first_line};
use crate::log::reader::{self, Inspection, Resume, Scanner, scan_raw, scan_zstd};
use crate::log::zstd_frames::FrameReader;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};

/// The largest first read of a log that is likely wanted: a larger log is
/// read on through a buffer of this size, never held whole.
pub const AHEAD_MAX: u64 = 64 * 1024;

/// The most sessions a store reads ahead: a glance is kept a session read,
/// so past this a project's logs are read when the command comes to them
/// (a second open of each, in place of memory that grows with the store).
pub const AHEAD_SESSIONS_MAX: usize = 1 << 18;

/// Which logs a command will inspect, judged from each header as
/// enumeration reads it. A wrong choice costs time, never an answer: a log
/// read ahead that the command does not list is dropped, and one it lists
/// but was not read ahead is inspected then.
pub trait ReadAhead: Sync {
    /// Whether the log of `header` should be read whole now. Called once
    /// per valid header, from the probing threads.
    fn wanted(&self, header: &Header) -> bool;
    /// The descriptor rules the listing reads identities by.
    fn dialect(&self) -> Dialect;
    /// Whether the next log is likely wanted, before its header is read:
    /// then its first read takes it whole.
    fn likely(&self) -> bool {
        true
    }
    /// Whether what each log's model calls used is kept too (`usage`).
    fn usage(&self) -> bool {
        false
    }
    /// The longest log read ahead: a longer one is left to the command's
    /// own inspection.
    fn max_len(&self) -> u64 {
        u64::MAX
    }
}

/// Reads nothing ahead.
struct Nothing(Dialect);

impl ReadAhead for Nothing {
    fn wanted(&self, _: &Header) -> bool {
        false
    }
    fn dialect(&self) -> Dialect {
        self.0
    }
    fn likely(&self) -> bool {
        false
    }
}

/// A located log longer than this is not read ahead: the command inspects
/// it through its `scan.cache`, which resumes where the last read of it
/// ended, so a send's cost does not grow with the target's history.
const LOCATED_MAX: u64 = 1 << 20;

/// Every log a command locates by path, up to `LOCATED_MAX`, read whole as
/// it is probed (a log located is one the command will inspect): its header
/// probe reads on to the end, and the glance spares a second open.
pub struct Located(pub Dialect);

impl ReadAhead for Located {
    fn wanted(&self, _: &Header) -> bool {
        true
    }
    fn dialect(&self) -> Dialect {
        self.0
    }
    fn max_len(&self) -> u64 {
        LOCATED_MAX
    }
}

/// What a listing needs of one log.
#[derive(Debug, Clone, PartialEq)]
pub enum Glance {
    /// The log does not read as a whole.
    Unreadable,
    /// It read: whether its header is the one enumerated, and its listing
    /// identity under the listing's rules.
    Read {
        same_header: bool,
        identity: Option<Identity>,
        /// The tokens the session's own calls reported, when the reader
        /// asked for them (else zero).
        usage: TokenCounts,
    },
}

/// The glances a store keeps, by session position, until the listing takes
/// them: 12 bytes a session and the labels in one buffer (a label apiece
/// would cost an allocation each at a million sessions). Only what a log
/// read ahead can say is kept (its header is the enumerated one by
/// construction); an identity of a mode this build does not know is left
/// for the listing to read again.
#[derive(Debug, Default)]
pub struct Glances {
    slots: Vec<Slot>,
    labels: String,
    /// Kept only when asked for and some call reported usage.
    usage: std::collections::HashMap<u32, TokenCounts>,
}

#[derive(Debug, Clone, Copy, Default)]
struct Slot {
    label_at: u32,
    label_len: u32,
    state: KeptState,
    /// Whether the identity has a label (`label_at..` holds it).
    labelled: bool,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum KeptState {
    /// Nothing kept (or taken already).
    #[default]
    None,
    Unreadable,
    NoIdentity,
    OneShot,
    Continuable,
    External,
}

impl Glances {
    /// Keep the glance of the session at `index` (`reserve`: how many
    /// sessions there will be, sized for at the first one kept). A glance
    /// that does not fit the kept form is not kept: the listing reads that
    /// log again.
    pub fn keep(&mut self, index: usize, glance: Glance, reserve: usize) {
        let Ok(at) = u32::try_from(index) else {
            return;
        };
        let (state, label) = match &glance {
            Glance::Unreadable => (KeptState::Unreadable, None),
            Glance::Read {
                same_header: false, ..
            } => return,
            Glance::Read { identity: None, .. } => (KeptState::NoIdentity, None),
            Glance::Read {
                identity: Some(Identity { mode, label }),
                ..
            } => {
                let state = match mode {
                    Mode::OneShot => KeptState::OneShot,
                    Mode::Continuable => KeptState::Continuable,
                    Mode::External => KeptState::External,
                    Mode::Unknown(_) => return,
                };
                (state, label.as_deref())
            }
        };
        let labelled = label.is_some();
        let label = label.unwrap_or_default();
        let (Ok(label_at), Ok(label_len)) =
            (u32::try_from(self.labels.len()), u32::try_from(label.len()))
        else {
            return;
        };
        if u32::try_from(self.labels.len() + label.len()).is_err() {
            return;
        }
        if let Glance::Read { usage, .. } = &glance
            && usage.calls > 0
        {
            self.usage.insert(at, *usage);
        }
        if self.slots.is_empty() {
            self.slots.reserve_exact(reserve);
        }
        if self.slots.len() <= index {
            self.slots.resize(index + 1, Slot::default());
        }
        self.labels.push_str(label);
        self.slots[index] = Slot {
            label_at,
            label_len,
            state,
            labelled,
        };
    }

    /// The glance kept of the session at `index`, handed out once.
    pub fn take(&mut self, index: usize) -> Option<Glance> {
        let glance = self.peek(index)?;
        self.slots[index].state = KeptState::None;
        Some(glance)
    }

    /// The glance kept of the session at `index`, left in place.
    pub fn peek(&self, index: usize) -> Option<Glance> {
        let slot = *self.slots.get(index)?;
        let usage = u32::try_from(index)
            .ok()
            .and_then(|at| self.usage.get(&at).copied())
            .unwrap_or_default();
        let start = slot.label_at as usize;
        let label = slot
            .labelled
            .then(|| self.labels[start..start + slot.label_len as usize].to_string());
        let (mode, label) = match slot.state {
            KeptState::None => return None,
            KeptState::Unreadable => return Some(Glance::Unreadable),
            KeptState::NoIdentity => {
                return Some(Glance::Read {
                    same_header: true,
                    identity: None,
                    usage,
                });
            }
            KeptState::OneShot => (Mode::OneShot, label),
            KeptState::Continuable => (Mode::Continuable, label),
            KeptState::External => (Mode::External, label),
        };
        Some(Glance::Read {
            same_header: true,
            identity: Some(Identity { mode, label }),
            usage,
        })
    }
}

impl Glance {
    /// The glance of an inspection of the log of the session whose header
    /// enumeration read as `header`.
    pub fn of(header: &Header, inspected: Result<Inspection, LogError>, dialect: Dialect) -> Self {
        Glance::judged(inspected, |h| h == header, dialect, true)
    }

    /// The glance of an inspection, `same` judging its header.
    pub fn judged(
        inspected: Result<Inspection, LogError>,
        same: impl FnOnce(&Header) -> bool,
        dialect: Dialect,
        usage: bool,
    ) -> Self {
        match inspected {
            Err(_) => Glance::Unreadable,
            Ok(i) => Glance::Read {
                same_header: same(&i.header),
                identity: match dialect {
                    Dialect::Rc8 => i.rc8,
                    Dialect::Seed001 => i.seed001,
                },
                usage: if usage {
                    i.usage
                } else {
                    TokenCounts::default()
                },
            },
        }
    }

    /// The log at `log`, of the session whose header is `header`,
    /// inspected now.
    pub fn inspect(header: &Header, log: &std::path::Path, dialect: Dialect) -> Self {
        Glance::of(header, reader::inspect(log), dialect)
    }
}

/// `read_first_line_of` a log opened with its metadata, and for a log whose
/// header `ahead` wants, the rest of it read through the same open file and
/// inspected: one open for both.
pub fn read_first_line_ahead(
    opened: Result<(File, std::fs::Metadata), crate::error::StoreError>,
    generation: u32,
    ahead: &dyn ReadAhead,
) -> (Result<(Encoding, FirstLine), HeaderError>, Option<Glance>) {
    use std::os::unix::fs::MetadataExt;
    let (file, meta) = match opened {
        Ok(opened) => opened,
        Err(e) => return (Err(HeaderError::Open(e)), None),
    };
    let len = meta.len();
    let id = (meta.dev(), meta.ino());
    let nothing = Nothing(ahead.dialect());
    let ahead: &dyn ReadAhead = if len > ahead.max_len() {
        &nothing
    } else {
        ahead
    };
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
                generation,
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
        generation,
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

type Scanned = Result<(Inspection, Option<Resume>), LogError>;

/// The header probe of `reader` (a log of `generation`), and when `ahead`
/// wants the header, the log's rest scanned by `raw` (the lines after the
/// header) or `zstd` (the frames after the header frame, and where they
/// start).
fn read_ahead_from<R: BufRead>(
    reader: R,
    generation: u32,
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
            let scanned = validate_for_restore(header, generation)
                .map_err(LogError::from)
                .and_then(|()| match rest {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::header::Header;
    use crate::set::enumerate::Store;
    use std::path::{Path, PathBuf};

    /// Wants every log; `likely` says whether the first read takes it whole.
    struct Everything(Dialect, bool);

    impl ReadAhead for Everything {
        fn wanted(&self, _: &Header) -> bool {
            true
        }
        fn dialect(&self) -> Dialect {
            self.0
        }
        fn likely(&self) -> bool {
            self.1
        }
        fn usage(&self) -> bool {
            true
        }
    }

    /// Every store the repository carries: the samples and the conformance
    /// cases.
    fn stores() -> Vec<PathBuf> {
        let testdata = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata");
        let mut out = Vec::new();
        for parent in [
            testdata.join("stores"),
            testdata.join("conformance/v1/stores"),
            testdata.join("conformance/v2/stores"),
        ] {
            for entry in std::fs::read_dir(&parent).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    out.push(path);
                }
            }
        }
        out.sort();
        out
    }

    /// What a log read during enumeration says is what reading it afterwards
    /// says, for every session of every carried store, under both rules,
    /// whether its first read took it whole or only its header.
    #[test]
    fn a_log_read_ahead_reads_as_it_does_afterwards() {
        let mut taken = 0;
        for store in stores() {
            for (dialect, whole) in [
                (Dialect::Rc8, true),
                (Dialect::Seed001, true),
                (Dialect::Rc8, false),
                (Dialect::Seed001, false),
            ] {
                let Ok(ahead) = Store::scan_ahead(&store, Some(&Everything(dialect, whole))) else {
                    continue;
                };
                for (i, rec) in ahead.sessions.iter().enumerate() {
                    if let Some(glance) = ahead.take_glance(i) {
                        taken += 1;
                        assert_eq!(
                            glance,
                            Glance::inspect(&rec.header, &rec.log(), dialect),
                            "{} in {}",
                            rec.header.id(),
                            store.display()
                        );
                        assert!(ahead.take_glance(i).is_none(), "taken once");
                    }
                }
            }
        }
        assert!(taken > 100, "only {taken} logs were read ahead");
    }

    /// A log larger than the first read is read on through the same open
    /// file, raw or Zstandard, and reads as it does afterwards.
    #[test]
    fn a_large_log_is_read_on() {
        use crate::log::zstd_frames::encode_frame;
        // Letters in no pattern, so a Zstandard log of them stays large.
        let mut seed: u64 = 1;
        let mut letters = |n: usize| -> String {
            (0..n)
                .map(|_| {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    (b'a' + ((seed >> 59) as u8) % 26) as char
                })
                .collect()
        };
        for zstd in [false, true] {
            let root = std::env::temp_dir()
                .join(format!("dsh-agents-ahead-{}-{zstd}", std::process::id()));
            let _ = std::fs::remove_dir_all(&root);
            for (id, pad) in [("small", 10), ("large", 3 * AHEAD_MAX as usize)] {
                let dir = root.join("_no-cwd").join(id);
                std::fs::create_dir_all(&dir).unwrap();
                let header = format!(
                    r#"{{"type":"session","version":0,"id":"{id}","createdAt":1,"parentSession":"p","origin":"subagent","delegationDepth":1}}"#
                );
                let body = format!(
                    "{{\"type\":\"session/title\",\"seq\":0,\"time\":1,\"data\":{{\"title\":\"{}\"}}}}\n{}\n",
                    letters(pad),
                    r#"{"type":"subagent/descriptor","seq":1,"time":2,"data":{"version":2,"mode":"continuable","provider":"spawn","label":"L"}}"#
                );
                if zstd {
                    let mut bytes = encode_frame(format!("{header}\n").as_bytes()).unwrap();
                    bytes.extend(encode_frame(body.as_bytes()).unwrap());
                    assert!(
                        pad < 100 || bytes.len() as u64 > AHEAD_MAX,
                        "{}",
                        bytes.len()
                    );
                    std::fs::write(dir.join("session.jsonl.zstd"), bytes).unwrap();
                } else {
                    std::fs::write(dir.join("session.jsonl"), format!("{header}\n{body}")).unwrap();
                }
            }
            for whole in [true, false] {
                let store =
                    Store::scan_ahead(&root, Some(&Everything(Dialect::Rc8, whole))).unwrap();
                assert_eq!(store.sessions.len(), 2);
                for (i, rec) in store.sessions.iter().enumerate() {
                    let glance = store.take_glance(i).expect("read ahead");
                    assert_eq!(
                        glance,
                        Glance::inspect(&rec.header, &rec.log(), Dialect::Rc8),
                        "{}",
                        rec.header.id()
                    );
                    assert!(
                        matches!(&glance, Glance::Read { identity: Some(i), .. } if i.label.as_deref() == Some("L")),
                        "{zstd} {whole}: {glance:?}"
                    );
                }
            }
            let _ = std::fs::remove_dir_all(&root);
        }
    }
}
