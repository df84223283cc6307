//! The resident runtime (DESIGN §7): `serve` holds an agent live and runs a
//! program once per turn, recording each turn in the agent's own log.

pub mod serve;
pub mod transcript;
