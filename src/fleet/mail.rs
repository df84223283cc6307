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
/// Session rows (key: `row_key`): each a `tree --json` member with its
/// tree's root, host and the time it was last written; a host writes only
/// its own, and only when one changed.
pub const ROWS_BUCKET: &str = "fleet-rows";

/// A session row's key: the host, then the session id (`x` and its bytes
/// in hex when the id holds a character a key may not).
pub fn row_key(host: &str, session: &str) -> String {
    let plain = !session.is_empty()
        && session
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if plain {
        format!("{host}.{session}")
    } else {
        let hex: String = session.bytes().map(|b| format!("{b:02x}")).collect();
        format!("{host}.x{hex}")
    }
}

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
    /// `next-turn` (followup), `next-step` (steer) or `interrupt`.
    pub target: String,
    pub text: String,
    pub time: i64,
    /// An interrupt's last moment (epoch ms): one that reaches its host
    /// later is reported expired, not applied late.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_after: Option<i64>,
}

/// The `target` of an interrupt mail.
pub const INTERRUPT: &str = "interrupt";

/// The `target` of a cancel mail (its `text` is the message id).
pub const CANCEL: &str = "cancel";

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
    /// In the target's transcript: the model saw it (as `trace` says).
    Delivered,
    /// The target host refused it (no such agent, an id reused with other text, …).
    Refused,
    /// An interrupt that reached its host after its not-after time: not applied.
    Expired,
}

impl Level {
    /// How far it is: a later receipt of a message counts only when it
    /// got further (a delivered after an accepted; never the reverse).
    pub fn rank(self) -> u8 {
        match self {
            Level::Queued => 0,
            Level::InTheFleet => 1,
            Level::Accepted => 2,
            Level::Delivered => 3,
            Level::Refused | Level::Expired => 4,
        }
    }

    pub fn word(self) -> &'static str {
        match self {
            Level::Queued => "queued",
            Level::InTheFleet => "in the fleet",
            Level::Accepted => "accepted",
            Level::Delivered => "delivered",
            Level::Refused => "refused",
            Level::Expired => "expired",
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A mail written before interrupts crossed the hub reads as one with
    /// no not-after time; an interrupt's comes back as it went; receipts'
    /// levels are the words `fleet status` shows.
    #[test]
    fn mails_and_levels_on_the_wire() {
        let old = r#"{"id":"m","from":"a","to":"b","agent":"lead","target":"next-turn","text":"hi","time":1}"#;
        let m: Mail = serde_json::from_str(old).unwrap();
        assert_eq!(m.not_after, None);
        assert_eq!(
            serde_json::to_string(&m).unwrap(),
            old,
            "no new member written"
        );
        let i = Mail {
            target: INTERRUPT.into(),
            text: String::new(),
            not_after: Some(61_000),
            ..m
        };
        let wire = serde_json::to_string(&i).unwrap();
        assert!(wire.contains(r#""not_after":61000"#), "{wire}");
        assert_eq!(serde_json::from_str::<Mail>(&wire).unwrap(), i);
        for (level, word) in [
            (Level::Queued, "queued"),
            (Level::InTheFleet, "in-the-fleet"),
            (Level::Accepted, "accepted"),
            (Level::Delivered, "delivered"),
            (Level::Refused, "refused"),
            (Level::Expired, "expired"),
        ] {
            assert_eq!(serde_json::to_value(level).unwrap(), word);
        }
        assert_eq!(Level::Expired.word(), "expired");
    }

    #[test]
    fn row_keys_are_keys_a_bucket_takes() {
        for (session, key) in [
            ("rev-0001", "b.rev-0001"),
            ("a_b", "b.a_b"),
            ("a.b", "b.x612e62"),
            ("", "b.x"),
            ("é", "b.xc3a9"),
        ] {
            assert_eq!(row_key("b", session), key);
        }
    }
}
