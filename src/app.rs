//! Dispatch: one function per command, each calling the module that holds
//! its rules. Returns what to print; the binary owns the process.

use crate::cli::{Cli, Command, Contract, DeliveryMode, ScopeArg};
use crate::error::{Error, Result};
use crate::inbox::{Limits, Target};
use crate::list_agents::{self, Scope};
use crate::resolve::resolve_caller;
use crate::send_message::Sent;
use crate::store::Store;
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
    Failed(String, crate::error::ErrorKind),
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

fn to_json(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
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

fn accepted(text: String, json: bool) -> Output {
    if json {
        Output::Text(to_json(&serde_json::json!({"accepted": true})))
    } else {
        Output::Text(text)
    }
}

fn sent(s: Sent, json: bool) -> Output {
    if json {
        Output::Text(to_json(
            &serde_json::json!({"messageId": s.receipt.message_id}),
        ))
    } else {
        Output::Text(s.text)
    }
}

pub fn run(cli: Cli) -> Result<Output> {
    let root = store_root(&cli)?;
    let json = cli.global.json;
    let contract = cli.global.contract;
    let limits = limits(&cli)?;
    match &cli.command {
        Command::SendMessage {
            caller,
            agent,
            message,
            id,
        } => {
            let message = message_text(message)?;
            let store = Store::open(&root)?;
            let out = match contract {
                Contract::V2 => {
                    let caller = resolve_caller(&store, caller.agent.as_deref())?;
                    crate::send_message::send_v2(
                        &store,
                        caller,
                        agent,
                        &message,
                        id.id.clone(),
                        limits,
                    )?
                }
                Contract::V1 => {
                    let caller = v1_caller(&store, caller.agent.as_deref())?;
                    crate::send_message::send_v1(
                        &store,
                        &caller,
                        agent,
                        &message,
                        id.id.clone(),
                        limits,
                    )?
                }
            };
            Ok(sent(out, json))
        }
        Command::SubagentSendMessage {
            caller,
            agent_id,
            message,
            id,
        } => {
            let message = message_text(message)?;
            let store = Store::open(&root)?;
            let caller = v1_caller(&store, caller.agent.as_deref())?;
            Ok(sent(
                crate::send_message::send_v1(
                    &store,
                    &caller,
                    agent_id,
                    &message,
                    id.id.clone(),
                    limits,
                )?,
                json,
            ))
        }
        Command::SubagentParentMessage {
            caller,
            message,
            mode,
            id,
        } => {
            let message = message_text(message)?;
            let store = Store::open(&root)?;
            let caller = resolve_caller(&store, caller.agent.as_deref())?;
            let steer = *mode == DeliveryMode::Steer;
            Ok(sent(
                crate::parent_message::send_to_parent(
                    &store,
                    caller,
                    &message,
                    steer,
                    id.id.clone(),
                    limits,
                )?,
                json,
            ))
        }
        Command::Followup { agent, message, id } | Command::Steer { agent, message, id } => {
            let list = if matches!(cli.command, Command::Steer { .. }) {
                Target::NextStep
            } else {
                Target::NextTurn
            };
            let message = message_text(message)?;
            let store = Store::open(&root)?;
            let target = crate::resolve::resolve_session(&store, agent)?;
            Ok(sent(
                crate::send_message::send_as_user(
                    &store,
                    target,
                    &message,
                    list,
                    id.id.clone(),
                    limits,
                )?,
                json,
            ))
        }
        Command::InterruptAgent { caller, agent } => {
            let store = Store::open(&root)?;
            let text = match contract {
                Contract::V2 => {
                    let caller = resolve_caller(&store, caller.agent.as_deref())?;
                    crate::interrupt_agent::interrupt_v2(&store, caller, agent, limits)?
                }
                Contract::V1 => {
                    let caller = v1_caller(&store, caller.agent.as_deref())?;
                    crate::interrupt_agent::interrupt_v1(&store, &caller, agent, limits)?
                }
            };
            Ok(accepted(text, json))
        }
        Command::Interrupt { agent } => {
            let store = Store::open(&root)?;
            let target = crate::resolve::resolve_session(&store, agent)?;
            Ok(accepted(
                crate::interrupt_agent::interrupt_as_user(&store, target, limits)?,
                json,
            ))
        }
        Command::WaitAgent {
            caller,
            timeout_ms,
            call,
            poll,
        } => {
            if contract == Contract::V1 {
                return Err(Error::usage("wait_agent is a contract v2 tool"));
            }
            let store = Store::open(&root)?;
            let caller = resolve_caller(&store, caller.agent.as_deref())?;
            crate::signals::install();
            let timed_out = crate::wait_agent::wait(
                &store.sessions[caller].dir,
                *timeout_ms,
                call.as_deref(),
                *poll,
                limits,
            )?;
            Ok(Output::Text(to_json(
                &serde_json::json!({"timedOut": timed_out}),
            )))
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
        Command::Inbox { agent } => {
            let store = Store::open(&root)?;
            let target = crate::resolve::resolve_session(&store, agent)?;
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
        Command::ListAgents { caller, scope } => {
            let store = Store::open(&root)?;
            match contract {
                Contract::V1 => {
                    let scope = match scope {
                        Some(ScopeArg::Descendants) => Scope::Descendants,
                        _ => Scope::Children,
                    };
                    list_v1(
                        &store,
                        &v1_caller(&store, caller.agent.as_deref())?,
                        scope,
                        json,
                    )
                }
                Contract::V2 => {
                    if scope.is_some() {
                        return Err(Error::usage(
                            "--scope is a contract v1 argument; v2 list_agents takes no arguments",
                        ));
                    }
                    list_v2(
                        &store,
                        resolve_caller(&store, caller.agent.as_deref())?,
                        json,
                    )
                }
            }
        }
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
            let store = Store::open(&root)?;
            match tool.as_str() {
                "list_agents" => match contract {
                    Contract::V1 => {
                        let caller = v1_caller(&store, caller.agent.as_deref())?;
                        list_v1(&store, &caller, list_agents::scope_from_args(&args)?, json)
                    }
                    Contract::V2 => list_v2(
                        &store,
                        resolve_caller(&store, caller.agent.as_deref())?,
                        json,
                    ),
                },
                "send_message" => {
                    use crate::args::{Kind, req, string, validate};
                    let out = match contract {
                        Contract::V2 => {
                            let map = validate(
                                &args,
                                &[req("agent", Kind::String), req("message", Kind::String)],
                            )?;
                            let caller = resolve_caller(&store, caller.agent.as_deref())?;
                            let (agent, message) = (
                                string(map, "agent").unwrap_or_default(),
                                string(map, "message").unwrap_or_default(),
                            );
                            crate::send_message::send_v2(
                                &store,
                                caller,
                                agent,
                                message,
                                id.id.clone(),
                                limits,
                            )?
                        }
                        Contract::V1 => {
                            let map = validate(
                                &args,
                                &[
                                    req("subagent_id", Kind::String),
                                    req("message", Kind::String),
                                ],
                            )?;
                            let caller = v1_caller(&store, caller.agent.as_deref())?;
                            let (agent, message) = (
                                string(map, "subagent_id").unwrap_or_default(),
                                string(map, "message").unwrap_or_default(),
                            );
                            crate::send_message::send_v1(
                                &store,
                                &caller,
                                agent,
                                message,
                                id.id.clone(),
                                limits,
                            )?
                        }
                    };
                    Ok(sent(out, json))
                }
                "subagent_send_message" => {
                    use crate::args::{Kind, req, string, validate};
                    let map = validate(
                        &args,
                        &[req("agent_id", Kind::String), req("message", Kind::String)],
                    )?;
                    let caller = v1_caller(&store, caller.agent.as_deref())?;
                    let (agent, message) = (
                        string(map, "agent_id").unwrap_or_default(),
                        string(map, "message").unwrap_or_default(),
                    );
                    Ok(sent(
                        crate::send_message::send_v1(
                            &store,
                            &caller,
                            agent,
                            message,
                            id.id.clone(),
                            limits,
                        )?,
                        json,
                    ))
                }
                "subagent_parent_message" => {
                    use crate::args::{Kind, opt, req, string, validate};
                    let map = validate(
                        &args,
                        &[
                            req("message", Kind::String),
                            opt("mode", Kind::Enum(&["followup", "steer"])),
                        ],
                    )?;
                    let caller = resolve_caller(&store, caller.agent.as_deref())?;
                    let steer = string(map, "mode") == Some("steer");
                    let message = string(map, "message").unwrap_or_default();
                    Ok(sent(
                        crate::parent_message::send_to_parent(
                            &store,
                            caller,
                            message,
                            steer,
                            id.id.clone(),
                            limits,
                        )?,
                        json,
                    ))
                }
                "interrupt_agent" => {
                    use crate::args::{Kind, req, string, validate};
                    let text = match contract {
                        Contract::V2 => {
                            let map = validate(&args, &[req("agent", Kind::String)])?;
                            let caller = resolve_caller(&store, caller.agent.as_deref())?;
                            crate::interrupt_agent::interrupt_v2(
                                &store,
                                caller,
                                string(map, "agent").unwrap_or_default(),
                                limits,
                            )?
                        }
                        Contract::V1 => {
                            let map = validate(&args, &[req("agent_id", Kind::String)])?;
                            let caller = v1_caller(&store, caller.agent.as_deref())?;
                            crate::interrupt_agent::interrupt_v1(
                                &store,
                                &caller,
                                string(map, "agent_id").unwrap_or_default(),
                                limits,
                            )?
                        }
                    };
                    Ok(accepted(text, json))
                }
                "wait_agent" if contract == Contract::V2 => {
                    use crate::args::{Kind, opt, validate};
                    let map = validate(&args, &[opt("timeout_ms", Kind::Integer)])?;
                    let timeout = crate::wait_agent::check_timeout(map.get("timeout_ms"))?;
                    let caller = resolve_caller(&store, caller.agent.as_deref())?;
                    let call = std::env::var("DSH_CALL_ID").ok().filter(|c| !c.is_empty());
                    crate::signals::install();
                    let timed_out = crate::wait_agent::wait(
                        &store.sessions[caller].dir,
                        timeout,
                        call.as_deref(),
                        false,
                        limits,
                    )?;
                    Ok(Output::Text(to_json(
                        &serde_json::json!({"timedOut": timed_out}),
                    )))
                }
                other => Err(Error::usage(format!(
                    "unknown tool \"{other}\"; known tools: list_agents, send_message, interrupt_agent, wait_agent (v2), subagent_send_message, subagent_parent_message"
                ))),
            }
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
                .map(|a| crate::resolve::resolve_session(&store, a))
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
            if findings.is_empty() {
                Ok(Output::Text(text))
            } else {
                Ok(Output::Failed(text, crate::error::ErrorKind::Store))
            }
        }
        Command::Spawn(args) => Ok(Output::Text(crate::spawn::spawn(&root, args)?)),
        Command::Completions { shell } => Ok(Output::Raw(completions(*shell))),
    }
}

/// rc.8 treats the caller's id as opaque: a live agent need not have a log
/// yet, so an id the store does not hold simply has no children.
fn v1_caller(store: &Store, agent: Option<&str>) -> Result<String> {
    match resolve_caller(store, agent) {
        Ok(i) => Ok(store.sessions[i].header.id.clone()),
        Err(e) => match agent {
            Some(text)
                if !text.is_empty()
                    && crate::resolve::resolve_session(store, text).is_err()
                    && !e.message.contains("ambiguous") =>
            {
                Ok(text.to_string())
            }
            _ => Err(e),
        },
    }
}

fn list_v1(store: &Store, caller: &str, scope: Scope, json: bool) -> Result<Output> {
    let entries = list_agents::list_v1(store, caller, scope);
    Ok(Output::Text(if json {
        to_json(&list_agents::json_v1(&entries))
    } else {
        list_agents::render_v1(&entries)
    }))
}

fn list_v2(store: &Store, caller: usize, json: bool) -> Result<Output> {
    let rows = list_agents::list_v2(store, caller)?;
    Ok(Output::Text(if json {
        to_json(&list_agents::json_v2(&rows))
    } else {
        list_agents::render_v2(&rows)
    }))
}

/// The completion script for `shell`, as committed under `completions/`.
pub fn completions(shell: clap_complete::Shell) -> String {
    use clap::CommandFactory;
    let mut cmd = Cli::command();
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cmd, "dsh-agents", &mut buf);
    String::from_utf8_lossy(&buf).into_owned()
}
