//! The DSH session store (contract §3): paths and codecs, headers and
//! descriptors, enumeration, the streaming log reader with its scan cache,
//! rc.8's event rules, and the writers for logs and sidecar files.
//!
//! One door: `open(root, Plan)` (in `door`) is the only way to get a
//! `Store`; the plan says how much is read, the door finishes every plan
//! the one way it calls for, so no plan changes an answer.

pub mod ahead;
pub mod catalog;
pub mod conversation;
pub mod conversation_stream;
pub mod delivered;
pub mod descriptor;
pub mod door;
pub mod edge_cache;
pub mod ending;
pub mod enumerate;
pub mod error;
pub mod events;
pub mod generation;
pub mod header;
pub mod header_probe;
pub mod id_index;
pub mod json;
pub mod jv;
pub mod jv_read;
pub mod limits;
pub mod lines;
pub mod listed;
pub mod locate;
pub mod log_events;
pub mod log_name;
pub mod log_tail;
pub mod name_index;
pub mod native_inbox;
pub mod packed;
pub mod paths;
pub mod reader;
pub mod scan_cache;
pub mod sessions;
pub mod sidecar;
pub mod stamps;
pub mod surface;
pub mod usage;
pub mod writer;
pub mod zstd_frames;

pub use door::{Plan, open};
pub use enumerate::{SessionRecord, Store, Suffix};
pub use error::StoreError;
pub use sessions::SessionPos;
