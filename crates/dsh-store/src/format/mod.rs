//! The store's pure rules, the bottom layer: what DSH rc.8 and its later
//! generations accept in a header line, an event, a descriptor, a surface
//! fold, a packed row, a token count — as functions of bytes and values —
//! and the size caps every reader holds input to (`limits`).
//! Invariant: nothing here does I/O or imports another layer of the store;
//! every per-generation rule is in `generation`, once.

pub(crate) mod descriptor;
pub(crate) mod ending;
pub(crate) mod events;
pub(crate) mod generation;
pub(crate) mod header;
pub(crate) mod json;
pub(crate) mod jv;
pub(crate) mod jv_read;
pub(crate) mod limits;
pub(crate) mod packed;
pub(crate) mod surface;
pub(crate) mod usage;

pub use descriptor::{Dialect, Identity, Mode, parse as parse_descriptor};
pub use events::{safe_int_value, validate_event};
pub use generation::{NEWEST_READ, cut_in_log};
pub use header::{
    Header, HeaderParse, MAX_SAFE_INTEGER, Member, ROOT_NAME, is_valid_name, parse_header_line,
    validate_for_restore,
};
pub use json::parse_borrowed;
pub use jv::Jv;
pub use jv_read::parse as read_json;
pub use limits::MAX_LINE;
pub use packed::decode_storage_record;
pub use usage::{TokenCounts, short as short_tokens};
