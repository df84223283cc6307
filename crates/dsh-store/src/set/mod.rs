//! The set of sessions: enumeration (`enumerate`, with its read-ahead of
//! listed logs), the sessions as columns (`sessions`, addressed by
//! `SessionPos`), the id index, locating sessions by path, and the parent's
//! catalog. Imports the layers below. Invariant: every way of finding the
//! sessions a plan names yields the same records a whole scan would.

pub(crate) mod ahead;
pub(crate) mod catalog;
pub(crate) mod enumerate;
pub(crate) mod id_index;
pub(crate) mod listed;
pub(crate) mod locate;
pub(crate) mod sessions;

pub use ahead::{Glance, Located, ReadAhead};
pub use catalog::{CatalogRow, has_catalogs, read as read_catalog};
pub use enumerate::expected_session_dir;
pub use id_index::PassThrough;
pub use listed::{LIVE_JSON, LIVE_LOCK, Present, SESSION_LOCK};
pub use locate::Ancestry;
