//! When a live view (`top`, `tree --watch`, `events --follow`, `watch`)
//! reads the store again: when the store said something in it changed
//! (coalesced: never sooner than `GAP`, nor sooner than the last read took,
//! so a store that takes a second to read is read at most about every
//! other second however busy it is), when an action, a resize or a start
//! asks for it, and else only as a safety net for what no notification
//! reports (a directory past the watch limit, a file system that does not
//! notify): every few minutes when every directory is watched — a holder
//! that dies is told, by the close of its lock (`operator::store_watch`).
//!
//! Invariant: an idle, fully watched store is read once per `SAFETY` at
//! most; a change is read within `GAP` plus one read of the store.

use std::time::{Duration, Instant};

/// How often a live view looks at the clock (and at what ages with it)
/// between reads, and at most waits on the notification.
pub const TICK: Duration = Duration::from_millis(500);

/// The least time between two reads a change asks for.
pub const GAP: Duration = Duration::from_millis(50);
/// The safety read of a store whose every shown directory is watched.
pub const SAFETY: Duration = Duration::from_secs(300);
/// The safety read when some directory could not be watched.
pub const UNWATCHED: Duration = Duration::from_secs(2);

/// Why a read is due.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Due {
    /// Asked for (a start, an action, a resize).
    Asked,
    /// The store said something changed.
    Changed,
    /// Nothing said so for a while.
    Safety,
}

/// The reading schedule.
#[derive(Debug, Clone)]
pub struct Refresh {
    /// When the last read started, and how long it took.
    last: Option<(Instant, Duration)>,
    changed: bool,
    asked: bool,
    /// Whether every directory the last read showed is watched.
    watched: bool,
}

impl Refresh {
    /// A schedule whose first read is due at once.
    pub fn new() -> Refresh {
        Refresh {
            last: None,
            changed: false,
            asked: true,
            watched: false,
        }
    }

    /// The store said something changed.
    pub fn changed(&mut self) {
        self.changed = true;
    }

    /// Read at once (an action was taken, the terminal was resized).
    pub fn ask(&mut self) {
        self.asked = true;
    }

    /// Whether a read is due at `now`, and why.
    pub fn due(&self, now: Instant) -> Option<Due> {
        let Some((start, took)) = self.last else {
            return Some(Due::Asked);
        };
        if self.asked {
            return Some(Due::Asked);
        }
        let since = now.saturating_duration_since(start);
        if self.changed && since >= GAP.max(took) {
            return Some(Due::Changed);
        }
        let safety = if self.watched {
            SAFETY.max(took.saturating_mul(100))
        } else {
            UNWATCHED.max(took.saturating_mul(4))
        };
        (since >= safety).then_some(Due::Safety)
    }

    /// A read started at `start` and took `took`; `watched`: every directory
    /// it showed is watched. A change told while it ran is kept for the next.
    pub fn read(&mut self, start: Instant, took: Duration, watched: bool) {
        self.last = Some((start, took));
        self.asked = false;
        self.watched = watched;
    }

    /// Call before a read: what changed so far is what the read sees.
    pub fn reading(&mut self) {
        self.changed = false;
    }
}

impl Default for Refresh {
    fn default() -> Self {
        Refresh::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_are_due_when_asked_changed_or_for_safety_only() {
        let t0 = Instant::now();
        let ms = Duration::from_millis;
        let s = Duration::from_secs;
        // (read took, watched, changed, asked, time since the read) → due
        type Case = (Duration, bool, bool, bool, Duration, Option<Due>);
        let table: &[Case] = &[
            // Idle and watched: nothing until the safety read.
            (ms(5), true, false, false, ms(300), None),
            (ms(5), true, false, false, SAFETY - ms(1), None),
            (ms(5), true, false, false, SAFETY, Some(Due::Safety)),
            // A slow store is read for safety a hundred reads' time apart.
            (s(5), true, false, false, s(499), None),
            (s(5), true, false, false, s(500), Some(Due::Safety)),
            // Not every directory watched: more often.
            (ms(5), false, false, false, UNWATCHED, Some(Due::Safety)),
            (s(1), false, false, false, s(3), None),
            // A change waits for the gap, and for as long as a read takes.
            (ms(5), true, true, false, GAP - ms(1), None),
            (ms(5), true, true, false, GAP, Some(Due::Changed)),
            (s(2), true, true, false, s(1), None),
            (s(2), true, true, false, s(2), Some(Due::Changed)),
            // Asked: at once.
            (s(2), true, false, true, ms(0), Some(Due::Asked)),
        ];
        for (n, (took, watched, changed, asked, since, want)) in table.iter().enumerate() {
            let mut r = Refresh::new();
            r.reading();
            r.read(t0, *took, *watched);
            if *changed {
                r.changed();
            }
            if *asked {
                r.ask();
            }
            assert_eq!(r.due(t0 + *since), *want, "row {n}");
        }
    }

    #[test]
    fn a_change_told_during_a_read_is_read_next() {
        let t0 = Instant::now();
        let mut r = Refresh::new();
        assert_eq!(r.due(t0), Some(Due::Asked));
        r.reading();
        r.changed();
        r.read(t0, Duration::from_millis(5), true);
        assert_eq!(r.due(t0 + GAP), Some(Due::Changed));
        r.reading();
        r.read(t0 + GAP, Duration::from_millis(5), true);
        assert_eq!(r.due(t0 + GAP * 3), None);
    }
}
