//! The operator, runtime and setup commands from the command line: each
//! one's arguments become the call into the module that holds its rules
//! (`operator`, `runtime`), and the refusals that concern a flag name it.

use super::args::{
    CallerArgs, EventsArgs, ExportArgs, LogArgs, OnExceed, ServeArgs, SpawnArgs, TopArgs, TreeArgs,
    UsageArgs, WatchArgs,
};
use super::env::{Env, Output, stream_to, to_json};
use super::inputs::{caller_flag, display_now, message_body, message_id};
use crate::error::{Error, ErrorKind, Result};
use crate::fleet::ask::Ask;
use crate::inbox::{Inbox, Target};
use crate::operator::reads;
use crate::operator::spawn::{SpawnError, SpawnRequest};
use crate::operator::{
    check, deliver, log_view, otel, otlp_http, spawn, tree_measure, tree_watch, usage,
};
use crate::runtime::serve::{ServeOptions, serve};
use dsh_store::{self as store, Plan};

use crate::tools::{Context, Contract, identity};
use crate::tree::Corpus;
use crate::tree::caller::{resolve_agent, resolve_caller};

pub(super) fn identity(env: &Env, caller: &CallerArgs) -> Result<Output> {
    let store = env.open.named(caller.agent.as_deref())?;
    let cx = Context::new(
        &store,
        Contract::V2,
        caller.agent.as_deref(),
        None,
        env.limits,
    )
    .map_err(caller_flag)?;
    let me = identity::identity(&cx)?;
    Ok(Output::Text(if env.json {
        to_json(&me.json())
    } else {
        me.text()
    }))
}

/// `tree`: written as it is rendered, never held whole; `--watch` redraws.
pub(super) fn tree(env: &Env, args: &TreeArgs, out: &mut dyn std::io::Write) -> Result<Output> {
    let view = tree_watch::TreeView {
        agent: args.agent.clone(),
        all: args.all,
        usage: !args.no_usage,
        filter: tree_measure::Filter {
            live: args.live,
            problems: args.problems,
        },
        json: env.json,
        width: args.width.map(usize::from),
        now: display_now()?,
    };
    if args.fleet {
        return super::fleet::tree(env, &view, out);
    }
    if args.watch {
        let fixed = std::env::var_os("DSH_AGENTS_NOW_MS").map(|_| view.now);
        tree_watch::watch(&env.root, &view, fixed)?;
    } else {
        stream_to(out, |emit| view.frame_to(&env.root, emit))?;
    }
    Ok(Output::Raw(String::new()))
}

/// `check`: the report is printed either way; problems fail the command.
/// Each problem is written as it is found (a million of them are not
/// held); the last line (the summary, or the JSON array's end) is the
/// command's output.
pub(super) fn check(env: &Env, out: &mut dyn std::io::Write) -> Result<Output> {
    use std::io::Write;
    let mut w = std::io::BufWriter::with_capacity(64 * 1024, out);
    let mut failed: Option<std::io::Error> = None;
    let mut first = true;
    let (sessions, problems) = check::check_to(&env.root, &mut |f| {
        if failed.is_some() {
            return;
        }
        let written = if env.json {
            let sep = if first { "[" } else { "," };
            write!(w, "{sep}{}", serde_json::to_string(f).unwrap_or_default())
        } else {
            writeln!(w, "{}", check::line(f))
        };
        first = false;
        failed = written.err();
    })?;
    let flushed = match failed {
        Some(e) => Err(e),
        None => w.flush(),
    };
    match flushed {
        // A closed pipe ends the writing quietly (contract §8).
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            return Err(dsh_store::StoreError::io("stdout", e).into());
        }
        _ => {}
    }
    let last = match (env.json, problems) {
        (true, 0) => "[]".to_string(),
        (true, _) => "]".to_string(),
        (false, n) => check::summary(sessions, n),
    };
    Ok(if problems == 0 {
        Output::Text(last)
    } else {
        Output::Failed(last, ErrorKind::Store)
    })
}

pub(super) fn spawn(env: &Env, args: &SpawnArgs) -> Result<Output> {
    let store = store::open(&env.root, Plan::Spawn)?;
    let corpus = Corpus::new(&store);
    let mut request = spawn_request(args);
    request.cache = env.settings.name_cache.clone();
    let id = spawn::spawn(&corpus, &request).map_err(spawn_flag)?;
    Ok(Output::Text(if env.json {
        to_json(&serde_json::json!({"id": id}))
    } else {
        id
    }))
}

/// `followup` (`Target::NextTurn`) and `steer` (`Target::NextStep`).
pub(super) fn deliver(
    env: &Env,
    agent: &str,
    message: &str,
    id: &super::args::IdArg,
    wait: &super::args::WaitArg,
    list: Target,
) -> Result<Output> {
    if let Some(queued) = super::fleet::send_remote(env, agent, message, id, wait, list)? {
        return Ok(queued);
    }
    let message = message_body(message)?;
    let id = message_id(id)?;
    let store = env.open.own(Some(agent))?;
    let corpus = Corpus::new(&store);
    let target = resolve_agent(&store, agent)?;
    deliver::refuse_unrunnable(&corpus, target)?;
    let (text, receipt) = deliver::send_as_user(&corpus, target, &message, list, id, env.limits)?;
    Ok(Output::Text(if env.json {
        to_json(&serde_json::json!({"messageId": receipt.message_id}))
    } else {
        text
    }))
}

pub(super) fn interrupt(env: &Env, agent: &str, expires_s: u64) -> Result<Output> {
    if let Some(queued) = super::fleet::interrupt_remote(env, agent, expires_s)? {
        return Ok(queued);
    }
    let store = env.open.own(Some(agent))?;
    let corpus = Corpus::new(&store);
    let target = resolve_agent(&store, agent)?;
    deliver::refuse_uninterruptible(&corpus, target)?;
    let text = deliver::interrupt_as_user(&corpus, target, env.limits)?;
    Ok(Output::Text(if env.json {
        to_json(&serde_json::json!({"accepted": true}))
    } else {
        text
    }))
}

pub(super) fn inbox(env: &Env, agent: &str) -> Result<Output> {
    let ask = Ask::Inbox {
        agent: agent.to_string(),
        json: env.json,
        width: crate::operator::table::terminal_width(),
    };
    if let Some(answer) = super::fleet::ask_remote(env, agent, ask)? {
        return Ok(answer);
    }
    let store = env.open.own(Some(agent))?;
    Ok(Output::Text(reads::inbox(
        &store,
        agent,
        env.json,
        crate::operator::table::terminal_width(),
    )?))
}

pub(super) fn claim(env: &Env, caller: &CallerArgs) -> Result<Output> {
    let store = env.open.own(caller.agent.as_deref())?;
    let agent =
        resolve_caller(&store, caller.agent.as_deref()).map_err(|e| caller_flag(e.into()))?;
    let inbox = Inbox::new(&store.sessions.dir(agent));
    let claimed = crate::inbox::claim::claim(&inbox, env.limits)?;
    Ok(Output::Text(to_json(&crate::inbox::record::messages_json(
        &claimed.messages,
    ))))
}

pub(super) fn serve_agent(env: &Env, args: &ServeArgs) -> Result<Output> {
    let caller = args.caller.agent.as_deref();
    let store = env.open.named(caller)?;
    let agent = resolve_caller(&store, caller).map_err(|e| caller_flag(e.into()))?;
    deliver::refuse_unrunnable(&Corpus::new(&store), agent)?;
    let opts = ServeOptions {
        once: args.once,
        poll: args.poll,
        grace: std::time::Duration::from_millis(args.grace_ms),
        command: args.command.clone(),
        limits: env.limits,
        quiet: args.quiet,
    };
    serve(&env.root, &store.sessions.record(agent), opts)?;
    Ok(Output::Raw(String::new()))
}

pub(super) fn top(env: &Env, args: &TopArgs) -> Result<Output> {
    let now = std::env::var_os("DSH_AGENTS_NOW_MS")
        .is_some()
        .then(display_now)
        .transpose()?;
    let budgets = match &args.budget {
        Some(spec) => budgets(spec, args.prices.as_deref())?,
        None => (Vec::new(), None),
    };
    // As `watch` does: a budget on an agent the store does not hold is
    // refused before the screen is taken.
    crate::top::budget::agent_ids(&env.root, &budgets.0)?;
    let shown = crate::top::term::Budgets {
        budgets: &budgets.0,
        prices: budgets.1.as_ref(),
    };
    crate::top::term::run(&env.root, args.agent.as_deref(), now, env.limits, shown)?;
    Ok(Output::Raw(String::new()))
}

/// `--budget SPEC` and `--prices FILE`, checked: a money budget needs the
/// prices.
fn budgets(
    spec: &str,
    prices: Option<&std::path::Path>,
) -> Result<(Vec<crate::top::budget::Budget>, Option<usage::Prices>)> {
    use crate::top::amount::Amount;
    let budgets =
        crate::top::budget::parse_spec(spec).map_err(|e| Error::usage(format!("--budget: {e}")))?;
    let prices = prices.map(read_prices).transpose()?;
    if prices.is_none()
        && let Some(b) = budgets
            .iter()
            .find(|b| matches!(b.limit, Amount::Micros(_)))
    {
        return Err(Error::usage(format!(
            "--budget: \"{}\" is a money budget: give the prices with --prices FILE",
            b.agent
        )));
    }
    Ok((budgets, prices))
}

pub(super) fn events(env: &Env, args: &EventsArgs) -> Result<Output> {
    let opts = crate::top::events::Options {
        agent: args.agent.clone(),
        follow: args.follow,
        since: args.since,
        stale_after_ms: args.stale_after,
        exec: args.exec.clone(),
        json: env.json,
        state: env.settings.name_cache.as_deref().and_then(|cache| {
            // Never inside the store (DSH reads every directory there).
            (!dsh_store::files::inside_store(cache, &env.root))
                .then(|| crate::top::follow_state::path(cache, &env.root, args.agent.as_deref()))
        }),
    };
    if !opts.follow && opts.since.is_none() {
        return Err(Error::usage(
            "events needs --follow (transitions as they happen) or --since TIME (the turns the logs record)",
        ));
    }
    let mut out = std::io::stdout().lock();
    crate::top::events::run(&env.root, &opts, &mut out)?;
    Ok(Output::Raw(String::new()))
}

pub(super) fn watch(env: &Env, args: &WatchArgs) -> Result<Output> {
    let (budgets, prices) = budgets(&args.budget, args.prices.as_deref())?;
    let opts = crate::top::budget::Options {
        budgets,
        prices,
        interrupt: args.on_exceed == OnExceed::Interrupt,
        once: args.once,
        json: env.json,
        exec: args.exec.clone(),
        limits: env.limits,
    };
    let mut out = std::io::stdout().lock();
    crate::top::budget::run(&env.root, &opts, &mut out)?;
    Ok(Output::Raw(String::new()))
}

pub(super) fn log(env: &Env, args: &LogArgs) -> Result<Output> {
    let opts = log_view::LogOptions {
        last: args.last,
        reasoning: args.reasoning,
        full: args.full,
        json: env.json,
        follow: args.follow,
        poll: args.poll,
    };
    let ask = Ask::Log {
        agent: args.agent.clone(),
        last: args.last,
        reasoning: args.reasoning,
        full: args.full,
        json: env.json,
    };
    if args.follow && super::fleet::is_remote(env, &args.agent)? {
        return Err(Error::usage(format!(
            "log --follow of an agent on another host is not built: `log {}` reads it once",
            args.agent
        )));
    }
    if let Some(answer) = super::fleet::ask_remote(env, &args.agent, ask)? {
        return Ok(answer);
    }
    let store = env.open.named(Some(&args.agent))?;
    let mut out = std::io::stdout().lock();
    reads::log(&mut out, &store, &args.agent, opts)?;
    Ok(Output::Raw(String::new()))
}

pub(super) fn trace(env: &Env, message_id: &str, to: Option<&str>) -> Result<Output> {
    if let Some(to) = to {
        let ask = Ask::Trace {
            message: message_id.to_string(),
            agent: to.to_string(),
            json: env.json,
        };
        if let Some(answer) = super::fleet::ask_remote(env, to, ask)? {
            return Ok(answer);
        }
    }
    let store = match to {
        Some(to) => env.open.named(Some(to))?,
        None => env
            .open
            .whole("no --to: every inbox is searched for the message")?,
    };
    Ok(Output::Text(reads::trace(
        &store, message_id, to, env.json,
    )?))
}

pub(super) fn export(env: &Env, args: &ExportArgs, out: &mut dyn std::io::Write) -> Result<Output> {
    let store = env.open.whole("an export reads every tree")?;
    let corpus = Corpus::new(&store);
    let roots: Vec<usize> = match &args.agent {
        Some(a) => vec![corpus.root_of(resolve_agent(&store, a)?)?],
        None => corpus.roots().collect(),
    };
    let warn =
        |id: &str, why: dsh_store::LogError| eprintln!("warning: {id}: log not exported: {why}");
    let resource = otel::resource(&store.root);
    if let Some(url) = &args.endpoint {
        let deadline = std::time::Duration::from_secs(args.timeout);
        // A bad URL is the user's; a collector that fails us is I/O (exit 3).
        let failed = |e: otlp_http::SendError| match e {
            otlp_http::SendError::Url(_) => Error::usage(format!("--endpoint: {e}")),
            e => Error::Store(dsh_store::StoreError::Fatal {
                path: std::path::PathBuf::from(url),
                message: format!("--endpoint: {e}"),
            }),
        };
        let collector = otlp_http::Collector::new(url, deadline).map_err(failed)?;
        let mut batch = Vec::with_capacity(otlp_http::BATCH);
        let mut sent = 0u64;
        otel::each_span(
            &corpus,
            &roots,
            args.content,
            |s| {
                batch.push(s);
                if batch.len() == otlp_http::BATCH {
                    collector.post(&batch, &resource)?;
                    sent += batch.len() as u64;
                    batch.clear();
                }
                Ok(())
            },
            warn,
        )
        .map_err(failed)?;
        // An empty export still says so to the collector.
        if !batch.is_empty() || sent == 0 {
            collector.post(&batch, &resource).map_err(failed)?;
            sent += batch.len() as u64;
        }
        return Ok(Output::Text(format!(
            "sent {sent} spans to {}",
            collector.url()
        )));
    }
    // Writing the file or stdout is I/O, not a bad argument: exit 3.
    let written = |path: &std::path::Path| {
        let path = path.to_path_buf();
        move |e: std::io::Error| Error::Store(dsh_store::StoreError::io(&path, e))
    };
    let stream = |out: &mut dyn std::io::Write| -> std::io::Result<u64> {
        let mut w = otel::JsonWriter::begin(out, &resource)?;
        otel::each_span(&corpus, &roots, args.content, |s| w.span(&s), warn)?;
        let (spans, out) = w.end()?;
        out.write_all(b"\n")?;
        out.flush()?;
        Ok(spans)
    };
    match &args.output {
        // `-o -` is standard output, as curl, ripgrep and jq take it.
        Some(path) if path.as_os_str() != "-" => {
            let file = dsh_store::files::create_output(path)?;
            let spans = stream(&mut std::io::BufWriter::new(file)).map_err(written(path))?;
            Ok(Output::Text(format!(
                "wrote {spans} spans to {}",
                path.display()
            )))
        }
        _ => {
            match stream(&mut std::io::BufWriter::with_capacity(64 * 1024, out)) {
                // A closed pipe ends the writing quietly (contract §8).
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                    Err(written(std::path::Path::new("stdout"))(e))
                }
                _ => Ok(Output::Raw(String::new())),
            }
        }
    }
}

pub(super) fn usage(env: &Env, args: &UsageArgs, out: &mut dyn std::io::Write) -> Result<Output> {
    if args.fleet {
        return super::fleet::usage(env);
    }
    let prices = args.prices.as_deref().map(read_prices).transpose()?;
    if args.tree && args.agent.is_none() {
        return Err(Error::usage(
            "--tree needs an AGENT (without one, every agent is listed)".to_string(),
        ));
    }
    let by = args.by.into();
    let store = if usage::totals_only(by, args.since, prices.is_some()) && env.settings.read_ahead {
        store::open(
            &env.root,
            Plan::WholeAhead {
                ahead: &usage::EveryLog,
                why: "usage totals read every log as it is found",
            },
        )?
    } else {
        env.open
            .whole("a usage report of turns, times or prices reads every log after the scan")?
    };
    let agent = args
        .agent
        .as_deref()
        .map(|a| resolve_agent(&store, a))
        .transpose()?;
    let corpus = Corpus::new(&store);
    let req = usage::Request {
        agent,
        tree: args.tree,
        since: args.since,
        by,
        prices: prices.as_ref(),
        table: !env.json,
    };
    let report = usage::report(&corpus, &req);
    if !report.unpriced.is_empty() {
        eprintln!(
            "warning: no price for {}: its cost shows as ?",
            report.unpriced.join(", ")
        );
    }
    stream_to(out, |emit| {
        if env.json {
            usage::json_to(&corpus, &report, emit);
        } else {
            usage::render_to(
                &corpus,
                &report,
                &req,
                crate::operator::table::terminal_width(),
                emit,
            );
        }
        Ok(())
    })?;
    Ok(Output::Raw(String::new()))
}

pub(super) fn cancel(
    env: &Env,
    message_id: &str,
    to: Option<&str>,
    wait: &super::args::WaitArg,
) -> Result<Output> {
    if let Some(to) = to
        && let Some(queued) = super::fleet::cancel_remote(env, message_id, to, wait)?
    {
        return Ok(queued);
    }
    let store = match to {
        Some(to) => env.open.own(Some(to))?,
        None => env
            .open
            .whole("no --to: every inbox is searched for the message")?,
    };
    let message_id = &reads::full_message_id(&store, message_id, to)?;
    let target = reads::message_target(&store, message_id, to)?;
    let rec = &store.sessions.record(target);
    let m = Inbox::new(&rec.dir()).cancel(message_id, env.limits)?;
    Ok(Output::Text(if env.json {
        to_json(&serde_json::json!({"canceled": m.id, "session": rec.header.id()}))
    } else {
        format!(
            "canceled message {} ({}) to {}",
            m.id,
            m.target.as_str(),
            rec.header.id()
        )
    }))
}

pub(super) fn bridge(env: &Env, check: bool) -> Result<Output> {
    // DSH creates its store on its first write: the bridge starts before
    // it exists and finds sessions as they appear; a store that exists and
    // cannot be read is refused, before DSH runs any agent.
    crate::runtime::bridge::check_store(&env.root)?;
    if check {
        return Ok(Output::Text(format!(
            "dsh-agents {}: the store {} can be the bridge's",
            env!("CARGO_PKG_VERSION"),
            env.root.display()
        )));
    }
    let bridge =
        crate::runtime::bridge::Bridge::new(&env.root, env.limits, Box::new(std::io::stdout()));
    bridge.run(std::io::BufReader::new(std::io::stdin()))?;
    Ok(Output::Raw(String::new()))
}

/// The session a message id was sent to: `--to`, else the one inbox that
/// holds the id.
/// A message id from what was typed: the id itself when an inbox holds
/// it, else the one id of 4 or more leading characters it starts (in
/// `--to`'s inbox, or in any), as git takes a commit's prefix. Several
/// such ids are an error naming them; none leaves the text as typed.
/// The flag each spawn refusal concerns.
fn spawn_flag(e: SpawnError) -> Error {
    let flag = match &e {
        SpawnError::Store(_) | SpawnError::Busy(_) => None,
        SpawnError::EmptyId
        | SpawnError::ControlInId
        | SpawnError::IdTooLong { .. }
        | SpawnError::DuplicateId(_) => Some("--id: "),
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
        (_, SpawnError::Busy(d)) => Error::Delivery(d),
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
/// `--prices FILE`: the price table, or a usage error naming the file.
fn read_prices(path: &std::path::Path) -> Result<usage::Prices> {
    usage::parse_prices(&read_prices_file(path)?)
        .map_err(|e| Error::usage(format!("--prices: \"{}\": {e}", path.display())))
}

fn read_prices_file(path: &std::path::Path) -> Result<Vec<u8>> {
    use std::io::Read;
    let cannot = |why: String| Error::usage(format!("--prices: \"{}\": {why}", path.display()));
    let file = dsh_store::files::open_regular(path).map_err(|e| cannot(e.reason()))?;
    let mut bytes = Vec::new();
    file.take((1 << 20) + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| cannot(e.to_string()))?;
    if bytes.len() > 1 << 20 {
        return Err(cannot("larger than 1 MiB".to_string()));
    }
    Ok(bytes)
}
