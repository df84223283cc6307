#![no_main]
//! The whole-log reader (header record, event lines, torn tails, the
//! committed-turn rule, envelope and message checks, descriptor folds) on
//! arbitrary bytes, raw or Zstandard.
use libfuzzer_sys::fuzz_target;
use std::io::Write;

fuzz_target!(|data: &[u8]| {
    let path = std::env::temp_dir().join(format!("dsh-fuzz-log-{}", std::process::id()));
    let mut f = std::fs::File::create(&path).unwrap();
    f.write_all(data).unwrap();
    drop(f);
    if let Ok(i) = dsh_agents::formats::inspect(&path) {
        assert!(
            i.committed_bytes <= data.len() as u64 || i.encoding == dsh_agents::formats::Encoding::Zstd
        );
    }
});
