//! One session log on disk: probing its header, walking its raw or
//! Zstandard events, reading it as rc.8 does (`reader`), its tail, its
//! transcript, what it shows delivered, and writing it as DSH does. Imports
//! the rules and the file layer only. Invariant: a log is read the way DSH
//! reads it, whichever function reads it, and written by one writer.

pub(crate) mod conversation;
pub(crate) mod conversation_stream;
pub(crate) mod delivered;
pub(crate) mod header_probe;
pub(crate) mod log_events;
pub(crate) mod log_tail;
pub(crate) mod native_inbox;
pub(crate) mod reader;
pub mod writer;
pub(crate) mod zstd_frames;

pub use conversation::{Conversation, Ending, Entry, From, Item, Turn};
pub use conversation_stream::{Shown, stream as stream_conversation};
pub use delivered::{InLog, LogMessages, log_in};
pub use log_events::{for_each_event, for_each_own_event};
pub use log_tail::head_identity;
pub use native_inbox::{NativeInbox, NativeItem, read as read_native_inbox};
pub use reader::{Encoding, Inspection, inspect};
pub use zstd_frames::{Frame, FrameReader, decode_frame, decode_torn_prefix, encode_frame};
