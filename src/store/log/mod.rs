//! One session log on disk: probing its header, walking its raw or
//! Zstandard events, reading it as rc.8 does (`reader`), its tail, its
//! transcript, what it shows delivered, and writing it as DSH does. Imports
//! the rules and the file layer only. Invariant: a log is read the way DSH
//! reads it, whichever function reads it, and written by one writer.

pub mod conversation;
pub mod conversation_stream;
pub mod delivered;
pub mod header_probe;
pub mod log_events;
pub mod log_tail;
pub mod native_inbox;
pub mod reader;
pub mod writer;
pub mod zstd_frames;
