//! Small helpers every layer uses: the clock and ids, a parallel map, and
//! Ctrl-C / SIGTERM as a flag.

pub mod clock;
pub mod fault;
pub mod parallel;
pub mod signals;
