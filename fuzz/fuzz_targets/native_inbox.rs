#![no_main]
//! DSH's own inbox replayed from `agent/inbox/spliced` data, one JSON value
//! a line, on arbitrary input: crafted counts, ids and targets are refused
//! as rc.8 refuses them, never a panic.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut inbox = dsh_agents::formats::NativeInbox::default();
    for (seq, line) in data.split(|b| *b == b'\n').enumerate() {
        if let Ok(v) = serde_json::from_slice::<serde_json::Value>(line) {
            inbox.apply(&v, seq as u64);
        }
    }
    assert!(inbox.pending() <= data.len());
});
