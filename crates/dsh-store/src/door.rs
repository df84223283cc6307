//! The one way into the store: a command names its plan — every session,
//! every session with the logs a command wants read ahead, a survey that
//! reports problems itself, a store for a first session, or only the
//! sessions it names by exact id and as much of their ancestry as its
//! rules look at — and `open` reads that much and finishes it the one way
//! the plan calls for.
//!
//! Invariant: the plan decides how much is read, never the answer. Every
//! plan that answers a reading command finishes alike: a store with no
//! session is refused and says how a first one is made, a fatal problem
//! fails it, a store of only unsupported generations is an error naming
//! one, and each unread session is warned about on stderr. Under
//! `DSH_AGENTS_DEBUG=1` each opening says on stderr which plan it took and
//! why a located plan fell back to the whole store.

use crate::debug::plan as say;
use crate::error::StoreError;
use crate::set::ahead::{Located, ReadAhead};
use crate::set::enumerate::Store;
use crate::set::locate::Ancestry;
use std::path::Path;

/// How much of the store a command reads.
pub enum Plan<'a> {
    /// Every session, finished for a reading command (`why`: said under
    /// `DSH_AGENTS_DEBUG`).
    Whole { why: &'a str },
    /// As `Whole`, the logs `ahead` wants read whole as they are found.
    WholeAhead {
        ahead: &'a dyn ReadAhead,
        why: &'a str,
    },
    /// Every session and every problem, nothing refused: for a command
    /// that reports the problems itself or waits for sessions to appear.
    Survey,
    /// As `Survey`, refusing a store that holds no session (`check`).
    SurveyNonEmpty,
    /// A store that may not hold a session yet (the command that writes the first).
    Spawn,
    /// Only `ids` and their ancestry as far as `up` says, each log read
    /// whole as it is probed when `ahead` is given; the whole store when
    /// one of `ids` is not an exact session id found by its path.
    Ids {
        ids: &'a [&'a str],
        up: Ancestry,
        ahead: Option<&'a Located>,
    },
    /// As `Ids`, but `StoreError::NotLocated` instead of the whole store:
    /// for a caller that falls back its own way.
    Exactly {
        ids: &'a [&'a str],
        up: Ancestry,
        ahead: Option<&'a Located>,
    },
}

/// Open `root` as `plan` says.
pub fn open(root: &Path, plan: Plan<'_>) -> Result<Store, StoreError> {
    match plan {
        Plan::Whole { why } => {
            say(|| format!("whole store: {why}"));
            Store::open(root)
        }
        Plan::WholeAhead { ahead, why } => {
            say(|| format!("whole store, read ahead: {why}"));
            Store::open_ahead(root, ahead)
        }
        Plan::Survey => {
            say(|| "whole store, every problem kept for the caller".to_string());
            Store::scan(root)
        }
        Plan::SurveyNonEmpty => {
            say(|| "whole store, every problem kept for the caller".to_string());
            Store::scan(root)?.nonempty()
        }
        Plan::Spawn => {
            say(|| "whole store, which may hold no session yet".to_string());
            Store::open_for_spawn(root)
        }
        Plan::Ids { ids, up, ahead } => match Store::locate_reading(root, ids, up, ahead)? {
            Some(store) => {
                say(|| {
                    format!(
                        "located {} by path (ancestry: {})",
                        ids.join(", "),
                        format!("{up:?}").to_lowercase()
                    )
                });
                Ok(store)
            }
            None => {
                say(|| {
                    "whole store: a session is not an exact id found by its path (a prefix or a name)"
                        .to_string()
                });
                Store::open(root)
            }
        },
        // The caller says which road it took (it goes on from here).
        Plan::Exactly { ids, up, ahead } => Store::locate_reading(root, ids, up, ahead)?
            .ok_or_else(|| StoreError::NotLocated {
                path: root.to_path_buf(),
                ids: ids.iter().map(|s| s.to_string()).collect(),
            }),
    }
}
