//! The reads an operator makes of one agent — its transcript (`log`), its
//! inbox, one message's path (`trace`) — rendered as the commands print
//! them, from a store already opened: by the command line for this host,
//! by the fleet daemon for a read another host asks of it. One body each,
//! so a remote read prints what a local one prints.

use crate::error::{Error, Result};
use crate::inbox::Inbox;
use crate::operator::{inbox_view, log_view, trace};
use crate::tree::Corpus;
use crate::tree::caller::resolve_agent;
use crate::tree::error::MIN_PREFIX;
use dsh_store::Store;

/// `inbox AGENT`: the agent's inbox, as a table `width` wide or as JSON.
pub fn inbox(store: &Store, agent: &str, json: bool, width: Option<usize>) -> Result<String> {
    let target = resolve_agent(store, agent)?;
    let view = inbox_view::InboxView::read(&store.sessions.record(target))?;
    Ok(if json {
        crate::support::json_out::text(&view.json())
    } else {
        view.render(width)
    })
}

/// `log AGENT`: the agent's transcript, written to `out`.
pub fn log(
    out: &mut dyn std::io::Write,
    store: &Store,
    agent: &str,
    opts: log_view::LogOptions,
) -> Result<()> {
    let target = resolve_agent(store, agent)?;
    let corpus = Corpus::new(store);
    let title = log_view::Title::of(&corpus, target, opts.last.is_some());
    log_view::log(out, &store.sessions.record(target), &title, opts)?;
    Ok(())
}

/// `trace ID [--to AGENT]`: one message's path, as text or JSON.
pub fn trace(store: &Store, message_id: &str, to: Option<&str>, json: bool) -> Result<String> {
    let message_id = &full_message_id(store, message_id, to)?;
    let target = message_target(store, message_id, to)?;
    let t = trace::trace(&Corpus::new(store), target, message_id)?;
    Ok(if json {
        crate::support::json_out::text(&t.json())
    } else {
        t.render()
    })
}

pub fn full_message_id(store: &Store, typed: &str, to: Option<&str>) -> Result<String> {
    if typed.chars().count() < MIN_PREFIX {
        return Ok(typed.to_string());
    }
    let dirs: Vec<std::path::PathBuf> = match to {
        Some(to) => vec![
            store
                .sessions
                .record(resolve_agent(store, to).map_err(|error| Error::Flag {
                    flag: "--to",
                    error,
                })?)
                .dir(),
        ],
        None => {
            let all: Vec<std::path::PathBuf> = store.sessions.iter().map(|s| s.dir()).collect();
            crate::inbox::locate::inboxes_mentioning_prefix(&all, typed)
                .into_iter()
                .map(|i| all[i].clone())
                .collect()
        }
    };
    let mut ids: Vec<String> = Vec::new();
    for dir in &dirs {
        for id in Inbox::new(dir).ids_with_prefix(typed)? {
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
    }
    if ids.iter().any(|id| id == typed) {
        return Ok(typed.to_string());
    }
    match ids.as_slice() {
        [one] => Ok(one.clone()),
        [] => Ok(typed.to_string()),
        many => Err(Error::usage(format!(
            "message id prefix \"{typed}\" is ambiguous: {}",
            many.join(", ")
        ))),
    }
}

pub fn message_target(store: &Store, id: &str, to: Option<&str>) -> Result<usize> {
    match to {
        Some(to) => resolve_agent(store, to).map_err(|error| Error::Flag {
            flag: "--to",
            error,
        }),
        None => trace::inbox_holding(store, id).map_err(|holders| match holders.as_slice() {
            [] if id.chars().count() < MIN_PREFIX => Error::usage(format!(
                "no inbox in store {} holds message \"{id}\" (a prefix of a message id takes {MIN_PREFIX} characters or more)",
                store.root.display()
            )),
            [] => Error::usage(format!(
                "no inbox in store {} holds message \"{id}\"; pass --to AGENT to look in that agent's transcript too",
                store.root.display()
            )),
            many => Error::usage(format!(
                "message id \"{id}\" appears in {} inboxes ({}); pass --to AGENT",
                many.len(),
                many.iter()
                    .map(|i| store.sessions.id(*i))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }),
    }
}
