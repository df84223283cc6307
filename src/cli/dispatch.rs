//! Dispatch: each subcommand calls the module that holds its rules. Model
//! tools go through `tools::ToolCall` in one `Context`, whether they come
//! from their own subcommand or from `call`. Returns what to print; the
//! binary owns the process. Errors that concern a flag get its name here.

use super::args::{CallerArgs, Cli, Command, IdArg, SpawnArgs};
use super::open::Open;
use super::settings::Settings;
use crate::error::{Error, ErrorKind, Result};
use crate::inbox::record::message_id_problem;
use crate::inbox::{Inbox, Limits, Target};
use crate::operator::spawn::{SpawnError, SpawnRequest};
use crate::operator::{
    check, deliver, inbox_view, log_view, otel, spawn, trace, tree_view, tree_watch, usage,
};
use crate::runtime::serve::{ServeOptions, serve};
use crate::store::Store;
use crate::store::descriptor::Dialect;
use crate::store::scan_cache::ScanCache;
use crate::tools::list_agents::Scope;
use crate::tools::{Context, Contract, ToolCall, identity};
use crate::tree::Corpus;
use crate::tree::caller::{resolve_agent, resolve_caller};
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
        Error::Resolve(error) => Error::Flag {
            flag: "--as",
            error,
        },
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

/// An operator interrupt needs a turn that can be running: a session whose
/// log cannot be used, or a one-shot that is not live (its one turn is
/// over, and it never runs another), is refused. A live one-shot and an
/// external execution (which an interrupt stops for good) take it.
fn refuse_uninterruptible(corpus: &Corpus, target: usize) -> Result<()> {
    use crate::tree::v2::NotRunnable;
    let cache = ScanCache::default();
    match corpus.runnable(&cache, target) {
        Ok(()) | Err(NotRunnable::External) => Ok(()),
        Err(NotRunnable::OneShot) if corpus.live(target).is_live() => Ok(()),
        Err(why) => Err(Error::usage(format!(
            "agent \"{}\" has no turn to interrupt: {}; nothing was written",
            corpus.id(target),
            why.why()
        ))),
    }
}

/// The name, mode and label `log` shows first: as the agent's tree sees it.
fn log_title(corpus: &Corpus, index: usize) -> log_view::Title {
    let rec = corpus.record(index);
    let member = corpus
        .root_of(index)
        .ok()
        .and_then(|root| corpus.v2_member(&ScanCache::default(), root, index));
    log_view::Title {
        name: member
            .as_ref()
            .map_or(rec.header.id.to_string(), |m| m.name.clone()),
        mode: member
            .as_ref()
            .map_or("", |m| m.kind.mode().as_str())
            .to_string(),
        label: match member.map(|m| m.kind) {
            Some(crate::tree::v2::MemberKind::Continuable { label }) => label,
            _ => String::new(),
        },
        parent: corpus.parent_of(index).map(|p| corpus.id(p).to_string()),
    }
}

/// The clock relative times are shown against: `DSH_AGENTS_NOW_MS` (for
/// reproducible output, as golden tests pin it), else now.
fn display_now() -> Result<i64> {
    match std::env::var("DSH_AGENTS_NOW_MS") {
        Err(_) => Ok(crate::support::clock::now_ms()),
        Ok(v) => v.parse().map_err(|_| {
            Error::usage(format!(
                "environment variable DSH_AGENTS_NOW_MS={v:?}: not epoch milliseconds"
            ))
        }),
    }
}

/// The text `render` hands over in pieces, written to `out` as it comes
/// with one final newline, as the CLI ends every text; a closed pipe ends
/// the writing quietly (contract §8).
fn stream_to(
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

/// The session a message id was sent to: `--to`, else the one inbox that
/// holds the id.
fn message_target(store: &Store, id: &str, to: Option<&str>) -> Result<usize> {
    match to {
        Some(to) => resolve_agent(store, to).map_err(|error| Error::Flag {
            flag: "--to",
            error,
        }),
        None => trace::inbox_holding(store, id).map_err(|holders| match holders.as_slice() {
            [] => Error::usage(format!(
                "no inbox in store {} holds message \"{id}\"; pass --to AGENT to look in that agent's transcript too",
                store.root.display()
            )),
            many => Error::usage(format!(
                "message id \"{id}\" appears in {} inboxes ({}); pass --to AGENT",
                many.len(),
                many.iter()
                    .map(|i| &*store.sessions[*i].header.id)
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }),
    }
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
            let scope = scope.map_or(Scope::Children, Scope::from);
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
            // The tool has its own empty-message rule (seed 002); keep its text.
            ToolCall::SubagentParentMessage {
                message: message_text(message)?,
                steer: Target::from(*mode) == Target::NextStep,
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
        SpawnError::Store(_) | SpawnError::ParentBusy(_) => None,
        SpawnError::EmptyId | SpawnError::DuplicateId(_) => Some("--id: "),
        SpawnError::RelativeCwd(_) | SpawnError::NoProjectDir => Some("--cwd: "),
        SpawnError::UnsafeCreatedAt(_) => Some("--created-at: "),
        SpawnError::NameWithoutParent => Some("--name and --label need --parent: "),
        SpawnError::InvalidName(_) | SpawnError::NameTaken { .. } => Some("--name: "),
        SpawnError::Parent(_) => Some("--parent: "),
        SpawnError::FormatVersion(_) => Some("--format-version: "),
        SpawnError::NameInGeneration(_) => Some("--name: "),
        SpawnError::PromptInGeneration(_) => Some("--prompt: "),
    };
    match (flag, e) {
        (_, SpawnError::Store(s)) => Error::Store(s),
        (_, SpawnError::ParentBusy(d)) => Error::Delivery(d),
        (Some(flag), e) => Error::usage(format!("{flag}{e}")),
        (None, e) => Error::usage(e.to_string()),
    }
}

fn spawn_request(args: &SpawnArgs) -> SpawnRequest {
    SpawnRequest {
        parent: args.parent.clone(),
        name: args.name.clone(),
        label: args.label.clone(),
        mode: args.mode.into(),
        prompt: args.prompt.clone(),
        id: args.id.clone(),
        created_at: args.created_at,
        cwd: args.cwd.clone(),
        encoding: args.compression.into(),
        provider: args.provider.clone(),
        format_version: args.format_version,
        cache: None,
    }
}

/// A price table's bytes: a regular file (a FIFO or device is refused,
/// never waited on) of at most 1 MiB.
fn read_prices_file(path: &std::path::Path) -> Result<Vec<u8>> {
    use std::io::Read;
    let cannot = |why: String| Error::usage(format!("--prices: \"{}\": {why}", path.display()));
    let file = crate::store::sidecar::open_regular(path).map_err(|e| cannot(e.to_string()))?;
    let mut bytes = Vec::new();
    file.take((1 << 20) + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| cannot(e.to_string()))?;
    if bytes.len() > 1 << 20 {
        return Err(cannot("larger than 1 MiB".to_string()));
    }
    Ok(bytes)
}

/// Run a command. What it prints as it goes (`tree`, the long-running
/// commands) goes to stdout; the rest comes back as the `Output`.
pub fn run(cli: Cli) -> Result<Output> {
    run_to(cli, &mut std::io::stdout())
}

/// `run`, with `tree`'s view written to `out` as it is rendered (it then
/// returns an empty `Output::Raw`).
pub fn run_to(cli: Cli, out: &mut dyn std::io::Write) -> Result<Output> {
    let root = store_root(&cli)?;
    let settings = Settings::of(&cli);
    let open = Open {
        root: root.clone(),
        settings: settings.clone(),
    };
    let json = cli.global.json;
    let contract = Contract::from(cli.global.contract);
    let limits = limits(&cli)?;
    if let Some((mut call, caller, id)) = tool_call(&cli.command, contract)? {
        // `call wait_agent` reports under the root call the environment
        // names, as `wait-agent --call` does.
        if let (
            ToolCall::WaitAgent {
                call: root_call, ..
            },
            Command::Call { .. },
        ) = (&mut call, &cli.command)
        {
            root_call.clone_from(&settings.call_id);
        }
        let store = match call.v2_target(contract) {
            Some(agent) => crate::tree::name_lookup::open_for_name(
                &root,
                open.cache(),
                caller.agent.as_deref(),
                agent,
            )?,
            None => match call
                .read_ahead(contract, &root, caller.agent.as_deref())
                .filter(|_| settings.read_ahead)
            {
                Some(ahead) => open.reading_ahead(ahead)?,
                None => open.ids_reading(
                    caller.agent.as_deref(),
                    call.addressed(contract),
                    call.ancestry(contract),
                    (contract == Contract::V2)
                        .then_some(&crate::store::ahead::Located(Dialect::Seed001)),
                )?,
            },
        };
        let cx = Context::new(&store, contract, caller.agent.as_deref(), id, limits)
            .map_err(caller_flag)?;
        // A listing's text is written as it is rendered, never held whole.
        let outcome = call.run(cx)?;
        stream_to(out, |emit| {
            outcome.render_to(json, emit);
            Ok(())
        })?;
        return Ok(Output::Raw(String::new()));
    }
    match &cli.command {
        Command::Identity { caller } => {
            let store = open.named(caller.agent.as_deref())?;
            let cx = Context::new(&store, Contract::V2, caller.agent.as_deref(), None, limits)
                .map_err(caller_flag)?;
            let me = identity::identity(&cx)?;
            Ok(Output::Text(if json {
                to_json(&me.json())
            } else {
                me.text()
            }))
        }
        Command::Tree {
            agent,
            all,
            no_usage,
            live,
            problems,
            watch,
            width,
        } => {
            let view = tree_watch::TreeView {
                agent: agent.clone(),
                all: *all,
                usage: !*no_usage,
                filter: tree_view::Filter {
                    live: *live,
                    problems: *problems,
                },
                json,
                width: width.map(usize::from),
                now: display_now()?,
            };
            if *watch {
                tree_watch::watch(&root, &view)?;
                return Ok(Output::Raw(String::new()));
            }
            // Written as it is rendered, never held whole.
            stream_to(out, |emit| view.frame_to(&root, emit))?;
            Ok(Output::Raw(String::new()))
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
            let mut request = spawn_request(args);
            request.cache = settings.name_cache.clone();
            let id = spawn::spawn(&corpus, &request).map_err(spawn_flag)?;
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
            let store = open.own(Some(agent))?;
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
            let store = open.own(Some(agent))?;
            let corpus = Corpus::new(&store);
            let target = resolve_agent(&store, agent)?;
            refuse_uninterruptible(&corpus, target)?;
            let text = deliver::interrupt_as_user(&corpus, target, limits)?;
            Ok(Output::Text(if json {
                to_json(&serde_json::json!({"accepted": true}))
            } else {
                text
            }))
        }
        Command::Inbox { agent } => {
            let store = open.own(Some(agent))?;
            let target = resolve_agent(&store, agent)?;
            let view = inbox_view::InboxView::read(&store.sessions[target])?;
            Ok(Output::Text(if json {
                to_json(&view.json())
            } else {
                view.render(crate::operator::table::terminal_width())
            }))
        }
        Command::Claim { caller } => {
            let store = open.own(caller.agent.as_deref())?;
            let agent = resolve_caller(&store, caller.agent.as_deref())
                .map_err(|e| caller_flag(e.into()))?;
            let inbox = Inbox::new(&store.sessions[agent].dir());
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
            let store = open.named(caller.agent.as_deref())?;
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
        Command::Log {
            agent,
            last,
            reasoning,
            full,
            follow,
            poll,
        } => {
            let store = open.named(Some(agent))?;
            let target = resolve_agent(&store, agent)?;
            let opts = log_view::LogOptions {
                last: *last,
                reasoning: *reasoning,
                full: *full,
                json,
                follow: *follow,
                poll: *poll,
            };
            let corpus = Corpus::new(&store);
            let title = log_title(&corpus, target);
            let mut out = std::io::stdout().lock();
            log_view::log(&mut out, &store.sessions[target], &title, opts)?;
            Ok(Output::Raw(String::new()))
        }
        Command::Trace { message_id, to } => {
            let store = match to {
                Some(to) => open.named(Some(to))?,
                None => Store::open(&root)?,
            };
            let target = message_target(&store, message_id, to.as_deref())?;
            let t = trace::trace(&Corpus::new(&store), target, message_id)?;
            Ok(Output::Text(if json {
                to_json(&t.json())
            } else {
                t.render()
            }))
        }
        Command::Export {
            agent,
            all: _,
            otlp: _,
            output,
            endpoint,
            content,
        } => {
            let store = Store::open(&root)?;
            let corpus = Corpus::new(&store);
            let roots: Vec<usize> = match agent {
                Some(a) => vec![corpus.root_of(resolve_agent(&store, a)?)?],
                None => corpus.roots().collect(),
            };
            let (spans, unreadable) = otel::spans(&corpus, &roots, *content);
            for (id, why) in &unreadable {
                eprintln!("warning: {id}: log not exported: {why}");
            }
            let resource = otel::resource(&store.root);
            if let Some(url) = endpoint {
                let sent = crate::operator::otlp_http::send(url, &spans, &resource)
                    .map_err(|e| Error::usage(format!("--endpoint: {e}")))?;
                return Ok(Output::Text(format!(
                    "sent {} spans to {sent}",
                    spans.len()
                )));
            }
            let text = serde_json::to_string(&otel::to_json(&spans, &resource)).unwrap_or_default();
            match output {
                None => Ok(Output::Text(text)),
                Some(path) => {
                    std::fs::write(path, format!("{text}\n"))
                        .map_err(|e| Error::usage(format!("-o: \"{}\": {e}", path.display())))?;
                    Ok(Output::Text(format!(
                        "wrote {} spans to {}",
                        spans.len(),
                        path.display()
                    )))
                }
            }
        }
        Command::Usage {
            agent,
            tree,
            since,
            by,
            prices,
        } => {
            let prices = match prices {
                None => None,
                Some(path) => {
                    let bytes = read_prices_file(path)?;
                    Some(usage::parse_prices(&bytes).map_err(|e| {
                        Error::usage(format!("--prices: \"{}\": {e}", path.display()))
                    })?)
                }
            };
            if *tree && agent.is_none() {
                return Err(Error::usage(
                    "--tree needs an AGENT (without one, every agent is listed)".to_string(),
                ));
            }
            let store = if usage::totals_only((*by).into(), *since, prices.is_some())
                && settings.read_ahead
            {
                Store::open_ahead(&root, &usage::EveryLog)?.honest()?
            } else {
                Store::open(&root)?
            };
            let agent = agent
                .as_deref()
                .map(|a| resolve_agent(&store, a))
                .transpose()?;
            let corpus = Corpus::new(&store);
            let req = usage::Request {
                agent,
                tree: *tree,
                since: *since,
                by: (*by).into(),
                prices: prices.as_ref(),
            };
            let (rows, unpriced) = usage::report(&corpus, &req);
            if !unpriced.is_empty() {
                eprintln!(
                    "warning: no price for {}: its cost shows as ?",
                    unpriced.join(", ")
                );
            }
            stream_to(out, |emit| {
                if json {
                    usage::json_to(&corpus, &rows, &unpriced, emit);
                } else {
                    usage::render_to(&corpus, &rows, &req, emit);
                }
                Ok(())
            })?;
            Ok(Output::Raw(String::new()))
        }
        Command::Cancel { message_id, to } => {
            let store = match to {
                Some(to) => open.own(Some(to))?,
                None => Store::open(&root)?,
            };
            let target = message_target(&store, message_id, to.as_deref())?;
            let rec = &store.sessions[target];
            let m = Inbox::new(&rec.dir()).cancel(message_id, limits)?;
            Ok(Output::Text(if json {
                to_json(&serde_json::json!({"canceled": m.id, "session": rec.header.id}))
            } else {
                format!(
                    "canceled message {} ({}) to {}",
                    m.id,
                    m.target.as_str(),
                    rec.header.id
                )
            }))
        }
        Command::Bridge => {
            // DSH creates its store on its first write: the bridge starts
            // before it exists and finds sessions as they appear.
            let bridge =
                crate::runtime::bridge::Bridge::new(&root, limits, Box::new(std::io::stdout()));
            bridge.run(std::io::BufReader::new(std::io::stdin()))?;
            Ok(Output::Raw(String::new()))
        }
        Command::Completions { shell } => Ok(Output::Raw(super::man::completions(*shell))),
        Command::Man { command } => Ok(Output::Raw(super::man::man_page(command.as_deref())?)),
        Command::ListAgents { .. }
        | Command::SendMessage { .. }
        | Command::SubagentSendMessage { .. }
        | Command::SubagentParentMessage { .. }
        | Command::InterruptAgent { .. }
        | Command::WaitAgent { .. }
        | Command::Call { .. } => unreachable!("model tools are dispatched above"),
    }
}
