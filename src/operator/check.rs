//! `check`: verify the whole store and report every problem with its path.

use crate::error::Result;
use crate::inbox::Inbox;
use crate::inbox::lock::INBOX;
use crate::tree::Corpus;
use dsh_store::log::inspect;
use dsh_store::log::{InLog, LogMessages};
use dsh_store::{self as store, Plan, Store};
use serde::Serialize;
use std::path::Path;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// DSH itself fails or refuses on this, or a promise was broken (an
    /// acknowledged message ran twice).
    Error,
    /// DSH copes (skips or lists a diagnostic), but something is wrong.
    Warning,
}

#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    pub severity: Severity,
    /// A stable name of the kind of problem (`duplicate-id`, `parent-cycle`,
    /// ...), for scripts: the message's wording may change, this does not.
    pub code: &'static str,
    pub path: String,
    pub message: String,
}

/// How many sessions' own checks run at once (in parallel): what `check`
/// holds of its findings grows with this, never with the store (a million
/// unreadable logs held every finding, 774 MiB).
const CHECK_AT_ONCE: usize = 4096;

/// Every problem in the store, in a stable order, handed to `each` as it
/// is found; the number of sessions and of problems.
pub fn check_to(root: &Path, each: &mut dyn FnMut(&Finding)) -> Result<(usize, usize)> {
    let store = store::open(root, Plan::SurveyNonEmpty)?;
    let mut count = 0usize;
    let mut emit = |f: Finding| {
        count += 1;
        each(&f);
    };
    for p in &store.problems {
        emit(Finding {
            // A session this build cannot read is an error, never "ok".
            severity: if p.fatal || store.unsupported.iter().any(|(d, _)| p.path.starts_with(d)) {
                Severity::Error
            } else {
                Severity::Warning
            },
            code: p.code.as_str(),
            path: p.path.display().to_string(),
            message: p.message.clone(),
        });
    }
    // Each session's own checks read its files only: run them in parallel,
    // a batch at a time, keeping the store's order.
    let n = store.sessions.len();
    let mut start = 0usize;
    while start < n {
        let end = n.min(start + CHECK_AT_ONCE);
        let batch = crate::support::parallel::par_flat_map(end - start, |k| {
            session_findings(&store, start + k)
        });
        for f in batch {
            emit(f);
        }
        start = end;
    }
    let mut push = |severity, code: &'static str, path: &Path, message: String| {
        emit(Finding {
            severity,
            code,
            path: path.display().to_string(),
            message,
        });
    };
    // parentSession cycles, each reported once at its smallest id. Every
    // session is walked once: O(N) whatever the depth.
    let corpus = Corpus::new(&store);
    let n = store.sessions.len();
    // A session's walk state: unseen, done, or its place on the path
    // walked now (4 bytes a session).
    const UNSEEN: u32 = u32::MAX;
    const DONE: u32 = u32::MAX - 1;
    let mut state = vec![UNSEEN; n];
    for start in 0..n {
        let mut path: Vec<usize> = Vec::new();
        let mut current = Some(start);
        while let Some(c) = current {
            match state[c] {
                DONE => break,
                UNSEEN => {
                    state[c] = path.len() as u32;
                    path.push(c);
                    current = corpus.parent_of(c);
                }
                on_path => {
                    let mut ids: Vec<&str> = path[on_path as usize..]
                        .iter()
                        .map(|i| corpus.id(*i))
                        .collect();
                    ids.sort();
                    let first = store.index_of(ids[0]).unwrap_or(c);
                    push(
                        Severity::Error,
                        "parent-cycle",
                        &store.sessions.record(first).log(),
                        format!("parentSession cycle: {}", ids.join(" -> ")),
                    );
                    break;
                }
            }
        }
        for i in path {
            state[i] = DONE;
        }
    }
    drop(state);
    // Duplicate sibling names make a name ambiguous: each child whose name
    // an earlier sibling has is reported beside the latest such sibling.
    // Siblings are sorted by name as their places in the parent's child
    // list (4 bytes each), not hashed with their names: a million siblings
    // under one parent cost 4 MB, not 100 (and not the 8 a growing list
    // may take on its way there: it is sized first).
    for parent in 0..n {
        let children = corpus.children_at(parent);
        let child = |k: u32| children[k as usize].get();
        let name = |k: u32| store.sessions.valid_name(child(k)).unwrap_or_default();
        let siblings = || {
            (0..children.len() as u32).filter(|&k| {
                store.sessions.origin_subagent(child(k))
                    && store.sessions.valid_name(child(k)).is_some()
            })
        };
        let mut named: Vec<u32> = Vec::with_capacity(siblings().count());
        named.extend(siblings());
        named.sort_unstable_by(|&a, &b| name(a).cmp(name(b)).then(a.cmp(&b)));
        let mut clashes: Vec<(u32, usize, usize)> = named
            .windows(2)
            .filter(|w| name(w[0]) == name(w[1]))
            .map(|w| (w[1], child(w[1]), child(w[0])))
            .collect();
        clashes.sort_unstable();
        for (_, child, earlier) in clashes {
            let name = store.sessions.valid_name(child).unwrap_or_default();
            let other = store.sessions.id(earlier);
            push(
                Severity::Warning,
                "ambiguous-name",
                &store.sessions.record(child).log(),
                format!(
                    "sibling name \"{name}\" under \"{}\" is used by \"{other}\" and \"{}\"; it is ambiguous",
                    store.sessions.id(parent),
                    store.sessions.id(child)
                ),
            );
        }
    }
    Ok((n, count))
}

/// The problems of one session that its own files show. The liveness
/// files and the inbox the store's listing of its directory saw absent are
/// not looked for again (the snapshot every view of the store takes).
fn session_findings(store: &Store, i: usize) -> Vec<Finding> {
    let rec = &store.sessions.record(i);
    let present = store.sessions.present(i);
    let mut findings = Vec::new();
    let mut push = |severity, code: &'static str, path: &Path, message: String| {
        findings.push(Finding {
            severity,
            code,
            path: path.display().to_string(),
            message,
        });
    };
    let h = &rec.header;
    if let crate::inbox::liveness::Liveness::Unknown =
        crate::inbox::liveness::probe_listed(&rec.dir(), present)
    {
        let (code, why) = match crate::inbox::liveness::dsh_without_bridge(&rec.dir()) {
            Some(pid) => (
                "resident-without-bridge",
                format!(
                    "session \"{}\" is resident in DSH pid {pid} without a bridge (it died; the plugin starts another): until one holds it, nothing keeps another writer off its log",
                    h.id()
                ),
            ),
            None => (
                "liveness-unknown",
                format!(
                    "the liveness of session \"{}\" cannot be probed (its lock file cannot be opened): it may be live",
                    h.id()
                ),
            ),
        };
        push(Severity::Error, code, &rec.dir().join("live.lock"), why);
    }
    match inspect(&rec.log()) {
        Err(reason) => push(
            Severity::Error,
            "log-unreadable",
            &rec.log(),
            format!("unreadable session log: {reason}"),
        ),
        Ok(i) => {
            if let Some(why) = &i.native.error {
                push(
                    Severity::Error,
                    "dsh-cannot-resume",
                    &rec.log(),
                    format!("DSH cannot resume session \"{}\": {why}", h.id()),
                );
            }
            if h.origin_subagent && i.rc8.is_none() && i.seed001.is_none() {
                push(
                    Severity::Warning,
                    "no-descriptor",
                    &rec.log(),
                    format!(
                        "subagent session \"{}\" has no valid subagent/descriptor; it lists as corrupt",
                        h.id()
                    ),
                );
            }
        }
    }
    if let Ok(meta) = std::fs::symlink_metadata(rec.log()) {
        use std::os::unix::fs::MetadataExt;
        if meta.file_type().is_symlink() {
            push(
                Severity::Warning,
                "log-symlink",
                &rec.log(),
                "the session log is a symbolic link: DSH reads through it; dsh-agents never writes through it (serve refuses this session)".to_string(),
            );
        } else if meta.nlink() > 1 {
            push(
                Severity::Warning,
                "log-hard-links",
                &rec.log(),
                format!(
                    "the session log has {} hard links: dsh-agents never writes it (serve refuses this session)",
                    meta.nlink()
                ),
            );
        }
    }
    if let Some(name) = h.name()
        && h.valid_name().is_none()
    {
        push(
            Severity::Warning,
            "invalid-name",
            &rec.log(),
            format!("header name \"{name}\" is not a valid agent name; it is ignored"),
        );
    }
    if !store.sessions.inbox_seen_absent(i) {
        let fold = match Inbox::new(&rec.dir()).read() {
            Err(e) => {
                push(
                    Severity::Error,
                    "inbox-unreadable",
                    &rec.dir().join(INBOX),
                    format!("unreadable inbox: {}", e),
                );
                None
            }
            Ok(fold) => {
                if fold.bad_lines > 0 {
                    push(
                        Severity::Error,
                        "inbox-bad-lines",
                        &rec.dir().join(INBOX),
                        format!("{} complete line(s) are not inbox records", fold.bad_lines),
                    );
                }
                Some(fold)
            }
        };
        // Only a session with an inbox was ever handed a message by us.
        if let Ok(log) = LogMessages::read(&rec.log()) {
            // A copy queued in DSH's own inbox of a subagent no DSH process
            // holds runs only when a bridge resumes it through its parent:
            // with no parent in the store, or a parent `serve` holds (it
            // resumes no DSH child), nothing ever will.
            let queued: Vec<String> = fold
                .as_ref()
                .map(|f| {
                    f.claimable()
                        .iter()
                        .filter(|m| log.state(&m.id) == InLog::DshPending)
                        .map(|m| m.id.clone())
                        .collect()
                })
                .unwrap_or_default();
            let stranded = h.origin_subagent
                && !queued.is_empty()
                && !crate::inbox::liveness::probe(&rec.dir()).is_live()
                && h.parent().is_none_or(|p| {
                    store.get(p).is_none_or(|parent| {
                        let dir = parent.dir();
                        crate::inbox::liveness::probe(&dir).is_live()
                            && !crate::inbox::liveness::held_by_bridge(&dir)
                    })
                });
            if stranded {
                push(
                    Severity::Error,
                    "stranded-in-dsh-inbox",
                    &rec.log(),
                    format!(
                        "message(s) {} to session \"{}\" wait in DSH's own inbox, and nothing will resume it: DSH resumes a subagent only through its parent, which is {}",
                        queued.join(", "),
                        h.id(),
                        match h.parent().and_then(|p| store.get(p)) {
                            None => "not in the store".to_string(),
                            Some(p) => format!("held by `serve` ({})", p.header.id()),
                        }
                    ),
                );
            }
            let twice = log.twice();
            if !twice.is_empty() {
                push(
                    Severity::Error,
                    "delivered-twice",
                    &rec.log(),
                    format!(
                        "the model of session \"{}\" was given the same message more than once: {}",
                        h.id(),
                        twice.join(", ")
                    ),
                );
            }
        }
    }
    let left = dsh_store::files::leftovers(&rec.dir(), None);
    if !left.is_empty() {
        push(
            Severity::Warning,
            "leftover-temp",
            &rec.dir(),
            format!(
                "{} temporary file(s) a writer killed mid-write left ({}); the next writer that takes the lock removes them",
                left.len(),
                left.join(", ")
            ),
        );
    }
    if let Some(parent) = h.parent()
        && store.get(parent).is_none()
    {
        push(
            Severity::Warning,
            "parent-missing",
            &rec.log(),
            format!(
                "parentSession \"{parent}\" of \"{}\" is not in the store",
                h.id()
            ),
        );
    }
    findings
}

/// One problem as `check` prints it.
pub fn line(f: &Finding) -> String {
    let word = match f.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
    format!("{word}: {}: {}", f.path, f.message)
}

/// `check`'s last line: the store is fine, or how many problems it has.
pub fn summary(sessions: usize, problems: usize) -> String {
    if problems == 0 {
        format!("ok: {sessions} sessions, no problems")
    } else {
        format!("{problems} problem(s) in {sessions} sessions")
    }
}
