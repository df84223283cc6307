//! The edge-case stores of `scripts/differential.py` (ties and collation,
//! Unicode ids and labels, forks and seeds, descriptor versions, corrupt and
//! torn logs, packed rows, cycles, raw and Zstandard), listed under contract
//! v1 with both scopes by every session, against the text DSH rc.8 itself
//! printed for each (`testdata/differential/expected.jsonl`, recorded with
//! `--record` from the real rc.8 runtime): the differential check, held in
//! every build without the oracle.

use crate::common::{READ_MODES, repo, v1_list};

#[derive(serde::Deserialize)]
struct Expected {
    store: String,
    caller: String,
    scope: String,
    #[serde(rename = "isError")]
    is_error: bool,
    text: String,
}

#[test]
fn every_edge_case_lists_as_rc8_listed_it() {
    let dir = repo().join("testdata/differential");
    let expected: Vec<Expected> = std::fs::read_to_string(dir.join("expected.jsonl"))
        .expect("testdata/differential/expected.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).expect("an expected.jsonl line"))
        .collect();
    // The recording holds 352 requests over 14 stores: a truncated file
    // must not pass for a short one.
    assert!(expected.len() >= 352, "{} requests", expected.len());
    let mut differences = Vec::new();
    for env in READ_MODES {
        for want in &expected {
            let r = v1_list(&dir.join(&want.store), &want.caller, &want.scope, env);
            // An errored tool result is compared as rc.8's: errored or not
            // (its words are the wrapper's); every listing byte for byte.
            let same = if want.is_error || r.code != 0 {
                want.is_error && r.code == 1
            } else {
                r.stdout == format!("{}\n", want.text)
            };
            if !same {
                differences.push(format!(
                    "{env:?} {} caller={} scope={}\n  rc8 : {:?}{}\n  ours: {:?} {:?} exit {}",
                    want.store,
                    want.caller,
                    want.scope,
                    want.text,
                    if want.is_error { " (error)" } else { "" },
                    r.stdout,
                    r.stderr,
                    r.code
                ));
            }
        }
    }
    assert!(
        differences.is_empty(),
        "{} differences:\n{}",
        differences.len(),
        differences.join("\n")
    );
}
