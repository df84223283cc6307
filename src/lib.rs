//! `dsh-agents`: the DeepSeek Harness subagent-control tools, offline, over
//! an on-disk DSH session store. See DESIGN.md for the contract; each module
//! holds one part of it.

pub mod app;
pub mod args;
pub mod check;
pub mod cli;
pub mod codec;
pub mod collate;
pub mod descriptor;
pub mod error;
pub mod events;
pub mod header;
pub mod identity;
pub mod inbox;
pub mod inbox_view;
pub mod interrupt_agent;
pub mod list_agents;
pub mod liveness;
pub mod log;
pub mod parallel;
pub mod parent_message;
pub mod resolve;
pub mod runtime;
pub mod send_message;
pub mod sidecar;
pub mod signals;
pub mod spawn;
pub mod store;
pub mod tools;
pub mod transcript;
pub mod tree;
pub mod tree_view;
pub mod wait_agent;
pub mod watch;
pub mod zstd_frames;

pub use error::{Error, ErrorKind, Result};
