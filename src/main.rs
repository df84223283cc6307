//! The binary: parse, run, print, map the error kind to the exit code.

use clap::Parser;
use dsh_agents::{ErrorKind, Output};
use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let result = dsh_agents::run(dsh_agents::Cli::parse());
    let mut stdout = std::io::stdout().lock();
    let (written, code) = match result {
        Ok(Output::Text(text)) => (writeln!(stdout, "{text}"), ExitCode::SUCCESS),
        Ok(Output::Raw(text)) => (write!(stdout, "{text}"), ExitCode::SUCCESS),
        Ok(Output::Failed(text, kind)) => (writeln!(stdout, "{text}"), kind.into()),
        Err(err) => {
            let _ = stdout.flush();
            // A closed or full stderr leaves nothing else to tell.
            let _ = writeln!(std::io::stderr(), "Error: {err}");
            return err.kind().into();
        }
    };
    // A closed stdout pipe is not an error (DESIGN §8).
    match written.and_then(|()| stdout.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            let _ = writeln!(std::io::stderr(), "Error: {e}");
            ErrorKind::Store.into()
        }
        _ => code,
    }
}
