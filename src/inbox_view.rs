//! The operator's view of an inbox (`inbox AGENT`) and the agent loop's
//! step-boundary consumption (`claim`).

use crate::error::Result;
use crate::inbox::{Fold, Inbox, Limits, Message, Record, Target, now_ms};
use comfy_table::presets::UTF8_FULL_CONDENSED;
use comfy_table::{ContentArrangement, Table};
use serde_json::{Value, json};
use std::path::Path;

fn sender(m: &Message) -> String {
    let kind = m.source.get("kind").and_then(Value::as_str).unwrap_or("?");
    match m.source.get("senderSessionId").and_then(Value::as_str) {
        Some(id) => format!("{kind} {id}"),
        None => kind.to_string(),
    }
}

fn message_json(m: &Message) -> Value {
    json!({"id": m.id, "time": m.time, "target": m.target, "source": m.source, "content": m.content})
}

pub fn render(fold: &Fold) -> String {
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
    let mut table = Table::new();
    table
        .load_style(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Disabled)
        .force_no_tty();
    table.set_header(vec!["TARGET", "ID", "TIME", "FROM", "TEXT"]);
    for m in step.iter().chain(turn.iter()) {
        let mut text: String = m.text().replace('\n', "\\n");
        if text.chars().count() > 60 {
            text = text.chars().take(59).collect::<String>() + "…";
        }
        table.add_row(vec![
            m.target.as_str().to_string(),
            m.id.clone(),
            m.time.to_string(),
            sender(m),
            text,
        ]);
    }
    out.push('\n');
    out.push_str(&table.to_string());
    out
}

pub fn json(fold: &Fold) -> Value {
    json!({
        "nextStep": fold.pending(Target::NextStep).into_iter().map(message_json).collect::<Vec<_>>(),
        "nextTurn": fold.pending(Target::NextTurn).into_iter().map(message_json).collect::<Vec<_>>(),
        "parked": fold.parked(),
    })
}

/// Consume what a step boundary takes (all next-step input, then one
/// unparked next-turn message) and return it, in claim order.
pub fn claim(session_dir: &Path, limits: Limits) -> Result<Vec<Message>> {
    let inbox = Inbox::new(session_dir);
    let mut guard = inbox.lock(limits.lock_timeout)?;
    let fold = inbox.read()?;
    let claimed: Vec<Message> = fold.claimable().into_iter().cloned().collect();
    if !claimed.is_empty() {
        let ids = claimed.iter().map(|m| m.id.clone()).collect();
        inbox.record(
            &mut guard,
            &Record::Claim {
                time: now_ms(),
                ids,
            },
        )?;
    }
    Ok(claimed)
}

pub fn claimed_json(messages: &[Message]) -> Value {
    Value::Array(messages.iter().map(message_json).collect())
}
