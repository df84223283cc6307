//! The resident runtime (contract §7): `serve` holds an agent live and runs a
//! program once per turn, recording each turn in the agent's own log;
//! `bridge` holds the agents of one DSH process and hands it their messages.

pub mod bridge;
pub mod bridge_protocol;
pub mod serve;
pub mod transcript;
