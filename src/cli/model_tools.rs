//! The model tools from the command line: each tool subcommand, and `call`
//! with a tool's name and raw JSON arguments, becomes one `tools::ToolCall`
//! run in one `Context` over the sessions the call's rules read.

use super::args::{CallerArgs, ToolCommand};
use super::env::{Env, Output, stream_to};
use super::inputs::{caller_flag, message_body, message_id, message_text};
use crate::error::{Error, Result};
use crate::inbox::Target;
use crate::tools::list_agents::Scope;
use crate::tools::{Context, Contract, ToolCall};
use dsh_store::format::Dialect;
use serde_json::Value;

/// A model tool a subcommand stands for: the call, the caller, the `--id`.
type Invocation<'a> = (ToolCall, &'a CallerArgs, Option<String>);

/// The model tool a subcommand stands for, with the caller it names.
fn tool_call(command: &ToolCommand, contract: Contract) -> Result<Invocation<'_>> {
    Ok(match command {
        ToolCommand::ListAgents { caller, scope } => {
            if scope.is_some() && contract == Contract::V2 {
                return Err(Error::usage(
                    "--scope is a contract v1 argument; v2 list_agents takes no arguments",
                ));
            }
            let scope = scope.map_or(Scope::Children, Scope::from);
            (ToolCall::ListAgents { scope }, caller, None)
        }
        ToolCommand::SendMessage {
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
        ToolCommand::SubagentSendMessage {
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
        ToolCommand::SubagentParentMessage {
            caller,
            message,
            mode,
            id,
        } => (
            // The tool has its own empty-message rule (seed 002); keep its text.
            ToolCall::SubagentParentMessage {
                message: message_text(message)?,
                steer: Target::from(*mode) == Target::NextStep,
            },
            caller,
            message_id(id)?,
        ),
        ToolCommand::InterruptAgent { caller, agent } => (
            ToolCall::InterruptAgent {
                agent: agent.clone(),
            },
            caller,
            None,
        ),
        ToolCommand::WaitAgent {
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
        ToolCommand::Call {
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
    })
}

/// Run the model tool `command`, its text written to `out` as it is
/// rendered.
pub(super) fn run(
    env: &Env,
    command: &ToolCommand,
    out: &mut dyn std::io::Write,
) -> Result<Output> {
    let contract = env.contract;
    let (mut call, caller, id) = tool_call(command, contract)?;
    // `call wait_agent` reports under the root call the environment
    // names, as `wait-agent --call` does.
    if let (
        ToolCall::WaitAgent {
            call: root_call, ..
        },
        ToolCommand::Call { .. },
    ) = (&mut call, command)
    {
        root_call.clone_from(&env.settings.call_id);
    }
    let store = match call.v2_target(contract) {
        Some(agent) => crate::tree::name_lookup::open_for_name(
            &env.root,
            env.open.cache(),
            caller.agent.as_deref(),
            agent,
            env.settings.read_ahead,
        )?,
        None => env.open.ids_reading(
            caller.agent.as_deref(),
            call.addressed(contract),
            call.ancestry(contract),
            (contract == Contract::V2 && env.settings.read_ahead)
                .then_some(&dsh_store::set::Located(Dialect::Seed001)),
        )?,
    };
    let cx = Context::new(&store, contract, caller.agent.as_deref(), id, env.limits)
        .map_err(caller_flag)?;
    // A listing's text is written as it is made, never held whole.
    stream_to(out, |emit| call.run_to(cx, env.json, emit))?;
    Ok(Output::Raw(String::new()))
}
