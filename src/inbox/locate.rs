//! Finding which session's inbox holds a message id when the operator did
//! not say: every session directory's inbox is searched for the id's exact
//! JSON text, in parallel, without parsing (the fold then confirms).

use super::lock::INBOX;
use dsh_store::files::Dir;
use std::io::Read;
use std::path::PathBuf;

/// Whether `bytes` contains `needle`.
fn contains(bytes: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty() && bytes.windows(needle.len()).any(|w| w == needle)
}

/// Whether the inbox in `dir` mentions `"id":"<id>"` or `"<id>"` in an id
/// list; a missing or unreadable inbox does not.
fn mentions(dir: &std::path::Path, quoted: &[u8]) -> bool {
    let Ok(Some(mut file)) = Dir::session(dir).and_then(|d| d.open_read(INBOX)) else {
        return false;
    };
    let mut buf = vec![0u8; 256 * 1024];
    let keep = quoted.len().saturating_sub(1);
    let mut filled = 0usize;
    loop {
        let n = match file.read(&mut buf[filled..]) {
            Ok(0) | Err(_) => return false,
            Ok(n) => n,
        };
        let end = filled + n;
        if contains(&buf[..end], quoted) {
            return true;
        }
        // Keep the tail that could start a match split across reads.
        let tail = end.saturating_sub(keep);
        buf.copy_within(tail..end, 0);
        filled = end - tail;
    }
}

/// The session directories (indices into `dirs`) whose inbox mentions `id`.
pub fn inboxes_mentioning(dirs: &[PathBuf], id: &str) -> Vec<usize> {
    inboxes_with(dirs, serde_json::to_vec(id).unwrap_or_default())
}

/// The session directories whose inbox mentions a JSON string that starts
/// with `prefix` (a message-id prefix).
pub fn inboxes_mentioning_prefix(dirs: &[PathBuf], prefix: &str) -> Vec<usize> {
    let mut quoted = serde_json::to_vec(prefix).unwrap_or_default();
    quoted.pop();
    inboxes_with(dirs, quoted)
}

fn inboxes_with(dirs: &[PathBuf], quoted: Vec<u8>) -> Vec<usize> {
    let hits = crate::support::parallel::par_map(dirs, |d| mentions(d, &quoted));
    hits.into_iter()
        .enumerate()
        .filter_map(|(i, hit)| hit.then_some(i))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::contains;

    #[test]
    fn substring_search() {
        for (hay, needle, want) in [
            (&b"abc"[..], &b"b"[..], true),
            (b"abc", b"abcd", false),
            (b"abc", b"", false),
            (b"{\"id\":\"m-1\"}", b"\"m-1\"", true),
        ] {
            assert_eq!(contains(hay, needle), want);
        }
    }
}
