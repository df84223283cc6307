//! Operator commands (contract §2): the tree view, the inbox view, `check`,
//! `spawn`, delivering, canceling or interrupting as the user, an agent's
//! transcript (`log`), one message's path (`trace`), token usage (`usage`)
//! and the tree as OpenTelemetry traces (`otel`).

pub mod check;
pub mod deliver;
pub mod inbox_view;
pub mod log_view;
pub mod otel;
pub mod otlp_http;
pub mod reads;
pub mod spawn;
pub mod spawn_names;
pub mod store_watch;
pub mod table;
pub mod trace;
pub mod tree_cells;
mod tree_held;
pub mod tree_measure;
pub mod tree_rows;
pub mod tree_view;
pub mod tree_watch;
pub mod usage;
