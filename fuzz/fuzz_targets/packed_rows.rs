#![no_main]
//! Packed chunk rows and event validation on any JSON value.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(data) else {
        return;
    };
    if let Ok(events) = dsh_agents::formats::decode_storage_record(value) {
        for (i, e) in events.iter().enumerate() {
            let _ = dsh_agents::formats::validate_event(e, i);
            if let Some(d) = e.get("data") {
                let _ = dsh_agents::formats::parse_descriptor(d, dsh_agents::formats::Dialect::Rc8);
                let _ = dsh_agents::formats::parse_descriptor(d, dsh_agents::formats::Dialect::Seed001);
            }
        }
    }
});
