//! Dispatch: each subcommand calls the module that holds its rules. Model
//! tools go through `tools::ToolCall` in one `Context`, whether they come
//! from their own subcommand or from `call`. Returns what to print; the
//! binary owns the process. Errors that concern a flag get its name here.

use super::args::{CallerArgs, Cli, Command, IdArg, SpawnArgs};
use crate::error::{Error, ErrorKind, Result};
use crate::inbox::record::message_id_problem;
use crate::inbox::{Inbox, Limits, Target};
use crate::operator::spawn::{SpawnError, SpawnRequest};
use crate::operator::{check, deliver, inbox_view, log_view, otel, spawn, trace, tree_view, usage};
use crate::runtime::serve::{ServeOptions, serve};
use crate::store::Store;
use crate::store::locate::Ancestry;
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

/// What `tree` draws.
struct TreeView {
    agent: Option<String>,
    all: bool,
    usage: bool,
    filter: tree_view::Filter,
    json: bool,
    width: Option<usize>,
}

impl TreeView {
    fn frame(&self, root: &std::path::Path) -> Result<String> {
        let mut text = String::new();
        self.frame_to(root, &mut |t| text.push_str(t))?;
        Ok(text)
    }

    /// The frame handed to `out` in pieces, as it is rendered.
    fn frame_to(&self, root: &std::path::Path, out: &mut dyn FnMut(&str)) -> Result<()> {
        let store = Store::open(root)?;
        let corpus = Corpus::new(&store);
        let only = self
            .agent
            .as_deref()
            .map(|a| resolve_agent(&store, a))
            .transpose()?;
        let blocks = tree_view::blocks(&corpus, only, self.filter)?;
        let width = self
            .width
            .or_else(crate::operator::table::terminal_width)
            .unwrap_or(tree_view::PIPE_WIDTH);
        if self.json {
            tree_view::json_to(&blocks, out);
        } else {
            tree_view::render_to(&blocks, self.all, self.usage, width, display_now()?, out);
        }
        Ok(())
    }

    /// The frame written to `out` as it is rendered, never held whole; a
    /// closed pipe ends the writing quietly (contract §8).
    fn print(&self, root: &std::path::Path, out: &mut dyn std::io::Write) -> Result<()> {
        stream_to(out, |emit| self.frame_to(root, emit))
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

/// `tree --watch`: redraw when the frame changes, until Ctrl-C. On a
/// terminal each frame overwrites the last in one write (no flicker);
/// piped, each changed frame is printed after a blank line.
fn watch_tree(root: &std::path::Path, view: &TreeView) -> Result<()> {
    use std::io::Write;
    crate::support::signals::install();
    let tty = crate::operator::table::terminal_width().is_some();
    let watcher = crate::inbox::watch::Watcher::new(root, false);
    let mut last = String::new();
    let mut out = std::io::stdout().lock();
    while !crate::support::signals::stop_requested() {
        let frame = view.frame(root)?;
        if frame != last {
            let text = if tty {
                let lines: Vec<String> = frame.lines().map(|l| format!("{l}\x1b[K")).collect();
                let clear = if last.is_empty() { "\x1b[2J" } else { "" };
                format!("{clear}\x1b[H{}\n\x1b[J", lines.join("\n"))
            } else if last.is_empty() {
                format!("{frame}\n")
            } else {
                format!("\n{frame}\n")
            };
            if out
                .write_all(text.as_bytes())
                .and_then(|()| out.flush())
                .is_err()
            {
                return Ok(());
            }
            last = frame;
        }
        // Session directories sit two levels down, out of a root watch's
        // sight: the re-check interval is what notices their changes.
        watcher.wait(std::time::Duration::from_millis(500));
    }
    Ok(())
}

/// The session a message id was sent to: `--to`, else the one inbox that
/// holds the id.
fn message_target(store: &Store, id: &str, to: Option<&str>) -> Result<usize> {
    if let Some(to) = to {
        return resolve_agent(store, to).map_err(|error| Error::Flag {
            flag: "--to",
            error,
        });
    }
    let dirs: Vec<PathBuf> = store.sessions.iter().map(|s| s.dir()).collect();
    match crate::inbox::locate::inboxes_mentioning(&dirs, id).as_slice() {
        [one] => Ok(*one),
        [] => Err(Error::usage(format!(
            "no inbox in store {} holds message \"{id}\"; pass --to AGENT to look in that agent's transcript too",
            store.root.display()
        ))),
        many => Err(Error::usage(format!(
            "message id \"{id}\" appears in {} inboxes ({}); pass --to AGENT",
            many.len(),
            many.iter()
                .map(|i| &*store.sessions[*i].header.id)
                .collect::<Vec<_>>()
                .join(", ")
        ))),
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

/// The store a command needs: located by path when it names its sessions
/// by exact id (`named` plus `others`), else scanned (`others` is `None`
/// when the command needs the whole store; an unnamed caller is the only
/// root, which only a scan can find).
fn open_for(
    root: &std::path::Path,
    named: Option<&str>,
    others: Option<Vec<&str>>,
    up: Ancestry,
) -> Result<Store> {
    let ids = named.zip(others).map(|(named, mut others)| {
        others.push(named);
        others
    });
    Ok(Store::open_addressing(root, ids.as_deref(), up)?)
}

/// The store for a listing, reading ahead the logs it guesses it will
/// list, from the edges the last listing saw when there is a cache (and
/// saving this one's for the next).
fn open_reading_ahead(
    root: &std::path::Path,
    cache: Option<&std::path::Path>,
    ahead: crate::tree::ahead::ListingAhead,
) -> Result<Store> {
    use crate::store::edge_cache;
    let ahead = match (cache, std::path::absolute(root)) {
        (Some(cache), Ok(root)) => ahead.with_edges(&edge_cache::load(cache, &root)),
        _ => ahead,
    };
    let store = Store::open_ahead(root, &ahead)?;
    drop(ahead);
    if let Some(cache) = cache {
        edge_cache::save(cache, &store);
    }
    Ok(store)
}

/// The store for a command that names one session (or leaves its caller
/// to be the only root).
fn open_named(root: &std::path::Path, named: Option<&str>) -> Result<Store> {
    open_for(root, named, Some(Vec::new()), Ancestry::Whole)
}

/// As `open_named`, for a command whose rules look at the named session
/// only (its inbox, its own log): a deep chain above it is not read.
fn open_own(root: &std::path::Path, named: Option<&str>) -> Result<Store> {
    open_for(root, named, Some(Vec::new()), Ancestry::None)
}

/// Where the name index lives, unless `--no-cache` or a forced scan says
/// not to use one.
fn name_cache(cli: &Cli) -> Option<PathBuf> {
    if cli.global.no_cache || crate::store::locate::full_scan_forced() {
        return None;
    }
    std::path::absolute(crate::store::name_index::cache_dir()?).ok()
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
    let json = cli.global.json;
    let contract = Contract::from(cli.global.contract);
    let limits = limits(&cli)?;
    if let Some((call, caller, id)) = tool_call(&cli.command, contract)? {
        let store = match call.v2_target(contract) {
            Some(agent) => crate::tree::name_lookup::open_for_name(
                &root,
                name_cache(&cli).as_deref(),
                caller.agent.as_deref(),
                agent,
            )?,
            None => match call.read_ahead(contract, &root, caller.agent.as_deref()) {
                Some(ahead) => open_reading_ahead(&root, name_cache(&cli).as_deref(), ahead)?,
                None => open_for(
                    &root,
                    caller.agent.as_deref(),
                    call.addressed(contract),
                    call.ancestry(contract),
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
            let store = open_named(&root, caller.agent.as_deref())?;
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
            let view = TreeView {
                agent: agent.clone(),
                all: *all,
                usage: !*no_usage,
                filter: tree_view::Filter {
                    live: *live,
                    problems: *problems,
                },
                json,
                width: width.map(usize::from),
            };
            if *watch {
                watch_tree(&root, &view)?;
                return Ok(Output::Raw(String::new()));
            }
            view.print(&root, out)?;
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
            request.cache = name_cache(&cli);
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
            let store = open_own(&root, Some(agent))?;
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
            let store = open_own(&root, Some(agent))?;
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
            let store = open_own(&root, Some(agent))?;
            let target = resolve_agent(&store, agent)?;
            let rec = &store.sessions[target];
            let fold = Inbox::new(&rec.dir()).read()?;
            // The log is read through the scan cache; DSH's own items are
            // read again with their bodies only when some are pending.
            let cache = ScanCache::default();
            let native = cache.inspect(&rec.log(), &rec.dir()).ok().and_then(|i| {
                let inbox = if i.native.pending() == 0 {
                    i.native.clone()
                } else {
                    crate::store::native_inbox::read(&rec.log(), &rec.header).ok()?
                };
                Some(inbox_view::NativeView {
                    inbox,
                    parked: i.native_parked(
                        crate::inbox::liveness::probe(&rec.dir())
                            == crate::inbox::liveness::Liveness::Live {
                                state: crate::inbox::liveness::LiveState::Idle,
                            },
                    ),
                })
            });
            // A read-only view writes nothing, its scan cache included.
            let handing = crate::inbox::handing::live(&rec.dir());
            Ok(Output::Text(if json {
                to_json(&inbox_view::json(&fold, native.as_ref(), &handing))
            } else {
                inbox_view::render(
                    &fold,
                    native.as_ref(),
                    &handing,
                    crate::operator::table::terminal_width(),
                )
            }))
        }
        Command::Claim { caller } => {
            let store = open_own(&root, caller.agent.as_deref())?;
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
            let store = open_named(&root, caller.agent.as_deref())?;
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
            let store = open_named(&root, Some(agent))?;
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
                Some(to) => open_named(&root, Some(to))?,
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
                && crate::store::ahead::enabled()
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
                Some(to) => open_own(&root, Some(to))?,
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
        Command::Completions { shell } => Ok(Output::Raw(completions(*shell))),
        Command::Man { command } => Ok(Output::Raw(man_page(command.as_deref())?)),
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

/// The man page of the tool, or of one command, as committed under `man/`.
pub fn man_page(command: Option<&str>) -> Result<String> {
    use clap::CommandFactory;
    // The package version only: a committed page must not move with each commit.
    let mut cmd = Cli::command().version(env!("CARGO_PKG_VERSION"));
    cmd.build();
    let page = match command {
        None => cmd,
        Some(name) => {
            let sub = cmd
                .find_subcommand(name)
                .ok_or_else(|| Error::usage(format!("COMMAND: no command \"{name}\"")))?
                .clone();
            let full: &'static str = Box::leak(format!("dsh-agents-{name}").into_boxed_str());
            sub.name(full)
                .bin_name(full)
                .version(env!("CARGO_PKG_VERSION"))
        }
    };
    let mut buf = Vec::new();
    clap_mangen::Man::new(page)
        .render(&mut buf)
        .map_err(|e| Error::usage(format!("man page: {e}")))?;
    buf.extend_from_slice(MAN_EXIT_AND_ENVIRONMENT.as_bytes());
    Ok(String::from_utf8_lossy(&buf).into_owned())
}

/// The EXIT STATUS and ENVIRONMENT sections every man page ends with.
const MAN_EXIT_AND_ENVIRONMENT: &str = r#".SH "EXIT STATUS"
.TP
\fB0\fR
Success, a \fBwait\-agent\fR that timed out included (its result says \fBtimedOut\fR).
.TP
\fB1\fR
A model tool's result is an error (the text the model would see is printed).
.TP
\fB2\fR
Usage: a bad argument, an unknown agent, a refused request; nothing was written.
.TP
\fB3\fR
The store or a file: a corrupt or unreadable store, a lock not had in time, an I/O error.
.TP
\fB130\fR, \fB143\fR
Stopped by SIGINT (Ctrl\-C) or SIGTERM.
.SH ENVIRONMENT
.TP
\fBDSH_STORE\fR
The store root (\fB\-\-store\fR); else \fB$DSH_HOME/sessions\fR, else \fB~/.dsh/sessions\fR.
.TP
\fBDSH_CONTRACT\fR
\fBv1\fR or \fBv2\fR (\fB\-\-contract\fR).
.TP
\fBDSH_AGENT\fR
The calling agent (\fB\-\-as\fR).
.TP
\fBDSH_LOCK_TIMEOUT\fR, \fBDSH_INBOX_MAX_PENDING\fR
The longest wait for an inbox lock, in seconds, and an inbox's admission bound.
.TP
\fBDSH_AGENTS_CACHE_DIR\fR
Where the name index and edge cache live (never inside the store); a cache never changes an answer.
.TP
\fBDSH_AGENTS_NOW_MS\fR
The time relative ages are shown against, in epoch milliseconds (for golden tests).
.TP
\fBDSH_AGENTS_READ_AHEAD\fR, \fBDSH_AGENTS_FULL_SCAN\fR
\fB0\fR turns reading logs ahead off; \fB1\fR scans the whole store instead of using its indexes. Diagnostics: the answers are the same.
"#;
