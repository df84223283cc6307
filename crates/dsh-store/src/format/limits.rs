//! Size caps. Each is far above anything DSH writes, and bounds the memory
//! one command can be made to use by a hostile or broken store: a longer
//! line is malformed input, read past without being held.

/// A session header line (DSH's are a few hundred bytes).
pub const MAX_HEADER: usize = 1 << 20;
/// One event line of a log, or one inbox record.
pub const MAX_LINE: usize = 32 << 20;
/// One Zstandard frame, compressed or decoded (DSH writes one per batch).
pub const MAX_FRAME: usize = 32 << 20;
/// A cache or state file (`scan.cache`, `inbox.state`, `live.json`).
pub const MAX_CACHE: u64 = 1 << 20;
