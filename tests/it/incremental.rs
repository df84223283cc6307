//! A large inbox's fold resumes from `inbox.fold`: every reading command
//! answers exactly as a fold from the start does, through sends, cancels,
//! interrupts, claims and the compaction a claim triggers.

use crate::common::{StoreBuilder, run_in};
use std::path::Path;

fn run(store: &Path, args: &[&str]) -> String {
    run_in(store, args).blob(args)
}

/// Append `text` to the file at `path`, as a writer of the inbox would.
fn append_to(path: &Path, text: &str) {
    use std::io::Write;
    std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
}

#[test]
fn a_resumed_inbox_fold_answers_as_a_full_one() {
    let tmp = StoreBuilder::new("fold-resume")
        .root("lead")
        .child("kid", 2, "lead", "Kid")
        .build();
    let store = tmp.path();
    let dir = store.join("_no-cwd").join("kid");
    // 3,000 keyed messages, all claimed (compaction keeps keyed history),
    // and two still pending: about 600 KB.
    let mut inbox = String::new();
    for i in 0..3000 {
        inbox.push_str(&format!(
            "{{\"type\":\"message\",\"id\":\"old-{i}\",\"time\":{i},\"target\":\"next-turn\",\"source\":{{\"kind\":\"user\"}},\"content\":[{{\"type\":\"text\",\"text\":\"{}\"}}],\"keyed\":true}}\n{{\"type\":\"claim\",\"time\":{i},\"ids\":[\"old-{i}\"]}}\n",
            "history ".repeat(16)
        ));
    }
    inbox.push_str("{\"type\":\"message\",\"id\":\"p-1\",\"time\":1,\"target\":\"next-turn\",\"source\":{\"kind\":\"user\"},\"content\":[{\"type\":\"text\",\"text\":\"one\"}]}\n");
    inbox.push_str("{\"type\":\"message\",\"id\":\"p-2\",\"time\":2,\"target\":\"next-step\",\"source\":{\"kind\":\"user\"},\"content\":[{\"type\":\"text\",\"text\":\"two\"}]}\n");
    std::fs::write(dir.join("inbox.jsonl"), inbox).unwrap();
    let fold = dir.join("inbox.fold");
    let reads: &[&[&str]] = &[
        &["inbox", "kid"],
        &["--json", "inbox", "kid"],
        &["wait-agent", "--as", "kid", "--timeout-ms", "10000"],
        &["trace", "p-1", "--to", "kid"],
        &["--json", "tree"],
    ];
    let steps: &[&[&str]] = &[
        &[],
        &["followup", "kid", "three", "--id", "p-3"],
        &["steer", "kid", "four"],
        &["cancel", "p-1", "--to", "kid"],
        // (what `interrupt` writes for a live agent; this one is not live)
        &["+interrupt"],
        &["followup", "kid", "five"],
        &["claim", "--as", "kid"],
        &["followup", "kid", "six"],
        &["claim", "--as", "kid"],
    ];
    let mut resumed = 0;
    for (n, step) in steps.iter().enumerate() {
        let append = |text: &str| append_to(&dir.join("inbox.jsonl"), text);
        match step {
            [] => {}
            ["+interrupt"] => append(&format!(
                "{{\"type\":\"interrupt\",\"id\":\"int-{n}\",\"time\":3,\"source\":{{\"kind\":\"user\"}}}}\n"
            )),
            _ => {
                run(store, step);
            }
        }
        // Claims of ids this inbox never held (they change no answer), so
        // the fold point written next lies past this step's records.
        let mut more = String::new();
        for i in 0..1200 {
            more.push_str(&format!(
                "{{\"type\":\"claim\",\"time\":1,\"ids\":[\"ghost-{n}-{i}\"]}}\n"
            ));
        }
        append(&more);
        run(store, &["inbox", "kid"]);
        for read in reads {
            // Once the claims took the next-step input, a wait would wait.
            if read[0] == "wait-agent" && n >= 6 {
                continue;
            }
            let had_point = fold.exists();
            let cached = run(store, read);
            let _ = std::fs::remove_file(&fold);
            let full = run(store, read);
            assert_eq!(cached, full, "{read:?} after {step:?}");
            resumed += usize::from(had_point);
        }
    }
    assert!(
        resumed >= 20,
        "only {resumed} reads resumed from a fold point"
    );
}

/// A fold point that no longer fits (the inbox was rewritten in place, so
/// the message it expects is not at its offset) gives way to a fold from
/// the start, whose point is saved in its place; a message arriving after
/// that is judged against the ids consumed now, by the resumed fold as by
/// a full one.
#[test]
fn a_point_that_failed_to_resume_is_not_extended() {
    let tmp = StoreBuilder::new("fold-rewritten")
        .root("lead")
        .child("kid", 2, "lead", "Kid")
        .build();
    let store = tmp.path();
    let dir = store.join("_no-cwd").join("kid");
    let message = |id: &str, keyed: bool| {
        format!(
            "{{\"type\":\"message\",\"id\":\"{id}\",\"time\":1,\"target\":\"next-turn\",\"source\":{{\"kind\":\"user\"}},\"content\":[{{\"type\":\"text\",\"text\":\"{}\"}}]{}}}\n",
            "history ".repeat(16),
            if keyed { ",\"keyed\":true" } else { "" }
        )
    };
    let claim = |id: &str| format!("{{\"type\":\"claim\",\"time\":1,\"ids\":[\"{id}\"]}}\n");
    let mut inbox = message("p-1", false) + &claim("zz-a");
    for i in 0..3000 {
        inbox.push_str(&message(&format!("old-{i}"), true));
        inbox.push_str(&claim(&format!("old-{i}")));
    }
    let path = dir.join("inbox.jsonl");
    std::fs::write(&path, &inbox).unwrap();
    run(store, &["inbox", "kid"]);
    assert!(dir.join("inbox.fold").exists(), "a point was saved");
    // Rewritten in place, far from the point: same file, same length, same
    // bytes before the point; the pending message moved, a claim changed.
    let rewritten = inbox
        .replacen("\"p-1\"", "\"p-9\"", 1)
        .replacen("\"zz-a\"", "\"zz-b\"", 1);
    {
        use std::io::{Seek, Write};
        let mut f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        f.seek(std::io::SeekFrom::Start(0)).unwrap();
        f.write_all(&rewritten.as_bytes()[..1000]).unwrap();
    }
    // Enough new records that the next read saves a point again.
    let more: String = (0..2000).map(|i| claim(&format!("more-{i}"))).collect();
    let append = |text: &str| append_to(&path, text);
    append(&more);
    run(store, &["inbox", "kid"]);
    // `zz-b` was claimed before it arrived: it is not pending (its claim
    // sorts last in the consumed-id list, where a list extended from the
    // stale point would have lost it).
    append(&message("zz-b", false));
    let cached = run(store, &["--json", "inbox", "kid"]);
    let _ = std::fs::remove_file(dir.join("inbox.fold"));
    let full = run(store, &["--json", "inbox", "kid"]);
    assert_eq!(cached, full);
    assert!(!full.contains("zz-b"), "{full}");
    assert!(full.contains("p-9"), "{full}");
}
