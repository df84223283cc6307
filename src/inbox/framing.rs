//! The framing table of contract §6: for each kind of sender, the `source`
//! a message records and the content blocks the model sees, and the
//! sources of interrupt requests.

use serde_json::{Value, json};

/// Who a message is from, and so how it is framed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Framing {
    /// v2 `send_message`: a peer in the tree, named as the target sees it.
    AgentMessage {
        sender_id: String,
        sender_name: String,
    },
    /// v1 `send_message` and `subagent_send_message`: the parent coordinator.
    Coordinator { sender_id: String },
    /// `subagent_parent_message`: a delegated child's task update.
    SubagentReport { child_id: String },
    /// The operator (`followup` / `steer`).
    User,
}

/// A text content block.
pub fn text_block(text: &str) -> Value {
    json!({"type": "text", "text": text})
}

impl Framing {
    pub fn source(&self) -> Value {
        match self {
            Framing::AgentMessage { sender_id, .. } => {
                json!({"kind": "agent-message", "form": "relay", "senderSessionId": sender_id})
            }
            Framing::Coordinator { sender_id } => {
                json!({"kind": "coordinator", "form": "relay", "senderSessionId": sender_id})
            }
            Framing::SubagentReport { child_id } => {
                json!({"kind": "subagent-message", "form": "relay", "senderSessionId": child_id})
            }
            Framing::User => json!({"kind": "user"}),
        }
    }

    pub fn content(&self, message: &str) -> Vec<Value> {
        match self {
            Framing::AgentMessage { sender_name, .. } => vec![
                text_block(&format!("Agent {sender_name} sent a message: ")),
                text_block(message),
            ],
            Framing::SubagentReport { child_id } => vec![text_block(&format!(
                "[Subagent message from {child_id}]\nThis is a peer message from a delegated child, not the human user. Treat it as a task update.\n---\n{message}"
            ))],
            Framing::Coordinator { .. } | Framing::User => vec![text_block(message)],
        }
    }
}

/// Who asked for an interrupt: DSH's abort causes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InterruptCause {
    /// An ancestor agent (`interrupt_agent`).
    Parent { sender_id: String },
    /// The operator (`interrupt`).
    User,
}

impl InterruptCause {
    pub fn source(&self) -> Value {
        match self {
            InterruptCause::Parent { sender_id } => {
                json!({"kind": "parent", "senderSessionId": sender_id})
            }
            InterruptCause::User => json!({"kind": "user"}),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_framing_table() {
        let texts = |f: &Framing| -> Vec<String> {
            f.content("hi")
                .iter()
                .map(|b| b["text"].as_str().unwrap().to_string())
                .collect()
        };
        let cases: &[(Framing, &str, &[&str])] = &[
            (
                Framing::AgentMessage {
                    sender_id: "s1".into(),
                    sender_name: "reviewer".into(),
                },
                r#"{"form":"relay","kind":"agent-message","senderSessionId":"s1"}"#,
                &["Agent reviewer sent a message: ", "hi"],
            ),
            (
                Framing::Coordinator {
                    sender_id: "p".into(),
                },
                r#"{"form":"relay","kind":"coordinator","senderSessionId":"p"}"#,
                &["hi"],
            ),
            (
                Framing::SubagentReport {
                    child_id: "c".into(),
                },
                r#"{"form":"relay","kind":"subagent-message","senderSessionId":"c"}"#,
                &[
                    "[Subagent message from c]\nThis is a peer message from a delegated child, not the human user. Treat it as a task update.\n---\nhi",
                ],
            ),
            (Framing::User, r#"{"kind":"user"}"#, &["hi"]),
        ];
        for (framing, source, content) in cases {
            let got: Value = framing.source();
            assert_eq!(got, serde_json::from_str::<Value>(source).unwrap());
            assert_eq!(texts(framing), *content);
        }
    }
}
