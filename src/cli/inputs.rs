//! Turning argument values into domain values: the message text (`-` reads
//! standard input), the `--id`, the lock and admission limits, the display
//! clock, and a flag's name on the errors that concern it.

use super::args::{Cli, IdArg};
use crate::error::{Error, Result};
use crate::inbox::Limits;
use crate::inbox::record::message_id_problem;

/// A MESSAGE argument; `-` reads standard input (any size, UTF-8).
pub(super) fn message_text(arg: &str) -> Result<String> {
    if arg != "-" {
        return Ok(arg.to_string());
    }
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes)
        .map_err(|e| Error::usage(format!("MESSAGE: reading standard input: {e}")))?;
    String::from_utf8(bytes).map_err(|_| Error::usage("MESSAGE: standard input is not valid UTF-8"))
}

/// A message a command sends: never empty (an empty turn helps no one).
pub(super) fn message_body(arg: &str) -> Result<String> {
    let text = message_text(arg)?;
    if text.trim().is_empty() {
        return Err(Error::usage(
            "MESSAGE: the message is empty; nothing was sent",
        ));
    }
    Ok(text)
}

pub(super) fn limits(cli: &Cli) -> Result<Limits> {
    let secs = cli.global.lock_timeout;
    if !(secs.is_finite() && (0.0..=86_400.0).contains(&secs)) {
        return Err(Error::usage(
            "--lock-timeout: seconds must be between 0 and 86400",
        ));
    }
    Ok(Limits {
        lock_timeout: std::time::Duration::from_secs_f64(secs),
        max_pending: cli.global.max_pending,
    })
}

/// The `--id` of a sending command.
pub(super) fn message_id(id: &IdArg) -> Result<Option<String>> {
    match &id.id {
        Some(id) => match message_id_problem(id) {
            Some(why) => Err(Error::usage(format!("--id: {why}; nothing was written"))),
            None => Ok(Some(id.clone())),
        },
        None => Ok(None),
    }
}

/// A caller that did not resolve is a usage error about `--as`.
pub(super) fn caller_flag(e: Error) -> Error {
    match e {
        Error::Resolve(error) => Error::Flag {
            flag: "--as",
            error,
        },
        other => other,
    }
}

/// The clock relative times are shown against: `DSH_AGENTS_NOW_MS` (for
/// reproducible output, as golden tests pin it), else now.
pub(super) fn display_now() -> Result<i64> {
    match std::env::var("DSH_AGENTS_NOW_MS") {
        Err(_) => Ok(crate::support::clock::now_ms()),
        Ok(v) => v.parse().map_err(|_| {
            Error::usage(format!(
                "environment variable DSH_AGENTS_NOW_MS={v:?}: not epoch milliseconds"
            ))
        }),
    }
}
