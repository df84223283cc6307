//! The operator's view of an inbox (`inbox AGENT`).

use super::table::table;
use crate::inbox::Target;
use crate::inbox::fold::Fold;
use crate::inbox::record::Message;
use serde_json::{Value, json};

fn sender(m: &Message) -> String {
    let kind = m.source.get("kind").and_then(Value::as_str).unwrap_or("?");
    match m.source.get("senderSessionId").and_then(Value::as_str) {
        Some(id) => format!("{kind} {id}"),
        None => kind.to_string(),
    }
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
    let mut t = table(&["TARGET", "ID", "TIME", "FROM", "TEXT"]);
    for m in step.iter().chain(turn.iter()) {
        let mut text: String = m.text().replace('\n', "\\n");
        if text.chars().count() > 60 {
            text = text.chars().take(59).collect::<String>() + "…";
        }
        t.add_row(vec![
            m.target.as_str().to_string(),
            m.id.clone(),
            crate::support::clock::rfc3339(m.time),
            sender(m),
            text,
        ]);
    }
    out.push('\n');
    out.push_str(&t.to_string());
    out
}

pub fn json(fold: &Fold) -> Value {
    json!({
        "nextStep": fold.pending(Target::NextStep).into_iter().map(Message::to_json).collect::<Vec<_>>(),
        "nextTurn": fold.pending(Target::NextTurn).into_iter().map(Message::to_json).collect::<Vec<_>>(),
        "parked": fold.parked(),
    })
}
