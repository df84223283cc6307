//! The command line layer: clap definitions (`args`, `values`), the
//! dispatch that turns a parsed command into library calls (`dispatch`),
//! which sessions of the store a command opens (`open`), the grouped
//! `--help` (`help`), the generated completions and man pages (`man`), and
//! parse and failure reporting (`report`). Only this layer names flags.

pub mod args;
pub mod dispatch;
pub mod help;
pub mod man;
mod open;
pub mod report;
pub mod settings;

mod values;
pub use args::Cli;
pub use dispatch::{Output, run, run_to};
pub use man::completions;
pub use report::{parse, report};
