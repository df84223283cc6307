//! The one table style of operator views: condensed UTF-8 borders, no
//! wrapping, never dependent on the terminal.

use comfy_table::presets::UTF8_FULL_CONDENSED;
use comfy_table::{ContentArrangement, Table};

pub fn table(header: &[&str]) -> Table {
    let mut table = Table::new();
    table
        .load_style(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Disabled)
        .force_no_tty();
    table.set_header(header.to_vec());
    table
}
