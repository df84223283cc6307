//! Small helpers every layer uses: the clock and ids, a parallel map,
//! JSON written a piece at a time, varints, Ctrl-C / SIGTERM as a flag, and "did
//! you mean".

pub mod clock;
pub use dsh_store::debug;
pub mod fault;
pub mod json_out;
pub mod parallel;
pub mod refresh;
pub mod signals;
pub mod suggest;
pub mod varint;
