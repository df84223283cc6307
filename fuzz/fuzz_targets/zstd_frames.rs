#![no_main]
//! The Zstandard frame scanner and decoder: complete, torn and corrupt frames.
use dsh_agents::formats::{Frame, FrameReader, decode_frame, decode_torn_prefix};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut reader = FrameReader::new(data);
    let mut total = 0usize;
    while let Ok(Some(frame)) = reader.next_frame() {
        match frame {
            Frame::Complete(f) => {
                total += f.len();
                let _ = decode_frame(&f);
            }
            Frame::Torn(f) => {
                total += f.len();
                let _ = decode_torn_prefix(&f);
            }
        }
    }
    assert!(total <= data.len());
});
