//! Dispatch: the table from each subcommand to its handler. Model tools
//! (`model_tools`) share one `Context`, whether they come from their own
//! subcommand or from `call`; the operator, runtime and setup commands are
//! in `commands`. Returns what to print; the binary owns the process.

use super::args::{Cli, Command};
use super::commands;
use super::inputs::limits;
use super::model_tools;
use super::open::Open;
use super::settings::Settings;
use crate::error::{Error, ErrorKind, Result};
use crate::inbox::{Limits, Target};
use crate::tools::Contract;
use serde_json::Value;
use std::path::PathBuf;

/// What a successful command prints on stdout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Output {
    /// Rendered text; the CLI adds one final newline.
    Text(String),
    /// Bytes printed exactly as they are.
    Raw(String),
    /// A report printed on stdout that still fails the command (`check`).
    Failed(String, ErrorKind),
}

/// The store root: `--store`/`DSH_STORE`, else `$DSH_HOME/sessions`, else
/// `~/.dsh/sessions`.
pub fn store_root(cli: &Cli) -> Result<PathBuf> {
    if let Some(s) = &cli.global.store {
        return Ok(s.clone());
    }
    if let Some(home) = std::env::var_os("DSH_HOME").filter(|h| !h.is_empty()) {
        return Ok(PathBuf::from(home).join("sessions"));
    }
    match std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        Some(home) => Ok(PathBuf::from(home).join(".dsh").join("sessions")),
        None => Err(Error::usage(
            "no store: pass --store DIR or set DSH_STORE, DSH_HOME or HOME",
        )),
    }
}

/// What every command reads from the global options and the environment,
/// read once.
pub(super) struct Env {
    pub root: PathBuf,
    pub open: Open,
    pub settings: Settings,
    pub json: bool,
    pub contract: Contract,
    pub limits: Limits,
}

/// The text `render` hands over in pieces, written to `out` as it comes
/// with one final newline, as the CLI ends every text; a closed pipe ends
/// the writing quietly (contract §8).
pub(super) fn stream_to(
    out: &mut dyn std::io::Write,
    render: impl FnOnce(&mut dyn FnMut(&str)) -> Result<()>,
) -> Result<()> {
    use std::io::Write;
    let mut w = std::io::BufWriter::with_capacity(64 * 1024, out);
    let mut failed = None;
    render(&mut |t| {
        if failed.is_none() {
            failed = w.write_all(t.as_bytes()).err();
        }
    })?;
    let written = match failed {
        Some(e) => Err(e),
        None => w.write_all(b"\n").and_then(|()| w.flush()),
    };
    match written {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(crate::store::StoreError::io("stdout", e).into())
        }
        _ => Ok(()),
    }
}

pub(super) fn to_json(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// Run a command. What it prints as it goes (`tree`, the long-running
/// commands) goes to stdout; the rest comes back as the `Output`.
pub fn run(cli: Cli) -> Result<Output> {
    run_to(cli, &mut std::io::stdout())
}

/// `run`, with what a command renders as it goes (listings, `tree`,
/// `usage`) written to `out` (it then returns an empty `Output::Raw`).
pub fn run_to(cli: Cli, out: &mut dyn std::io::Write) -> Result<Output> {
    let root = store_root(&cli)?;
    let settings = Settings::of(&cli);
    let env = Env {
        open: Open {
            root: root.clone(),
            settings: settings.clone(),
        },
        root,
        settings,
        json: cli.global.json,
        contract: Contract::from(cli.global.contract),
        limits: limits(&cli)?,
    };
    match &cli.command {
        Command::Tool(tool) => model_tools::run(&env, tool, out),
        Command::Identity { caller } => commands::identity(&env, caller),
        Command::Tree(args) => commands::tree(&env, args, out),
        Command::Check => commands::check(&env),
        Command::Spawn(args) => commands::spawn(&env, args),
        Command::Followup { agent, message, id } => {
            commands::deliver(&env, agent, message, id, Target::NextTurn)
        }
        Command::Steer { agent, message, id } => {
            commands::deliver(&env, agent, message, id, Target::NextStep)
        }
        Command::Interrupt { agent } => commands::interrupt(&env, agent),
        Command::Inbox { agent } => commands::inbox(&env, agent),
        Command::Claim { caller } => commands::claim(&env, caller),
        Command::Serve(args) => commands::serve_agent(&env, args),
        Command::Log(args) => commands::log(&env, args),
        Command::Trace { message_id, to } => commands::trace(&env, message_id, to.as_deref()),
        Command::Export(args) => commands::export(&env, args),
        Command::Usage(args) => commands::usage(&env, args, out),
        Command::Cancel { message_id, to } => commands::cancel(&env, message_id, to.as_deref()),
        Command::Bridge { check } => commands::bridge(&env, *check),
        Command::Completions { shell } => Ok(Output::Raw(super::man::completions(*shell))),
        Command::Man { command } => Ok(Output::Raw(super::man::man_page(command.as_deref())?)),
    }
}
