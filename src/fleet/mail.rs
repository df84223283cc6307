//! What crosses the hub: a mail (one message to one agent of one host) and
//! its receipt back to the sender, with the subjects, streams, consumers
//! and buckets they use (one place for every name).

use serde::{Deserialize, Serialize};

/// The work-queue stream of mail: `mail.<host>`, one durable consumer per host.
pub const MAIL_STREAM: &str = "FLEET_MAIL";
/// The stream of receipts: `receipts.<sending host>`.
pub const RECEIPT_STREAM: &str = "FLEET_RECEIPTS";
/// Host heartbeats (key: host).
pub const HOSTS_BUCKET: &str = "fleet-hosts";

pub fn mail_subject(host: &str) -> String {
    format!("mail.{host}")
}

pub fn receipt_subject(host: &str) -> String {
    format!("receipts.{host}")
}

pub fn mail_consumer(host: &str) -> String {
    format!("mail-{host}")
}

pub fn receipt_consumer(host: &str) -> String {
    format!("receipts-{host}")
}

/// One message for one agent of one host.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mail {
    /// The message id: the target inbox's key, and the hub's `Nats-Msg-Id`.
    pub id: String,
    pub from: String,
    pub to: String,
    /// The agent as the sender named it (id, prefix or name path).
    pub agent: String,
    /// `next-turn` (followup) or `next-step` (steer).
    pub target: String,
    pub text: String,
    pub time: i64,
}

/// How far a sent message got, as the sender sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Level {
    /// In the local outbox, not yet taken by the hub.
    Queued,
    /// The hub acknowledged it.
    InTheFleet,
    /// In the target's inbox.
    Accepted,
    /// The target host refused it (no such agent, an id reused with other text, …).
    Refused,
}

impl Level {
    pub fn word(self) -> &'static str {
        match self {
            Level::Queued => "queued",
            Level::InTheFleet => "in the fleet",
            Level::Accepted => "accepted",
            Level::Refused => "refused",
        }
    }
}

/// The target host's answer to a mail.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Receipt {
    pub id: String,
    /// The host that answered.
    pub host: String,
    pub level: Level,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    pub time: i64,
}
