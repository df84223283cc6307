//! The binary: parse, run, print, map the error kind to the exit code.

use dsh_agents::{ErrorKind, Output};
use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = dsh_agents::parse();
    let json = cli.global.json;
    let result = dsh_agents::run(cli);
    let mut stdout = std::io::stdout().lock();
    // A command a signal stopped (Ctrl-C: 130) says so, whatever it printed.
    let stopped = dsh_agents::stopped_by_signal().map(ExitCode::from);
    let (written, code) = match result {
        Ok(Output::Text(text)) => (writeln!(stdout, "{text}"), ExitCode::SUCCESS),
        Ok(Output::Raw(text)) => (write!(stdout, "{text}"), ExitCode::SUCCESS),
        Ok(Output::Failed(text, kind)) => (writeln!(stdout, "{text}"), kind.into()),
        Err(err) => {
            let _ = stdout.flush();
            let code = dsh_agents::report(&err, json);
            return stopped.unwrap_or(code);
        }
    };
    // A closed stdout pipe is not an error (contract §8).
    match written.and_then(|()| stdout.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            let _ = writeln!(std::io::stderr(), "Error: {e}");
            ErrorKind::Store.into()
        }
        _ => stopped.unwrap_or(code),
    }
}
