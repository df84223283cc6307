#![no_main]
//! The header parser: any first line either parses or is skipped, never panics.
use dsh_agents::formats::{HeaderParse, parse_header_line, validate_for_restore};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let line = String::from_utf8_lossy(data);
    if let HeaderParse::Valid(h) = parse_header_line(&line) {
        let _ = validate_for_restore(&h);
        let _ = h.valid_name();
        let _ = dsh_agents::formats::expected_session_dir(
            std::path::Path::new("/s"),
            &h.id,
            h.cwd.as_ref(),
        );
    }
});
