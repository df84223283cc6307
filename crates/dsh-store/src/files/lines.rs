//! Reading newline-terminated records with a cap: a line longer than the
//! cap is reported by its length and skipped without being held, so a
//! line of gigabytes costs no more memory than the cap.

use std::io::{self, BufRead};

/// One line read.
#[derive(Debug, PartialEq, Eq)]
pub enum Line<'a> {
    /// A complete line, without its `\n`.
    Complete(&'a [u8]),
    /// A complete line longer than the cap: its length with the `\n`.
    TooLong(u64),
    /// Bytes after the last `\n` (a torn tail), or nothing: the end.
    End { torn: u64 },
}

pub struct Lines<R> {
    inner: R,
    cap: usize,
    buf: Vec<u8>,
    /// Bytes of the last line returned straight from the reader's buffer,
    /// consumed on the next call: a line inside one buffer is not copied.
    lent: usize,
}

impl<R: BufRead> Lines<R> {
    pub fn new(inner: R, cap: usize) -> Self {
        Lines {
            inner,
            cap,
            buf: Vec::new(),
            lent: 0,
        }
    }

    pub fn into_inner(mut self) -> R {
        self.inner.consume(std::mem::take(&mut self.lent));
        self.inner
    }

    /// The next line. Bytes consumed: the line's length plus one for a
    /// complete line; `TooLong` and `End` say theirs.
    pub fn next_line(&mut self) -> io::Result<Line<'_>> {
        self.inner.consume(std::mem::take(&mut self.lent));
        self.buf.clear();
        let mut skipped: u64 = 0;
        loop {
            let chunk = self.inner.fill_buf()?;
            if chunk.is_empty() {
                let torn = skipped + self.buf.len() as u64;
                return Ok(Line::End { torn });
            }
            match memchr::memchr(b'\n', chunk) {
                Some(p) => {
                    if skipped > 0 || self.buf.len() + p > self.cap {
                        let len = skipped + self.buf.len() as u64 + p as u64 + 1;
                        self.inner.consume(p + 1);
                        return Ok(Line::TooLong(len));
                    }
                    if self.buf.is_empty() {
                        // The same buffered bytes again, now lent out.
                        self.lent = p + 1;
                        let chunk = self.inner.fill_buf()?;
                        return Ok(Line::Complete(&chunk[..p]));
                    }
                    self.buf.extend_from_slice(&chunk[..p]);
                    self.inner.consume(p + 1);
                    return Ok(Line::Complete(&self.buf));
                }
                None => {
                    let n = chunk.len();
                    if skipped > 0 || self.buf.len() + n > self.cap {
                        skipped += self.buf.len() as u64 + n as u64;
                        self.buf.clear();
                    } else {
                        self.buf.extend_from_slice(chunk);
                    }
                    self.inner.consume(n);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capped_lines() {
        let text = b"ab\nlong line here\n\ncd\ntorn";
        let mut lines = Lines::new(io::BufReader::with_capacity(4, &text[..]), 5);
        let mut got = Vec::new();
        loop {
            match lines.next_line().unwrap() {
                Line::Complete(l) => got.push(format!("ok {}", String::from_utf8_lossy(l))),
                Line::TooLong(n) => got.push(format!("long {n}")),
                Line::End { torn } => {
                    got.push(format!("end {torn}"));
                    break;
                }
            }
        }
        assert_eq!(got, ["ok ab", "long 15", "ok ", "ok cd", "end 4"]);
    }
}
