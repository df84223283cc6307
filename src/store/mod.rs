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
//! The store is private to the crate (a library user reads formats through
//! `dsh_agents::formats`); inside it, commands reach a layer's module for
//! its rules and types, and a `Store` only through `open`.

pub(crate) mod accel;
pub(crate) mod door;
pub(crate) mod error;
pub(crate) mod files;
pub(crate) mod format;
pub(crate) mod log;
pub(crate) mod set;

pub use door::{Plan, open};
pub use error::StoreError;
pub use set::enumerate::{SessionRecord, Store, Suffix};
pub use set::sessions::SessionPos;
