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

/// `text` cut to `width` characters, ending in `…` when cut.
pub fn cut_to(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    if width == 0 {
        return String::new();
    }
    let mut s: String = text.chars().take(width - 1).collect();
    s.push('…');
    s
}

/// `text` padded with spaces to `width` characters.
pub fn pad_to(text: &str, width: usize) -> String {
    let n = text.chars().count();
    format!("{text}{}", " ".repeat(width.saturating_sub(n)))
}

/// The terminal's width when standard output is one.
pub fn terminal_width() -> Option<usize> {
    // SAFETY: TIOCGWINSZ fills a winsize for a terminal fd; failure is reported.
    unsafe {
        if libc::isatty(libc::STDOUT_FILENO) != 1 {
            return None;
        }
        let mut ws: libc::winsize = std::mem::zeroed();
        (libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut ws) == 0 && ws.ws_col > 0)
            .then_some(ws.ws_col as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cutting_and_padding() {
        for (text, width, cut, padded) in [
            ("reviewer", 10, "reviewer", "reviewer  "),
            ("reviewer", 8, "reviewer", "reviewer"),
            ("reviewer", 5, "revi…", "reviewer"),
            ("ü—x", 2, "ü…", "ü—x"),
            ("abc", 0, "", "abc"),
        ] {
            assert_eq!(cut_to(text, width), cut, "{text} {width}");
            assert_eq!(pad_to(text, width), padded, "{text} {width}");
        }
    }
}
