//! Sidecar files in a session directory (contract §6): the inbox (records,
//! framing, fold, lock, delivery, claims), liveness, and change watching.
//! Nothing here reads the tree: the inbox layer sits on the store alone.

pub mod claim;
pub mod compact;
pub mod deliver;
pub mod error;
pub mod fold;
pub mod framing;
pub mod handing;
pub mod history;
pub mod id_list;
pub mod key_index;
pub mod keyed_archive;
pub mod liveness;
pub mod locate;
pub mod lock;
pub mod record;
pub mod watch;

pub use deliver::{Inbox, Limits, Receipt};
pub use error::DeliveryError;
pub use record::Target;
