//! `dsh-agents`: the DeepSeek Harness subagent-control tools over an
//! on-disk DSH session store.
//!
//! The layers, lowest first; no module imports from a layer above its own:
//!
//! | folder | holds | contract |
//! |---|---|---|
//! | `support/` | clock and ids, parallel map, signal flag | — |
//! | `dsh_store` (its own crate, `crates/dsh-store`) | the store behind one door: format rules, file safety and names, one log, the set of sessions, accelerators | §3 |
//! | `inbox/` | records, framing, fold (pending, parked, claimable), lock, delivery, claims, liveness, watching | §6 |
//! | `tree/` | corpus and ancestry, v1 listing rules, v2 tree, names and resolver, collation, callers | §4 |
//! | `tools/` | one file per model tool, argument validation, the tool context | §5, §7 |
//! | `operator/` | tree view, inbox view, check, spawn, user delivery | §2 |
//! | `runtime/` | `serve` and the transcript it writes | §7 |
//! | `top/` | the live terminal view and its actions | — |
//! | `cli/` | clap definitions and dispatch | §2, §8 |
//!
//! The public surface is the command line (`cli`), the error type, and
//! `formats`: the parsers the fuzz targets and the benchmark drive.

pub(crate) mod cli;
pub(crate) mod error;
pub(crate) mod fleet;
pub(crate) mod inbox;
pub(crate) mod operator;
pub(crate) mod runtime;
pub(crate) mod support;
pub(crate) mod tools;
pub(crate) mod top;
pub(crate) mod tree;

pub use cli::{Cli, Output, completions, parse, report, run, run_to};
pub use error::{Error, ErrorKind, Result};
/// `top`'s first frame as text (the benchmark times it).
pub use top::view::frame_text as top_frame_text;

/// The store's formats as parsers, for fuzzing and benchmarks.
pub mod formats {
    pub use crate::inbox::Target;
    pub use crate::inbox::fold::{Fold, count_pending};
    pub use dsh_store::files::{encode_segment, project_key};
    pub use dsh_store::format::Jv;
    pub use dsh_store::format::decode_storage_record;
    pub use dsh_store::format::parse_borrowed;
    pub use dsh_store::format::read_json;
    pub use dsh_store::format::validate_event;
    pub use dsh_store::format::{Dialect, parse_descriptor};
    pub use dsh_store::format::{
        HeaderParse, Member, is_valid_name, parse_header_line, validate_for_restore,
    };
    pub use dsh_store::log::NativeInbox;
    pub use dsh_store::log::{Encoding, Inspection, inspect};
    pub use dsh_store::log::{Frame, FrameReader, decode_frame, decode_torn_prefix, encode_frame};
    pub use dsh_store::set::expected_session_dir;
}

/// The exit status of a command a signal stopped (128 + its number), if one did.
pub fn stopped_by_signal() -> Option<u8> {
    support::signals::exit_status()
}
