//! The command line (contract §2): clap definitions only. The domain enums
//! (contract, scope, delivery list, spawn mode, encoding) are used as they
//! are; nothing here carries rules.

use super::values::{CompressionArg, ContractArg, ScopeArg, SpawnModeArg, TargetArg};
use crate::inbox::deliver::DEFAULT_MAX_PENDING;
use crate::tools::wait_agent::{DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS, MIN_TIMEOUT_MS};
use clap::{Args, Parser, Subcommand, ValueHint};
use std::path::PathBuf;

#[derive(Debug, Parser)]
#[command(
    name = "dsh-agents",
    version = concat!(env!("CARGO_PKG_VERSION"), " (", env!("DSH_AGENTS_COMMIT"), ")"),
    about = "Offline DSH subagent-control tools over an on-disk DSH session store",
    long_about = "The DeepSeek Harness subagent-control tools (list_agents, send_message, interrupt_agent, wait_agent, subagent_parent_message) over an on-disk DSH session store, printing each tool's result in the exact text the model sees; plus operator commands to read transcripts, trace and cancel messages, and run shell programs as resident agents.",
    after_help = "Agents are named by Session id, a unique id prefix (4+ characters), or a name path such as reviewer/checker.\nExit status: 0 success, 1 an errored tool result, 2 a usage error, 3 a store or file-system failure, 130 stopped by Ctrl-C (143 by SIGTERM).\nSee `dsh-agents COMMAND --help` for examples."
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Clone, Args)]
pub struct GlobalArgs {
    /// Session store root [default: $DSH_HOME/sessions, else ~/.dsh/sessions]
    #[arg(long, global = true, env = "DSH_STORE", value_name = "DIR", value_hint = ValueHint::DirPath, help_heading = "Global options")]
    pub store: Option<PathBuf>,
    /// Which tool contract model tools speak (list-agents, send-message, call, …)
    #[arg(
        long,
        global = true,
        env = "DSH_CONTRACT",
        value_enum,
        default_value = "v2",
        help_heading = "Global options"
    )]
    pub contract: ContractArg,
    /// Print JSON instead of text (errors too, on stderr)
    #[arg(long, global = true, help_heading = "Global options")]
    pub json: bool,
    /// Longest wait for an inbox lock, in seconds (commands that write an inbox)
    #[arg(
        long,
        global = true,
        env = "DSH_LOCK_TIMEOUT",
        value_name = "SECONDS",
        default_value_t = 10.0,
        help_heading = "Global options"
    )]
    pub lock_timeout: f64,
    /// Admission bound for sends: pending messages an inbox may hold before a send is rejected
    #[arg(long, global = true, env = "DSH_INBOX_MAX_PENDING", value_name = "N", default_value_t = DEFAULT_MAX_PENDING, help_heading = "Global options")]
    pub max_pending: usize,
    /// Resolve v2 names by scanning the store, without the name index in the cache directory
    #[arg(long, global = true, help_heading = "Global options")]
    pub no_cache: bool,
}

#[derive(Debug, Clone, Args)]
pub struct CallerArgs {
    /// The calling agent: a Session id, a unique prefix (>= 4 characters), or a name path (reviewer/checker; v2 only: rc.8 takes a caller id as it is)
    #[arg(long = "as", id = "caller", env = "DSH_AGENT", value_name = "AGENT")]
    pub agent: Option<String>,
}

/// A message-sending command's idempotency key.
#[derive(Debug, Clone, Args)]
pub struct IdArg {
    /// Message id: repeating a send with the same id writes nothing and returns the same receipt
    #[arg(long = "id", value_name = "MESSAGE_ID")]
    pub id: Option<String>,
}

/// How long a send to another host of the fleet waits for its receipt.
#[derive(Debug, Clone, Args)]
pub struct WaitArg {
    /// Wait until the message is in the target's inbox (accepted) or in its transcript (delivered): for HOST:AGENT on another host; a local send is accepted when it returns
    #[arg(long, value_enum, value_name = "LEVEL")]
    pub wait: Option<WaitLevel>,
    /// With --wait: the most seconds to wait (the message stays queued after it)
    #[arg(long, value_name = "SECONDS", default_value_t = 60, requires = "wait", value_parser = clap::value_parser!(u64).range(1..=86400))]
    pub timeout: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum WaitLevel {
    /// In the target agent's inbox
    Accepted,
    /// In the target agent's transcript: the model saw it
    Delivered,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    // The model tools (`cli::model_tools`), listed first.
    #[command(flatten)]
    Tool(ToolCommand),
    #[command(
        after_help = "Examples:\n  dsh-agents followup reviewer 'Please also review the docs'\n  dsh-agents --json followup rev-0001 - < request.txt"
    )]
    /// Deliver a message as the user to AGENT's next turn
    Followup {
        /// A Session id, a unique prefix, or a name path (reviewer/checker); HOST:AGENT on another host of the fleet
        agent: String,
        /// The message; - reads standard input
        message: String,
        #[command(flatten)]
        id: IdArg,
        #[command(flatten)]
        wait: WaitArg,
    },
    #[command(after_help = "Examples:\n  dsh-agents steer reviewer/checker 'Skip the slow tests'")]
    /// Deliver a message as the user to AGENT's next step
    Steer {
        /// A Session id, a unique prefix, or a name path (reviewer/checker); HOST:AGENT on another host of the fleet
        agent: String,
        /// The message; - reads standard input
        message: String,
        #[command(flatten)]
        id: IdArg,
        #[command(flatten)]
        wait: WaitArg,
    },
    #[command(
        after_help = "Examples:\n  dsh-agents interrupt reviewer\n  dsh-agents interrupt buildbox:reviewer --expires 30"
    )]
    /// Interrupt AGENT's current turn as the user
    Interrupt {
        /// A Session id, a unique prefix, or a name path (reviewer/checker); HOST:AGENT for an agent on another host of the fleet
        agent: String,
        /// For HOST:AGENT on another host: apply the interrupt only if it reaches that host within this many seconds (later, its receipt says expired)
        #[arg(long, value_name = "SECONDS", default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=86400))]
        expires: u64,
    },
    #[command(
        after_help = "Examples:\n  dsh-agents serve --as reviewer -- ./handle-turn.sh\n  dsh-agents serve --as rev-0001 --once --quiet -- sh -c 'jq -r .[].content[].text'"
    )]
    /// Hold AGENT live and run CMD once per turn with the claimed messages on stdin
    Serve(ServeArgs),
    #[command(
        after_help = "Started by the DSH plugin (dsh-plugin/), one per DSH process; see docs/bridge.md in the source for the protocol.\n\nExamples:\n  dsh-agents --store ~/.dsh/sessions bridge\n  dsh-agents --store ~/.dsh/sessions bridge --check"
    )]
    /// Companion of one DSH process: holds its agents live and hands it their messages (JSON lines on stdin/stdout)
    Bridge {
        /// Only check that the store can be the bridge's (a readable directory, or not created yet), print the version, and exit
        #[arg(long)]
        check: bool,
    },
    #[command(
        after_help = "Examples:\n  dsh-agents inbox reviewer\n  dsh-agents --json inbox rev-0001"
    )]
    /// Show AGENT's pending next-step and next-turn messages and parked state
    Inbox {
        /// A Session id, a unique prefix, or a name path (reviewer/checker); HOST:AGENT on another host of the fleet (asked of its daemon)
        agent: String,
    },
    #[command(after_help = "Examples:\n  dsh-agents claim --as rev-0001")]
    /// Consume pending input as the agent loop does at a step boundary; print it as JSON
    Claim {
        #[command(flatten)]
        caller: CallerArgs,
    },
    #[command(after_help = "Examples:\n  dsh-agents identity --as chk-0001")]
    /// Print what the caller is told of itself: its name, who delegated it, its tree's root
    Identity {
        #[command(flatten)]
        caller: CallerArgs,
    },
    #[command(
        after_help = "Examples:\n  dsh-agents tree\n  dsh-agents tree reviewer --watch\n  dsh-agents tree --live\n  dsh-agents --json tree --all"
    )]
    /// Every tree in the store (or the one holding AGENT): hierarchy, state, last turn, pending inbox, tokens
    Tree(TreeArgs),
    #[command(
        after_help = "Keys: j/k move, h/l fold, Tab or 1-4 tabs (Log, Inbox, Usage, Trace), s followup, S steer, i interrupt (asks y/n), [ ] choose a message, c cancel it, / filter, ? help, q quit.\n\nExamples:\n  dsh-agents top\n  dsh-agents top reviewer\n  dsh-agents top --budget reviewer=200k"
    )]
    /// The tree live in a terminal: each agent's log, inbox, usage and traces beside it, and followup, steer, interrupt and cancel on keys
    Top(TopArgs),
    #[command(
        after_help = "Examples:\n  dsh-agents events --follow\n  dsh-agents events --since 2h reviewer\n  dsh-agents events --follow --stale-after 10m --exec 'notify-send \"$(jq -r .kind)\"'\n  dsh-agents --json events --follow | jq -c 'select(.kind==\"turn-finished\")'"
    )]
    /// State transitions, one line each: turns started and finished, agents becoming running, idle or inactive, problems, stale messages
    Events(EventsArgs),
    #[command(
        after_help = "A budget counts what `usage AGENT --tree` counts. An interrupt stops a turn at its next step (a step already running finishes) and parks the agent's queue; nothing is deleted. A turn that starts later in an exceeded subtree is interrupted in its turn.\n\nExamples:\n  dsh-agents watch --budget reviewer=200k\n  dsh-agents watch --budget 'lead=$5,reviewer=1.5m' --prices prices.json --on-exceed interrupt\n  dsh-agents --json watch --budget reviewer=200k --once"
    )]
    /// Budgets on subtrees in tokens or money: an event at 80%, and at 100% an event or an interrupt of every running agent in the subtree
    Watch(WatchArgs),
    #[command(after_help = "Examples:\n  dsh-agents check\n  dsh-agents --json check")]
    /// Verify the whole store; report every problem with its path
    Check {
        /// Also the problems the other hosts of the fleet report in their session rows
        #[arg(long)]
        fleet: bool,
    },
    #[command(
        after_help = "Examples:\n  dsh-agents log reviewer/checker\n  dsh-agents log rev-0001 --last 2 --full\n  dsh-agents log reviewer --follow\n  dsh-agents --json log rev-0001 | jq -r 'select(.kind==\"assistant\").text'"
    )]
    /// Show AGENT's transcript: each turn, what the model saw and did, and how the turn ended
    Log(LogArgs),
    #[command(
        after_help = "Examples:\n  id=$(dsh-agents --json followup reviewer 'hi' | jq -r .messageId); dsh-agents trace \"$id\"\n  dsh-agents trace 0193e1c2-... --to reviewer"
    )]
    /// Show where a message went: sent, claimed, in the transcript, or why not
    Trace {
        /// The message id (from a send's receipt, `inbox`, or `--id`)
        message_id: String,
        /// The target agent, HOST:AGENT on another host of the fleet [default: search every inbox for the id]
        #[arg(long, value_name = "AGENT")]
        to: Option<String>,
    },
    /// The tree as OpenTelemetry traces (OTLP/JSON to a file or stdout, OTLP/HTTP to a collector)
    #[command(
        after_help = "Examples:\n  dsh-agents export --otlp --all -o traces.json\n  dsh-agents export --otlp reviewer --endpoint http://localhost:4318"
    )]
    Export(ExportArgs),
    #[command(
        after_help = "Examples:\n  dsh-agents usage\n  dsh-agents usage reviewer --tree\n  dsh-agents usage --by model --since 7d --prices prices.json\n\nprices.json (per million tokens, by \"provider/model\" or \"model\"):\n  {\"deepseek-official/deepseek-chat\": {\"input\": 0.27, \"cacheRead\": 0.07, \"cacheWrite\": 0.27, \"output\": 1.10}}"
    )]
    /// Tokens each agent's model calls used (and their cost, given prices)
    Usage(UsageArgs),
    #[command(
        after_help = "Examples:\n  dsh-agents fleet config --hosts a,b,c --out hub\n  dsh-agents fleet init --nats nats://127.0.0.1:4222 --creds hub/admin.nk\n  dsh-agents fleet run --host a --nats nats://127.0.0.1:4222 --creds hub/a.nk\n  dsh-agents fleet status\n\nThen `dsh-agents followup b:lead '...'` queues a message for host b's lead."
    )]
    /// Agents on many hosts, over NATS JetStream: the hub, a host's daemon, its status
    #[command(subcommand)]
    Fleet(FleetCommand),
    #[command(
        after_help = "Examples:\n  dsh-agents cancel 0193e1c2-...\n  dsh-agents cancel retry-safe-1 --to reviewer\n  dsh-agents cancel retry-safe-1 --to b:reviewer --wait accepted"
    )]
    /// Withdraw a pending message before it is delivered
    Cancel {
        /// The message id (from a send's receipt, `inbox`, or `--id`; the whole id for an agent on another host)
        message_id: String,
        /// The target agent, HOST:AGENT for one on another host of the fleet [default: search every inbox for the id]
        #[arg(long, value_name = "AGENT")]
        to: Option<String>,
        #[command(flatten)]
        wait: WaitArg,
    },
    #[command(
        after_help = "Examples:\n  dsh-agents spawn --prompt 'Lead the review'\n  dsh-agents spawn --parent lead-1 --name reviewer --label 'Review the diff'"
    )]
    /// Create a session (a root, or a child with --parent) and print its id
    Spawn(SpawnArgs),
    #[command(
        after_help = "Examples:\n  dsh-agents completions bash > ~/.local/share/bash-completion/completions/dsh-agents\n  dsh-agents completions zsh > ~/.zfunc/_dsh-agents\n  dsh-agents completions fish > ~/.config/fish/completions/dsh-agents.fish"
    )]
    /// Print shell completions
    Completions {
        /// The shell to complete for
        shell: clap_complete::Shell,
    },
    #[command(
        after_help = "Examples:\n  dsh-agents man > ~/.local/share/man/man1/dsh-agents.1\n  dsh-agents man log > ~/.local/share/man/man1/dsh-agents-log.1"
    )]
    /// Print the man page (roff), of the tool or of one command
    Man {
        /// A command's page instead of the tool's
        command: Option<String>,
    },
}

/// The subcommands that run a model tool (`cli::model_tools`).
#[derive(Debug, Subcommand)]
pub enum ToolCommand {
    #[command(
        after_help = "Examples:\n  dsh-agents list-agents --as lead-1\n  dsh-agents --contract v1 list-agents --as lead-1 --scope descendants\n  dsh-agents --json list-agents --as reviewer"
    )]
    /// list_agents: v2 lists the caller's whole tree; v1 lists children or descendants
    ListAgents {
        #[command(flatten)]
        caller: CallerArgs,
        /// v1 only: children (default) or descendants
        #[arg(long, value_enum)]
        scope: Option<ScopeArg>,
    },
    #[command(
        after_help = "Examples:\n  dsh-agents send-message --as lead-1 reviewer/checker 'Run the tests again'\n  echo 'long text' | dsh-agents send-message --as lead-1 reviewer - --id retry-safe-1\n  dsh-agents --contract v1 send-message --as lead-1 rev-0001 'Also check src/pay.rs'"
    )]
    /// send_message: v2 any member of the caller's tree by name or id; v1 a direct child by id
    SendMessage {
        #[command(flatten)]
        caller: CallerArgs,
        /// v2: a name from list_agents (lead, reviewer/checker) or a Session id; v1: the subagent id
        agent: String,
        /// The message; - reads standard input
        message: String,
        #[command(flatten)]
        id: IdArg,
    },
    #[command(
        after_help = "Examples:\n  dsh-agents subagent-send-message --as lead-1 rev-0001 'One more thing'"
    )]
    /// subagent_send_message: a parent to one of its direct continuable children, by id
    SubagentSendMessage {
        #[command(flatten)]
        caller: CallerArgs,
        /// The child's Session id
        agent_id: String,
        /// The message; - reads standard input
        message: String,
        #[command(flatten)]
        id: IdArg,
    },
    #[command(
        after_help = "Examples:\n  dsh-agents subagent-parent-message --as chk-0001 'Tests pass'\n  dsh-agents subagent-parent-message --as chk-0001 --mode steer 'Stop: found a bug'"
    )]
    /// subagent_parent_message: a child to its direct parent
    SubagentParentMessage {
        #[command(flatten)]
        caller: CallerArgs,
        /// The message; - reads standard input
        message: String,
        /// followup: the parent's next turn; steer: its next step
        #[arg(long, value_enum, default_value = "followup")]
        mode: TargetArg,
        #[command(flatten)]
        id: IdArg,
    },
    #[command(after_help = "Examples:\n  dsh-agents interrupt-agent --as lead-1 reviewer")]
    /// interrupt_agent: stop a descendant's current turn (v2 by name or id; v1 by id)
    InterruptAgent {
        #[command(flatten)]
        caller: CallerArgs,
        /// v2: a name from list_agents or a Session id; v1: the agent id
        agent: String,
    },
    #[command(after_help = "Examples:\n  dsh-agents wait-agent --as lead-1 --timeout-ms 60000")]
    /// wait_agent (v2): wait for new next-step input in the caller's own inbox
    WaitAgent {
        #[command(flatten)]
        caller: CallerArgs,
        /// Timeout in milliseconds, 10000 through 3600000
        #[arg(long, value_name = "MS", default_value_t = DEFAULT_TIMEOUT_MS,
              value_parser = clap::value_parser!(u64).range(MIN_TIMEOUT_MS..=MAX_TIMEOUT_MS))]
        timeout_ms: u64,
        /// The root tool call: waits under one call report each id once
        #[arg(long, env = "DSH_CALL_ID", value_name = "ID")]
        call: Option<String>,
        /// Poll instead of using file notification
        #[arg(long)]
        poll: bool,
    },
    #[command(
        after_help = "Examples:\n  dsh-agents call list_agents '{}' --as lead-1\n  dsh-agents --contract v1 call list_agents '{\"scope\":\"descendants\"}' --as lead-1"
    )]
    /// Run a model tool by name with its raw JSON arguments
    Call {
        #[command(flatten)]
        caller: CallerArgs,
        #[command(flatten)]
        id: IdArg,
        /// The tool's model name, e.g. list_agents
        tool: String,
        /// The JSON arguments [default: {}]
        json_args: Option<String>,
    },
}

#[derive(Debug, Clone, Args)]
pub struct SpawnArgs {
    /// Parent Session id or unique prefix; omit to create a root
    #[arg(long)]
    pub parent: Option<String>,
    /// Agent name (1-64 of [A-Za-z0-9._-], not "lead", "." or "..", unique among siblings)
    #[arg(long)]
    pub name: Option<String>,
    /// Creation label (the description list_agents shows)
    #[arg(long)]
    pub label: Option<String>,
    /// Child mode
    #[arg(long, value_enum, default_value = "continuable")]
    pub mode: SpawnModeArg,
    /// The initial prompt, recorded as the first turn
    #[arg(long)]
    pub prompt: Option<String>,
    /// Session id [default: a random UUID]
    #[arg(long)]
    pub id: Option<String>,
    /// Creation time in epoch milliseconds [default: now]
    #[arg(long, value_name = "MS")]
    pub created_at: Option<u64>,
    /// Project directory (absolute); children inherit the parent's by default
    #[arg(long)]
    pub cwd: Option<String>,
    /// Encoding for a new store (an existing store keeps its own)
    #[arg(long, value_enum, default_value = "none")]
    pub compression: CompressionArg,
    /// Subagent provider recorded in the descriptor
    #[arg(long, default_value = "spawn")]
    pub provider: String,
    /// Log format generation to write: 0 (DSH 0.1.0-rc.8, session.jsonl) to
    /// 4 (session.v4.jsonl) [default: the store's newest, else 0]
    #[arg(long, value_name = "N")]
    pub format_version: Option<u32>,
}

/// A count of turns to show: a whole number, 1 or more.
fn at_least_one(text: &str) -> Result<usize, super::values::BadValue> {
    use super::values::BadValue;
    match text.parse::<usize>() {
        Ok(0) => Err(BadValue::NoTurns),
        Ok(n) => Ok(n),
        Err(_) => Err(BadValue::NotTurns(text.to_string())),
    }
}

#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    #[command(flatten)]
    pub caller: CallerArgs,
    /// Exit when nothing runnable is left
    #[arg(long)]
    pub once: bool,
    /// Poll instead of using file notification
    #[arg(long)]
    pub poll: bool,
    /// Milliseconds between SIGTERM and SIGKILL when a turn is stopped
    #[arg(long, value_name = "MS", default_value_t = 2000)]
    pub grace_ms: u64,
    /// Do not log each turn on stderr
    #[arg(long)]
    pub quiet: bool,
    /// The handler command and its arguments
    #[arg(last = true, required = true, value_name = "CMD")]
    pub command: Vec<String>,
}

#[derive(Debug, Clone, Args)]
pub struct TreeArgs {
    /// A Session id, unique id prefix (4+ characters) or name path (reviewer/checker)
    pub agent: Option<String>,
    /// Also list root sessions that have no subagents, each as its own tree
    #[arg(long)]
    pub all: bool,
    /// Leave out the TOKENS column (the tokens of each agent and those below it)
    #[arg(long)]
    pub no_usage: bool,
    /// Only agents a resident process holds (and the agents above them)
    #[arg(long)]
    pub live: bool,
    /// Only agents with a diagnostic or an unreadable inbox (and the agents above them)
    #[arg(long)]
    pub problems: bool,
    /// Redraw whenever the store changes, until Ctrl-C
    #[arg(long)]
    pub watch: bool,
    /// Fit rows to N columns [default: the terminal's width, else 100]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(40..))]
    pub width: Option<u16>,
    /// Also every other host's trees, as this host's fleet daemon last heard them
    #[arg(long, conflicts_with_all = ["watch", "agent", "live", "problems"])]
    pub fleet: bool,
}

#[derive(Debug, Clone, Args)]
pub struct EventsArgs {
    /// Only the tree holding this agent (a name path, Session id or unique prefix)
    pub agent: Option<String>,
    /// Keep printing transitions as they happen, until Ctrl-C
    #[arg(long, short = 'f')]
    pub follow: bool,
    /// First the turns the logs record since this time: epoch ms, a UTC date (2026-12-01[T08:30]) or an age (30m, 2h, 7d)
    #[arg(long, value_name = "TIME", value_parser = super::values::parse_since)]
    pub since: Option<i64>,
    /// With --follow: report each message pending longer than this (90s, 10m, 2h), once
    #[arg(long, value_name = "AGE", value_parser = super::values::parse_age, requires = "follow")]
    pub stale_after: Option<i64>,
    /// Run CMD (with sh -c) for each event, the event as JSON on its standard input; a failing CMD is reported, the stream goes on
    #[arg(long, value_name = "CMD")]
    pub exec: Option<String>,
}

#[derive(Debug, Clone, Args)]
pub struct TopArgs {
    /// Only the tree holding this agent (a name path, Session id or unique prefix)
    pub agent: Option<String>,
    /// Budgets to show: an agent's tokens turn yellow at 80% of its subtree's budget, red at 100% (the SPEC of `watch --budget`)
    #[arg(long, value_name = "SPEC")]
    pub budget: Option<String>,
    /// A price table (JSON, as `usage --prices` reads) for money budgets
    #[arg(long, value_name = "FILE", requires = "budget")]
    pub prices: Option<std::path::PathBuf>,
}

#[derive(Debug, Clone, Args)]
pub struct WatchArgs {
    /// AGENT=LIMIT[,AGENT=LIMIT...]: LIMIT in tokens (200000, 200k, 1.5m) or money ($5, $0.50, with --prices)
    #[arg(long, value_name = "SPEC", required = true)]
    pub budget: String,
    /// A price table (JSON, as `usage --prices` reads) for money budgets
    #[arg(long, value_name = "FILE")]
    pub prices: Option<std::path::PathBuf>,
    /// At 100%: report it, or also interrupt every running agent in the subtree
    #[arg(long, value_enum, value_name = "ACTION", default_value_t = OnExceed::Warn)]
    pub on_exceed: OnExceed,
    /// Check once and exit, instead of following the store until Ctrl-C
    #[arg(long)]
    pub once: bool,
    /// Run CMD (with sh -c) for each event, the event as JSON on its standard input; a failing CMD is reported, the watch goes on
    #[arg(long, value_name = "CMD")]
    pub exec: Option<String>,
}

/// What `watch` does when a budget is spent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OnExceed {
    /// Report it (an event)
    Warn,
    /// Report it and interrupt every running agent in the subtree
    Interrupt,
}

#[derive(Debug, Clone, Args)]
pub struct LogArgs {
    /// A Session id, unique id prefix (4+ characters) or name path (reviewer/checker); HOST:AGENT on another host of the fleet (asked of its daemon; not with --follow)
    pub agent: String,
    /// Only the last N turns (N at least 1)
    #[arg(long, short = 'n', value_name = "N", value_parser = at_least_one, allow_negative_numbers = true)]
    pub last: Option<usize>,
    /// Show reasoning text instead of folding it
    #[arg(long)]
    pub reasoning: bool,
    /// Show long messages, tool results and runtime context in full
    #[arg(long)]
    pub full: bool,
    /// Keep printing new events until the session settles (or Ctrl-C)
    #[arg(long, short = 'f')]
    pub follow: bool,
    /// With --follow: poll instead of using file notification
    #[arg(long, requires = "follow")]
    pub poll: bool,
}

#[derive(Debug, Clone, Args)]
pub struct ExportArgs {
    /// The tree holding AGENT (a name path, Session id or unique prefix)
    #[arg(required_unless_present = "all", conflicts_with = "all")]
    pub agent: Option<String>,
    /// Every tree in the store
    #[arg(long)]
    pub all: bool,
    /// The format: OpenTelemetry's OTLP (the only one)
    #[arg(long, required = true)]
    pub otlp: bool,
    /// Write OTLP/JSON to FILE (- is standard output) [default: standard output]
    #[arg(short = 'o', long, value_name = "FILE", conflicts_with = "endpoint")]
    pub output: Option<std::path::PathBuf>,
    /// Send OTLP/HTTP (protobuf) to a collector: http://HOST:PORT (the path /v1/traces is added when the URL has none)
    #[arg(long, value_name = "URL")]
    pub endpoint: Option<String>,
    /// With --endpoint: the most seconds the whole send may take (connect, request, answer)
    #[arg(long, value_name = "SECONDS", default_value_t = 30, requires = "endpoint", value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub timeout: u64,
    /// Include message text and tool arguments and results
    #[arg(long)]
    pub content: bool,
}

#[derive(Debug, Clone, Args)]
pub struct UsageArgs {
    /// One agent (a name path, Session id or unique prefix) [default: every agent]
    pub agent: Option<String>,
    /// With AGENT: its whole subtree, each row with its subtree's total
    #[arg(long)]
    pub tree: bool,
    /// Only calls since this time: epoch ms, a UTC date (2026-12-01[T08:30]) or an age (30m, 2h, 7d)
    #[arg(long, value_name = "TIME", value_parser = super::values::parse_since)]
    pub since: Option<i64>,
    /// Group the rows
    #[arg(long, value_enum, default_value = "agent")]
    pub by: super::values::ByArg,
    /// A JSON price table (per million tokens) to add a COST column
    #[arg(long, value_name = "FILE")]
    pub prices: Option<std::path::PathBuf>,
    /// Each host of the fleet's totals, from the session rows the hosts' daemons wrote
    #[arg(long, conflicts_with_all = ["agent", "tree", "since", "prices"])]
    pub fleet: bool,
}

#[derive(Debug, Subcommand)]
pub enum FleetCommand {
    #[command(
        after_help = "Examples:\n  dsh-agents fleet config --hosts laptop,ci,box --out hub --addresses 10.0.0.1,10.0.0.2,10.0.0.3\n  dsh-agents fleet config --hosts a,b --out /tmp/hub --nodes 1 --port 14222"
    )]
    /// Write the hub's nats-server configurations, one NKey per host (and admin.nk) and fleet.json
    Config {
        /// The fleet's host names (ASCII letters, digits, - and _)
        #[arg(long, value_delimiter = ',', required = true)]
        hosts: Vec<String>,
        /// Where the files go
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// Hub nodes: 3 for a fleet that survives a node, 1 to try it
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u16).range(1..=9))]
        nodes: u16,
        /// The first node's client port (the next nodes take the next ones; cluster ports are 100 above)
        #[arg(long, default_value_t = 4222, value_parser = clap::value_parser!(u16).range(1..=65000))]
        port: u16,
        /// Where the nodes listen and hosts dial them: one address for all (consecutive ports), or one a node (each on --port)
        #[arg(
            long,
            value_delimiter = ',',
            value_name = "ADDR[,ADDR...]",
            default_value = "127.0.0.1"
        )]
        addresses: Vec<String>,
        /// TLS on the client and route ports: the nodes' certificate (PEM; valid for 127.0.0.1 or the names hosts use)
        #[arg(long, value_name = "FILE", requires_all = ["tls_key", "tls_ca"])]
        tls_cert: Option<PathBuf>,
        /// With --tls-cert: its private key (PEM)
        #[arg(long, value_name = "FILE", requires_all = ["tls_cert", "tls_ca"])]
        tls_key: Option<PathBuf>,
        /// With --tls-cert: the CA certificate that signed it (hosts pass it to --tls-ca)
        #[arg(long, value_name = "FILE", requires_all = ["tls_cert", "tls_key"])]
        tls_ca: Option<PathBuf>,
    },
    #[command(
        after_help = "Examples:\n  dsh-agents fleet init --nats nats://127.0.0.1:4222 --creds hub/admin.nk"
    )]
    /// Create the hub's streams, buckets and per-host consumers (idempotent)
    Init {
        /// The hub's URLs, comma-separated
        #[arg(long, value_name = "URL[,URL...]")]
        nats: String,
        /// The admin NKey seed file (`fleet config` writes admin.nk)
        #[arg(long, value_name = "FILE")]
        creds: PathBuf,
        /// The fleet's hosts [default: those `fleet config` wrote into fleet.json beside --creds]
        #[arg(long, value_delimiter = ',')]
        hosts: Vec<String>,
        /// Copies of every stream and bucket (the hub's node count, at most 5)
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u16).range(1..=5))]
        replicas: u16,
        /// Seconds a mail taken by a host waits for its ack before the hub hands it out again
        #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=3600))]
        ack_wait: u64,
        /// Seconds the hub drops a republished mail by its id (past it the target's inbox still does)
        #[arg(long, default_value_t = 120, value_parser = clap::value_parser!(u64).range(1..=86400))]
        dedup_window: u64,
        /// A CA certificate: speak TLS to the hub and trust only it
        #[arg(long, value_name = "FILE")]
        tls_ca: Option<PathBuf>,
    },
    #[command(
        after_help = "Examples:\n  dsh-agents --store ~/.dsh/sessions fleet run --host laptop --nats nats://hub:4222 --creds laptop.nk"
    )]
    /// Serve this store as a host of the fleet: forward its outbox, take its mail into inboxes, keep receipts
    Run {
        /// This host's name in the fleet (ASCII letters, digits, - and _)
        #[arg(long)]
        host: String,
        /// The hub's URLs, comma-separated
        #[arg(long, value_name = "URL[,URL...]")]
        nats: String,
        /// This host's NKey seed file (`fleet config` writes HOST.nk)
        #[arg(long, value_name = "FILE")]
        creds: PathBuf,
        /// A CA certificate: speak TLS to the hub and trust only it
        #[arg(long, value_name = "FILE")]
        tls_ca: Option<PathBuf>,
    },
    /// The fleet as this host last saw it: hosts and when each was last seen, the outbox, every cross-host send and how far it got
    Status,
}
