//! The enumerated sessions, held as columns: a million sessions cost a
//! 20-byte row and the bytes of their id each (and of a parent id whose
//! session was not enumerated before its child), not a record with its own
//! allocation. A `SessionRecord` is made on demand; the commands that walk
//! every session read the columns (`id`, `parent`, `parent_at`,
//! `created_at`, `origin_subagent`) without making one.

use crate::files::log_name::{LogName, Suffix};
use crate::files::paths::encode_segment;
use crate::format::header::{Header, Plain};
use crate::set::listed::Present;
use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A session's position: its row in these columns, in enumeration order.
/// Four bytes, because the tree's child lists and rows hold one for every
/// session — and four as an `Option` too (a row's parent): it holds the
/// index plus one, so zero is free for `None`. Every conversion from an
/// index is here: a store holds fewer than 2^32 - 1 sessions (the id index
/// records none past that), so a position never saturates in practice, and
/// one that did would name no session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SessionPos(std::num::NonZeroU32);

impl SessionPos {
    /// The position of the session at `index` (`u32::MAX - 1` past the
    /// range).
    pub fn new(index: usize) -> SessionPos {
        let one_up = u32::try_from(index).map_or(u32::MAX, |i| i.saturating_add(1));
        SessionPos(std::num::NonZeroU32::new(one_up).unwrap_or(std::num::NonZeroU32::MAX))
    }

    /// The index it names in the store's columns.
    pub fn get(self) -> usize {
        (self.0.get() - 1) as usize
    }
}

impl Default for SessionPos {
    fn default() -> SessionPos {
        SessionPos::new(0)
    }
}

/// One session found in the store.
#[derive(Debug, Clone)]
pub struct SessionRecord {
    pub header: Header,
    /// The project directory the session was found in (one allocation
    /// shared by the project's sessions).
    pub project: Arc<PathBuf>,
    /// The session directory's name when it is not `encodeSegment(id)`
    /// (a path that only resolves to the derived one); nearly always `None`,
    /// so it costs a thin pointer.
    pub dir_name: Option<Box<std::ffi::OsString>>,
    /// The log file's compression in the session directory.
    pub suffix: Suffix,
    /// The log's format generation (the highest in the directory).
    pub generation: u32,
}

impl SessionRecord {
    /// The session directory (where sidecar files live).
    pub fn dir(&self) -> PathBuf {
        dir_of(&self.project, self.dir_name.as_deref(), self.header.id())
    }

    /// The log file's name.
    pub fn log_name(&self) -> LogName {
        LogName {
            generation: self.generation,
            suffix: self.suffix,
        }
    }

    /// The log file.
    pub fn log(&self) -> PathBuf {
        self.dir().join(&*self.log_name().file_name())
    }
}

/// One session's fixed part (4-byte aligned: `createdAt` in two halves).
#[derive(Debug, Clone, Copy)]
struct Row {
    created_at: [u32; 2],
    /// Where the id starts in `Sessions::text`; the next row's text
    /// starts where this row's ends.
    text: u32,
    /// With `PARENT_AT`, the parent's position; else, with `HAS_PARENT`,
    /// the id's length, the parent id following it in the text.
    parent: u32,
    delegation_depth: u8,
    generation: u8,
    flags: u8,
    present: u8,
}

// A million of these are held at once: growing one is a choice.
const _: () = assert!(std::mem::size_of::<Row>() <= 20);

const HAS_PARENT: u8 = 1;
const SUBAGENT: u8 = 1 << 1;
const ZSTD: u8 = 1 << 2;
const PRESENT: u8 = 1 << 3;
/// `isSeeded`: absent, `true`, `false`, or not a boolean (two bits).
const SEEDED_SHIFT: u32 = 4;
const SEEDED_MASK: u8 = 3 << SEEDED_SHIFT;
/// The session has an entry in `Sessions::extra`.
const EXTRA: u8 = 1 << 6;
/// The parent is a session held before this one, by position (its id is
/// not held twice).
const PARENT_AT: u8 = 1 << 7;
/// In `Row::generation`: the generation's bits, and the bit saying the
/// header's `version` is the generation (as generations 3 and 4 write it),
/// so such a header is made again from the row, not kept whole.
const GENERATION: u8 = 0x7f;
/// In `Row::present` (the liveness files take 4 bits): the row's text ends
/// in a valid agent name and its length.
const NAMED: u8 = 0x80;
const VERSION_IS_GENERATION: u8 = 0x80;

/// A project directory and the `cwd` its sessions' headers hold (nearly
/// every session of a project shares one).
#[derive(Debug)]
struct Place {
    project: Arc<PathBuf>,
    cwd: Option<Box<str>>,
}

/// What few sessions have: a header the columns cannot make again (a
/// version, a rare member, a deep delegation), or a directory not named
/// after the id.
#[derive(Debug, Default)]
struct Extra {
    header: Option<Header>,
    dir_name: Option<OsString>,
}

/// The store's sessions, by position (the order they were enumerated in).
#[derive(Debug, Default)]
pub struct Sessions {
    rows: Vec<Row>,
    text: String,
    places: Vec<Place>,
    /// Each place's first row, in row order (a place changes between
    /// projects, and where a project's sessions differ in `cwd`).
    place_runs: Vec<(u32, u32)>,
    extra: HashMap<u32, Extra>,
}

/// What a session's directory showed besides its header.
#[derive(Debug, Clone)]
pub struct Found {
    /// The directory's name when it is not `encodeSegment(id)`.
    pub dir_name: Option<OsString>,
    /// The liveness files its listing saw.
    pub present: Option<Present>,
    pub suffix: Suffix,
    pub generation: u32,
}

/// The sessions' ids and parent ids passed 4 GiB: refused, not held.
#[derive(Debug)]
pub struct TooLarge;

impl Sessions {
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Room for `more` sessions, so a large project never holds the old
    /// and the grown row table at once.
    pub fn reserve(&mut self, more: usize) {
        self.rows.reserve_exact(more);
    }

    pub fn capacity(&self) -> usize {
        self.rows.capacity()
    }

    /// Keep a session found in `project`, whose parent is held at
    /// `parent_at` when it is.
    pub fn push(
        &mut self,
        header: Header,
        parent_at: Option<usize>,
        project: &Arc<PathBuf>,
        found: Found,
    ) -> Result<(), TooLarge> {
        let Found {
            dir_name,
            present,
            suffix,
            generation,
        } = found;
        let at = u32::try_from(self.rows.len()).map_err(|_| TooLarge)?;
        let text = u32::try_from(self.text.len()).map_err(|_| TooLarge)?;
        let parent_at = parent_at.and_then(|p| u32::try_from(p).ok());
        let parent = match parent_at {
            Some(_) => "",
            None => header.parent().unwrap_or_default(),
        };
        let id_len = u32::try_from(header.id().len()).map_err(|_| TooLarge)?;
        // A valid agent name (every rc.8 subagent header has one) is kept
        // in the text after the id, not as a header kept whole.
        let (plain, name) = match header.plain_named() {
            Some((p, n)) => (Some(p), n),
            None => (None, None),
        };
        let name_len = name.map_or(0, |n| n.len() + 1);
        if u32::try_from(self.text.len() + header.id().len() + parent.len() + name_len).is_err() {
            return Err(TooLarge);
        }
        let depth = plain
            .as_ref()
            .and_then(|p| u8::try_from(p.delegation_depth).ok());
        let cwd = plain.as_ref().and_then(|p| p.cwd);
        self.place(at, project, cwd)?;
        let mut flags = 0;
        if header.parent().is_some() {
            flags |= HAS_PARENT;
            if parent_at.is_some() {
                flags |= PARENT_AT;
            }
        }
        if header.origin_subagent {
            flags |= SUBAGENT;
        }
        if suffix == Suffix::JsonlZstd {
            flags |= ZSTD;
        }
        if present.is_some() {
            flags |= PRESENT;
        }
        flags |= (match header.is_seeded {
            None => 0,
            Some(Ok(true)) => 1,
            Some(Ok(false)) => 2,
            Some(Err(())) => 3,
        }) << SEEDED_SHIFT;
        // The generation fits 7 bits (enumeration reads none past
        // `NEWEST_READ`); the eighth says the header's `version` is it.
        let generation = u8::try_from(generation).unwrap_or(u8::MAX).min(GENERATION);
        let version = plain.as_ref().and_then(|p| p.version);
        let version_kept = match version {
            None => true,
            Some(v) => v == generation,
        };
        let kept_whole = depth.is_none() || plain.is_none() || !version_kept;
        if kept_whole || dir_name.is_some() {
            flags |= EXTRA;
        }
        let named = !kept_whole && name.is_some();
        self.text.push_str(header.id());
        self.text.push_str(parent);
        if let (true, Some(n)) = (named, name) {
            self.text.push_str(n);
            // Its length (1–64) in one byte after it.
            self.text.push(char::from(n.len() as u8));
        }
        self.rows.push(Row {
            created_at: split(header.created_at),
            text,
            parent: parent_at.unwrap_or(id_len),
            delegation_depth: depth.unwrap_or(0),
            generation: generation
                | if version.is_some() {
                    VERSION_IS_GENERATION
                } else {
                    0
                },
            flags,
            present: present.map_or(0, Present::bits) | if named { NAMED } else { 0 },
        });
        if flags & EXTRA != 0 {
            self.extra.insert(
                at,
                Extra {
                    header: kept_whole.then_some(header),
                    dir_name,
                },
            );
        }
        Ok(())
    }

    /// Give the session at row `at` the place in `project` with `cwd`:
    /// the last one made when it is the same (a project's sessions are
    /// enumerated together).
    fn place(
        &mut self,
        at: u32,
        project: &Arc<PathBuf>,
        cwd: Option<&str>,
    ) -> Result<(), TooLarge> {
        if let Some(last) = self.places.last()
            && Arc::ptr_eq(&last.project, project)
            && last.cwd.as_deref() == cwd
        {
            return Ok(());
        }
        let place = u32::try_from(self.places.len()).map_err(|_| TooLarge)?;
        self.places.push(Place {
            project: project.clone(),
            cwd: cwd.map(Box::from),
        });
        self.place_runs.push((at, place));
        Ok(())
    }

    /// The place of the session at `i`: the run it falls in.
    fn place_of(&self, i: usize) -> &Place {
        let run = self
            .place_runs
            .partition_point(|&(first, _)| first as usize <= i);
        &self.places[self.place_runs[run - 1].1 as usize]
    }

    /// Where the text of the session at `i` ends.
    fn text_end(&self, i: usize) -> usize {
        self.rows
            .get(i + 1)
            .map_or(self.text.len(), |r| r.text as usize)
    }

    /// Where the row's id (and parent) end: before its name, if it has one.
    fn own_end(&self, i: usize) -> usize {
        let end = self.text_end(i);
        match self.name_len(i) {
            Some(n) => end - 1 - n,
            None => end,
        }
    }

    /// The length of the name kept in the row's text (its last byte).
    fn name_len(&self, i: usize) -> Option<usize> {
        (self.rows[i].present & NAMED != 0)
            .then(|| usize::from(self.text.as_bytes()[self.text_end(i) - 1]))
    }

    /// The name kept in the row's text.
    fn kept_name(&self, i: usize) -> Option<&str> {
        let n = self.name_len(i)?;
        let end = self.text_end(i) - 1;
        Some(&self.text[end - n..end])
    }

    pub fn id(&self, i: usize) -> &str {
        let r = &self.rows[i];
        let end = if r.flags & (HAS_PARENT | PARENT_AT) == HAS_PARENT {
            (r.text + r.parent) as usize
        } else {
            self.own_end(i)
        };
        &self.text[r.text as usize..end]
    }

    /// The parent session id when it is a string.
    pub fn parent(&self, i: usize) -> Option<&str> {
        let r = &self.rows[i];
        if r.flags & HAS_PARENT == 0 {
            return None;
        }
        Some(match self.parent_at(i) {
            Some(p) => self.id(p),
            None => &self.text[(r.text + r.parent) as usize..self.own_end(i)],
        })
    }

    /// The session's valid agent name, if any (kept in its row's text, or
    /// in a header kept whole), without making a header to ask.
    pub fn valid_name(&self, i: usize) -> Option<&str> {
        if let Some(name) = self.kept_name(i) {
            return Some(name);
        }
        self.extra(i)?.header.as_ref()?.valid_name()
    }

    /// The parent's position, when it was held before this session.
    pub fn parent_at(&self, i: usize) -> Option<usize> {
        let r = &self.rows[i];
        (r.flags & PARENT_AT != 0).then_some(r.parent as usize)
    }

    pub fn created_at(&self, i: usize) -> i64 {
        join(self.rows[i].created_at)
    }

    pub fn origin_subagent(&self, i: usize) -> bool {
        self.rows[i].flags & SUBAGENT != 0
    }

    pub fn generation(&self, i: usize) -> u32 {
        u32::from(self.rows[i].generation & GENERATION)
    }

    /// What the directory's listing saw of the liveness files (`None`: not
    /// listed), so a probe skips the ones it saw absent.
    pub fn present(&self, i: usize) -> Option<Present> {
        let r = &self.rows[i];
        (r.flags & PRESENT != 0).then(|| Present::from_bits(r.present & !NAMED))
    }

    /// The listing of the session's directory saw no inbox: a view that
    /// counts pending messages need not look (the snapshot its liveness
    /// comes from too).
    pub fn inbox_seen_absent(&self, i: usize) -> bool {
        self.present(i)
            .is_some_and(|p| !p.has(crate::files::paths::INBOX))
    }

    fn suffix(&self, i: usize) -> Suffix {
        if self.rows[i].flags & ZSTD != 0 {
            Suffix::JsonlZstd
        } else {
            Suffix::Jsonl
        }
    }

    fn extra(&self, i: usize) -> Option<&Extra> {
        if self.rows[i].flags & EXTRA == 0 {
            return None;
        }
        self.extra.get(&(i as u32))
    }

    fn project(&self, i: usize) -> &Arc<PathBuf> {
        &self.place_of(i).project
    }

    /// The session directory (where sidecar files live).
    pub fn dir(&self, i: usize) -> PathBuf {
        dir_of(
            self.project(i),
            self.extra(i).and_then(|e| e.dir_name.as_ref()),
            self.id(i),
        )
    }

    /// The header as read from the log.
    pub fn header(&self, i: usize) -> Header {
        if let Some(h) = self.extra(i).and_then(|e| e.header.as_ref()) {
            return h.clone();
        }
        let r = &self.rows[i];
        Header::from_plain_named(
            Plain {
                id: self.id(i),
                parent: self.parent(i),
                cwd: self.place_of(i).cwd.as_deref(),
                created_at: join(r.created_at),
                delegation_depth: i64::from(r.delegation_depth),
                is_seeded: match (r.flags & SEEDED_MASK) >> SEEDED_SHIFT {
                    0 => None,
                    1 => Some(Ok(true)),
                    2 => Some(Ok(false)),
                    _ => Some(Err(())),
                },
                origin_subagent: r.flags & SUBAGENT != 0,
                version: (r.generation & VERSION_IS_GENERATION != 0)
                    .then_some(r.generation & GENERATION),
            },
            self.kept_name(i),
        )
    }

    /// The session at `i`, made whole.
    pub fn record(&self, i: usize) -> SessionRecord {
        SessionRecord {
            header: self.header(i),
            project: self.project(i).clone(),
            dir_name: self.extra(i).and_then(|e| e.dir_name.clone()).map(Box::new),
            suffix: self.suffix(i),
            generation: self.generation(i),
        }
    }

    /// Every session, made whole one at a time.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = SessionRecord> + '_ {
        (0..self.len()).map(|i| self.record(i))
    }
}

fn split(n: i64) -> [u32; 2] {
    [n as u32, (n >> 32) as u32]
}

fn join([low, high]: [u32; 2]) -> i64 {
    (i64::from(high as i32) << 32) | i64::from(low)
}

/// A session directory: `project/encodeSegment(id)`, or the name it was
/// found under when that differs.
pub fn dir_of(project: &Path, dir_name: Option<&OsString>, id: &str) -> PathBuf {
    match dir_name {
        Some(name) => project.join(name),
        None => project.join(encode_segment(id).unwrap_or_default()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::header::{HeaderParse, parse_header_line};

    fn header(line: &str) -> Header {
        match parse_header_line(line) {
            HeaderParse::Valid(h) => *h,
            other => panic!("{line}: {other:?}"),
        }
    }

    /// A position gives back its index, keeps the indexes' order, and is
    /// four bytes with or without `Option`.
    #[test]
    fn a_position_is_its_index_in_four_bytes() {
        let max = u32::MAX as usize;
        for (index, back) in [
            (0, 0),
            (1, 1),
            (4_096, 4_096),
            (max - 2, max - 2),
            (max - 1, max - 1),
            (max, max - 1),
            (usize::MAX, max - 1),
        ] {
            assert_eq!(SessionPos::new(index).get(), back, "{index}");
        }
        assert!(SessionPos::new(3) < SessionPos::new(4));
        assert_eq!(SessionPos::default(), SessionPos::new(0));
        assert_eq!(std::mem::size_of::<Option<SessionPos>>(), 4);
    }

    /// Every header kept reads back as it was parsed, whether the columns
    /// make it again or it is kept whole.
    #[test]
    fn sessions_read_back_as_kept() {
        let lines = [
            r#"{"type":"session","version":0,"id":"a","createdAt":1,"delegationDepth":0}"#,
            r#"{"type":"session","version":0,"id":"b","createdAt":2,"delegationDepth":1,"parentSession":"a","origin":"subagent","cwd":"/w"}"#,
            r#"{"type":"session","version":0,"id":"c","createdAt":3,"delegationDepth":300,"parentSession":"b","cwd":"/w"}"#,
            r#"{"type":"session","version":0,"id":"d","createdAt":4,"delegationDepth":0,"parentSession":"","cwd":"/other","isSeeded":true}"#,
            r#"{"type":"session","version":0,"id":"é","createdAt":5,"delegationDepth":2,"isSeeded":false,"parentSession":"ü"}"#,
            r#"{"type":"session","version":0,"id":"f","createdAt":6,"delegationDepth":2,"isSeeded":7}"#,
            r#"{"type":"session","version":2,"id":"g","createdAt":7,"delegationDepth":0,"name":"n","cwd":5}"#,
            r#"{"type":"session","version":0,"id":"","createdAt":8,"delegationDepth":0,"parentSession":{"x":1}}"#,
            r#"{"type":"session","version":0,"id":"h","createdAt":9007199254740991,"delegationDepth":255,"cwd":"/w"}"#,
            r#"{"type":"session","version":0,"id":"i","createdAt":4294967296,"delegationDepth":256,"cwd":"/w"}"#,
            // Generations 0 to 4 in turn (`i % 5`): a version that is not
            // the log's generation, or not an integer, is kept whole; the
            // one generations 2 to 4 write is made again from the row.
            r#"{"type":"session","version":3,"id":"j","createdAt":10,"delegationDepth":0}"#,
            r#"{"type":"session","version":1.0,"id":"k","createdAt":11,"delegationDepth":0}"#,
            r#"{"type":"session","version":2,"id":"l","createdAt":12,"delegationDepth":0,"isSeeded":false}"#,
            r#"{"type":"session","version":3,"id":"m","createdAt":13,"delegationDepth":1,"parentSession":"l","origin":"subagent","cwd":"/w"}"#,
            r#"{"type":"session","version":4,"id":"n","createdAt":14,"delegationDepth":2,"parentSession":"m","origin":"subagent","cwd":"/w","isSeeded":false}"#,
            // Named as rc.8 names its subagents: the name kept in the row,
            // with a parent by position, by id, and none; 64 characters.
            r#"{"type":"session","version":0,"id":"o","createdAt":15,"delegationDepth":1,"parentSession":"n","origin":"subagent","cwd":"/w","name":"reviewer"}"#,
            r#"{"type":"session","version":0,"id":"p","createdAt":16,"delegationDepth":1,"parentSession":"elsewhere","origin":"subagent","cwd":"/w","name":"x"}"#,
            r#"{"type":"session","version":0,"id":"q","createdAt":17,"delegationDepth":0,"name":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}"#,
            // An invalid name, or a name beside another rare member: kept whole.
            r#"{"type":"session","version":0,"id":"r","createdAt":18,"delegationDepth":0,"name":"lead"}"#,
            r#"{"type":"session","version":0,"id":"s","createdAt":19,"delegationDepth":0,"name":"ok","seedLength":3}"#,
        ];
        let project = Arc::new(PathBuf::from("/s/p"));
        let other = Arc::new(PathBuf::from("/s/q"));
        let mut s = Sessions::default();
        let mut want = Vec::new();
        for (i, line) in lines.iter().enumerate() {
            let h = header(line);
            let (proj, name, present, suffix) = match i % 3 {
                0 => (&project, None, None, Suffix::Jsonl),
                1 => (
                    &other,
                    Some(OsString::from("x")),
                    Some(Present::from_bits(5)),
                    Suffix::JsonlZstd,
                ),
                _ => (&project, None, Some(Present::default()), Suffix::Jsonl),
            };
            let parent_at = h
                .parent()
                .and_then(|p| (0..s.len()).find(|&k| s.id(k) == p));
            let found = Found {
                dir_name: name.clone(),
                present,
                suffix,
                generation: i as u32 % 5,
            };
            s.push(h.clone(), parent_at, proj, found).unwrap();
            assert_eq!(s.parent_at(i), parent_at, "{line}");
            want.push((h, proj.clone(), name, present, suffix, i as u32 % 5));
        }
        assert_eq!(s.len(), lines.len());
        for (i, (h, proj, name, present, suffix, generation)) in want.into_iter().enumerate() {
            let r = s.record(i);
            assert_eq!(r.header, h, "{}", lines[i]);
            assert_eq!(s.id(i), h.id());
            assert_eq!(s.parent(i), h.parent());
            assert_eq!(s.created_at(i), h.created_at);
            assert_eq!(s.origin_subagent(i), h.origin_subagent);
            assert_eq!(s.present(i), present);
            assert_eq!(r.suffix, suffix);
            assert_eq!(r.generation, generation);
            assert_eq!(r.dir(), dir_of(&proj, name.as_ref(), h.id()));
            assert_eq!(s.dir(i), r.dir());
            assert_eq!(s.valid_name(i), h.valid_name(), "{}", lines[i]);
        }
        let whole = |i: usize| s.extra(i).is_some_and(|e| e.header.is_some());
        assert!(whole(10) && whole(11), "an odd version is kept whole");
        for (i, line) in lines.iter().enumerate().skip(12).take(6) {
            assert!(!whole(i), "{line}: made again from its row");
        }
        assert!(
            whole(18) && whole(19),
            "a name that is not the only rare member"
        );
    }
}
