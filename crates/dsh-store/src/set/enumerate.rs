//! Enumerating a DSH session store (contract §3): `<root>/<project>/<session>/
//! session.jsonl[.zstd]`, header-only reads, and the store-level failures DSH
//! reports (flat-file artifact, duplicate id, path/identity mismatch, mixed
//! encodings, retired header fields). Listing fails on the first fatal
//! problem; `check` reports them all.

use crate::error::StoreError;
use crate::files::log_name::{Current, LogName};
use crate::files::paths::{encode_segment, project_dir_name};
use crate::files::sidecar::{Dir, open_regular_meta};
use crate::format::generation::NEWEST_READ;
use crate::format::header::{Header, HeaderParse, Member};
use crate::log::header_probe::{Encoding, FirstLine, HeaderError, read_first_line_of};
use crate::set::ahead::read_first_line_ahead;
use crate::set::ahead::{AHEAD_SESSIONS_MAX, Glance, Glances, ReadAhead};
use crate::set::id_index::IdIndex;
use crate::set::listed::Present;
use crate::set::sessions::{Found, Sessions};
use std::ffi::{OsStr, OsString};
use std::fs;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

pub use crate::files::log_name::Suffix;

pub use crate::set::sessions::SessionRecord;

/// A problem found while enumerating.
#[derive(Debug, Clone)]
pub struct Problem {
    pub path: PathBuf,
    /// What kind of problem: a stable name for scripts (`check --json`).
    pub code: ProblemCode,
    pub message: String,
    /// Fatal problems fail every listing, as they do in DSH.
    pub fatal: bool,
}

/// The kinds of store-level problem, each with a name that does not change
/// with the message's wording.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProblemCode {
    SymlinkIgnored,
    ProjectUnreadable,
    FlatFileLayout,
    UnsupportedGeneration,
    LogUnreadable,
    HeaderCorrupt,
    NoHeader,
    HeaderInvalid,
    RetiredHeaderFields,
    GenerationMismatch,
    IdentityMismatch,
    DuplicateId,
    MixedCompression,
    StoreTooLarge,
}

impl ProblemCode {
    pub fn as_str(self) -> &'static str {
        match self {
            ProblemCode::SymlinkIgnored => "symlink-ignored",
            ProblemCode::ProjectUnreadable => "project-unreadable",
            ProblemCode::FlatFileLayout => "flat-file-layout",
            ProblemCode::UnsupportedGeneration => "unsupported-generation",
            ProblemCode::LogUnreadable => "log-unreadable",
            ProblemCode::HeaderCorrupt => "header-corrupt",
            ProblemCode::NoHeader => "no-header",
            ProblemCode::HeaderInvalid => "header-invalid",
            ProblemCode::RetiredHeaderFields => "retired-header-fields",
            ProblemCode::GenerationMismatch => "generation-mismatch",
            ProblemCode::IdentityMismatch => "identity-mismatch",
            ProblemCode::DuplicateId => "duplicate-id",
            ProblemCode::MixedCompression => "mixed-compression",
            ProblemCode::StoreTooLarge => "store-too-large",
        }
    }
}

/// An enumerated store.
#[derive(Debug)]
pub struct Store {
    pub root: PathBuf,
    pub sessions: Sessions,
    pub suffix: Option<Suffix>,
    pub by_id: IdIndex,
    pub problems: Vec<Problem>,
    /// Project directories under the root.
    pub projects: usize,
    /// Session directories whose log is not published yet (no log, or no
    /// complete header line): a name index must look at them again.
    pub unpublished: Vec<PathBuf>,
    /// Session directories whose logs are a newer format generation
    /// (`session.v<N>.jsonl[.zstd]`), with the highest N: never read, never
    /// silently left out (every reading command reports them).
    pub unsupported: Vec<(PathBuf, u32)>,
    /// The project of the last record made, shared with the next one.
    last_project: Option<Arc<PathBuf>>,
    /// What was read ahead of each record's log, by position, up to the
    /// last one read (`Store::scan_ahead`); each is taken once.
    glances: Mutex<Glances>,
    /// The project directories a store located by path listed (so locating
    /// more sessions does not list the root again); empty after a scan.
    pub located_in: Vec<PathBuf>,
    /// The dialect sessions located by path are read ahead under, if any.
    pub located_ahead: Option<crate::format::descriptor::Dialect>,
}

impl Store {
    /// Enumerate the store and fail on its first fatal problem.
    pub fn open(root: &Path) -> Result<Store, StoreError> {
        let store = Store::scan(root)?.nonempty()?;
        store.fail_on_fatal()?.honest()
    }

    /// A store whose sessions are all of a format generation this build
    /// does not read is an error naming one, never an empty store; in a
    /// mixed store each unread session is said on stderr, so no listing
    /// leaves one out silently.
    pub fn honest(self) -> Result<Store, StoreError> {
        if let Some((dir, generation)) = self.unsupported.first()
            && self.sessions.is_empty()
        {
            return Err(StoreError::Fatal {
                path: dir.clone(),
                message: format!(
                    "unsupported format generation {generation}: the sessions of this store (\"{}\" and {} more) are written by a newer DSH (session.v{generation}.jsonl); this dsh-agents reads generations 0 to {NEWEST_READ}",
                    dir.display(),
                    self.unsupported.len() - 1
                ),
            });
        }
        for (dir, generation) in &self.unsupported {
            eprintln!(
                "warning: {}: unsupported format generation {generation}: not read",
                dir.display()
            );
        }
        Ok(self)
    }

    /// As `open`, but an existing store with no project directory yet is
    /// accepted: the one command that writes a first session needs it.
    pub fn open_for_spawn(root: &Path) -> Result<Store, StoreError> {
        Store::scan(root)?.fail_on_fatal()
    }

    /// A store root with no session directory (no project directory, or
    /// only empty ones) is a typo more often than a store: every reading
    /// command refuses both alike, and says how a first session is made.
    pub fn nonempty(self) -> Result<Store, StoreError> {
        let store = self.has_projects()?;
        let nothing = store.sessions.is_empty()
            && store.problems.is_empty()
            && store.unpublished.is_empty()
            && store.unsupported.is_empty();
        if nothing {
            return Err(StoreError::EmptyStore { path: store.root });
        }
        Ok(store)
    }

    /// The half of `nonempty` a store located by path can check before
    /// it has read any session: it has a project directory.
    pub fn has_projects(self) -> Result<Store, StoreError> {
        if self.projects == 0 {
            return Err(StoreError::EmptyStore { path: self.root });
        }
        Ok(self)
    }

    pub fn fail_on_fatal(self) -> Result<Store, StoreError> {
        let store = self;
        if let Some(p) = store.problems.iter().find(|p| p.fatal) {
            return Err(StoreError::Fatal {
                path: p.path.clone(),
                message: p.message.clone(),
            });
        }
        Ok(store)
    }

    /// Enumerate everything, collecting every problem.
    pub fn scan(root: &Path) -> Result<Store, StoreError> {
        Store::scan_ahead(root, None)
    }

    /// As `open`, reading the logs `ahead` wants whole as they are found;
    /// it finishes as `open` does, so reading ahead never changes an answer.
    pub fn open_ahead(root: &Path, ahead: &dyn ReadAhead) -> Result<Store, StoreError> {
        let store = Store::scan_ahead(root, Some(ahead))?.nonempty()?;
        store.fail_on_fatal()?.honest()
    }

    /// `scan`, reading the logs `ahead` wants whole while their header
    /// probes have them open.
    pub fn scan_ahead(root: &Path, ahead: Option<&dyn ReadAhead>) -> Result<Store, StoreError> {
        let mut store = Store::at(root)?;
        for project in store.project_dirs()? {
            store.scan_project(&project, ahead)
        }
        Ok(store)
    }

    /// What was read ahead of the log of the record at `index`, handed
    /// out once: a listing takes each record's once.
    pub fn take_glance(&self, index: usize) -> Option<Glance> {
        let mut glances = self.glances.lock().ok()?;
        glances.take(index)
    }

    /// The glance kept of the log at `index`, left in place (a send may
    /// classify one ancestor for its caller and again for its target).
    pub fn peek_glance(&self, index: usize) -> Option<Glance> {
        let glances = self.glances.lock().ok()?;
        glances.peek(index)
    }

    /// Free what is left of the glances once a listing took what it needs.
    pub fn release_glances(&self) {
        if let Ok(mut glances) = self.glances.lock() {
            *glances = Glances::default();
        }
    }

    /// An empty store at `root`, made absolute.
    pub fn at(root: &Path) -> Result<Store, StoreError> {
        let root = std::path::absolute(root).map_err(|e| StoreError::io(root, e))?;
        Ok(Store {
            root,
            sessions: Sessions::default(),
            suffix: None,
            by_id: IdIndex::default(),
            problems: Vec::new(),
            projects: 0,
            unpublished: Vec::new(),
            unsupported: Vec::new(),
            last_project: None,
            glances: Mutex::new(Glances::default()),
            located_in: Vec::new(),
            located_ahead: None,
        })
    }

    /// The project directories under the root, in name order, counted;
    /// symbolic links are noted and skipped, as DSH skips them.
    pub fn project_dirs(&mut self) -> Result<Vec<PathBuf>, StoreError> {
        let root = self.root.clone();
        let entries = match sorted_entries(&root) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(StoreError::NoStore { path: root });
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => {
                return Err(StoreError::NotADirectory { path: root });
            }
            Err(e) => {
                return Err(StoreError::Fatal {
                    message: format!("cannot read session store {}: {e}", root.display()),
                    path: root,
                });
            }
        };
        let mut dirs = Vec::new();
        for (name, kind) in entries.iter() {
            let project = root.join(OsStr::from_bytes(name));
            match kind {
                EntryKind::Dir => {
                    self.projects += 1;
                    dirs.push(project);
                }
                EntryKind::Symlink => self.note(&project, ProblemCode::SymlinkIgnored, "symbolic link under the store root is ignored (DSH lists only real directories)", false),
                EntryKind::Other => {}
            }
        }
        Ok(dirs)
    }

    fn note(&mut self, path: &Path, code: ProblemCode, message: impl Into<String>, fatal: bool) {
        self.problems.push(Problem {
            path: path.to_path_buf(),
            code,
            message: message.into(),
            fatal,
        });
    }

    /// A log whose header cannot be read: fatal, as DSH's restore fails.
    fn unreadable(&mut self, log: &Path, why: String) {
        let message = format!("cannot read session log \"{}\": {why}", log.display());
        self.note(log, ProblemCode::LogUnreadable, message, true);
    }

    pub fn scan_project(&mut self, project: &Path, ahead: Option<&dyn ReadAhead>) {
        let entries = match sorted_entries(project) {
            Ok(e) => e,
            Err(e) => {
                return self.note(
                    project,
                    ProblemCode::ProjectUnreadable,
                    format!(
                        "cannot read project directory \"{}\": {e}",
                        project.display()
                    ),
                    true,
                );
            }
        };
        for (name, kind) in entries.iter() {
            let file_name = String::from_utf8_lossy(name);
            if matches!(kind, EntryKind::Other)
                && (file_name.ends_with(".jsonl") || file_name.ends_with(".jsonl.zstd"))
            {
                let path = project.join(OsStr::from_bytes(name));
                self.note(&path, ProblemCode::FlatFileLayout, format!("session artifact {} uses the unsupported flat-file layout; use a separate root or move it into a project/session directory before loading", js_quote(&path)), true);
            }
        }
        // The session directories, by position in `entries`: a batch's
        // paths are made as it is probed, never all at once.
        let mut dirs = 0;
        for (name, kind) in entries.iter() {
            match kind {
                EntryKind::Dir => dirs += 1,
                EntryKind::Symlink => self.note(&project.join(OsStr::from_bytes(name)), ProblemCode::SymlinkIgnored, "symbolic link in a project directory is ignored (DSH lists only real directories)", false),
                EntryKind::Other => {}
            }
        }
        // The file reads are independent; the store-level rules apply in order.
        // Growing by doubling would hold the old and the new table at once.
        self.sessions.reserve(dirs);
        let ahead = ahead.filter(|_| self.sessions.len() + dirs <= AHEAD_SESSIONS_MAX);
        let sessions = &self.sessions;
        self.by_id.reserve(dirs, |at| sessions.id(at));
        // Probed a batch at a time, so the probes of a large project are
        // never all held beside the records made from them; the records of
        // one batch are kept (in order, on this thread) while the next one
        // is probed.
        let root = self.root.clone();
        let held = Dir::root(project).ok();
        let held = held.as_ref();
        let mut entries = entries;
        let probe = |paths: Vec<PathBuf>| {
            let probes = crate::parallel::par_map(&paths, |dir| {
                probe_session_dir(&root, LogsOf { project: held, dir }, ahead)
            });
            (paths, probes)
        };
        let mut batches = std::iter::from_fn(|| {
            let batch: Vec<PathBuf> = entries
                .take_dirs(PROBE_BATCH)
                .into_iter()
                .map(|name| project.join(OsString::from_vec(name)))
                .collect();
            (!batch.is_empty()).then_some(batch)
        });
        let mut ready = batches.next().map(probe);
        while let Some((paths, probes)) = ready.take() {
            std::thread::scope(|s| {
                let next = batches.next().map(|b| s.spawn(move || probe(b)));
                for (dir, p) in paths.iter().zip(probes) {
                    self.apply_probe(dir, p);
                }
                ready = next.map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)));
            });
        }
    }

    pub fn apply_probe(&mut self, dir: &Path, probe: DirProbe) {
        let (found, read, identity, glance) = match probe {
            DirProbe::Empty => return self.unpublished.push(dir.to_path_buf()),
            // A session that cannot be read fails loudly, as a log that
            // cannot be read does: never skipped in silence.
            DirProbe::Unreadable(why) => {
                return self.note(
                    dir,
                    ProblemCode::LogUnreadable,
                    format!("cannot read session directory \"{}\": {why}", dir.display()),
                    true,
                );
            }
            DirProbe::Newer(log) => {
                let generation = log.generation;
                self.unsupported.push((dir.to_path_buf(), generation));
                return self.note(
                    &dir.join(&*log.file_name()),
                    ProblemCode::UnsupportedGeneration,
                    format!(
                        "unsupported format generation {generation}: the session in \"{}\" is written by a newer DSH ({}); this dsh-agents reads generations 0 to {NEWEST_READ}",
                        dir.display(),
                        log.file_name()
                    ),
                    false,
                );
            }
            DirProbe::Both(generation) => {
                let configured = self.suffix.unwrap_or(Suffix::Jsonl);
                let odd = LogName {
                    generation,
                    suffix: configured.opposite(),
                };
                return self.mismatch(&dir.join(&*odd.file_name()), configured);
            }
            DirProbe::One(found, present, read, identity, glance) => {
                (found, (present, read), identity, glance)
            }
        };
        let (present, read) = read;
        let log_name = found;
        let found = log_name.suffix;
        let configured = *self.suffix.get_or_insert(found);
        if found != configured {
            return self.mismatch(&dir.join(&*log_name.file_name()), configured);
        }
        let log = dir.join(&*log_name.file_name());
        let (_, first) = match read {
            Ok(r) => r,
            Err(HeaderError::Io(e)) => return self.unreadable(&log, e.to_string()),
            Err(HeaderError::Open(e)) => return self.unreadable(&log, e.reason()),
            Err(HeaderError::Corrupt(m)) => {
                return self.note(
                    &log,
                    ProblemCode::HeaderCorrupt,
                    format!("{m} ({})", log.display()),
                    true,
                );
            }
        };
        let header = match first {
            FirstLine::Missing => {
                self.unpublished.push(dir.to_path_buf());
                return self.note(
                    &log,
                    ProblemCode::NoHeader,
                    format!(
                        "session log \"{}\" has no complete header line; DSH skips it",
                        log.display()
                    ),
                    false,
                );
            }
            FirstLine::Parsed(HeaderParse::NotHeader(why)) => {
                return self.note(
                    &log,
                    ProblemCode::HeaderInvalid,
                    format!(
                        "corrupt session log \"{}\": {why}; DSH skips it",
                        log.display()
                    ),
                    false,
                );
            }
            FirstLine::Parsed(HeaderParse::Retired) => {
                return self.note(&log, ProblemCode::RetiredHeaderFields, format!("corrupt session log \"{}\": session header uses retired policy baseline fields", log.display()), true);
            }
            FirstLine::Parsed(HeaderParse::Valid(h)) => *h,
        };
        // A generation-0 log keeps rc.8's rule (any version lists, restore
        // refuses it); a newer file must hold the header of its generation.
        if log_name.generation > 0
            && !crate::format::header::declares_file_generation(&header, log_name.generation)
        {
            return self.note(
                &log,
                ProblemCode::GenerationMismatch,
                format!(
                    "corrupt session log \"{}\": a generation-{} log holds a header of version {}; DSH skips it",
                    log.display(),
                    log_name.generation,
                    header.version()
                ),
                false,
            );
        }
        let identity =
            identity.unwrap_or_else(|| check_identity(&self.root, &log, &header, log_name));
        let derived = match identity {
            Ok(derived) => derived,
            Err(mismatch) => {
                return self.note(
                    &log,
                    ProblemCode::IdentityMismatch,
                    mismatch.to_string(),
                    true,
                );
            }
        };
        if self.index_of(header.id()).is_some() {
            return self.note(
                &log,
                ProblemCode::DuplicateId,
                format!(
                    "duplicate JSONL session id \"{}\" appears in multiple project directories",
                    header.id()
                ),
                true,
            );
        }
        // Kept by position from the first glance on; none at all when
        // nothing was read ahead.
        if let Some(glance) = glance {
            let glances = self.glances.get_mut().unwrap_or_else(|e| e.into_inner());
            glances.keep(self.sessions.len(), *glance, self.sessions.capacity());
        }
        let parent = dir.parent().unwrap_or(dir);
        let project = match &self.last_project {
            Some(p) if **p == *parent => p.clone(),
            _ => {
                let p = Arc::new(parent.to_path_buf());
                self.last_project = Some(p.clone());
                p
            }
        };
        let name = dir.file_name().unwrap_or_default();
        let at = self.sessions.len();
        let id = header.id().to_string();
        let parent_at = header.parent().and_then(|p| self.index_of(p));
        let kept = self.sessions.push(
            header,
            parent_at,
            &project,
            Found {
                dir_name: (!derived).then(|| name.to_os_string()),
                present,
                suffix: found,
                generation: log_name.generation,
            },
        );
        if kept.is_err() {
            return self.note(
                &log,
                ProblemCode::StoreTooLarge,
                "the store's session ids pass 4 GiB: not enumerated further",
                true,
            );
        }
        let sessions = &self.sessions;
        self.by_id.insert(&id, at, |at| sessions.id(at));
    }

    fn mismatch(&mut self, odd: &Path, configured: Suffix) {
        let message = format!(
            "session artifact {} uses {}, but this backend is configured for compression \"{}\"; use a separate root or select the matching compression mode",
            js_quote(odd),
            configured.opposite().ext(),
            configured.compression()
        );
        self.note(odd, ProblemCode::MixedCompression, message, true);
    }

    pub fn get(&self, id: &str) -> Option<SessionRecord> {
        self.index_of(id).map(|i| self.sessions.record(i))
    }

    pub fn index_of(&self, id: &str) -> Option<usize> {
        self.by_id.get(id, |at| self.sessions.id(at))
    }

    /// The newest format generation of the store's sessions (0 for none):
    /// the one a new session is written in.
    pub fn newest_generation(&self) -> u32 {
        (0..self.sessions.len())
            .map(|i| self.sessions.generation(i))
            .max()
            .unwrap_or(0)
    }

    /// The encoding new logs get: the store's own, else `default`.
    pub fn suffix_or(&self, default: Suffix) -> Suffix {
        self.suffix.unwrap_or(default)
    }
}

/// Session directories probed at once (in parallel) while enumerating.
/// Two batches' probes are alive at a time and what they freed is mostly
/// not handed back, so the batch is small: at a million sessions 4,096
/// held about 7 MiB more than 256 for the same time (docs/performance.md).
const PROBE_BATCH: usize = 256;

/// What one session directory holds, read without touching shared state.
pub enum DirProbe {
    /// No log (or no complete one yet).
    Empty,
    /// Both encodings of the current generation.
    Both(u32),
    /// A generation newer than this build reads.
    Newer(LogName),
    /// The directory cannot be listed (why): a session that may be there.
    Unreadable(String),
    /// The log found, its first line, for a valid header the identity
    /// check (`Ok(derived)`: whether the directory is named
    /// `encodeSegment(id)`), and what was read ahead of the log.
    One(
        LogName,
        Option<Present>,
        Result<(Encoding, FirstLine), HeaderError>,
        Option<Result<bool, IdentityMismatch>>,
        Option<Box<Glance>>,
    ),
}

/// The header's id and cwd must re-derive the path the log was found at;
/// `Ok` says whether the directory is named `encodeSegment(id)` itself.
fn check_identity(
    root: &Path,
    log: &Path,
    header: &Header,
    suffix: LogName,
) -> Result<bool, IdentityMismatch> {
    let derived = || {
        let name = log.parent().and_then(Path::file_name);
        encode_segment(header.id()).is_some_and(|e| name == Some(e.as_ref()))
    };
    let expected =
        expected_log_path(root, header, suffix).ok_or_else(|| IdentityMismatch::Unnameable {
            log: log.to_path_buf(),
        })?;
    if expected == log {
        return Ok(true);
    }
    let same = match (fs::canonicalize(log), fs::canonicalize(&expected)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if same {
        return Ok(derived());
    }
    Err(IdentityMismatch::Elsewhere {
        log: log.to_path_buf(),
        id: header.id().to_string(),
        expected,
    })
}

/// A log whose header names another place than the one it was found at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdentityMismatch {
    /// The header id cannot name a storage path at all.
    Unnameable { log: PathBuf },
    /// The header's id and cwd name `expected`.
    Elsewhere {
        log: PathBuf,
        id: String,
        expected: PathBuf,
    },
}

impl std::fmt::Display for IdentityMismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            IdentityMismatch::Unnameable { log } => write!(
                f,
                "corrupt session log \"{}\": header id cannot name a storage path",
                log.display()
            ),
            IdentityMismatch::Elsewhere { log, id, expected } => write!(
                f,
                "corrupt session log \"{}\": header id \"{id}\" and cwd identify \"{}\"",
                log.display(),
                expected.display()
            ),
        }
    }
}

/// The probe of `dir` in the store at `root`, reading the log whole when
/// `ahead` wants it. The identity check is made here, in parallel, not
/// where the records are kept in order.
pub fn probe_session_dir(root: &Path, logs: LogsOf, ahead: Option<&dyn ReadAhead>) -> DirProbe {
    let dir = logs.dir;
    let probe = probe_files(logs, ahead);
    match probe {
        DirProbe::One(
            suffix,
            present,
            Ok((encoding, FirstLine::Parsed(HeaderParse::Valid(header)))),
            _,
            glance,
        ) => {
            let identity = check_identity(root, &dir.join(&*suffix.file_name()), &header, suffix);
            DirProbe::One(
                suffix,
                present,
                Ok((encoding, FirstLine::Parsed(HeaderParse::Valid(header)))),
                Some(identity),
                glance,
            )
        }
        other => other,
    }
}

fn probe_files(logs: LogsOf, ahead: Option<&dyn ReadAhead>) -> DirProbe {
    // The directory is listed: newer DSH writes generations side by side,
    // and the highest one is current even beside a generation-0 log.
    let (current, present) = match logs.listing() {
        Ok(l) => l,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return DirProbe::Empty,
        Err(e) => return DirProbe::Unreadable(e.to_string()),
    };
    let log = match current {
        Current::None => return DirProbe::Empty,
        Current::Both(generation) => return DirProbe::Both(generation),
        Current::One(log) if log.generation > NEWEST_READ => return DirProbe::Newer(log),
        Current::One(log) => log,
    };
    let opened = logs.open(log);
    let (read, glance) = match ahead {
        Some(ahead) => read_first_line_ahead(opened, log.generation, ahead),
        None => (read_first_line_of(opened.map(|(f, _)| f)), None),
    };
    DirProbe::One(log, present, read, None, glance.map(Box::new))
}

/// A session directory's logs: opened through its project directory when
/// that is held open (by a short relative name), else by their whole path.
#[derive(Clone, Copy)]
pub struct LogsOf<'a> {
    pub project: Option<&'a Dir>,
    pub dir: &'a Path,
}

impl LogsOf<'_> {
    /// The held project directory and the log's name beneath it.
    fn relative(&self, log: LogName) -> Option<(&Dir, PathBuf)> {
        let name = self.dir.file_name()?;
        Some((self.project?, Path::new(name).join(&*log.file_name())))
    }

    fn open(&self, log: LogName) -> Result<(fs::File, fs::Metadata), StoreError> {
        match self.relative(log) {
            Some((project, rel)) => project.open_regular_meta_at(&rel),
            None => open_regular_meta(&self.dir.join(&*log.file_name())),
        }
    }

    /// The current log, from the directory's names, and which liveness
    /// files it saw (when listed through the held project directory).
    fn listing(&self) -> Result<(Current, Option<Present>), std::io::Error> {
        match (self.project, self.dir.file_name()) {
            (Some(project), Some(name)) => {
                let (mut current, mut present) = (Current::None, Present::default());
                project.for_each_name_at(name, |n| {
                    current = current.with(n);
                    present.note(n);
                })?;
                Ok((current, Some(present)))
            }
            _ => {
                // The same listing by path: it tells the liveness files
                // too, so a located session's probes skip absent ones.
                let entries = match std::fs::read_dir(self.dir) {
                    Ok(e) => e,
                    // Gone since it was listed: as if never there.
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                        return Ok((Current::None, None));
                    }
                    Err(e) => return Err(e),
                };
                let (mut current, mut present) = (Current::None, Present::default());
                for e in entries.flatten() {
                    let n = e.file_name();
                    current = current.with(n.as_bytes());
                    present.note(n.as_bytes());
                }
                Ok((current, Some(present)))
            }
        }
    }
}

/// `<root>/<project>/<encodeSegment(id)>/session.jsonl[.zstd]` for a header;
/// `None` when the id or cwd cannot name a path.
pub fn expected_log_path(root: &Path, header: &Header, log: LogName) -> Option<PathBuf> {
    Some(expected_session_dir(root, header.id(), header.cwd())?.join(&*log.file_name()))
}

/// The session directory DSH derives for an id and a cwd value.
pub fn expected_session_dir(root: &Path, id: &str, cwd: Option<Member<'_>>) -> Option<PathBuf> {
    let project = match cwd {
        None => project_dir_name(None)?,
        Some(Member::Str(s)) => project_dir_name(Some(s))?,
        Some(Member::Other(_)) => return None,
    };
    Some(root.join(project).join(encode_segment(id)?))
}

/// `JSON.stringify` of a path, as DSH quotes artifact paths.
fn js_quote(path: &Path) -> String {
    serde_json::to_string(&path.to_string_lossy()).unwrap_or_default()
}

#[derive(Clone, Copy, Debug)]
pub enum EntryKind {
    Dir,
    Symlink,
    Other,
}

/// A directory's entry names, sorted, in one buffer: a million session
/// directories cost their names and 5 bytes each, not a string apiece.
/// They are laid out last name first, so the next names to probe are taken
/// off the end and the buffers shrink as the sessions made from them grow:
/// a large project's names are not held beside all of its records.
pub struct Entries {
    names: Vec<u8>,
    /// Where each name starts in `names`, last name first.
    starts: Vec<u32>,
    kinds: Vec<EntryKind>,
}

impl Entries {
    /// The name at position `at` of the layout (last name first).
    fn at(&self, at: usize) -> &[u8] {
        let end = self
            .starts
            .get(at + 1)
            .map_or(self.names.len(), |&s| s as usize);
        &self.names[self.starts[at] as usize..end]
    }

    /// Every entry still held, in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], EntryKind)> {
        (0..self.starts.len())
            .rev()
            .map(|at| (self.at(at), self.kinds[at]))
    }

    /// The next `n` directories in name order (fewer at the end), taken
    /// off: the other entries before them are dropped, and the buffers
    /// give back what they no longer hold.
    pub fn take_dirs(&mut self, n: usize) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        while out.len() < n {
            let Some(start) = self.starts.pop() else {
                break;
            };
            let start = start as usize;
            if let Some(EntryKind::Dir) = self.kinds.pop() {
                out.push(self.names[start..].to_vec());
            }
            self.names.truncate(start);
        }
        // An allocation as large as a big project's names is mapped on its
        // own; shrinking it hands the pages back rather than keeping them
        // beside the records made from them.
        self.names.shrink_to_fit();
        self.starts.shrink_to_fit();
        self.kinds.shrink_to_fit();
        out
    }
}

/// Directory entries sorted by name, classified without following symlinks
/// (DSH's `Dirent.isDirectory()` does not follow them either).
pub fn sorted_entries(dir: &Path) -> std::io::Result<Entries> {
    // As read: each name's start and length beside it, sorted by name,
    // then laid out again in order (the read order is dropped before the
    // records are made).
    let mut names = Vec::new();
    let mut items: Vec<(u32, u16, EntryKind)> = Vec::new();
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let ft = entry.file_type()?;
        let kind = if ft.is_dir() {
            EntryKind::Dir
        } else if ft.is_symlink() {
            EntryKind::Symlink
        } else {
            EntryKind::Other
        };
        let name = entry.file_name();
        let name = name.as_bytes();
        // A file name is at most a few hundred bytes on every file system.
        let Ok(len) = u16::try_from(name.len()) else {
            continue;
        };
        // Four GiB of names in one directory (tens of millions of entries)
        // is refused as a listing error, not held.
        let Ok(start) = u32::try_from(names.len()) else {
            return Err(std::io::Error::new(
                std::io::ErrorKind::OutOfMemory,
                "more than 4 GiB of entry names in one directory",
            ));
        };
        items.push((start, len, kind));
        names.extend_from_slice(name);
    }
    let name = |&(start, len, _): &(u32, u16, EntryKind)| {
        &names[start as usize..start as usize + usize::from(len)]
    };
    // Last name first: the layout is consumed from its end.
    items.sort_unstable_by(|a, b| name(b).cmp(name(a)));
    let mut out = Entries {
        names: Vec::with_capacity(names.len()),
        starts: Vec::with_capacity(items.len()),
        kinds: Vec::with_capacity(items.len()),
    };
    for item in &items {
        // The same bytes as read, whose total fit.
        out.starts.push(out.names.len() as u32);
        out.names.extend_from_slice(name(item));
        out.kinds.push(item.2);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The entries come back in name order whether read whole or taken a
    /// few directories at a time, the other kinds skipped by the taking.
    #[test]
    fn entries_are_taken_in_name_order() {
        let dir = tempfile::tempdir().unwrap();
        let names = ["b", "a", "ab", "z", "0", "é", "B", "aa"];
        for (n, name) in names.iter().enumerate() {
            let path = dir.path().join(name);
            match n % 3 {
                0 | 1 => fs::create_dir(&path).unwrap(),
                _ => fs::write(&path, "").unwrap(),
            }
        }
        std::os::unix::fs::symlink("a", dir.path().join("s")).unwrap();
        let mut sorted: Vec<&str> = names.iter().copied().chain(["s"]).collect();
        sorted.sort();
        let entries = sorted_entries(dir.path()).unwrap();
        let read: Vec<(String, bool)> = entries
            .iter()
            .map(|(n, k)| {
                (
                    String::from_utf8_lossy(n).into_owned(),
                    matches!(k, EntryKind::Dir),
                )
            })
            .collect();
        let want: Vec<(String, bool)> = sorted
            .iter()
            .map(|n| {
                (
                    n.to_string(),
                    dir.path().join(n).symlink_metadata().unwrap().is_dir(),
                )
            })
            .collect();
        assert_eq!(read, want);
        for take in [1, 2, 3, 100] {
            let mut entries = sorted_entries(dir.path()).unwrap();
            let mut taken = Vec::new();
            loop {
                let batch = entries.take_dirs(take);
                assert!(batch.len() <= take);
                if batch.is_empty() {
                    break;
                }
                taken.extend(batch.into_iter().map(|n| String::from_utf8(n).unwrap()));
            }
            let dirs: Vec<String> = want.iter().filter(|w| w.1).map(|w| w.0.clone()).collect();
            assert_eq!(taken, dirs, "taking {take} at a time");
            assert_eq!(entries.iter().count(), 0);
        }
    }
}
