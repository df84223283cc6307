//! Accelerators, the top layer: the scan cache (where a log scan may
//! resume, which every reader of logs may be handed), the name index (name
//! lookups), the store's stamps (the bridge's "has the set of sessions
//! changed") and the listing's edge cache. Each is checked against the
//! files before it is believed. Invariant: an accelerator changes how fast
//! an answer comes, never the answer — a stale, missing or corrupt one
//! falls back to reading the files (the read-ahead, located and scanned
//! differential tests hold every plan to the whole scan's answer).

pub(crate) mod edge_cache;
pub(crate) mod name_index;
pub(crate) mod scan_cache;
pub(crate) mod stamps;

pub use edge_cache::{
    SUBAGENT, edges_file, key as edge_key, load as load_edges, save as save_edges,
};
pub use name_index::{NameIndex, Opened, note_spawn};
pub use scan_cache::ScanCache;
pub use stamps::{Census, Stamps};
