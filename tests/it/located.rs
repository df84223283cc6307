//! Commands that address sessions by exact id locate them by path instead
//! of scanning the store: on every conformance and sample store, each such
//! command, run for every session, prints the same stdout, stderr and exit
//! status and leaves the same files as with the whole store scanned
//! (`DSH_AGENTS_FULL_SCAN=1`).

use crate::common::{TempDir, cmd, conformance_dir, copy_store, repo};
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
fn transcript(store: &Path, ids: &[String], full: bool) -> (Vec<String>, Vec<PathBuf>) {
    let s = store.to_str().unwrap();
    let mut out = Vec::new();
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
            let mut c = cmd();
            c.arg("--store").arg(s).args(&argv);
            if full {
                c.env("DSH_AGENTS_FULL_SCAN", "1");
            }
            let o = c.output().unwrap();
            if argv[0] == "steer" {
                steered = o.status.success();
            }
            let text = format!(
                "$ {}\n{}--- stderr\n{}--- exit {:?}",
                argv.join(" "),
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr),
                o.status.code()
            );
            out.push(neutral(&text, s));
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
    let mut compared = 0;
    for src in stores {
        let ids = session_ids(&src);
        if ids.is_empty() {
            continue;
        }
        // The same path for both runs, so outputs that name it compare.
        let tmp = TempDir::new("located");
        let store = tmp.path().join("store");
        let located = {
            let copy = copy_store(&src, "located-src");
            std::fs::rename(copy.path(), &store).unwrap();
            let t = transcript(&store, &ids, false);
            std::fs::remove_dir_all(&store).unwrap();
            t
        };
        let scanned = {
            let copy = copy_store(&src, "located-src");
            std::fs::rename(copy.path(), &store).unwrap();
            transcript(&store, &ids, true)
        };
        for (a, b) in located.0.iter().zip(&scanned.0) {
            assert_eq!(a, b, "store {}: located vs scanned", src.display());
        }
        assert_eq!(located.0.len(), scanned.0.len());
        assert_eq!(located.1, scanned.1, "files left in {}", src.display());
        compared += located.0.len();
    }
    assert!(compared > 500, "only {compared} commands compared");
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
    let r = cmd()
        .args(["--store", s, "followup", "kid", "again"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("header id \"other\""), "{stderr}");
    assert_eq!(before, crate::common::snapshot(store), "nothing written");
}
