//! Accelerators, the top layer: the scan cache (where a log scan may
//! resume, which every reader of logs may be handed), the name index (name
//! lookups) and the store's stamps (the bridge's "has the set of sessions
//! changed"). Each is checked against the files before it is believed.
//! Invariant: an accelerator changes how fast an answer comes, never the
//! answer — a stale, missing or corrupt one falls back to reading the
//! files (the read-ahead, located and scanned differential tests hold every
//! plan to the whole scan's answer).

pub(crate) mod name_index;
pub(crate) mod scan_cache;
pub(crate) mod stamps;

pub use name_index::{NameIndex, Opened, note_spawn};
pub use scan_cache::ScanCache;
pub use stamps::{Census, Stamps};
