//! Parsing the command line and reporting failures: a bad environment
//! value is blamed on its variable, not on the flag it stands for, and
//! under `--json` every failure is one JSON object on stderr with the exit
//! code its kind gives.

use super::args::Cli;
use crate::error::{Error, ErrorKind};
use clap::error::{ContextKind, ContextValue, ErrorKind as ClapKind};
use clap::{CommandFactory, FromArgMatches};
use std::ffi::OsString;
use std::io::Write;
use std::process::ExitCode;

/// Parse the process arguments; a failure or a help request ends the process.
pub fn parse() -> Cli {
    let args: Vec<OsString> = std::env::args_os().collect();
    match parse_from(&args) {
        Ok(cli) => cli,
        Err(e) => {
            let json = wants_json(&args);
            if json && e.use_stderr() {
                print_json_error(ErrorKind::Usage, &plain(&e));
                std::process::exit(2);
            }
            if !e.use_stderr() {
                e.exit()
            }
            // One lead for every failure, clap's or the tool's: `Error:`.
            let text = if colour() {
                e.render().ansi().to_string()
            } else {
                e.render().to_string()
            };
            let text = text.replacen("error:", "Error:", 1);
            let _ = write!(std::io::stderr(), "{text}");
            std::process::exit(e.exit_code())
        }
    }
}

fn wants_json(args: &[OsString]) -> bool {
    args.iter()
        .skip(1)
        .take_while(|a| *a != "--")
        .any(|a| a == "--json")
}

/// Parse `args`, naming the environment variable behind a rejected value.
pub fn parse_from(args: &[OsString]) -> Result<Cli, clap::Error> {
    let mut cmd = super::help::grouped(Cli::command());
    let matches = cmd
        .try_get_matches_from_mut(args)
        .map_err(|e| blame_environment(&cmd, args, e))?;
    Cli::from_arg_matches(&matches).map_err(|e| e.format(&mut cmd))
}

/// A value clap rejected for a flag that was not on the command line came
/// from the flag's environment variable: say so.
fn blame_environment(cmd: &clap::Command, args: &[OsString], e: clap::Error) -> clap::Error {
    if !matches!(e.kind(), ClapKind::InvalidValue | ClapKind::ValueValidation) {
        return e;
    }
    let Some(ContextValue::String(shown)) = e.get(ContextKind::InvalidArg) else {
        return e;
    };
    let long = shown.split([' ', '=']).next().unwrap_or("");
    let on_line = args.iter().any(|a| {
        let a = a.to_string_lossy();
        a == long || a.starts_with(&format!("{long}="))
    });
    if on_line {
        return e;
    }
    let mut all = vec![cmd];
    all.extend(cmd.get_subcommands());
    let Some(var) = all
        .iter()
        .flat_map(|c| c.get_arguments())
        .find(|a| a.get_long().is_some_and(|l| format!("--{l}") == long))
        .and_then(|a| a.get_env())
    else {
        return e;
    };
    let value = std::env::var_os(var).unwrap_or_default();
    // Rebuilt from the error's parts (its value, the parser's own error, the
    // values it accepts), never from clap's rendered sentence.
    let shown_value = match e.get(ContextKind::InvalidValue) {
        Some(ContextValue::String(v)) => v.clone(),
        _ => value.to_string_lossy().into_owned(),
    };
    let reason = std::error::Error::source(&e)
        .map(|s| s.to_string())
        .or_else(|| match e.get(ContextKind::ValidValue) {
            Some(ContextValue::Strings(valid)) if !valid.is_empty() => {
                Some(format!("possible values: {}", valid.join(", ")))
            }
            _ => shown_value.is_empty().then(|| "it is empty".to_string()),
        });
    let why = match reason {
        Some(reason) => format!("invalid value '{shown_value}': {reason}"),
        None => format!("invalid value '{shown_value}'"),
    };
    let message = format!(
        "environment variable {}={:?}: {why} (it stands for {long}; unset it or fix its value)",
        var.to_string_lossy(),
        value.to_string_lossy()
    );
    clap::Error::raw(ClapKind::ValueValidation, format!("{message}\n")).with_cmd(cmd)
}

/// Whether stderr gets colour: a terminal, and `NO_COLOR` unset or empty
/// (as clap decides for its own errors).
fn colour() -> bool {
    rustix::termios::isatty(std::io::stderr())
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// A clap error's message without the `error: ` lead and the usage tail,
/// its tips (`a similar subcommand exists: 'tree'`) kept.
fn plain(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let first = text.lines().next().unwrap_or("").to_string();
    let mut message = first.strip_prefix("error: ").unwrap_or(&first).to_string();
    for tip in text.lines().filter_map(|l| l.trim().strip_prefix("tip: ")) {
        message.push_str("; ");
        message.push_str(tip);
    }
    message
}

fn print_json_error(kind: ErrorKind, message: &str) {
    let value = serde_json::json!({"error": {"kind": kind, "message": message}});
    // A closed or full stderr leaves nothing else to tell.
    let _ = writeln!(std::io::stderr(), "{value}");
}

/// Report a failed command on stderr and give its exit code.
pub fn report(err: &Error, json: bool) -> ExitCode {
    if json {
        print_json_error(err.kind(), &err.to_string());
    } else {
        let lead = if colour() {
            "\x1b[1;31mError:\x1b[0m"
        } else {
            "Error:"
        };
        let _ = writeln!(std::io::stderr(), "{lead} {err}");
    }
    err.kind().into()
}
