#![no_main]
//! Path codecs and names: an escaped id is one safe segment, never `.`/`..`,
//! and distinct ids never share a directory.
use dsh_agents::formats::{encode_segment, project_key};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (a, b) = text.split_at(
        text.char_indices()
            .nth(text.chars().count() / 2)
            .map_or(0, |(i, _)| i),
    );
    for s in [a, b] {
        if let Some(seg) = encode_segment(s) {
            assert!(
                !seg.is_empty()
                    && seg != "."
                    && seg != ".."
                    && !seg.contains('/')
                    && !seg.contains('\0')
            );
            assert!(seg.is_ascii());
        }
        if let Some(key) = project_key(s) {
            assert!(
                key.starts_with("--")
                    && key.ends_with("--")
                    && !key.contains('/')
                    && key.len() <= 255
            );
        }
        let _ = dsh_agents::formats::is_valid_name(s);
    }
    if a != b {
        if let (Some(x), Some(y)) = (encode_segment(a), encode_segment(b)) {
            assert_ne!(x, y, "encodeSegment is injective");
        }
    }
});
