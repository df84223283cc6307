//! What a session directory held when enumeration listed it (to find its
//! current log generation): which of the liveness files were there. A
//! liveness probe made from that listing skips the files it saw absent,
//! which is the state at the instant of the listing — the same snapshot a
//! probe a moment later would give for a directory nobody touched, and a
//! valid one for a directory somebody did. The inbox is noted the same
//! way: a view that counts every session's pending messages skips the
//! inboxes the listing saw absent.

/// A resident process's lock (contract §6).
pub const LIVE_LOCK: &str = "live.lock";
/// What a resident process says it is doing.
pub const LIVE_JSON: &str = "live.json";
/// Newer DSH's (0.1.3 on) writer lock.
pub const SESSION_LOCK: &str = "session.lock";

const NAMES: [&str; 4] = [
    LIVE_LOCK,
    LIVE_JSON,
    SESSION_LOCK,
    crate::files::paths::INBOX,
];

/// Which of `NAMES` a listing saw.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Present(u8);

impl Present {
    /// The names seen, one bit each (a compact store keeps the byte).
    pub fn bits(self) -> u8 {
        self.0
    }

    pub fn from_bits(bits: u8) -> Present {
        Present(bits)
    }

    /// Take one directory entry's name into account.
    pub fn note(&mut self, name: &[u8]) {
        if let Some(i) = NAMES.iter().position(|n| n.as_bytes() == name) {
            self.0 |= 1 << i;
        }
    }

    /// Whether the listing saw `name` (one of the liveness files).
    pub fn has(self, name: &str) -> bool {
        NAMES
            .iter()
            .position(|n| *n == name)
            .is_none_or(|i| self.0 & (1 << i) != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_only_the_liveness_files_and_the_inbox() {
        let mut p = Present::default();
        for name in ["session.jsonl", "live.lock", "inbox.jsonl", "live.json.tmp"] {
            p.note(name.as_bytes());
        }
        assert!(p.has(LIVE_LOCK));
        assert!(p.has("inbox.jsonl"));
        assert!(!p.has(LIVE_JSON));
        assert!(!p.has(SESSION_LOCK));
        // A name it does not track is never said to be absent.
        assert!(p.has("inbox.lock"));
    }
}
