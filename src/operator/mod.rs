//! Operator commands (DESIGN §2): the tree view, the inbox view, `check`,
//! `spawn`, and delivering or interrupting as the user.

pub mod check;
pub mod deliver;
pub mod inbox_view;
pub mod spawn;
pub mod table;
pub mod tree_view;
