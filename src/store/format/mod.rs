//! The store's pure rules, the bottom layer: what DSH rc.8 and its later
//! generations accept in a header line, an event, a descriptor, a surface
//! fold, a packed row, a token count — as functions of bytes and values.
//! Invariant: nothing here does I/O or imports another layer of the store;
//! every per-generation rule is in `generation`, once.

pub mod descriptor;
pub mod ending;
pub mod events;
pub mod generation;
pub mod header;
pub mod json;
pub mod jv;
pub mod jv_read;
pub mod packed;
pub mod surface;
pub mod usage;
