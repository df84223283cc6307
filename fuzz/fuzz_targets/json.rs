#![no_main]
//! The event-line JSON reader against `serde_json` on any bytes: both
//! accept or both refuse, and what they accept reads as the same value.
use dsh_agents::formats::{Jv, read_json};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let ours = read_json(data).map(|v| format!("{v:?}"));
    let reference = serde_json::from_slice::<Jv>(data)
        .ok()
        .map(|v| format!("{v:?}"));
    assert_eq!(ours, reference);
});
