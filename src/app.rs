//! Dispatch: each subcommand calls the module that holds its rules. Model
//! tools go through `tools::ToolCall`, whether they come from their own
//! subcommand or from `call`. Returns what to print; the binary owns the
//! process.

use crate::cli::{Cli, Command, DeliveryMode, ScopeArg};
use crate::error::{Error, ErrorKind, Result};
use crate::inbox::{Limits, Target};
use crate::list_agents::Scope;
use crate::resolve::{resolve_caller, resolve_session};
use crate::store::Store;
use crate::tools::{Context, ToolCall};
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

/// A MESSAGE argument; `-` reads standard input (any size, UTF-8).
fn message_text(arg: &str) -> Result<String> {
    if arg != "-" {
        return Ok(arg.to_string());
    }
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes)
        .map_err(|e| Error::usage(format!("MESSAGE: reading standard input: {e}")))?;
    String::from_utf8(bytes).map_err(|_| Error::usage("MESSAGE: standard input is not valid UTF-8"))
}

fn limits(cli: &Cli) -> Result<Limits> {
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

fn to_json(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// A model tool a subcommand stands for: the call, the `--as` text, the `--id`.
type Invocation<'a> = (ToolCall, Option<&'a str>, Option<String>);

/// The model tool a subcommand stands for, with the caller it names.
fn tool_call(command: &Command) -> Result<Option<Invocation<'_>>> {
    Ok(Some(match command {
        Command::ListAgents { caller, scope } => {
            let scope = scope.map(|s| match s {
                ScopeArg::Children => Scope::Children,
                ScopeArg::Descendants => Scope::Descendants,
            });
            (
                ToolCall::ListAgents { scope },
                caller.agent.as_deref(),
                None,
            )
        }
        Command::SendMessage {
            caller,
            agent,
            message,
            id,
        } => {
            let message = message_text(message)?;
            (
                ToolCall::SendMessage {
                    agent: agent.clone(),
                    message,
                },
                caller.agent.as_deref(),
                id.id.clone(),
            )
        }
        Command::SubagentSendMessage {
            caller,
            agent_id,
            message,
            id,
        } => {
            let message = message_text(message)?;
            (
                ToolCall::SubagentSendMessage {
                    agent_id: agent_id.clone(),
                    message,
                },
                caller.agent.as_deref(),
                id.id.clone(),
            )
        }
        Command::SubagentParentMessage {
            caller,
            message,
            mode,
            id,
        } => {
            let message = message_text(message)?;
            let steer = *mode == DeliveryMode::Steer;
            (
                ToolCall::SubagentParentMessage { message, steer },
                caller.agent.as_deref(),
                id.id.clone(),
            )
        }
        Command::InterruptAgent { caller, agent } => (
            ToolCall::InterruptAgent {
                agent: agent.clone(),
            },
            caller.agent.as_deref(),
            None,
        ),
        Command::WaitAgent {
            caller,
            timeout_ms,
            call,
            poll,
        } => (
            ToolCall::WaitAgent {
                timeout_ms: *timeout_ms,
                call: call.clone(),
                poll: *poll,
            },
            caller.agent.as_deref(),
            None,
        ),
        _ => return Ok(None),
    }))
}

pub fn run(cli: Cli) -> Result<Output> {
    let root = store_root(&cli)?;
    let json = cli.global.json;
    let limits = limits(&cli)?;
    if let Some((call, caller, id)) = tool_call(&cli.command)? {
        let store = Store::open(&root)?;
        let cx = Context {
            store: &store,
            contract: cli.global.contract,
            caller,
            id,
            limits,
            json,
        };
        return call.run(&cx).map(Output::Text);
    }
    match &cli.command {
        Command::Call {
            caller,
            id,
            tool,
            json_args,
        } => {
            let args: Value = match json_args {
                None => Value::Object(Default::default()),
                Some(text) => serde_json::from_str(text)
                    .map_err(|e| Error::usage(format!("JSON arguments: {e}")))?,
            };
            let call = ToolCall::from_json(tool, cli.global.contract, &args)?;
            let store = Store::open(&root)?;
            let cx = Context {
                store: &store,
                contract: cli.global.contract,
                caller: caller.agent.as_deref(),
                id: id.id.clone(),
                limits,
                json,
            };
            call.run(&cx).map(Output::Text)
        }
        Command::Identity { caller } => {
            let store = Store::open(&root)?;
            let caller = resolve_caller(&store, caller.agent.as_deref())?;
            Ok(Output::Text(crate::identity::identity_text(
                &store, caller,
            )?))
        }
        Command::Tree { agent } => {
            let store = Store::open(&root)?;
            let only = agent
                .as_deref()
                .map(|a| resolve_session(&store, a))
                .transpose()?;
            let trees = crate::tree_view::rows(&store, only)?;
            Ok(Output::Text(if json {
                to_json(&crate::tree_view::json(&trees))
            } else {
                crate::tree_view::render(&trees)
            }))
        }
        Command::Check => {
            let (sessions, findings) = crate::check::check(&root)?;
            let text = if json {
                serde_json::to_string(&findings).unwrap_or_default()
            } else {
                crate::check::render(sessions, &findings)
            };
            Ok(if findings.is_empty() {
                Output::Text(text)
            } else {
                Output::Failed(text, ErrorKind::Store)
            })
        }
        Command::Spawn(args) => Ok(Output::Text(crate::spawn::spawn(&root, args)?)),
        Command::Followup { agent, message, id } | Command::Steer { agent, message, id } => {
            let list = if matches!(cli.command, Command::Steer { .. }) {
                Target::NextStep
            } else {
                Target::NextTurn
            };
            let message = message_text(message)?;
            let store = Store::open(&root)?;
            let target = resolve_session(&store, agent)?;
            let s = crate::send_message::send_as_user(
                &store,
                target,
                &message,
                list,
                id.id.clone(),
                limits,
            )?;
            Ok(Output::Text(if json {
                to_json(&serde_json::json!({"messageId": s.receipt.message_id}))
            } else {
                s.text
            }))
        }
        Command::Interrupt { agent } => {
            let store = Store::open(&root)?;
            let target = resolve_session(&store, agent)?;
            let text = crate::interrupt_agent::interrupt_as_user(&store, target, limits)?;
            Ok(Output::Text(if json {
                to_json(&serde_json::json!({"accepted": true}))
            } else {
                text
            }))
        }
        Command::Inbox { agent } => {
            let store = Store::open(&root)?;
            let target = resolve_session(&store, agent)?;
            let fold = crate::inbox::Inbox::new(&store.sessions[target].dir).read()?;
            Ok(Output::Text(if json {
                to_json(&crate::inbox_view::json(&fold))
            } else {
                crate::inbox_view::render(&fold)
            }))
        }
        Command::Claim { caller } => {
            let store = Store::open(&root)?;
            let caller = resolve_caller(&store, caller.agent.as_deref())?;
            let claimed = crate::inbox_view::claim(&store.sessions[caller].dir, limits)?;
            Ok(Output::Text(to_json(&crate::inbox_view::claimed_json(
                &claimed,
            ))))
        }
        Command::Serve {
            caller,
            once,
            poll,
            grace_ms,
            command,
        } => {
            let store = Store::open(&root)?;
            let agent = resolve_caller(&store, caller.agent.as_deref())?;
            let opts = crate::runtime::ServeOptions {
                once: *once,
                poll: *poll,
                grace: std::time::Duration::from_millis(*grace_ms),
                command: command.clone(),
                limits,
            };
            crate::runtime::serve(&root, &store, agent, opts)?;
            Ok(Output::Raw(String::new()))
        }
        Command::Completions { shell } => Ok(Output::Raw(completions(*shell))),
        Command::ListAgents { .. }
        | Command::SendMessage { .. }
        | Command::SubagentSendMessage { .. }
        | Command::SubagentParentMessage { .. }
        | Command::InterruptAgent { .. }
        | Command::WaitAgent { .. } => unreachable!("model tools are dispatched above"),
    }
}

/// The completion script for `shell`, as committed under `completions/`.
pub fn completions(shell: clap_complete::Shell) -> String {
    use clap::CommandFactory;
    let mut cmd = Cli::command();
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cmd, "dsh-agents", &mut buf);
    String::from_utf8_lossy(&buf).into_owned()
}
