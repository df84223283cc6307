//! The model tools (contract §5, §7) as one dispatch: each call — from its
//! own subcommand's flags or from `call TOOL JSON` — becomes a `ToolCall`,
//! runs in a `Context` that resolved the caller once, and renders the text
//! (or `--json` value) the model would see. Each tool has its own file.

pub mod args;
pub mod identity;
pub mod interrupt_agent;
pub mod list_agents;
pub mod parent_message;
pub mod send_message;
pub mod wait_agent;

use crate::error::{Error, Result};
use crate::inbox::{Limits, Receipt};
use crate::tree::caller::{resolve_caller, resolve_v1_caller};
use crate::tree::{Corpus, ResolveError};
use args::{Kind, opt, req, string, validate};
use dsh_store::Store;
use dsh_store::accel::ScanCache;
use dsh_store::set::Ancestry;
use list_agents::Scope;
use serde_json::{Value, json};

/// Which tool contract is spoken (contract §1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Contract {
    /// DSH 0.1.0-rc.8 (seed 000): id-addressed tools
    V1,
    /// Seed 001: name-addressed tools
    V2,
}

impl Contract {
    pub fn as_str(self) -> &'static str {
        match self {
            Contract::V1 => "v1",
            Contract::V2 => "v2",
        }
    }
}

/// The caller, resolved once.
#[derive(Debug, Clone)]
pub struct Caller {
    /// The Session id (under v1 possibly one the store does not hold).
    pub id: String,
    /// The session, when the store holds it.
    pub index: Option<usize>,
    /// Its v2 root (computed under contract v2).
    pub root: Option<usize>,
}

/// Everything a tool needs besides its arguments.
pub struct Context<'a> {
    pub store: &'a Store,
    pub corpus: Corpus<'a>,
    pub contract: Contract,
    pub caller: Caller,
    /// Log scans resumed and refreshed by this call; committed on success.
    pub cache: ScanCache,
    /// A caller-chosen message id (`--id`).
    pub message_id: Option<String>,
    pub limits: Limits,
}

impl<'a> Context<'a> {
    /// Resolve the caller (`--as`, or the only root) under `contract`. v2
    /// needs the caller's root, so a `parentSession` cycle above the caller
    /// fails here, the same way for every v2 tool.
    pub fn new(
        store: &'a Store,
        contract: Contract,
        caller: Option<&str>,
        message_id: Option<String>,
        limits: Limits,
    ) -> Result<Context<'a>> {
        let corpus = Corpus::new(store);
        let caller = match contract {
            Contract::V1 => {
                let (id, index) = resolve_v1_caller(store, caller)?;
                Caller {
                    id,
                    index,
                    root: None,
                }
            }
            Contract::V2 => {
                let index = resolve_caller(store, caller)?;
                let root = corpus.root_of(index)?;
                Caller {
                    id: store.sessions.id(index).to_string(),
                    index: Some(index),
                    root: Some(root),
                }
            }
        };
        Ok(Context {
            store,
            corpus,
            contract,
            caller,
            cache: ScanCache::default(),
            message_id,
            limits,
        })
    }

    /// The caller's session; a v1 caller the store does not hold has none.
    pub fn caller_index(&self) -> Result<usize> {
        self.caller.index.ok_or_else(|| {
            ResolveError::NotFound {
                text: self.caller.id.clone(),
                store: self.store.root.clone(),
                suggestions: Vec::new(),
            }
            .into()
        })
    }

    /// The caller's v2 root.
    pub fn root(&self) -> Result<usize> {
        match self.caller.root {
            Some(r) => Ok(r),
            None => Ok(self.corpus.root_of(self.caller_index()?)?),
        }
    }
}

/// One model tool invocation with its validated arguments.
#[derive(Debug, Clone)]
pub enum ToolCall {
    ListAgents {
        scope: Scope,
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

/// A tool's successful result, before rendering.
pub enum Outcome {
    ListedV1(list_agents::V1Listing),
    ListedV2(list_agents::V2Listing),
    Sent { text: String, receipt: Receipt },
    Interrupted { text: String },
    Waited { timed_out: bool },
}

impl Outcome {
    /// `render`, handed to `out` in pieces: a listing's text a row at a time.
    pub fn render_to(&self, as_json: bool, out: &mut dyn FnMut(&str)) {
        match (self, as_json) {
            (Outcome::ListedV1(e), false) => list_agents::render_v1_to(e, out),
            (Outcome::ListedV1(e), true) => list_agents::json_v1_to(e, out),
            (Outcome::ListedV2(r), false) => list_agents::render_v2_to(r, out),
            (Outcome::ListedV2(r), true) => list_agents::json_v2_to(r, out),
            _ => out(&self.render(as_json)),
        }
    }

    /// The text the model sees, or the canonical JSON value.
    pub fn render(&self, as_json: bool) -> String {
        let to_json = |v: Value| serde_json::to_string(&v).unwrap_or_default();
        match (self, as_json) {
            (Outcome::ListedV1(_) | Outcome::ListedV2(_), _) => {
                let mut text = String::new();
                self.render_to(as_json, &mut |t| text.push_str(t));
                text
            }
            (Outcome::Sent { text, .. }, false) | (Outcome::Interrupted { text }, false) => {
                text.clone()
            }
            (Outcome::Sent { receipt, .. }, true) => {
                to_json(json!({"messageId": receipt.message_id}))
            }
            (Outcome::Interrupted { .. }, true) => to_json(json!({"accepted": true})),
            (Outcome::Waited { timed_out }, _) => to_json(json!({"timedOut": timed_out})),
        }
    }
}

impl ToolCall {
    /// Parse a tool's raw JSON arguments as the rc.8 tool runtime validates them.
    pub fn from_json(tool: &str, contract: Contract, args: &Value) -> Result<ToolCall> {
        let s = |m: &serde_json::Map<String, Value>, k: &str| {
            string(m, k).unwrap_or_default().to_string()
        };
        Ok(match (tool, contract) {
            ("list_agents", Contract::V1) => {
                let m = validate(args, &[opt("scope", Kind::Enum(Scope::NAMES))])?;
                ToolCall::ListAgents {
                    scope: string(m, "scope")
                        .and_then(Scope::parse)
                        .unwrap_or(Scope::Children),
                }
            }
            ("list_agents", Contract::V2) => {
                validate(args, &[])?;
                ToolCall::ListAgents {
                    scope: Scope::Children,
                }
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
                let timeout_ms = wait_agent::check_timeout(m.get("timeout_ms"))?;
                // The root call it reports under is the caller's to say
                // (`Invocation` of the command line fills it in).
                ToolCall::WaitAgent {
                    timeout_ms,
                    call: None,
                    poll: false,
                }
            }
            (other, _) => {
                const TOOLS: [&str; 6] = [
                    "list_agents",
                    "send_message",
                    "interrupt_agent",
                    "wait_agent",
                    "subagent_send_message",
                    "subagent_parent_message",
                ];
                return Err(Error::usage(format!(
                    "unknown tool \"{other}\" for contract {}{}; tools: list_agents, send_message, interrupt_agent, wait_agent (v2), subagent_send_message, subagent_parent_message",
                    contract.as_str(),
                    crate::support::suggest::tip(other, TOOLS)
                )));
            }
        })
    }

    /// The sessions the call addresses by exact id besides its caller, or
    /// `None` when it needs the whole store (a listing, a v2 name).
    pub fn addressed(&self, contract: Contract) -> Option<Vec<&str>> {
        match (self, contract) {
            (ToolCall::SendMessage { agent, .. }, Contract::V1)
            | (ToolCall::InterruptAgent { agent }, Contract::V1)
            | (
                ToolCall::SubagentSendMessage {
                    agent_id: agent, ..
                },
                _,
            ) => Some(vec![agent.as_str()]),
            (ToolCall::SubagentParentMessage { .. }, _) | (ToolCall::WaitAgent { .. }, _) => {
                Some(Vec::new())
            }
            (ToolCall::ListAgents { .. }, _)
            | (ToolCall::SendMessage { .. }, Contract::V2)
            | (ToolCall::InterruptAgent { .. }, Contract::V2) => None,
        }
    }

    /// How far up from the caller and the sessions it addresses this call's
    /// rules look: v2 needs every caller's root (and names are paths from
    /// it), a v1 interrupt the target's ancestry; a v1 send only the caller
    /// and its target, a message to the parent only the parent.
    pub fn ancestry(&self, contract: Contract) -> Ancestry {
        match (self, contract) {
            (_, Contract::V2) | (ToolCall::InterruptAgent { .. }, Contract::V1) => Ancestry::Whole,
            (ToolCall::SubagentParentMessage { .. }, Contract::V1) => Ancestry::Parents,
            (_, Contract::V1) => Ancestry::None,
        }
    }

    /// The target a v2 call names (a name path or an id), resolved in the
    /// caller's tree.
    pub fn v2_target(&self, contract: Contract) -> Option<&str> {
        match (self, contract) {
            (ToolCall::SendMessage { agent, .. }, Contract::V2)
            | (ToolCall::InterruptAgent { agent }, Contract::V2) => Some(agent),
            _ => None,
        }
    }

    /// Run the call in `cx` and hand its text (or JSON) to `out` as it is
    /// made: a listing is written as its walk goes, never held. Nothing
    /// reaches `out` when the call fails.
    pub fn run_to(self, cx: Context, as_json: bool, out: &mut dyn FnMut(&str)) -> Result<()> {
        match (&self, cx.contract) {
            (ToolCall::ListAgents { .. }, Contract::V2) => {
                list_agents::stream_v2(&cx, as_json, out)?;
                cx.cache.commit();
                return Ok(());
            }
            (ToolCall::ListAgents { scope }, Contract::V1) => {
                list_agents::stream_v1(&cx, *scope, as_json, out);
                cx.cache.commit();
                return Ok(());
            }
            _ => {}
        }
        self.run(cx)?.render_to(as_json, out);
        Ok(())
    }

    /// Run the call in `cx`. The refreshed scan caches are written only
    /// when the tool succeeds: a rejected call writes nothing.
    pub fn run(self, cx: Context) -> Result<Outcome> {
        let outcome = self.dispatch(&cx)?;
        cx.cache.commit();
        Ok(outcome)
    }

    fn dispatch(self, cx: &Context) -> Result<Outcome> {
        match (self, cx.contract) {
            (ToolCall::ListAgents { scope }, Contract::V1) => {
                Ok(Outcome::ListedV1(list_agents::list_v1(cx, scope)))
            }
            (ToolCall::ListAgents { .. }, Contract::V2) => {
                Ok(Outcome::ListedV2(list_agents::list_v2(cx)?))
            }
            (ToolCall::SendMessage { agent, message }, Contract::V2) => {
                send_message::send_v2(cx, &agent, &message)
            }
            (
                ToolCall::SendMessage {
                    agent: agent_id,
                    message,
                },
                Contract::V1,
            )
            | (ToolCall::SubagentSendMessage { agent_id, message }, _) => {
                send_message::send_v1(cx, &agent_id, &message)
            }
            (ToolCall::SubagentParentMessage { message, steer }, _) => {
                parent_message::send_to_parent(cx, &message, steer)
            }
            (ToolCall::InterruptAgent { agent }, Contract::V2) => {
                interrupt_agent::interrupt_v2(cx, &agent)
            }
            (ToolCall::InterruptAgent { agent }, Contract::V1) => {
                interrupt_agent::interrupt_v1(cx, &agent)
            }
            (
                ToolCall::WaitAgent {
                    timeout_ms,
                    call,
                    poll,
                },
                Contract::V2,
            ) => wait_agent::wait_agent(cx, timeout_ms, call.as_deref(), poll),
            (ToolCall::WaitAgent { .. }, Contract::V1) => {
                Err(Error::usage("wait_agent is a contract v2 tool"))
            }
        }
    }
}
