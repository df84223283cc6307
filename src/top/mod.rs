//! `dsh-agents top`: the tree live, with the selected agent's log, inbox,
//! usage and message traces beside it, and the operator's actions on it
//! (followup, steer, interrupt, cancel). `data` reads what is shown through
//! the same code `tree`, `log`, `inbox`, `usage` and `trace` print with;
//! `app` decides what each key does, with no terminal (tested as a model);
//! `view` draws a frame; `term` owns the terminal and the loop. Every rule
//! an action obeys is the operator commands' own (`operator::deliver`).

pub mod amount;
pub mod app;
pub mod budget;
pub mod data;
pub mod events;
pub mod follow_state;
pub mod term;
#[cfg(test)]
pub(crate) mod testing;
pub mod view;
