//! Dispatch: the table from each subcommand to its handler. Model tools
//! (`model_tools`) share one `Context`, whether they come from their own
//! subcommand or from `call`; the operator, runtime and setup commands are
//! in `commands`. Returns what to print; the binary owns the process.

use super::args::{Cli, Command};
use super::commands;
use super::env::{Env, Output, store_root};
use super::inputs::limits;
use super::model_tools;
use super::open::Open;
use super::settings::Settings;
use crate::error::Result;
use crate::inbox::Target;
use crate::tools::Contract;

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
        Command::Top(args) => commands::top(&env, args),
        Command::Check { fleet: false } => commands::check(&env, out),
        Command::Check { fleet: true } => super::fleet::check(&env, out, commands::check),
        Command::Events(args) => commands::events(&env, args),
        Command::Watch(args) => commands::watch(&env, args),
        Command::Spawn(args) => commands::spawn(&env, args),
        Command::Followup {
            agent,
            message,
            id,
            wait,
        } => commands::deliver(&env, agent, message, id, wait, Target::NextTurn),
        Command::Steer {
            agent,
            message,
            id,
            wait,
        } => commands::deliver(&env, agent, message, id, wait, Target::NextStep),
        Command::Interrupt { agent, expires } => commands::interrupt(&env, agent, *expires),
        Command::Inbox { agent } => commands::inbox(&env, agent),
        Command::Claim { caller } => commands::claim(&env, caller),
        Command::Serve(args) => commands::serve_agent(&env, args),
        Command::Log(args) => commands::log(&env, args),
        Command::Trace { message_id, to } => commands::trace(&env, message_id, to.as_deref()),
        Command::Export(args) => commands::export(&env, args, out),
        Command::Usage(args) => commands::usage(&env, args, out),
        Command::Fleet(cmd) => super::fleet::run(&env, cmd),
        Command::Cancel {
            message_id,
            to,
            wait,
        } => commands::cancel(&env, message_id, to.as_deref(), wait),
        Command::Bridge { check } => commands::bridge(&env, *check),
        Command::Completions { shell } => Ok(Output::Raw(super::man::completions(*shell))),
        Command::Man { command } => Ok(Output::Raw(super::man::man_page(command.as_deref())?)),
    }
}
