//! The subagent tree (contract §4): parent/child indexes over the header
//! corpus, rc.8's v1 listing rules, the seed-001 v2 tree with its names and
//! the one v2 resolver, sibling collation, and caller resolution.

pub mod caller;
pub mod child_spans;
pub mod classes;
pub mod collate;
pub mod corpus;
pub mod error;
pub mod member_kind;
pub mod name_lookup;
pub mod name_path;
pub mod names;
pub mod preorder;
pub mod v1;
pub mod v2;

pub use corpus::Corpus;
pub use error::{ResolveError, TreeError};
