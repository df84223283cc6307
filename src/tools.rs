//! The model tools as one dispatch: each tool call — from its own
//! subcommand's flags or from `call TOOL JSON` — becomes a `ToolCall`, runs
//! under the selected contract, and renders the text (or `--json` value)
//! the model would see.

use crate::args::{Kind, opt, req, string, validate};
use crate::cli::Contract;
use crate::error::{Error, Result};
use crate::inbox::Limits;
use crate::list_agents::{self, Scope};
use crate::resolve::{resolve_caller, resolve_session};
use crate::send_message::Sent;
use crate::store::Store;
use serde_json::{Value, json};

/// One model tool invocation with its validated arguments.
#[derive(Debug, Clone)]
pub enum ToolCall {
    ListAgents {
        scope: Option<Scope>,
    },
    SendMessage {
        agent: String,
        message: String,
    },
    SubagentSendMessage {
        agent_id: String,
        message: String,
    },
    SubagentParentMessage {
        message: String,
        steer: bool,
    },
    InterruptAgent {
        agent: String,
    },
    WaitAgent {
        timeout_ms: u64,
        call: Option<String>,
        poll: bool,
    },
}

/// Everything a tool needs besides its arguments.
pub struct Context<'a> {
    pub store: &'a Store,
    pub contract: Contract,
    /// The `--as` text (or `DSH_AGENT`).
    pub caller: Option<&'a str>,
    /// A caller-chosen message id (`--id`).
    pub id: Option<String>,
    pub limits: Limits,
    pub json: bool,
}

impl ToolCall {
    /// Parse a tool's raw JSON arguments as the rc.8 tool runtime validates them.
    pub fn from_json(tool: &str, contract: Contract, args: &Value) -> Result<ToolCall> {
        let s = |m: &serde_json::Map<String, Value>, k: &str| {
            string(m, k).unwrap_or_default().to_string()
        };
        Ok(match (tool, contract) {
            ("list_agents", Contract::V1) => ToolCall::ListAgents {
                scope: Some(list_agents::scope_from_args(args)?),
            },
            ("list_agents", Contract::V2) => {
                validate(args, &[])?;
                ToolCall::ListAgents { scope: None }
            }
            ("send_message", Contract::V2) => {
                let m = validate(
                    args,
                    &[req("agent", Kind::String), req("message", Kind::String)],
                )?;
                ToolCall::SendMessage {
                    agent: s(m, "agent"),
                    message: s(m, "message"),
                }
            }
            ("send_message", Contract::V1) => {
                let m = validate(
                    args,
                    &[
                        req("subagent_id", Kind::String),
                        req("message", Kind::String),
                    ],
                )?;
                ToolCall::SendMessage {
                    agent: s(m, "subagent_id"),
                    message: s(m, "message"),
                }
            }
            ("subagent_send_message", _) => {
                let m = validate(
                    args,
                    &[req("agent_id", Kind::String), req("message", Kind::String)],
                )?;
                ToolCall::SubagentSendMessage {
                    agent_id: s(m, "agent_id"),
                    message: s(m, "message"),
                }
            }
            ("subagent_parent_message", _) => {
                let m = validate(
                    args,
                    &[
                        req("message", Kind::String),
                        opt("mode", Kind::Enum(&["followup", "steer"])),
                    ],
                )?;
                ToolCall::SubagentParentMessage {
                    message: s(m, "message"),
                    steer: string(m, "mode") == Some("steer"),
                }
            }
            ("interrupt_agent", Contract::V2) => {
                let m = validate(args, &[req("agent", Kind::String)])?;
                ToolCall::InterruptAgent {
                    agent: s(m, "agent"),
                }
            }
            ("interrupt_agent", Contract::V1) => {
                let m = validate(args, &[req("agent_id", Kind::String)])?;
                ToolCall::InterruptAgent {
                    agent: s(m, "agent_id"),
                }
            }
            ("wait_agent", Contract::V2) => {
                let m = validate(args, &[opt("timeout_ms", Kind::Integer)])?;
                let timeout_ms = crate::wait_agent::check_timeout(m.get("timeout_ms"))?;
                let call = std::env::var("DSH_CALL_ID").ok().filter(|c| !c.is_empty());
                ToolCall::WaitAgent {
                    timeout_ms,
                    call,
                    poll: false,
                }
            }
            (other, _) => {
                return Err(Error::usage(format!(
                    "unknown tool \"{other}\" for contract {}; tools: list_agents, send_message, interrupt_agent, wait_agent (v2), subagent_send_message, subagent_parent_message",
                    match contract {
                        Contract::V1 => "v1",
                        Contract::V2 => "v2",
                    }
                )));
            }
        })
    }

    /// Run the call and render its result.
    pub fn run(self, cx: &Context) -> Result<String> {
        let store = cx.store;
        let v2_caller = || resolve_caller(store, cx.caller);
        let to_json = |v: Value| serde_json::to_string(&v).unwrap_or_default();
        let sent = |s: Sent| {
            if cx.json {
                to_json(json!({"messageId": s.receipt.message_id}))
            } else {
                s.text
            }
        };
        let accepted = |text: String| {
            if cx.json {
                to_json(json!({"accepted": true}))
            } else {
                text
            }
        };
        match (self, cx.contract) {
            (ToolCall::ListAgents { scope }, Contract::V1) => {
                let entries = list_agents::list_v1(
                    store,
                    &v1_caller(store, cx.caller)?,
                    scope.unwrap_or(Scope::Children),
                );
                Ok(if cx.json {
                    to_json(list_agents::json_v1(&entries))
                } else {
                    list_agents::render_v1(&entries)
                })
            }
            (ToolCall::ListAgents { scope: Some(_) }, Contract::V2) => Err(Error::usage(
                "--scope is a contract v1 argument; v2 list_agents takes no arguments",
            )),
            (ToolCall::ListAgents { scope: None }, Contract::V2) => {
                let rows = list_agents::list_v2(store, v2_caller()?)?;
                Ok(if cx.json {
                    to_json(list_agents::json_v2(&rows))
                } else {
                    list_agents::render_v2(&rows)
                })
            }
            (ToolCall::SendMessage { agent, message }, Contract::V2) => {
                crate::send_message::send_v2(
                    store,
                    v2_caller()?,
                    &agent,
                    &message,
                    cx.id.clone(),
                    cx.limits,
                )
                .map(sent)
            }
            (
                ToolCall::SendMessage {
                    agent: agent_id,
                    message,
                },
                Contract::V1,
            )
            | (ToolCall::SubagentSendMessage { agent_id, message }, _) => {
                crate::send_message::send_v1(
                    store,
                    &v1_caller(store, cx.caller)?,
                    &agent_id,
                    &message,
                    cx.id.clone(),
                    cx.limits,
                )
                .map(sent)
            }
            (ToolCall::SubagentParentMessage { message, steer }, _) => {
                crate::parent_message::send_to_parent(
                    store,
                    v2_caller()?,
                    &message,
                    steer,
                    cx.id.clone(),
                    cx.limits,
                )
                .map(sent)
            }
            (ToolCall::InterruptAgent { agent }, Contract::V2) => {
                crate::interrupt_agent::interrupt_v2(store, v2_caller()?, &agent, cx.limits)
                    .map(accepted)
            }
            (ToolCall::InterruptAgent { agent }, Contract::V1) => {
                crate::interrupt_agent::interrupt_v1(
                    store,
                    &v1_caller(store, cx.caller)?,
                    &agent,
                    cx.limits,
                )
                .map(accepted)
            }
            (
                ToolCall::WaitAgent {
                    timeout_ms,
                    call,
                    poll,
                },
                Contract::V2,
            ) => {
                let caller = v2_caller()?;
                crate::signals::install();
                let timed_out = crate::wait_agent::wait(
                    &store.sessions[caller].dir,
                    timeout_ms,
                    call.as_deref(),
                    poll,
                    cx.limits,
                )?;
                Ok(to_json(json!({"timedOut": timed_out})))
            }
            (ToolCall::WaitAgent { .. }, Contract::V1) => {
                Err(Error::usage("wait_agent is a contract v2 tool"))
            }
        }
    }
}

/// rc.8 treats the caller's id as opaque: a live agent need not have a log
/// yet, so an id the store does not hold simply has no children.
pub fn v1_caller(store: &Store, agent: Option<&str>) -> Result<String> {
    match resolve_caller(store, agent) {
        Ok(i) => Ok(store.sessions[i].header.id.clone()),
        Err(e) => match agent {
            Some(text)
                if !text.is_empty()
                    && !e.message.contains("ambiguous")
                    && resolve_session(store, text).is_err() =>
            {
                Ok(text.to_string())
            }
            _ => Err(e),
        },
    }
}
