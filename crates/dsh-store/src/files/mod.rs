//! File safety and file names, above the rules: the one file-opening
//! discipline (`sidecar`: no symbolic link followed, no special file read,
//! every write by rename under a lock), the names DSH gives directories and
//! logs (`paths`, `log_name`), where caches live outside the store
//! (`cache_dir`) and capped line reading (`lines`). Invariant: every sidecar and log name is spelled here, and
//! nothing here knows what a session is.

pub(crate) mod cache_dir;
pub(crate) mod lines;
pub(crate) mod log_name;
pub(crate) mod paths;
pub(crate) mod sidecar;

pub use cache_dir::{fnv, inside_store, replace as replace_cache_file, store_dir};
pub use lines::{Line, Lines};
pub use log_name::{Current, LogName, current_in, current_log};
pub use paths::{
    FLEET_DIR, INBOX, INBOX_LOCK, KEYED_ARCHIVE, encode_segment, project_dir_name, project_key,
};
pub use sidecar::{
    Dir, create_output, leftovers, open_regular, read_capped, read_small, tail_hash,
};
