//! The DSH session store (contract §3), in layers that show in its folders,
//! each importing only those below it:
//!
//! - `format` — the pure rules: headers, generations, events, descriptors;
//! - `files` — file safety and every file name;
//! - `log` — one session log on disk: probe, scan, tail, writer;
//! - `set` — the set of sessions: enumeration, columns, id index, locate;
//! - `accel` — caches and indexes that make an answer faster, never different.
//!
//! One door: `open(root, Plan)` (in `door`) is the only way to get a
//! `Store`; the plan says how much is read, the door finishes every plan
//! the one way it calls for, so no plan changes an answer. `error` holds
//! the failures every layer shares.
//!
//! A layer's files are private to this crate: each layer's `mod.rs` says
//! what the program above may use (`log::inspect`, not
//! `log::reader::inspect`), so a file moves inside a layer without a caller
//! changing. A `Store` comes only through `open`.

pub mod accel;
pub mod debug;
mod door;
mod error;
pub mod files;
pub mod format;
pub mod log;
pub mod parallel;
pub mod set;

pub use door::{Plan, open};
pub use error::{LogError, StoreError};
pub use set::enumerate::{SessionRecord, Store, Suffix};
pub use set::sessions::SessionPos;
