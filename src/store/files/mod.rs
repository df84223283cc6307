//! File safety and file names, above the rules: the one file-opening
//! discipline (`sidecar`: no symbolic link followed, no special file read,
//! every write by rename under a lock), the names DSH gives directories and
//! logs (`paths`, `log_name`), where caches live outside the store
//! (`cache_dir`), capped line reading (`lines`) and the size caps
//! (`limits`). Invariant: every sidecar and log name is spelled here, and
//! nothing here knows what a session is.

pub mod cache_dir;
pub mod limits;
pub mod lines;
pub mod log_name;
pub mod paths;
pub mod sidecar;
