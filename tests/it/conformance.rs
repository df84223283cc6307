//! Every line of the conformance cases (`testdata/conformance/{v1,v2}/cases.tsv`,
//! a copy of `../shared/conformance`), byte for byte, with the listed logs
//! read during enumeration and after it.

use crate::common::{READ_MODES, assert_v1_case, cases, conformance_dir, run_env};

#[test]
fn v1_cases_match_rc8_byte_for_byte() {
    let dir = conformance_dir().join("v1");
    let cases = cases(&dir.join("cases.tsv"));
    assert!(cases.len() >= 30, "expected the full v1 case list");
    for (c, env) in cases.iter().flat_map(|c| READ_MODES.map(|e| (c, e))) {
        let store = dir.join("stores").join(&c[0]);
        assert_v1_case(&store, c, &dir, env, "");
    }
}

#[test]
fn v2_cases_match_the_seed_001_reading() {
    let dir = conformance_dir().join("v2");
    let cases = cases(&dir.join("cases.tsv"));
    assert!(cases.len() >= 10, "expected the full v2 case list");
    for (c, env) in cases.iter().flat_map(|c| READ_MODES.map(|e| (c, e))) {
        let [store, caller, args, exit, expected] = &c[..] else {
            panic!("bad case line {c:?}")
        };
        let store = dir.join("stores").join(store);
        let mut argv = vec!["--store".to_string(), store.to_str().unwrap().to_string()];
        argv.extend(args.split(' ').map(str::to_string));
        argv.push(format!("--as={caller}"));
        let r = run_env(&argv, env);
        let want = std::fs::read_to_string(dir.join(expected)).unwrap();
        assert_eq!(
            r.code.to_string(),
            *exit,
            "exit status for {c:?} {env:?}: {}",
            r.stderr
        );
        assert_eq!(r.stdout, want, "stdout for {c:?} {env:?}");
    }
}

/// The copy the repository carries is exactly `../shared/conformance`,
/// whenever that folder is beside the checkout.
#[test]
fn the_carried_copy_equals_shared_conformance() {
    let Some(shared) = crate::common::shared_conformance_dir() else {
        // Written past the test harness's capture, so a run says it skipped.
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr().lock(),
            "conformance: SKIPPED the comparison with ../shared/conformance (not beside the checkout)"
        );
        return;
    };
    let ours = conformance_dir();
    let files = |root: &std::path::Path| -> Vec<(std::path::PathBuf, Vec<u8>)> {
        crate::common::snapshot(root)
            .into_iter()
            .map(|(p, b)| (p.strip_prefix(root).unwrap().to_path_buf(), b))
            .collect()
    };
    let (a, b) = (files(&ours), files(&shared));
    assert!(!a.is_empty());
    assert_eq!(
        a.iter().map(|f| &f.0).collect::<Vec<_>>(),
        b.iter().map(|f| &f.0).collect::<Vec<_>>(),
        "the same files"
    );
    for ((path, x), (_, y)) in a.iter().zip(&b) {
        assert!(
            x == y,
            "{} differs from ../shared/conformance",
            path.display()
        );
    }
}
