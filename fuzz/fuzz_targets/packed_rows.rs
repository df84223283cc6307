#![no_main]
//! Packed chunk rows and event validation on any JSON value, and the
//! borrowed value the reader parses into beside `serde_json::Value`.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut scratch = String::new();
    let Some(value) = dsh_agents::formats::parse_borrowed(data, &mut scratch) else {
        return;
    };
    if let Ok(reference) = serde_json::from_slice::<serde_json::Value>(data) {
        assert_eq!(value.to_value(), reference);
    }
    if let Ok(events) = dsh_agents::formats::decode_storage_record(value) {
        for (i, e) in events.iter().enumerate() {
            let _ = dsh_agents::formats::validate_event(e, i);
            if let Some(d) = e.get("data") {
                let d = d.to_value();
                let _ = dsh_agents::formats::parse_descriptor(&d, dsh_agents::formats::Dialect::Rc8);
                let _ = dsh_agents::formats::parse_descriptor(&d, dsh_agents::formats::Dialect::Seed001);
            }
        }
    }
});
