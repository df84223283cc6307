//! The operator's view of an inbox (`inbox AGENT`): the sidecar inbox
//! this tool writes and, beside it, DSH's own inbox held in the log.

use super::table::columns;
use crate::inbox::Target;
use crate::inbox::fold::Fold;
use crate::inbox::record::Message;
use dsh_store::log::{NativeInbox, NativeItem};
use serde_json::{Value, json};

/// DSH's own inbox of a session, as read from its log.
#[derive(Debug, Clone)]
pub struct NativeView {
    pub inbox: NativeInbox,
    /// An aborted turn left the items parked.
    pub parked: bool,
}

/// What `inbox` shows of one session: its sidecar inbox, DSH's own inbox
/// in its log, and what a bridge has in flight.
pub struct InboxView {
    pub fold: Fold,
    pub native: Option<NativeView>,
    pub handing: Vec<String>,
}

impl InboxView {
    /// Read `rec`'s inboxes. The log is read through the scan cache (and DSH's
    /// own items again, with their bodies, only when some are pending); a
    /// read-only view writes nothing, its scan cache included.
    pub fn read(rec: &dsh_store::SessionRecord) -> crate::error::Result<InboxView> {
        use crate::inbox::liveness::{LiveState, Liveness, probe};
        let fold = crate::inbox::Inbox::new(&rec.dir()).read()?;
        let cache = dsh_store::accel::ScanCache::default();
        let native = cache.inspect(&rec.log(), &rec.dir()).ok().and_then(|i| {
            let inbox = if i.native.pending() == 0 {
                i.native.clone()
            } else {
                dsh_store::log::read_native_inbox(&rec.log(), &rec.header).ok()?
            };
            let idle = probe(&rec.dir())
                == Liveness::Live {
                    state: LiveState::Idle,
                };
            Some(NativeView {
                inbox,
                parked: i.native_parked(idle),
            })
        });
        // The bridge claims and rewrites its list under one inbox lock, but
        // this view reads the two without it: a message the inbox already
        // shows claimed is not in flight, whatever the list still says.
        let mut handing = crate::inbox::handing::live(&rec.dir());
        handing.retain(|id| fold.consumed.is_pending(id));
        Ok(InboxView {
            fold,
            native,
            handing,
        })
    }

    pub fn render(&self, width: Option<usize>) -> String {
        render(&self.fold, self.native.as_ref(), &self.handing, width)
    }

    pub fn json(&self) -> Value {
        json(&self.fold, self.native.as_ref(), &self.handing)
    }
}

fn native_text(item: &NativeItem) -> String {
    let mut text = String::new();
    if let Some(m) = &item.message {
        for b in m["content"].as_array().into_iter().flatten() {
            if let Some(t) = b["text"].as_str() {
                text.push_str(t);
            }
        }
    }
    text
}

fn one_line(text: &str) -> String {
    super::table::cut_to(&text.replace('\n', "\\n"), 60)
}

fn sender(m: &Message) -> String {
    source_text(&m.source)
}

fn source_text(source: &Value) -> String {
    let kind = source.get("kind").and_then(Value::as_str).unwrap_or("?");
    match source.get("senderSessionId").and_then(Value::as_str) {
        Some(id) => format!("{kind} {id}"),
        None => kind.to_string(),
    }
}

/// The view as text; `width` fits its tables to a terminal.
pub fn render(
    fold: &Fold,
    native: Option<&NativeView>,
    handing: &[String],
    width: Option<usize>,
) -> String {
    let mut out = render_sidecar(fold, width);
    if !handing.is_empty() {
        out.push_str(&format!(
            "\nbeing delivered (handed to DSH, not yet in its log): {}",
            handing.join(", ")
        ));
    }
    match native {
        None => out.push_str("\nDSH's own inbox (in the log): unreadable"),
        Some(n) => {
            let parked = if n.parked {
                " (parked by an aborted turn)"
            } else {
                ""
            };
            out.push_str(&format!(
                "\nDSH's own inbox (in the log): next-step {}, next-turn {} pending{parked}",
                n.inbox.next_step.len(),
                n.inbox.next_turn.len()
            ));
            if let Some(why) = &n.inbox.error {
                out.push_str(&format!("\n  DSH cannot resume this session: {why}"));
            }
            if n.inbox.pending() > 0 {
                let mut rows = Vec::new();
                for (target, list) in [
                    ("next-step", &n.inbox.next_step),
                    ("next-turn", &n.inbox.next_turn),
                ] {
                    for item in list {
                        let source = item
                            .message
                            .as_ref()
                            .map_or(Value::Null, |m| m["source"].clone());
                        rows.push(vec![
                            target.to_string(),
                            item.id.clone(),
                            item.seq.to_string(),
                            source_text(&source),
                            one_line(&native_text(item)),
                        ]);
                    }
                }
                out.push('\n');
                out.push_str(&columns(
                    &["TARGET", "ID", "SEQ", "FROM", "TEXT"],
                    &rows,
                    width,
                ));
            }
        }
    }
    out
}

fn render_sidecar(fold: &Fold, width: Option<usize>) -> String {
    let step = fold.pending(Target::NextStep);
    let turn = fold.pending(Target::NextTurn);
    let parked = if fold.parked() {
        " (parked by an interrupt)"
    } else {
        ""
    };
    let mut out = format!(
        "next-step: {} pending\nnext-turn: {} pending{parked}",
        step.len(),
        turn.len()
    );
    if step.is_empty() && turn.is_empty() {
        return out;
    }
    let mut rows = Vec::new();
    for m in step.iter().chain(turn.iter()) {
        let text = one_line(&m.text());
        rows.push(vec![
            m.target.as_str().to_string(),
            m.id.clone(),
            crate::support::clock::rfc3339(m.time),
            sender(m),
            text,
        ]);
    }
    out.push('\n');
    out.push_str(&columns(
        &["TARGET", "ID", "TIME", "FROM", "TEXT"],
        &rows,
        width,
    ));
    out
}

pub fn json(fold: &Fold, native: Option<&NativeView>, handing: &[String]) -> Value {
    let items = |list: &[NativeItem]| -> Vec<Value> {
        list.iter()
            .map(|i| {
                let mut m = i.message.clone().unwrap_or(Value::Null);
                m["seq"] = json!(i.seq);
                m
            })
            .collect()
    };
    json!({
        "nextStep": fold.pending(Target::NextStep).into_iter().map(Message::to_json).collect::<Vec<_>>(),
        "nextTurn": fold.pending(Target::NextTurn).into_iter().map(Message::to_json).collect::<Vec<_>>(),
        "parked": fold.parked(),
        "handing": handing,
        "dsh": native.map(|n| json!({
            "nextStep": items(&n.inbox.next_step),
            "nextTurn": items(&n.inbox.next_turn),
            "parked": n.parked,
            "error": n.inbox.error.as_ref().map(|e| json!({"seq": e.seq, "message": e.to_string()})),
        })),
    })
}
