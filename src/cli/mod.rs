//! The command line layer: clap definitions (`args`, `values`), argument
//! values made domain values (`inputs`), the table from each command to its
//! handler (`dispatch`), what every handler shares (`env`), the handlers that turn a parsed command into
//! library calls (`model_tools`, `commands`), which sessions of the store a command opens (`open`), the grouped
//! `--help` (`help`), the generated completions and man pages (`man`), and
//! parse and failure reporting (`report`). Only this layer names flags.

pub mod args;
mod commands;
pub mod dispatch;
mod env;
mod fleet;
pub mod help;
mod inputs;
pub mod man;
mod model_tools;
mod open;
pub mod report;
pub mod settings;

mod values;
pub use args::Cli;
pub use dispatch::{run, run_to};
pub use env::Output;
pub use man::completions;
pub use report::{parse, report};
