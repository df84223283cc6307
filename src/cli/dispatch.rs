//! Dispatch: each subcommand calls the module that holds its rules. Model
//! tools go through `tools::ToolCall` in one `Context`, whether they come
//! from their own subcommand or from `call`. Returns what to print; the
//! binary owns the process. Errors that concern a flag get its name here.

use super::args::{CallerArgs, Cli, Command, IdArg, SpawnArgs};
use crate::error::{Error, ErrorKind, Result};
use crate::inbox::record::message_id_problem;
use crate::inbox::{Inbox, Limits, Target};
use crate::operator::spawn::{SpawnError, SpawnRequest};
use crate::operator::{check, deliver, inbox_view, spawn, tree_view};
use crate::runtime::serve::{ServeOptions, serve};
use crate::store::Store;
use crate::store::scan_cache::ScanCache;
use crate::tools::list_agents::Scope;
use crate::tools::{Context, Contract, ToolCall, identity};
use crate::tree::caller::{resolve_agent, resolve_caller};
use crate::tree::{Corpus, ResolveError};
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

/// A message a command sends: never empty (an empty turn helps no one).
fn message_body(arg: &str) -> Result<String> {
    let text = message_text(arg)?;
    if text.trim().is_empty() {
        return Err(Error::usage(
            "MESSAGE: the message is empty; nothing was sent",
        ));
    }
    Ok(text)
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

/// The `--id` of a sending command.
fn message_id(id: &IdArg) -> Result<Option<String>> {
    match &id.id {
        Some(id) => match message_id_problem(id) {
            Some(why) => Err(Error::usage(format!("--id: {why}; nothing was written"))),
            None => Ok(Some(id.clone())),
        },
        None => Ok(None),
    }
}

/// A caller that did not resolve is a usage error about `--as`.
fn caller_flag(e: Error) -> Error {
    match e {
        Error::Resolve(
            r @ (ResolveError::NotFound { .. } | ResolveError::AmbiguousPrefix { .. }),
        ) => Error::usage(format!("--as: {r}")),
        Error::Resolve(ResolveError::NoRoot { store }) => Error::usage(format!(
            "no tree root in store {}; pass --as AGENT",
            store.display()
        )),
        Error::Resolve(ResolveError::SeveralRoots { roots }) => Error::usage(format!(
            "the store holds {} tree roots; pass --as AGENT (one of: {})",
            roots.len(),
            roots.join(", ")
        )),
        other => other,
    }
}

/// Operator delivery and `serve` need a session that can run a turn.
fn refuse_unrunnable(corpus: &Corpus, target: usize) -> Result<()> {
    let cache = ScanCache::default();
    corpus.runnable(&cache, target).map_err(|why| {
        Error::usage(format!(
            "agent \"{}\" cannot run a turn: {}; nothing was written",
            corpus.id(target),
            why.why()
        ))
    })
}

fn to_json(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// A model tool a subcommand stands for: the call, the caller, the `--id`.
type Invocation<'a> = (ToolCall, &'a CallerArgs, Option<String>);

/// The model tool a subcommand stands for, with the caller it names.
fn tool_call(command: &Command, contract: Contract) -> Result<Option<Invocation<'_>>> {
    Ok(Some(match command {
        Command::ListAgents { caller, scope } => {
            if scope.is_some() && contract == Contract::V2 {
                return Err(Error::usage(
                    "--scope is a contract v1 argument; v2 list_agents takes no arguments",
                ));
            }
            let scope = scope.unwrap_or(Scope::Children);
            (ToolCall::ListAgents { scope }, caller, None)
        }
        Command::SendMessage {
            caller,
            agent,
            message,
            id,
        } => (
            ToolCall::SendMessage {
                agent: agent.clone(),
                message: message_body(message)?,
            },
            caller,
            message_id(id)?,
        ),
        Command::SubagentSendMessage {
            caller,
            agent_id,
            message,
            id,
        } => (
            ToolCall::SubagentSendMessage {
                agent_id: agent_id.clone(),
                message: message_body(message)?,
            },
            caller,
            message_id(id)?,
        ),
        Command::SubagentParentMessage {
            caller,
            message,
            mode,
            id,
        } => (
            ToolCall::SubagentParentMessage {
                message: message_body(message)?,
                steer: *mode == Target::NextStep,
            },
            caller,
            message_id(id)?,
        ),
        Command::InterruptAgent { caller, agent } => (
            ToolCall::InterruptAgent {
                agent: agent.clone(),
            },
            caller,
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
            caller,
            None,
        ),
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
            (
                ToolCall::from_json(tool, contract, &args)?,
                caller,
                message_id(id)?,
            )
        }
        _ => return Ok(None),
    }))
}

/// The flag each spawn refusal concerns.
fn spawn_flag(e: SpawnError) -> Error {
    let flag = match &e {
        SpawnError::Store(_) => None,
        SpawnError::EmptyId | SpawnError::DuplicateId(_) => Some("--id: "),
        SpawnError::RelativeCwd(_) | SpawnError::NoProjectDir => Some("--cwd: "),
        SpawnError::UnsafeCreatedAt(_) => Some("--created-at: "),
        SpawnError::NameWithoutParent => Some("--name and --label need --parent: "),
        SpawnError::InvalidName(_) | SpawnError::NameTaken { .. } => Some("--name: "),
        SpawnError::Parent(_) => Some("--parent: "),
    };
    match (flag, e) {
        (_, SpawnError::Store(s)) => Error::Store(s),
        (Some(flag), e) => Error::usage(format!("{flag}{e}")),
        (None, e) => Error::usage(e.to_string()),
    }
}

fn spawn_request(args: &SpawnArgs) -> SpawnRequest {
    SpawnRequest {
        parent: args.parent.clone(),
        name: args.name.clone(),
        label: args.label.clone(),
        mode: args.mode,
        prompt: args.prompt.clone(),
        id: args.id.clone(),
        created_at: args.created_at,
        cwd: args.cwd.clone(),
        encoding: args.compression,
        provider: args.provider.clone(),
    }
}

pub fn run(cli: Cli) -> Result<Output> {
    let root = store_root(&cli)?;
    let json = cli.global.json;
    let contract = cli.global.contract;
    let limits = limits(&cli)?;
    if let Some((call, caller, id)) = tool_call(&cli.command, contract)? {
        let store = Store::open(&root)?;
        let cx = Context::new(&store, contract, caller.agent.as_deref(), id, limits)
            .map_err(caller_flag)?;
        return call.run(cx).map(|o| Output::Text(o.render(json)));
    }
    match &cli.command {
        Command::Identity { caller } => {
            let store = Store::open(&root)?;
            let cx = Context::new(&store, Contract::V2, caller.agent.as_deref(), None, limits)
                .map_err(caller_flag)?;
            let me = identity::identity(&cx)?;
            Ok(Output::Text(if json {
                to_json(&me.json())
            } else {
                me.text()
            }))
        }
        Command::Tree { agent } => {
            let store = Store::open(&root)?;
            let corpus = Corpus::new(&store);
            let only = agent
                .as_deref()
                .map(|a| resolve_agent(&store, a))
                .transpose()?;
            let trees = tree_view::rows(&corpus, only)?;
            Ok(Output::Text(if json {
                to_json(&tree_view::json(&trees))
            } else {
                tree_view::render(&trees)
            }))
        }
        Command::Check => {
            let (sessions, findings) = check::check(&root)?;
            let text = if json {
                serde_json::to_string(&findings).unwrap_or_default()
            } else {
                check::render(sessions, &findings)
            };
            Ok(if findings.is_empty() {
                Output::Text(text)
            } else {
                Output::Failed(text, ErrorKind::Store)
            })
        }
        Command::Spawn(args) => {
            let store = Store::open_for_spawn(&root)?;
            let corpus = Corpus::new(&store);
            let id = spawn::spawn(&corpus, &spawn_request(args)).map_err(spawn_flag)?;
            Ok(Output::Text(if json {
                to_json(&serde_json::json!({"id": id}))
            } else {
                id
            }))
        }
        Command::Followup { agent, message, id } | Command::Steer { agent, message, id } => {
            let list = if matches!(cli.command, Command::Steer { .. }) {
                Target::NextStep
            } else {
                Target::NextTurn
            };
            let message = message_body(message)?;
            let id = message_id(id)?;
            let store = Store::open(&root)?;
            let corpus = Corpus::new(&store);
            let target = resolve_agent(&store, agent)?;
            refuse_unrunnable(&corpus, target)?;
            let (text, receipt) =
                deliver::send_as_user(&corpus, target, &message, list, id, limits)?;
            Ok(Output::Text(if json {
                to_json(&serde_json::json!({"messageId": receipt.message_id}))
            } else {
                text
            }))
        }
        Command::Interrupt { agent } => {
            let store = Store::open(&root)?;
            let corpus = Corpus::new(&store);
            let target = resolve_agent(&store, agent)?;
            let text = deliver::interrupt_as_user(&corpus, target, limits)?;
            Ok(Output::Text(if json {
                to_json(&serde_json::json!({"accepted": true}))
            } else {
                text
            }))
        }
        Command::Inbox { agent } => {
            let store = Store::open(&root)?;
            let target = resolve_agent(&store, agent)?;
            let fold = Inbox::new(&store.sessions[target].dir).read()?;
            Ok(Output::Text(if json {
                to_json(&inbox_view::json(&fold))
            } else {
                inbox_view::render(&fold)
            }))
        }
        Command::Claim { caller } => {
            let store = Store::open(&root)?;
            let agent = resolve_caller(&store, caller.agent.as_deref())
                .map_err(|e| caller_flag(e.into()))?;
            let inbox = Inbox::new(&store.sessions[agent].dir);
            let claimed = crate::inbox::claim::claim(&inbox, limits)?;
            Ok(Output::Text(to_json(&crate::inbox::record::messages_json(
                &claimed.messages,
            ))))
        }
        Command::Serve {
            caller,
            once,
            poll,
            grace_ms,
            quiet,
            command,
        } => {
            let store = Store::open(&root)?;
            let agent = resolve_caller(&store, caller.agent.as_deref())
                .map_err(|e| caller_flag(e.into()))?;
            refuse_unrunnable(&Corpus::new(&store), agent)?;
            let opts = ServeOptions {
                once: *once,
                poll: *poll,
                grace: std::time::Duration::from_millis(*grace_ms),
                command: command.clone(),
                limits,
                quiet: *quiet,
            };
            serve(&root, &store.sessions[agent], opts)?;
            Ok(Output::Raw(String::new()))
        }
        Command::Completions { shell } => Ok(Output::Raw(completions(*shell))),
        Command::ListAgents { .. }
        | Command::SendMessage { .. }
        | Command::SubagentSendMessage { .. }
        | Command::SubagentParentMessage { .. }
        | Command::InterruptAgent { .. }
        | Command::WaitAgent { .. }
        | Command::Call { .. } => unreachable!("model tools are dispatched above"),
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
