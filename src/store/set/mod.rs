//! The set of sessions: enumeration (`enumerate`, with its read-ahead of
//! listed logs), the sessions as columns (`sessions`, addressed by
//! `SessionPos`), the id index, locating sessions by path, and the parent's
//! catalog. Imports the layers below. Invariant: every way of finding the
//! sessions a plan names yields the same records a whole scan would.

pub mod ahead;
pub mod catalog;
pub mod enumerate;
pub mod id_index;
pub mod listed;
pub mod locate;
pub mod sessions;
