#![no_main]
//! The saved listing edges (`edges.bin`, outside the store) on arbitrary
//! bytes: a damaged or crafted file loads as nothing or as what it holds,
//! never a hang or a panic.
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let cache = std::env::temp_dir().join(format!("dsh-fuzz-edges-{}", std::process::id()));
    let root = Path::new("/fuzz/store");
    let file = dsh_agents::formats::edges_file(&cache, root);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, data).unwrap();
    let edges = dsh_agents::formats::load_edges(&cache, root);
    assert!(edges.len() * 16 <= data.len());
});
