//! The binary: parse, run, print, map the error kind to the exit code.

use clap::Parser;
use dsh_agents::app::{self, Output};
use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = dsh_agents::cli::Cli::parse();
    let result = app::run(cli);
    let mut stdout = std::io::stdout().lock();
    match result {
        Ok(output) => {
            let (written, code) = match output {
                Output::Text(text) => (writeln!(stdout, "{text}"), ExitCode::SUCCESS),
                Output::Raw(text) => (write!(stdout, "{text}"), ExitCode::SUCCESS),
                Output::Failed(text, kind) => (
                    writeln!(stdout, "{text}"),
                    ExitCode::from(kind.exit_code() as u8),
                ),
            };
            // A closed stdout pipe is not an error (DESIGN §8).
            match written.and_then(|()| stdout.flush()) {
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                    eprintln!("Error: {e}");
                    ExitCode::from(3)
                }
                _ => code,
            }
        }
        Err(err) => {
            let _ = stdout.flush();
            eprintln!("Error: {err}");
            ExitCode::from(err.kind.exit_code() as u8)
        }
    }
}
