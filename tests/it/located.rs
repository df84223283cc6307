//! Commands that address sessions by exact id locate them by path instead
//! of scanning the store: on every conformance and sample store, each such
//! command, run for every session, prints the same stdout, stderr and exit
//! status and leaves the same files as with the whole store scanned
//! (`DSH_AGENTS_FULL_SCAN=1`).

use crate::common::{TempDir, cmd, conformance_dir, copy_dir, repo};
use std::path::{Path, PathBuf};

/// Every session id of a store, decoded from its directory names (the
/// inverse of DSH's `encodeSegment`).
fn session_ids(store: &Path) -> Vec<String> {
    let mut ids = Vec::new();
    for project in std::fs::read_dir(store).unwrap().flatten() {
        if !project.file_type().unwrap().is_dir() {
            continue;
        }
        for session in std::fs::read_dir(project.path()).unwrap().flatten() {
            if session.file_type().unwrap().is_dir() {
                ids.push(decode_segment(&session.file_name().to_string_lossy()));
            }
        }
    }
    ids.sort();
    ids
}

fn decode_segment(s: &str) -> String {
    let mut units = Vec::new();
    let mut rest = s;
    while let Some(c) = rest.chars().next() {
        if c == '~' && rest.len() >= 5 {
            units.push(u16::from_str_radix(&rest[1..5], 16).unwrap());
            rest = &rest[5..];
        } else {
            units.push(c as u16);
            rest = &rest[c.len_utf8()..];
        }
    }
    String::from_utf16_lossy(&units)
}

/// What the command sequence printed, with the store path made neutral,
/// and the files it left (caches aside: they are what differs by design).
fn transcript(
    store: &Path,
    ids: &[String],
    names: &[String],
    cache: Option<&Path>,
) -> (Vec<String>, Vec<PathBuf>) {
    let s = store.to_str().unwrap();
    let mut out = Vec::new();
    let run = |argv: &[&str]| {
        let mut c = cmd();
        c.arg("--store").arg(s).args(argv);
        match cache {
            None => c.env("DSH_AGENTS_FULL_SCAN", "1"),
            Some(dir) => c.env("DSH_AGENTS_CACHE_DIR", dir),
        };
        let o = c.output().unwrap();
        let text = format!(
            "$ {}\n{}--- stderr\n{}--- exit {:?}",
            argv.join(" "),
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr),
            o.status.code()
        );
        neutral(&text, s)
    };
    // v2 names resolve in the caller's tree: every name from every caller,
    // through the name index or through a scan.
    for (n, x) in ids.iter().enumerate() {
        let by_id = &ids[(n + 1) % ids.len()];
        for name in names.iter().chain([by_id]) {
            out.push(run(&["send-message", name, "hi", "--as", x]));
        }
        for name in names.iter().step_by(2) {
            out.push(run(&["interrupt-agent", name, "--as", x]));
        }
    }
    for (n, x) in ids.iter().enumerate() {
        let other = &ids[(n + 1) % ids.len()];
        let mid = format!("m-{n}");
        let argvs: Vec<Vec<&str>> = vec![
            vec!["identity", "--as", x],
            vec!["--json", "identity", "--as", x],
            vec!["inbox", x],
            vec!["log", x, "--last", "2"],
            vec![
                "--contract",
                "v1",
                "send-message",
                x,
                "hi",
                "--as",
                other,
                "--id",
                &mid,
            ],
            vec!["--contract", "v1", "interrupt-agent", other, "--as", x],
            vec!["subagent-send-message", other, "hey", "--as", x],
            vec!["subagent-parent-message", "up", "--as", x],
            vec!["followup", x, "next"],
            vec!["steer", x, "now"],
            vec!["interrupt", x],
            vec!["trace", &mid, "--to", x],
            vec!["cancel", &mid, "--to", x],
            // Returns at once on the steer's pending input (skipped when
            // the steer was refused: it would wait out its timeout).
            vec!["wait-agent", "--as", x, "--timeout-ms", "10000"],
            vec!["claim", "--as", x],
            vec!["inbox", x],
        ];
        let mut steered = false;
        for argv in argvs {
            if argv[0] == "wait-agent" && !steered {
                continue;
            }
            let text = run(&argv);
            if argv[0] == "steer" {
                steered = text.ends_with("--- exit Some(0)");
            }
            out.push(text);
        }
    }
    let mut files = Vec::new();
    list_files(store, store, &mut files);
    (out, files)
}

/// Message ids and record times vary between runs; the rest must not.
fn neutral(text: &str, store: &str) -> String {
    let text = without_times(&text.replace(store, "<store>"));
    let mut out = String::new();
    for word in text.split_inclusive(char::is_whitespace) {
        let w = word.trim_end();
        let uuid_like = w.len() >= 36
            && w.chars().filter(|c| *c == '-').count() >= 4
            && w.chars().any(|c| c.is_ascii_digit());
        if uuid_like && !w.starts_with('<') {
            out.push_str("<id>");
            out.push_str(&word[w.len()..]);
        } else {
            out.push_str(word);
        }
    }
    out
}

/// ISO times (`2026-12-03T07:03:13.822Z`) made neutral.
fn without_times(text: &str) -> String {
    const MASK: &[u8] = b"dddd-dd-ddTdd:dd:dd.dddZ";
    let b = text.as_bytes();
    let fits = |at: usize| {
        b.len() >= at + MASK.len()
            && MASK.iter().zip(&b[at..]).all(|(m, c)| match m {
                b'd' => c.is_ascii_digit(),
                m => m == c,
            })
    };
    let (mut out, mut at) = (Vec::new(), 0);
    while at < b.len() {
        if fits(at) {
            out.extend_from_slice(b"<time>");
            at += MASK.len();
        } else {
            out.push(b[at]);
            at += 1;
        }
    }
    String::from_utf8(out).unwrap()
}

fn list_files(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name();
        if name == "scan.cache" || name == "inbox.state" {
            continue;
        }
        let path = e.path();
        out.push(path.strip_prefix(root).unwrap().to_path_buf());
        if e.file_type().unwrap().is_dir() {
            list_files(root, &path, out);
        }
    }
}

/// Every v2 name the store's trees give, each last step alone, and names
/// no session has.
fn v2_names(store: &Path) -> Vec<String> {
    let o = cmd()
        .args([
            "--store",
            store.to_str().unwrap(),
            "--json",
            "tree",
            "--all",
        ])
        .env("DSH_AGENTS_FULL_SCAN", "1")
        .output()
        .unwrap();
    let mut names = vec!["lead".to_string(), "nobody".to_string(), "a/b".to_string()];
    if let Ok(serde_json::Value::Array(trees)) = serde_json::from_slice(&o.stdout) {
        for t in trees {
            for m in t["members"].as_array().into_iter().flatten() {
                if let Some(n) = m["name"].as_str() {
                    names.push(n.to_string());
                    names.extend(n.rsplit('/').next().map(str::to_string));
                }
            }
        }
    }
    names.sort();
    names.dedup();
    names
}

/// Make a store's directories look untouched for an hour, as a store is
/// between commands (the name index trusts only settled mtimes).
fn age(dir: &Path) {
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    let times = std::fs::FileTimes::new()
        .set_modified(old)
        .set_accessed(old);
    std::fs::File::open(dir).unwrap().set_times(times).unwrap();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        if e.file_type().unwrap().is_dir() {
            std::fs::File::open(e.path())
                .unwrap()
                .set_times(times)
                .unwrap();
        }
    }
}

fn stores() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    for contract in ["v1", "v2"] {
        let base = conformance_dir().join(contract).join("stores");
        for e in std::fs::read_dir(base).unwrap().flatten() {
            dirs.push(e.path());
        }
    }
    for e in std::fs::read_dir(repo().join("testdata").join("stores"))
        .unwrap()
        .flatten()
    {
        if e.file_type().unwrap().is_dir() {
            dirs.push(e.path());
        }
    }
    dirs.sort();
    dirs
}

#[test]
fn located_commands_answer_as_the_full_scan_does() {
    let stores = stores();
    assert!(
        stores.len() >= 20,
        "expected every conformance and sample store"
    );
    let (mut compared, mut indexed) = (0, 0);
    for src in stores {
        let ids = session_ids(&src);
        if ids.is_empty() {
            continue;
        }
        let names = v2_names(&src);
        // Both ways at once, each on its own copy (outputs name the store
        // only as `<store>`).
        let tmp = crate::common::temp_dir("located");
        let cache = tmp.path().join("cache");
        let one_way = |tag: &str, cache: Option<&Path>| {
            let store = tmp.path().join(tag);
            copy_dir(&src, &store);
            age(&store);
            transcript(&store, &ids, &names, cache)
        };
        let (located, scanned) = std::thread::scope(|s| {
            let located = s.spawn(|| one_way("a", Some(&cache)));
            let scanned = one_way("b", None);
            (located.join().unwrap(), scanned)
        });
        for (a, b) in located.0.iter().zip(&scanned.0) {
            assert_eq!(a, b, "store {}: located vs scanned", src.display());
        }
        assert_eq!(located.0.len(), scanned.0.len());
        assert_eq!(located.1, scanned.1, "files left in {}", src.display());
        compared += located.0.len();
        indexed += usize::from(cache.join("stores").is_dir());
    }
    assert!(compared > 2000, "only {compared} commands compared");
    assert!(
        indexed >= 10,
        "the name index was built for only {indexed} stores"
    );
}

/// A store-wide fault elsewhere does not stop a command that addresses a
/// healthy session by id (the listings and `check` still report it), while
/// a fault in the addressed session's own directory fails it as a scan does.
#[test]
fn located_commands_check_what_they_read() {
    use crate::common::StoreBuilder;
    let tmp = StoreBuilder::new("located-faults")
        .root("lead")
        .child("kid", 2, "lead", "a kid")
        .build();
    let store = tmp.path();
    // A flat-file artifact in the project fails every listing.
    std::fs::write(store.join("_no-cwd").join("stray.jsonl"), "{}\n").unwrap();
    let s = store.to_str().unwrap();
    let listing = cmd().args(["--store", s, "tree"]).output().unwrap();
    assert_ne!(
        listing.status.code(),
        Some(0),
        "tree must fail on the flat file"
    );
    let send = cmd()
        .args(["--store", s, "followup", "kid", "hello"])
        .output()
        .unwrap();
    assert_eq!(
        send.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&send.stderr)
    );
    let scanned = cmd()
        .args(["--store", s, "followup", "kid", "hello"])
        .env("DSH_AGENTS_FULL_SCAN", "1")
        .output()
        .unwrap();
    assert_ne!(scanned.status.code(), Some(0));
    // A header whose id does not match its directory is fatal when read.
    let odd = store.join("_no-cwd").join("kid").join("session.jsonl");
    let text = std::fs::read_to_string(&odd).unwrap();
    std::fs::write(&odd, text.replacen("\"kid\"", "\"other\"", 1)).unwrap();
    std::fs::remove_file(store.join("_no-cwd").join("stray.jsonl")).unwrap();
    let before = crate::common::snapshot(store);
    assert_at!(store, &["followup", "kid", "again"], @r#"
        $ dsh-agents followup kid again
        --- stderr
        Error: corrupt session log "[STORE]/_no-cwd/kid/session.jsonl": header id "other" and cwd identify "[STORE]/_no-cwd/other/session.jsonl"
        --- exit: 3
    "#);
    assert_eq!(before, crate::common::snapshot(store), "nothing written");
}

/// A command whose rules look only at the session it names (an operator's
/// `followup`, `steer`, `inbox`; a v1 send from the parent) does not read
/// the chain above it: an unreadable grandparent log (a FIFO) stops none of
/// them, while a v2 send, whose membership rules look up to the root, still
/// names that log.
#[test]
fn commands_read_no_more_of_the_ancestry_than_their_rules_need() {
    use crate::common::StoreBuilder;
    let tmp = StoreBuilder::new("located-ancestry")
        .root("lead")
        .child("mid", 2, "lead", "a middle agent")
        .child("kid", 2, "mid", "a kid")
        .build();
    let store = tmp.path();
    let s = store.to_str().unwrap();
    let lead_log = store.join("_no-cwd").join("lead").join("session.jsonl");
    std::fs::remove_file(&lead_log).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(&lead_log)
        .status()
        .unwrap();
    assert!(made.success());
    for argv in [
        vec!["followup", "kid", "hello"],
        vec!["steer", "kid", "hello"],
        vec!["inbox", "kid"],
        vec![
            "--contract",
            "v1",
            "send-message",
            "--as",
            "mid",
            "kid",
            "hi",
        ],
    ] {
        let r = cmd().arg("--store").arg(s).args(&argv).output().unwrap();
        assert_eq!(
            r.status.code(),
            Some(0),
            "{argv:?}: {}",
            String::from_utf8_lossy(&r.stderr)
        );
    }
    assert_at!(store, &["send-message", "--as", "mid", "kid", "hi"], @r#"
        $ dsh-agents send-message --as mid kid hi
        --- stderr
        Error: cannot read session log "[STORE]/_no-cwd/lead/session.jsonl": not a regular file
        --- exit: 3
    "#);
}

/// A named continuable child's log lines.
fn named_child(id: &str, parent: &str, name: &str) -> Vec<String> {
    use crate::common::fixture;
    let mut header = fixture::child(id, 5, parent);
    header["name"] = name.into();
    vec![header.to_string(), fixture::descriptor(0, name).to_string()]
}

/// A store of `lead` and its child `kid` (kid-1), and an empty cache.
fn lead_and_kid(tag: &str) -> (TempDir, TempDir) {
    let tmp = crate::common::StoreBuilder::new(tag).root("lead").build();
    crate::common::write_log(
        tmp.path(),
        "_no-cwd",
        "kid-1",
        &named_child("kid-1", "lead", "kid"),
    );
    (tmp, crate::common::temp_dir(&format!("{tag}-cache")))
}

fn send(store: &Path, cache: &Path, name: &str, extra: &[&str]) -> (Option<i32>, String) {
    let o = cmd()
        .args(["--store", store.to_str().unwrap()])
        .args(extra)
        .args(["send-message", name, "hi", "--as", "lead"])
        .env("DSH_AGENTS_CACHE_DIR", cache)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    (o.status.code(), text)
}

/// The name index is what answers once built (a fault a scan fails on, in
/// a file whose change no mtime shows, does not stop it), and it is never
/// believed past what it cannot see: a new session, a log published into a
/// directory that had none.
#[test]
fn the_name_index_answers_only_what_a_scan_would() {
    use crate::common::{StoreBuilder, write_log};
    let tmp = StoreBuilder::new("name-index")
        .root("lead")
        .session("kid-1", &[])
        .build();
    let store = tmp.path();
    let cache = crate::common::temp_dir("name-index-cache");
    write_log(
        store,
        "_no-cwd",
        "kid-1",
        &named_child("kid-1", "lead", "kid"),
    );
    // A session directory whose log is not there yet.
    std::fs::create_dir_all(store.join("_no-cwd").join("late-1")).unwrap();
    age(store);
    assert_eq!(send(store, cache.path(), "kid", &[]).0, Some(0));
    assert!(cache.path().join("stores").is_dir(), "the index was built");
    // A header identity mismatch elsewhere: fatal to a scan, invisible to
    // every mtime the index checks.
    let other = write_log(store, "_no-cwd", "other-1", &["{}"]);
    age(store);
    assert_eq!(send(store, cache.path(), "kid", &[]).0, Some(0));
    std::fs::write(
        &other,
        format!("{}\n", crate::common::fixture::root("someone-else", 1)),
    )
    .unwrap();
    let (code, text) = send(store, cache.path(), "kid", &[]);
    assert_eq!(code, Some(0), "the index answered: {text}");
    let (code, text) = send(store, cache.path(), "kid", &["--no-cache"]);
    assert_eq!(code, Some(3), "a scan sees the fault: {text}");
    std::fs::write(
        &other,
        format!("{}\n", crate::common::fixture::root("other-1", 1)),
    )
    .unwrap();
    // The log published later is found by its name.
    let late = named_child("late-1", "lead", "late").join("\n") + "\n";
    std::fs::write(store.join("_no-cwd/late-1/session.jsonl"), late).unwrap();
    let (code, text) = send(store, cache.path(), "late", &[]);
    assert_eq!(code, Some(0), "{text}");
    // A new session (its project's mtime moves) is found too.
    write_log(
        store,
        "_no-cwd",
        "new-1",
        &named_child("new-1", "lead", "fresh"),
    );
    let (code, text) = send(store, cache.path(), "fresh", &[]);
    assert_eq!(code, Some(0), "{text}");
    // Removed: the name no longer resolves.
    std::fs::remove_dir_all(store.join("_no-cwd/kid-1")).unwrap();
    let (code, text) = send(store, cache.path(), "kid", &[]);
    assert_ne!(code, Some(0), "{text}");
    assert!(text.contains("no agent named \"kid\""), "{text}");
}

/// A new session costs the index a scan of its own project only: a fault
/// in another project, which a scan of the whole store fails on, stays
/// unseen, while the new name resolves; the store's own answer is the scan's.
#[test]
fn a_new_session_rescans_only_its_project() {
    use crate::common::write_log;
    let (tmp, cache) = lead_and_kid("name-index-project");
    let store = tmp.path();
    // Not a header yet: a scan skips it.
    let other = write_log(store, "zz-elsewhere", "other-1", &["{}"]);
    age(store);
    assert_eq!(send(store, cache.path(), "kid", &[]).0, Some(0));
    // Now a header whose id and cwd name another path: fatal to a scan,
    // and no directory's mtime moves.
    std::fs::write(
        &other,
        format!("{}\n", crate::common::fixture::root("other-1", 1)),
    )
    .unwrap();
    write_log(
        store,
        "_no-cwd",
        "new-1",
        &named_child("new-1", "lead", "fresh"),
    );
    for _ in 0..2 {
        let (code, text) = send(store, cache.path(), "fresh", &[]);
        assert_eq!(code, Some(0), "only _no-cwd was scanned again: {text}");
    }
    let (code, text) = send(store, cache.path(), "fresh", &["--no-cache"]);
    assert_eq!(code, Some(3), "a scan sees the fault: {text}");
    // The other project changing makes it scanned, and its fault seen.
    std::fs::create_dir_all(store.join("zz-elsewhere").join("late-2")).unwrap();
    let (code, text) = send(store, cache.path(), "kid", &[]);
    assert_eq!(code, Some(3), "{text}");
}

/// A cache directory inside the store is never written: DSH would take it
/// for a project.
#[test]
fn a_cache_inside_the_store_is_not_used() {
    use crate::common::{StoreBuilder, snapshot, write_log};
    let tmp = StoreBuilder::new("name-index-inside").root("lead").build();
    let store = tmp.path();
    write_log(
        store,
        "_no-cwd",
        "kid-1",
        &named_child("kid-1", "lead", "kid"),
    );
    age(store);
    let inside = store.join("_no-cwd");
    let (code, text) = send(store, &inside, "kid", &[]);
    assert_eq!(code, Some(0), "{text}");
    let written: Vec<PathBuf> = snapshot(store)
        .into_iter()
        .map(|f| f.0)
        .filter(|p| p.starts_with(inside.join("stores")) || p.ends_with("names.idx"))
        .collect();
    assert!(
        written.is_empty(),
        "the index was written in the store: {written:?}"
    );
    // The same command with the cache outside builds it there.
    let outside = crate::common::temp_dir("name-index-outside");
    assert_eq!(send(store, outside.path(), "kid", &[]).0, Some(0));
    assert!(outside.path().join("stores").is_dir());
}

/// A cache may skip work, never change an answer: a session restored with
/// its project's mtime set back (as `cp -a` and `rsync -a` leave it), a FIFO
/// planted as the index, a link planted at its temporary name, and a cache
/// that reaches the store through a link or `..`.
#[test]
fn a_tampered_or_fooled_cache_answers_as_a_scan() {
    use crate::common::{snapshot, write_log};
    let (tmp, cache) = lead_and_kid("name-index-tamper");
    let store = tmp.path();
    age(store);
    assert_eq!(send(store, cache.path(), "kid", &[]).0, Some(0));
    // Restored: the project directory's mtime is set back after the copy.
    let project = store.join("_no-cwd");
    let old = std::fs::metadata(&project).unwrap().modified().unwrap();
    write_log(
        store,
        "_no-cwd",
        "back-1",
        &named_child("back-1", "lead", "restored"),
    );
    std::fs::File::open(&project)
        .unwrap()
        .set_times(std::fs::FileTimes::new().set_modified(old))
        .unwrap();
    assert_eq!(
        std::fs::metadata(&project).unwrap().modified().unwrap(),
        old
    );
    let (code, text) = send(store, cache.path(), "restored", &[]);
    assert_eq!(code, Some(0), "the restored session is found: {text}");
    // A FIFO where the index was: answered without hanging.
    let idx = walk_for(cache.path(), "names.idx").expect("the index was built");
    std::fs::remove_file(&idx).unwrap();
    crate::common::mkfifo(&idx);
    let (code, text) = send(store, cache.path(), "kid", &[]);
    assert_eq!(code, Some(0), "{text}");
    // A link planted at the rewrite's temporary name is not written through.
    std::fs::remove_file(&idx).unwrap();
    let victim = cache.path().join("victim");
    std::fs::write(&victim, "keep").unwrap();
    let dir = idx.parent().unwrap();
    for pid in 0..64 {
        let _ = std::os::unix::fs::symlink(&victim, dir.join(format!("names.tmp{pid}")));
    }
    let _ = std::fs::remove_file(dir.join("state.json"));
    age(store);
    let (code, text) = send(store, cache.path(), "kid", &[]);
    assert_eq!(code, Some(0), "{text}");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
    // A cache inside the store, named through a link to the store or `..`.
    let link = crate::common::temp_dir("name-index-link");
    let via = link.path().join("store");
    std::os::unix::fs::symlink(store, &via).unwrap();
    for inside in [
        via.join("_no-cwd/cache"),
        store.join("_no-cwd/../_no-cwd/cache"),
    ] {
        let (code, text) = send(store, &inside, "kid", &[]);
        assert_eq!(code, Some(0), "{text}");
        let cached: Vec<PathBuf> = snapshot(store)
            .into_iter()
            .map(|f| f.0)
            .filter(|p| p.starts_with(store.join("_no-cwd/cache")))
            .collect();
        assert!(
            cached.is_empty(),
            "a cache was written in the store: {cached:?}"
        );
    }
}

fn walk_for(dir: &Path, name: &str) -> Option<PathBuf> {
    for e in std::fs::read_dir(dir).ok()?.flatten() {
        let p = e.path();
        if p.file_name().is_some_and(|n| n == name) {
            return Some(p);
        }
        if p.is_dir()
            && let Some(found) = walk_for(&p, name)
        {
            return Some(found);
        }
    }
    None
}

/// A scan cache that would say what it says already is not rewritten: a
/// second send over unchanged logs replaces no `scan.cache`.
#[test]
fn an_unchanged_scan_cache_is_not_rewritten() {
    use std::os::unix::fs::MetadataExt;
    let store = crate::common::copy_store(
        &crate::common::repo().join("testdata/stores/team"),
        "cache-same",
    );
    let s = store.path();
    let caches = || -> Vec<(PathBuf, u64)> {
        let mut out = Vec::new();
        for p in std::fs::read_dir(s.join("_no-cwd")).unwrap().flatten() {
            if let Ok(m) = std::fs::metadata(p.path().join("scan.cache")) {
                out.push((p.path(), m.ino()));
            }
        }
        out.sort();
        out
    };
    let send = |text: &str| {
        let r = crate::common::run_in(
            s,
            &["send-message", "--as", "lead-1", "reviewer/checker", text],
        );
        assert_eq!(r.code, 0, "{}", r.stderr);
    };
    send("one");
    let first = caches();
    assert!(!first.is_empty(), "the first send left caches");
    send("two");
    assert_eq!(caches(), first, "the second send replaced no cache");
}

/// A spawn takes its session into a current name index, so the next send
/// by its name needs no rescan of the project; what the index answers is
/// what a scan answers.
#[test]
fn a_spawn_takes_its_session_into_the_name_index() {
    let (tmp, cache) = lead_and_kid("name-index-spawn");
    let store = tmp.path();
    age(store);
    assert_eq!(send(store, cache.path(), "kid", &[]).0, Some(0));
    let idx = walk_for(cache.path(), "names.idx").expect("the index was built");
    let before = std::fs::read(&idx).unwrap();
    let out = cmd()
        .args([
            "--store",
            store.to_str().unwrap(),
            "spawn",
            "--parent",
            "lead",
            "--name",
            "fresh",
            "--id",
            "fresh-1",
        ])
        .env("DSH_AGENTS_CACHE_DIR", cache.path())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let after = std::fs::read(&idx).unwrap();
    // On every file system, whether or not its link counts count
    // subdirectories.
    assert!(
        memchr::memmem::find(&after, b"fresh-1").is_some() && after != before,
        "the spawn took its session into the index"
    );
    for extra in [&[][..], &["--no-cache"][..]] {
        let (code, text) = send(store, cache.path(), "fresh", extra);
        assert_eq!(code, Some(0), "{extra:?}: {text}");
    }
    // With no cache, a spawn touches no index.
    let out = cmd()
        .args([
            "--store",
            store.to_str().unwrap(),
            "--no-cache",
            "spawn",
            "--parent",
            "lead",
            "--name",
            "quiet",
            "--id",
            "quiet-1",
        ])
        .env("DSH_AGENTS_CACHE_DIR", cache.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(memchr::memmem::find(&std::fs::read(&idx).unwrap(), b"quiet-1").is_none());
    let (code, text) = send(store, cache.path(), "quiet", &[]);
    assert_eq!(
        code,
        Some(0),
        "the index sees the change and rescans: {text}"
    );
}

/// `DSH_AGENTS_DEBUG=1` says on stderr, in one line, which road a command
/// took into the store and why it fell back to the whole store; stdout is
/// the same either way.
#[test]
fn debug_names_the_plan_a_command_took() {
    let tmp =
        crate::common::copy_store(&crate::common::repo().join("testdata/stores/team"), "plan");
    let s = tmp.path().to_str().unwrap();
    for (args, want) in [
        (
            vec!["inbox", "rev-0001"],
            "debug: plan: located rev-0001 by path",
        ),
        (
            vec!["inbox", "rev-"],
            "debug: plan: whole store: a session is not an exact id found by its path",
        ),
        (
            vec!["tree"],
            "debug: plan: whole store: a tree shows every session",
        ),
        (
            vec![
                "--no-cache",
                "send-message",
                "reviewer",
                "hi",
                "--as",
                "lead-1",
                "--id",
                "plan-1",
            ],
            "debug: plan: whole store: no name index (--no-cache)",
        ),
        (
            vec!["trace", "plan-1"],
            "debug: plan: whole store: no --to: every inbox is searched",
        ),
    ] {
        let mut argv = vec!["--store", s];
        argv.extend(&args);
        let with = crate::common::run_env(&argv, &[("DSH_AGENTS_DEBUG", "1")]);
        let plans: Vec<&str> = with
            .stderr
            .lines()
            .filter(|l| l.starts_with("debug: plan: "))
            .collect();
        assert_eq!(plans.len(), 1, "{args:?}: {}", with.stderr);
        assert!(plans[0].starts_with(want), "{args:?}: {}", with.stderr);
        if args[0] != "--no-cache" {
            let without = crate::common::run(&argv);
            assert_eq!(with.stdout, without.stdout, "{args:?}");
            assert!(!without.stderr.contains("debug:"), "{args:?}");
        }
    }
}
