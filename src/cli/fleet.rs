//! The `fleet` commands and cross-host sends (`followup HOST:AGENT`), from
//! the command line's arguments to the fleet layer and back to text.

use super::args::{FleetCommand, IdArg, WaitArg, WaitLevel};
use super::env::{Env, Output, stream_to, to_json};
use super::inputs::{message_body, message_id};
use crate::error::Result;
use crate::fleet::address::Address;
use crate::fleet::ask::{Answer, Ask, AskMail};
use crate::fleet::hub::{self, Plan};
use crate::fleet::local::{Local, Membership};
use crate::fleet::mail::{Level, Mail};
use crate::fleet::{FleetError, daemon};
use crate::inbox::Target;
use crate::support::clock::{now_ms, when};

pub(super) fn run(env: &Env, cmd: &FleetCommand) -> Result<Output> {
    match cmd {
        FleetCommand::Config {
            hosts,
            out,
            nodes,
            port,
            addresses,
            tls_cert,
            tls_key,
            tls_ca,
        } => {
            let plan = Plan {
                hosts: hosts.clone(),
                out: out.clone(),
                nodes: usize::from(*nodes),
                port: *port,
                addresses: addresses.clone(),
                tls: match (tls_cert, tls_key, tls_ca) {
                    (Some(cert), Some(key), Some(ca)) => Some(hub::Tls {
                        cert: cert.clone(),
                        key: key.clone(),
                        ca: ca.clone(),
                    }),
                    _ => None,
                },
            };
            let written = hub::write(&plan)?;
            let mut text = String::from("wrote:\n");
            for p in &written {
                text.push_str(&format!("  {}\n", p.display()));
            }
            text.push_str(&format!(
                "start each node with `nats-server -c {}/hub-N.conf`; the hub's URLs: {}",
                out.display(),
                hub::urls(&plan)
            ));
            Ok(Output::Text(text))
        }
        FleetCommand::Init {
            nats,
            creds,
            hosts,
            replicas,
            ack_wait,
            dedup_window,
            tls_ca,
        } => {
            let hosts = if hosts.is_empty() {
                hub::hosts_beside(creds)?
            } else {
                hosts.clone()
            };
            daemon::init(
                nats,
                creds,
                tls_ca.as_deref(),
                &hosts,
                &daemon::Streams {
                    replicas: usize::from(*replicas),
                    ack_wait: std::time::Duration::from_secs(*ack_wait),
                    dedup_window: std::time::Duration::from_secs(*dedup_window),
                },
            )?;
            Ok(Output::Text(format!(
                "the hub holds the fleet's streams, bucket and consumers for {}",
                hosts.join(", ")
            )))
        }
        FleetCommand::Run {
            host,
            nats,
            creds,
            tls_ca,
        } => {
            let absolute =
                |p: &std::path::Path| std::path::absolute(p).map_err(|e| FleetError::io(p, e));
            let m = Membership {
                host: host.clone(),
                hub: nats.clone(),
                creds: absolute(creds)?,
                tls_ca: tls_ca.as_deref().map(absolute).transpose()?,
            };
            daemon::run(&env.root, &m, env.limits)?;
            Ok(Output::Raw(String::new()))
        }
        FleetCommand::Status => status(env),
    }
}

/// `tree --fleet`: this host's trees as `tree` draws them, then each other
/// host's from the rows this host's daemon mirrored, under a line naming
/// the host and whether it is heard from (a host gone quiet keeps its last
/// rows, marked unreachable).
pub(super) fn tree(
    env: &Env,
    view: &crate::operator::tree_watch::TreeView,
    out: &mut dyn std::io::Write,
) -> Result<Output> {
    let local = Local::of(&env.root);
    let m = local.joined()?;
    let beats = local.beats()?;
    // Whether a host is heard from is the real clock's (as `fleet status`
    // says it); the rows' times are shown against the display clock, as
    // `tree` shows them.
    let now = now_ms();
    let heard = |host: &str| beats.iter().find(|b| b.host == host).map(|b| b.time);
    let mine = view.frame(&env.root)?;
    if env.json {
        // Every field of every host's rows, written a row at a time as the
        // mirror files are read: a host of 100,000 rows is never held.
        let files: Vec<(String, std::path::PathBuf)> = local
            .row_files()?
            .into_iter()
            .filter(|(h, _)| *h != m.host)
            .collect();
        // A bad file is an error before anything is written.
        for (_, path) in &files {
            Local::check_rows(path)?;
        }
        let text = |v: &serde_json::Value| serde_json::to_string(v).unwrap_or_default();
        let mut failed = None;
        stream_to(out, |emit| {
            emit(&format!(
                "{{\"host\":{},\"trees\":{}",
                serde_json::to_string(&m.host).unwrap_or_default(),
                mine.trim_end()
            ));
            emit(",\"hosts\":[");
            let mut first = true;
            for (host, path) in &files {
                let seen = heard(host);
                let live = seen.is_some_and(|t| crate::fleet::local::live(t, now));
                let head = format!(
                    "{}{{\"host\":{},\"lastSeen\":{},\"live\":{live},\"rows\":[",
                    if first { "" } else { "," },
                    serde_json::to_string(host).unwrap_or_default(),
                    seen.map_or("null".to_string(), |t| t.to_string()),
                );
                let mut started = false;
                let mut row_at = 0usize;
                let read = Local::each_row(path, &mut |row| {
                    if !started {
                        emit(&head);
                        started = true;
                    }
                    if row_at > 0 {
                        emit(",");
                    }
                    row_at += 1;
                    emit(&text(row));
                });
                match read {
                    Ok(true) => {
                        if !started {
                            emit(&head);
                        }
                        emit("]}");
                        first = false;
                    }
                    Ok(false) => {}
                    Err(e) => {
                        failed = Some(e);
                        break;
                    }
                }
            }
            emit("]}");
            Ok(())
        })?;
        if let Some(e) = failed {
            return Err(e.into());
        }
        return Ok(Output::Raw(String::new()));
    }
    let width = view
        .width
        .or_else(crate::operator::table::terminal_width)
        .unwrap_or(crate::operator::tree_view::PIPE_WIDTH);
    let mut t = format!("host {} (this host)\n{mine}", m.host);
    for block in crate::fleet::tree_view::others(&local, &m.host, now, view.now, width)? {
        t.push_str("\n\n");
        t.push_str(&block);
    }
    Ok(Output::Text(t))
}

/// `check --fleet`: this store checked as `check` does, then each session
/// another host's rows say has a problem (corrupt, unsupported,
/// unavailable, unknown, unresumable), one line each; it fails when any
/// host has one. Text only: `tree --fleet --json` holds every host's rows.
/// `here` is `check` itself (handed in: the command table knows both).
pub(super) fn check(
    env: &Env,
    out: &mut dyn std::io::Write,
    here: fn(&Env, &mut dyn std::io::Write) -> Result<Output>,
) -> Result<Output> {
    use crate::operator::tree_rows::State;
    let local = Local::of(&env.root);
    let m = local.joined()?;
    if env.json {
        return Err(crate::error::Error::usage(
            "check --fleet prints text; `tree --fleet --json` holds every host's rows with their states",
        ));
    }
    let (summary, mut failed) = match here(env, out)? {
        Output::Failed(s, _) => (s, true),
        Output::Text(s) | Output::Raw(s) => (s, false),
    };
    let mut lines = Vec::new();
    let mut hosts = 0;
    for (host, path) in local.row_files()? {
        if host == m.host {
            continue;
        }
        let read = Local::each_row(&path, &mut |r| {
            let state = r["state"].as_str().unwrap_or("");
            if State::of_word(state).is_some_and(State::is_problem) {
                lines.push(format!(
                    "error: host {host}: {} ({}): {state}",
                    r["id"].as_str().unwrap_or(""),
                    r["name"].as_str().unwrap_or("")
                ));
            }
        })?;
        hosts += usize::from(read);
    }
    failed |= !lines.is_empty();
    lines.push(format!(
        "{summary}; {} problem(s) on {hosts} other host(s)",
        lines.len()
    ));
    let text = lines.join("\n");
    Ok(if failed {
        Output::Failed(text, crate::error::ErrorKind::Store)
    } else {
        Output::Text(text)
    })
}

/// `usage --fleet`: each host's token counts (its sessions' own, added
/// up), this host's read from its store now, the others' from the rows
/// their daemons wrote; and the fleet's total. A host gone quiet counts
/// with its last rows, marked unreachable.
pub(super) fn usage(env: &Env) -> Result<Output> {
    use dsh_store::format::TokenCounts;
    let local = Local::of(&env.root);
    let m = local.joined()?;
    let beats = local.beats()?;
    let now = now_ms();
    let mine: Vec<serde_json::Value> = crate::fleet::rows::read(&env.root, &m.host)
        .map(|rows| rows.into_values().collect())
        .unwrap_or_default();
    // Each row's own tokens, added up as its host's rows are read.
    let add = |sum: &mut TokenCounts, r: &serde_json::Value| {
        if let Ok(t) = serde_json::from_value::<TokenCounts>(r["tokens"].clone()) {
            sum.add(&t);
        }
    };
    let mut sum = TokenCounts::default();
    for r in &mine {
        add(&mut sum, r);
    }
    let mut counted = vec![(m.host.clone(), "this host".to_string(), mine.len(), sum)];
    for (host, path) in local.row_files()? {
        if host == m.host {
            continue;
        }
        let state = match beats.iter().find(|b| b.host == host) {
            Some(b) if crate::fleet::local::live(b.time, now) => "live",
            Some(_) => "unreachable",
            None => "never heard from",
        };
        let (mut n, mut sum) = (0, TokenCounts::default());
        let read = Local::each_row(&path, &mut |r| {
            n += 1;
            add(&mut sum, r);
        })?;
        if read {
            counted.push((host, state.to_string(), n, sum));
        }
    }
    let mut total = TokenCounts::default();
    for (_, _, _, t) in &counted {
        total.add(t);
    }
    if env.json {
        let hosts: Vec<serde_json::Value> = counted
            .iter()
            .map(|(host, state, n, t)| {
                serde_json::json!({"host": host, "state": state, "sessions": n, "tokens": t,
                    "total": t.total()})
            })
            .collect();
        return Ok(Output::Text(to_json(&serde_json::json!({
            "hosts": hosts, "tokens": total, "total": total.total(),
        }))));
    }
    let line = |name: &str, state: &str, n: String, t: &TokenCounts| {
        let mut cells = vec![name.to_string(), state.to_string(), n];
        cells.extend(t.counts().iter().map(u64::to_string));
        cells.push(t.total().to_string());
        cells
    };
    let mut lines: Vec<Vec<String>> = counted
        .iter()
        .map(|(h, s, n, t)| line(h, s, n.to_string(), t))
        .collect();
    let sessions: usize = counted.iter().map(|c| c.2).sum();
    lines.push(line("TOTAL", "", sessions.to_string(), &total));
    let mut head = vec!["HOST", "STATE", "SESSIONS"];
    head.extend(crate::operator::usage::COUNT_HEADS);
    Ok(Output::Text(crate::operator::table::columns(
        &head,
        &lines,
        crate::operator::table::terminal_width(),
    )))
}

fn status(env: &Env) -> Result<Output> {
    let local = Local::of(&env.root);
    let m = local.joined()?;
    let daemon = local.daemon()?;
    let beats = local.beats()?;
    let sent = local.sent()?;
    let now = now_ms();
    let waiting: Vec<_> = sent
        .iter()
        .filter(|(_, level, _)| *level == Level::Queued)
        .collect();
    if env.json {
        let hosts: Vec<serde_json::Value> = beats
            .iter()
            .map(|b| {
                serde_json::json!({
                    "host": b.host, "lastSeen": b.time,
                    "live": crate::fleet::local::live(b.time, now),
                })
            })
            .collect();
        let sends: Vec<serde_json::Value> = sent
            .iter()
            .map(|(mail, level, r)| {
                serde_json::json!({
                    "messageId": mail.id, "host": mail.to, "agent": mail.agent,
                    "sentAt": mail.time, "level": level,
                    "reason": r.as_ref().and_then(|r| r.reason.clone()),
                })
            })
            .collect();
        return Ok(Output::Text(to_json(&serde_json::json!({
            "host": m.host, "nats": m.hub, "daemon": daemon,
            "hosts": hosts,
            "outbox": {
                "waiting": waiting.len(),
                "oldest": waiting.first().map(|(mail, _, _)| &mail.id),
            },
            "sent": sends,
        }))));
    }
    let mut t = format!("host {} of the fleet at {}\n", m.host, m.hub);
    t.push_str(&match &daemon {
        Some(holder) => format!("daemon: running ({holder})\n"),
        None => "daemon: not running (start `dsh-agents fleet run`)\n".into(),
    });
    t.push_str("hosts:\n");
    if beats.is_empty() {
        t.push_str("  (none heard from yet)\n");
    }
    for b in &beats {
        let ago = when(now, b.time);
        let state = if crate::fleet::local::live(b.time, now) {
            "live"
        } else {
            "unreachable"
        };
        t.push_str(&format!("  {}  {state} · last seen {ago}\n", b.host));
    }
    match waiting.first() {
        None => t.push_str("outbox: empty\n"),
        Some((mail, _, _)) => t.push_str(&format!(
            "outbox: {} waiting for the hub, the oldest {} (sent {})\n",
            waiting.len(),
            mail.id,
            when(now, mail.time)
        )),
    }
    t.push_str("sent:");
    if sent.is_empty() {
        t.push_str(" (nothing sent to other hosts)");
    }
    for (mail, level, r) in &sent {
        t.push_str(&format!(
            "\n  {}  {}:{}  {}",
            mail.id,
            mail.to,
            mail.agent,
            level.word()
        ));
        if let Some(why) = r.as_ref().and_then(|r| r.reason.as_deref()) {
            t.push_str(&format!(": {why}"));
        }
    }
    Ok(Output::Text(t))
}

/// A send to `HOST:AGENT` on another host of the fleet this store joined:
/// queued in the outbox (fsynced) and answered; `None` when `agent` is this
/// host's (a bare AGENT, this host's name, or no fleet joined).
/// `HOST:AGENT` on a store in a fleet, HOST another host: the store's
/// fleet files, its membership, the host and the agent there.
fn elsewhere<'a>(
    env: &Env,
    agent: &'a str,
) -> Result<Option<(Local, Membership, &'a str, &'a str)>> {
    let Address {
        host: Some(host),
        agent: remote,
    } = Address::parse(agent)
    else {
        return Ok(None);
    };
    let local = Local::of(&env.root);
    let Some(m) = local.membership()? else {
        return Ok(None);
    };
    if host == m.host {
        return Ok(None);
    }
    Ok(Some((local, m, host, remote)))
}

pub(super) fn send_remote(
    env: &Env,
    agent: &str,
    message: &str,
    id: &IdArg,
    wait: &WaitArg,
    list: Target,
) -> Result<Option<Output>> {
    let Some((local, m, host, remote)) = elsewhere(env, agent)? else {
        return Ok(None);
    };
    let text = message_body(message)?;
    let id = message_id(id)?.unwrap_or_else(|| uuid::Uuid::now_v7().to_string());
    let mail = Mail {
        id: id.clone(),
        from: m.host.clone(),
        to: host.to_string(),
        agent: remote.to_string(),
        target: match list {
            Target::NextTurn => "next-turn",
            Target::NextStep => "next-step",
        }
        .to_string(),
        text,
        time: now_ms(),
        not_after: None,
    };
    local.send(&mail)?;
    let level = match wait.wait {
        None => Level::Queued,
        Some(WaitLevel::Accepted) => {
            wait_for_receipt(&local, &mail, wait.timeout, Level::Accepted)?
        }
        Some(WaitLevel::Delivered) => {
            wait_for_receipt(&local, &mail, wait.timeout, Level::Delivered)?
        }
    };
    Ok(Some(Output::Text(if env.json {
        to_json(&serde_json::json!({"messageId": id, "host": host, "level": level}))
    } else if level == Level::Accepted {
        format!("message {id} accepted by agent {remote} on host {host}")
    } else if level == Level::Delivered {
        format!("message {id} delivered to agent {remote} on host {host}")
    } else {
        format!(
            "message {id} queued for agent {remote} on host {host} (the fleet daemon forwards it; `dsh-agents fleet status` shows how far it got)"
        )
    })))
}

/// `interrupt HOST:AGENT` for an agent on another host of the fleet: the
/// interrupt is queued in the outbox with a not-after time `expires_s`
/// seconds from now (its host applies it only before then, and once);
/// `None` when AGENT is local.
pub(super) fn interrupt_remote(env: &Env, agent: &str, expires_s: u64) -> Result<Option<Output>> {
    let Some((local, m, host, remote)) = elsewhere(env, agent)? else {
        return Ok(None);
    };
    let id = uuid::Uuid::now_v7().to_string();
    let now = now_ms();
    let not_after =
        now.saturating_add(i64::try_from(expires_s.saturating_mul(1000)).unwrap_or(i64::MAX));
    let mail = Mail {
        id: id.clone(),
        from: m.host.clone(),
        to: host.to_string(),
        agent: remote.to_string(),
        target: crate::fleet::mail::INTERRUPT.to_string(),
        text: String::new(),
        time: now,
        not_after: Some(not_after),
    };
    local.send(&mail)?;
    Ok(Some(Output::Text(if env.json {
        to_json(&serde_json::json!({
            "messageId": id, "host": host, "level": Level::Queued,
            "notAfter": crate::support::clock::rfc3339(not_after),
        }))
    } else {
        format!(
            "interrupt {id} queued for agent {remote} on host {host}, applied only if it arrives by {} (`dsh-agents fleet status` shows how far it got)",
            crate::support::clock::rfc3339(not_after)
        )
    })))
}

/// `cancel ID --to HOST:AGENT` for an agent on another host of the fleet:
/// the cancel is queued in the outbox (its host withdraws the message
/// with the operator's `cancel`; one already canceled stays canceled, and
/// says so again); `None` when AGENT is local. `--wait accepted` returns
/// once the message is canceled there.
pub(super) fn cancel_remote(
    env: &Env,
    message_id: &str,
    agent: &str,
    wait: &WaitArg,
) -> Result<Option<Output>> {
    let Some((local, m, host, remote)) = elsewhere(env, agent)? else {
        return Ok(None);
    };
    if wait.wait == Some(WaitLevel::Delivered) {
        return Err(crate::error::Error::usage(
            "--wait delivered: a cancel is not delivered; wait for it to be accepted (canceled)",
        ));
    }
    let mail = Mail {
        id: uuid::Uuid::now_v7().to_string(),
        from: m.host.clone(),
        to: host.to_string(),
        agent: remote.to_string(),
        target: crate::fleet::mail::CANCEL.to_string(),
        text: message_id.to_string(),
        time: now_ms(),
        not_after: None,
    };
    local.send(&mail)?;
    let level = match wait.wait {
        Some(_) => wait_for_receipt(&local, &mail, wait.timeout, Level::Accepted)?,
        None => Level::Queued,
    };
    Ok(Some(Output::Text(if env.json {
        to_json(&serde_json::json!({
            "cancel": mail.id, "messageId": message_id, "host": host, "level": level,
        }))
    } else if level == Level::Accepted {
        format!("canceled message {message_id} to agent {remote} on host {host}")
    } else {
        format!(
            "cancel {} of message {message_id} queued for agent {remote} on host {host} (`dsh-agents fleet status` shows how far it got)",
            mail.id
        )
    })))
}

/// Whether `agent` names an agent on another host of the fleet.
pub(super) fn is_remote(env: &Env, agent: &str) -> Result<bool> {
    Ok(elsewhere(env, agent)?.is_some())
}

/// How long a read of another host waits for its answer.
const ASK_WAIT: std::time::Duration = std::time::Duration::from_secs(15);

/// A read of `HOST:AGENT` on another host of the fleet this store joined
/// (`ask`, of the agent as written): left for the daemon in the fleet
/// files, its answer waited for (`ASK_WAIT`), and printed as the command
/// prints it there; `None` when `agent` is this host's.
pub(super) fn ask_remote(env: &Env, agent: &str, ask: Ask) -> Result<Option<Output>> {
    let Some((local, _, host, remote)) = elsewhere(env, agent)? else {
        return Ok(None);
    };
    let mail = AskMail {
        id: crate::support::clock::new_message_id(),
        to: host.to_string(),
        ask: ask.of(remote),
    };
    // Watched before the ask is written, so its answer always wakes it.
    let watch = crate::inbox::watch::Watcher::new(local.dir(), false);
    local.ask(&mail)?;
    let deadline = std::time::Instant::now() + ASK_WAIT;
    let answer = loop {
        if let Some(answer) = local.answer_of(&mail.id) {
            break Some(answer);
        }
        if std::time::Instant::now() >= deadline {
            break None;
        }
        watch.wait(RECEIPT_POLL);
    };
    local.forget_ask(&mail.id);
    match answer {
        Some(Answer {
            text, error: None, ..
        }) => Ok(Some(Output::Raw(text))),
        Some(Answer {
            error: Some(message),
            code,
            ..
        }) => Err(FleetError::Answered {
            host: host.to_string(),
            message,
            code,
        }
        .into()),
        None => Err(FleetError::Unanswered {
            host: host.to_string(),
            seconds: ASK_WAIT.as_secs(),
        }
        .into()),
    }
}

/// The longest a waiting send goes without looking at the receipts the
/// daemon keeps; a change in `.fleet/` wakes it sooner.
const RECEIPT_POLL: std::time::Duration = std::time::Duration::from_millis(250);

/// Wait until `mail`'s receipt says it got as far as `want` (its level) or
/// was refused (an error with the target host's reason), at most
/// `timeout_s` seconds (an error that says where the message is: it stays
/// on its way).
fn wait_for_receipt(local: &Local, mail: &Mail, timeout_s: u64, want: Level) -> Result<Level> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(timeout_s);
    // Watched before the first look, so a receipt written between a look
    // and the wait still wakes it.
    let watch = crate::inbox::watch::Watcher::new(local.dir(), false);
    loop {
        let sent = local.sent()?;
        let (level, why) = sent
            .iter()
            .find(|(m, _, _)| m.id == mail.id)
            .map(|(_, l, r)| (*l, r.as_ref().and_then(|r| r.reason.clone())))
            .unwrap_or((Level::Queued, None));
        match level {
            Level::Refused | Level::Expired => {
                return Err(FleetError::Refused {
                    id: mail.id.clone(),
                    host: mail.to.clone(),
                    reason: why.unwrap_or_default(),
                }
                .into());
            }
            _ if level.rank() >= want.rank() => return Ok(level),
            _ if std::time::Instant::now() >= deadline => {
                return Err(FleetError::WaitedInVain {
                    id: mail.id.clone(),
                    host: mail.to.clone(),
                    level: level.word(),
                    wanted: want.word(),
                    seconds: timeout_s,
                }
                .into());
            }
            _ => watch.wait(RECEIPT_POLL),
        }
    }
}
