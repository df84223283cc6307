//! The command line layer: clap definitions (`args`) and the dispatch that
//! turns a parsed command into library calls (`dispatch`). Only this layer
//! names flags.

pub mod args;
pub mod dispatch;
pub mod help;
pub mod report;

mod values;
pub use args::Cli;
pub use dispatch::{Output, completions, run, run_to};
pub use report::{parse, report};
