//! Tree-layer errors: names and ids that do not resolve, and broken shapes.

use std::fmt;
use std::path::PathBuf;

pub const MIN_PREFIX: usize = 4;

/// A Session id, prefix or caller that did not resolve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResolveError {
    /// No session has that id or unique prefix (or name path, where names
    /// are accepted). `suggestions`: the closest ids and names, best first.
    NotFound {
        text: String,
        store: PathBuf,
        suggestions: Vec<String>,
    },
    /// A prefix matches several sessions.
    AmbiguousPrefix {
        text: String,
        candidates: Vec<String>,
    },
    /// No caller was named and the store holds no tree root.
    NoRoot { store: PathBuf },
    /// No caller was named and the store holds several tree roots.
    SeveralRoots { roots: Vec<String> },
}

impl fmt::Display for ResolveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResolveError::NotFound {
                text,
                store,
                suggestions,
            } => {
                write!(
                    f,
                    "no session \"{text}\" in store {} (name an agent by Session id, unique id prefix of {MIN_PREFIX}+ characters, or name path such as reviewer/checker)",
                    store.display()
                )?;
                if !suggestions.is_empty() {
                    write!(f, "; did you mean {}?", suggestions.join(", "))?;
                }
                Ok(())
            }
            ResolveError::AmbiguousPrefix { text, candidates } => {
                write!(
                    f,
                    "\"{text}\" is ambiguous: {}",
                    candidates
                        .iter()
                        .take(8)
                        .cloned()
                        .collect::<Vec<_>>()
                        .join(", ")
                )?;
                if candidates.len() > 8 {
                    write!(f, " and {} more", candidates.len() - 8)?;
                }
                Ok(())
            }
            ResolveError::NoRoot { store } => {
                write!(f, "no tree root in store {}", store.display())
            }
            ResolveError::SeveralRoots { roots } => write!(
                f,
                "the store holds {} tree roots (one of: {})",
                roots.len(),
                roots.join(", ")
            ),
        }
    }
}

impl std::error::Error for ResolveError {}

/// The tree's shape is broken.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TreeError {
    /// Following `parentSession` from `ids[0]` comes back to a session
    /// already passed: the walk, in order, up to the repeat.
    #[error("session \"{}\" has a parentSession cycle ({}); its tree has no root", .ids.first().map_or("", String::as_str),
                .ids.join(" -> "))]
    ParentCycle { ids: Vec<String> },
}
