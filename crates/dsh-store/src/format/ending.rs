//! How a turn ended (`turn/end`'s reason), for the inspection, the
//! transcript and every view that says it.

use serde_json::Value;

/// How a turn ended, from its `turn/end` reason.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Ending {
    Completed,
    /// Aborted by `parent` or `user` (an interrupt).
    Aborted(String),
    /// Interrupted (crash repair, or an older writer's interrupt).
    Interrupted,
    Error(String),
    Blocked,
    Other(String),
}

impl Ending {
    pub fn of(reason: &Value) -> Ending {
        match reason["kind"].as_str().unwrap_or("") {
            "completed" => Ending::Completed,
            "aborted" => Ending::Aborted(reason["reason"]["kind"].as_str().unwrap_or("?").into()),
            "interrupted" => Ending::Interrupted,
            "error" => Ending::Error(
                reason["error"]["message"]
                    .as_str()
                    .or(reason["message"].as_str())
                    .unwrap_or("")
                    .to_string(),
            ),
            "blocked" => Ending::Blocked,
            k => Ending::Other(k.to_string()),
        }
    }

    /// The ending for people: `aborted by parent`, `error: …`.
    pub fn describe(&self) -> String {
        match self {
            Ending::Aborted(by) => format!("aborted by {by}"),
            Ending::Error(m) if !m.is_empty() => format!("error: {m}"),
            other => other.word().to_string(),
        }
    }

    pub fn word(&self) -> &str {
        match self {
            Ending::Completed => "completed",
            Ending::Aborted(_) => "aborted",
            Ending::Interrupted => "interrupted",
            Ending::Error(_) => "error",
            Ending::Blocked => "blocked",
            Ending::Other(k) => k,
        }
    }
}
