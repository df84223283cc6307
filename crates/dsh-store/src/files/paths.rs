//! DSH path codecs: `encodeSegment` for session directories and `projectKey`
//! for project directories. Both work on UTF-16 code units, exactly as DSH's
//! JavaScript does, so astral characters become two escapes. Also the names
//! of the inbox's files in a session directory, which the store's listing
//! and the inbox layer both need (the inbox layer builds on the store, never
//! the other way).

/// A session's inbox (contract §5).
pub const INBOX: &str = "inbox.jsonl";
/// A fleet host's own files, beside the project directories (`fleet::local`).
pub const FLEET_DIR: &str = ".fleet";
/// The lock every writer of a session's inbox files holds.
pub const INBOX_LOCK: &str = "inbox.lock";
/// Keyed messages compaction moved out of the inbox.
pub const KEYED_ARCHIVE: &str = "inbox.keyed.jsonl";

/// Whether a UTF-16 unit is copied literally (`[A-Za-z0-9._-]`, never `~`).
fn is_safe_unit(unit: u16) -> bool {
    matches!(unit, 0x30..=0x39 | 0x41..=0x5A | 0x61..=0x7A | 0x2E | 0x5F | 0x2D)
}

fn push_escape(out: &mut String, unit: u16) {
    out.push_str(&format!("~{unit:04X}"));
}

/// DSH `encodeSegment`: an injective single path segment for a session id.
/// Returns `None` for the empty id, which DSH refuses to encode.
pub fn encode_segment(raw: &str) -> Option<String> {
    if raw.is_empty() {
        return None;
    }
    if raw == "." {
        return Some("~002E".to_string());
    }
    if raw == ".." {
        return Some("~002E~002E".to_string());
    }
    let mut out = String::with_capacity(raw.len());
    for unit in raw.encode_utf16() {
        if is_safe_unit(unit) {
            out.push(unit as u8 as char);
        } else {
            push_escape(&mut out, unit);
        }
    }
    Some(out)
}

/// DSH `projectKey`: the lossy, human-navigable project directory for a cwd,
/// already wrapped as `--<slug>--`. Returns `None` for an empty cwd.
pub fn project_key(cwd: &str) -> Option<String> {
    if cwd.is_empty() {
        return None;
    }
    let mut readable = String::new();
    let mut separator_run = false;
    for unit in cwd.encode_utf16() {
        if unit == u16::from(b'/') || unit == u16::from(b'\\') || unit == u16::from(b':') {
            if !separator_run {
                readable.push('-');
            }
            separator_run = true;
        } else if is_safe_unit(unit) {
            readable.push(unit as u8 as char);
            separator_run = false;
        } else {
            push_escape(&mut readable, unit);
            separator_run = false;
        }
    }
    let trimmed = readable.trim_start_matches('-');
    let slug = if trimmed.is_empty() { "root" } else { trimmed };
    // The slug is ASCII, so a byte slice is a code-unit slice.
    let slug = &slug[..slug.len().min(251)];
    Some(format!("--{slug}--"))
}

/// The project directory name for an optional cwd (`_no-cwd` when absent).
pub fn project_dir_name(cwd: Option<&str>) -> Option<String> {
    match cwd {
        None => Some("_no-cwd".to_string()),
        Some(cwd) => project_key(cwd),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_match_dsh_examples() {
        assert_eq!(encode_segment("a/b").unwrap(), "a~002Fb");
        assert_eq!(encode_segment("~x").unwrap(), "~007Ex");
        assert_eq!(encode_segment("x y").unwrap(), "x~0020y");
        assert_eq!(encode_segment("😀").unwrap(), "~D83D~DE00");
        assert_eq!(encode_segment(".").unwrap(), "~002E");
        assert_eq!(encode_segment("..").unwrap(), "~002E~002E");
        assert_eq!(encode_segment("...").unwrap(), "...");
        assert_eq!(encode_segment("a\0b").unwrap(), "a~0000b");
        assert!(encode_segment("").is_none());
    }

    #[test]
    fn project_keys_match_dsh_examples() {
        assert_eq!(project_key("/home/u/proj").unwrap(), "--home-u-proj--");
        assert_eq!(
            project_key("/home/u/my proj").unwrap(),
            "--home-u-my~0020proj--"
        );
        assert_eq!(project_key("C:\\Users\\me\\x").unwrap(), "--C-Users-me-x--");
        assert_eq!(project_key("/").unwrap(), "--root--");
        assert_eq!(project_key("/-x").unwrap(), "--x--");
        assert_eq!(project_key("/home/ü").unwrap(), "--home-~00FC--");
        let long = format!("/{}", "a".repeat(400));
        assert_eq!(project_key(&long).unwrap().len(), 251 + 4);
    }
}
