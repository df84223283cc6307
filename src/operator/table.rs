//! The one table style of operator views: columns two spaces apart under
//! an upper-case header, no borders, fitted to the terminal's width when
//! there is one (and whole when the output is not a terminal).
//!
//! Invariant: every width here is in terminal columns (`text_width`), not
//! characters: a CJK label or an emoji takes two, so a line fitted to the
//! width never wraps.

/// `rows` under `header`, each column padded to its widest cell. With a
/// `width`, the last column, then the one before it, is cut (down to 12
/// characters each) until the lines fit; a line still too wide is cut at
/// its end. No line ends in spaces.
pub fn columns(header: &[&str], rows: &[Vec<String>], width: Option<usize>) -> String {
    let mut out = String::new();
    columns_into(
        &mut out,
        header,
        || rows.iter().map(|r| r.as_slice()),
        width,
    );
    out
}

/// `columns`, written onto `out` from rows made twice by `rows` (once for
/// the widths, once for the lines): a view of many rows holds one row's
/// cells at a time, not every row's.
pub fn columns_into<I, R, C>(
    out: &mut String,
    header: &[&str],
    rows: impl Fn() -> I,
    width: Option<usize>,
) where
    I: Iterator<Item = R>,
    R: AsRef<[C]>,
    C: AsRef<str>,
{
    let n = header.len();
    let mut w: Vec<usize> = header.iter().map(|h| text_width(h)).collect();
    for r in rows() {
        for (k, c) in r.as_ref().iter().enumerate().take(n) {
            w[k] = w[k].max(text_width(c.as_ref()));
        }
    }
    if let Some(width) = width {
        for k in (0..n).rev().take(2) {
            let total: usize = w.iter().sum::<usize>() + 2 * n.saturating_sub(1);
            let over = total.saturating_sub(width);
            w[k] = w[k].saturating_sub(over).max(w[k].min(12));
        }
    }
    let mut line = String::new();
    let mut write = |out: &mut String, cells: &[&str], first: bool| {
        if !first {
            out.push('\n');
        }
        line.clear();
        for (k, width) in w.iter().enumerate() {
            if k > 0 {
                line.push_str("  ");
            }
            let cell = cells.get(k).copied().unwrap_or("");
            line.push_str(&pad_to(&cut_to(cell, *width), *width));
        }
        let trimmed = line.trim_end();
        match width {
            Some(width) => out.push_str(&cut_to(trimmed, width)),
            None => out.push_str(trimmed),
        }
    };
    write(out, header, true);
    for r in rows() {
        let cells: Vec<&str> = r.as_ref().iter().map(AsRef::as_ref).collect();
        write(out, &cells, false);
    }
}

/// How many terminal columns `text` takes (a wide character two, a
/// combining mark none).
pub fn text_width(text: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(text)
}

/// The start of `text` that takes `cols` columns, and the rest; `None` when
/// `text` is narrower or a wide character straddles the boundary.
pub fn split_at_width(text: &str, cols: usize) -> Option<(&str, &str)> {
    let mut taken = 0;
    for (at, c) in text.char_indices() {
        if taken == cols {
            return Some(text.split_at(at));
        }
        taken += unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if taken > cols {
            return None;
        }
    }
    (taken == cols).then_some((text, ""))
}

/// `text` cut to `width` columns, ending in `…` when cut.
pub fn cut_to(text: &str, width: usize) -> String {
    if text_width(text) <= width {
        return text.to_string();
    }
    if width == 0 {
        return String::new();
    }
    let mut s = String::new();
    let mut taken = 0;
    for c in text.chars() {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if taken + w > width - 1 {
            break;
        }
        taken += w;
        s.push(c);
    }
    s.push('…');
    s
}

/// `text` padded with spaces to `width` columns.
pub fn pad_to(text: &str, width: usize) -> String {
    let n = text_width(text);
    format!("{text}{}", " ".repeat(width.saturating_sub(n)))
}

/// The width to fit: `COLUMNS` when it holds a positive number (as ls, git
/// and jj honour it, a terminal or not), else the terminal's when standard
/// output is one.
pub fn terminal_width() -> Option<usize> {
    if let Some(n) = std::env::var("COLUMNS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|n| *n > 0)
    {
        return Some(n);
    }
    let out = std::io::stdout();
    if !rustix::termios::isatty(&out) {
        return None;
    }
    let ws = rustix::termios::tcgetwinsize(&out).ok()?;
    (ws.ws_col > 0).then_some(usize::from(ws.ws_col))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_are_terminal_columns() {
        for (text, cols) in [("label", 5), ("审查代码", 8), ("🙂 ok", 5), ("e\u{301}", 1)] {
            assert_eq!(text_width(text), cols, "{text}");
        }
        // A wide character never straddles a split.
        assert_eq!(split_at_width("审查x", 2), Some(("审", "查x")));
        assert_eq!(split_at_width("审查x", 3), None);
        assert_eq!(split_at_width("审查x", 5), Some(("审查x", "")));
        assert_eq!(split_at_width("ab", 3), None);
    }

    #[test]
    fn columns_fit_the_width() {
        let rows = vec![
            vec![
                "next-turn".to_string(),
                "m-1".to_string(),
                "a long message text here".to_string(),
            ],
            vec![
                "next-step".to_string(),
                "m-22".to_string(),
                "short".to_string(),
            ],
        ];
        let head = ["TARGET", "ID", "TEXT"];
        for (width, want) in [
            (
                None,
                "TARGET     ID    TEXT\nnext-turn  m-1   a long message text here\nnext-step  m-22  short",
            ),
            (
                Some(30),
                "TARGET     ID    TEXT\nnext-turn  m-1   a long messa…\nnext-step  m-22  short",
            ),
            (
                Some(20),
                "TARGET     ID    TE…\nnext-turn  m-1   a …\nnext-step  m-22  sh…",
            ),
        ] {
            let got = columns(&head, &rows, width);
            assert_eq!(got, want, "{width:?}");
            if let Some(width) = width {
                assert!(got.lines().all(|l| text_width(l) <= width), "{got}");
            }
        }
    }

    #[test]
    fn cutting_and_padding() {
        for (text, width, cut, padded) in [
            ("reviewer", 10, "reviewer", "reviewer  "),
            ("reviewer", 8, "reviewer", "reviewer"),
            ("reviewer", 5, "revi…", "reviewer"),
            ("ü—x", 2, "ü…", "ü—x"),
            ("abc", 0, "", "abc"),
            // In columns: a cut that would split a wide character stops
            // short of it, and padding counts two for each.
            ("审查代码", 6, "审查…", "审查代码"),
            ("审查", 6, "审查", "审查  "),
            ("a审查代码", 6, "a审查…", "a审查代码"),
            ("🙂 ok", 6, "🙂 ok", "🙂 ok "),
            ("e\u{301}", 3, "e\u{301}", "e\u{301}  "),
        ] {
            assert!(text_width(&cut_to(text, width)) <= width, "{text} {width}");
            assert_eq!(cut_to(text, width), cut, "{text} {width}");
            assert_eq!(pad_to(text, width), padded, "{text} {width}");
        }
    }
}
