//! The session header line: DSH's listing shape check (`isHeaderLine`), the
//! retired-field refusal, and the stricter checks DSH applies on restore.

use crate::format::jv::{Jv, Obj};
use serde_json::{Number, Value};

/// The largest integer JavaScript represents exactly (`Number.MAX_SAFE_INTEGER`).
pub const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// A header member DSH checks only when it is present: a string, or some
/// other JSON value (kept raw: restore rejects it, a spawn copies it).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Member<'a> {
    Str(&'a str),
    Other(&'a Value),
}

impl<'a> Member<'a> {
    pub fn as_str(self) -> Option<&'a str> {
        match self {
            Member::Str(s) => Some(s),
            Member::Other(_) => None,
        }
    }
    pub fn to_value(self) -> Value {
        match self {
            Member::Str(s) => Value::String(s.to_string()),
            Member::Other(v) => v.clone(),
        }
    }
}

/// A member as kept: the string inline (one pointer when absent), any
/// other value with the rare members.
fn member_of(v: Option<&Jv>) -> (Option<String>, Option<Value>) {
    match v {
        None => (None, None),
        Some(Jv::Str(s)) => (Some(s.to_string()), None),
        Some(other) => (None, Some(other.to_value())),
    }
}

/// A header that passed the listing shape check. The members are typed so
/// that a store of a million sessions holds little more than their ids:
/// what nearly every header has is inline, the rest behind one pointer.
#[derive(Debug, Clone, PartialEq)]
pub struct Header {
    /// The id, then `parentSession` and `cwd` when they are strings (any
    /// other value is rare), in one allocation: most headers have all three.
    text: Box<str>,
    /// Where the id ends in `text`, and the parent.
    id_end: u32,
    parent_end: u32,
    has_parent: bool,
    has_cwd: bool,
    pub created_at: i64,
    pub delegation_depth: i64,
    /// `version` as written, when it is not the integer 0.
    version: Option<Box<Number>>,
    /// `isSeeded` (generation 2 on): `Some(Err)` when present but not a
    /// boolean.
    pub is_seeded: Option<Result<bool, ()>>,
    pub origin_subagent: bool,
    /// The members few headers have.
    rare: Option<Box<Rare>>,
}

/// Header members most sessions lack.
#[derive(Debug, Clone, PartialEq, Default)]
struct Rare {
    /// `seedLength`: `Some(Err)` when present but not a non-negative safe
    /// integer (restore rejects it).
    seed_length: Option<Result<u64, ()>>,
    /// The first key outside the closed header key set of generation 2 on
    /// (checked only for those generations).
    foreign_key: Option<Box<str>>,
    agent_preset: Option<Box<str>>,
    /// Optional agent name (this project's extension; DSH ignores it).
    name: Option<Box<str>>,
    /// `cwd` when present but not a string: kept for the lifecycle
    /// comparison and rejected on restore.
    cwd_other: Option<Value>,
    /// `parentSession` when present but not a string.
    parent_other: Option<Value>,
}

impl Rare {
    /// What a header whose one member outside the closed key set is a
    /// `name` has (`name` is that set's first foreign key).
    fn named(name: &str) -> Rare {
        Rare {
            name: Some(Box::from(name)),
            foreign_key: Some(Box::from("name")),
            ..Rare::default()
        }
    }
}

/// A header with no rare member and a small integer version: what a
/// compact store keeps of it to make it again.
#[derive(Debug, Clone, Copy)]
pub struct Plain<'a> {
    pub id: &'a str,
    pub parent: Option<&'a str>,
    pub cwd: Option<&'a str>,
    pub created_at: i64,
    pub delegation_depth: i64,
    pub is_seeded: Option<Result<bool, ()>>,
    pub origin_subagent: bool,
    /// `version` when it is a small non-zero integer (the generation DSH
    /// 0.1.3+ writes in it); `None` for 0.
    pub version: Option<u8>,
}

impl Header {
    /// The header's parts, when nothing but them is set.
    pub fn plain(&self) -> Option<Plain<'_>> {
        self.rare.is_none().then(|| self.parts()).flatten()
    }

    /// The parts, whatever rare members there are (`None`: a version that
    /// is not a small integer).
    fn parts(&self) -> Option<Plain<'_>> {
        let version = match &self.version {
            None => None,
            Some(n) => Some(n.as_u64().and_then(|v| u8::try_from(v).ok())?),
        };
        Some(Plain {
            id: self.id(),
            parent: self.parent(),
            cwd: self.cwd_str(),
            created_at: self.created_at,
            delegation_depth: self.delegation_depth,
            is_seeded: self.is_seeded,
            origin_subagent: self.origin_subagent,
            version,
        })
    }

    /// `plain`, for a header whose one rare member is a valid agent name
    /// (as every subagent header rc.8 writes has): its parts and the name.
    pub fn plain_named(&self) -> Option<(Plain<'_>, Option<&str>)> {
        let Some(rare) = &self.rare else {
            return self.parts().map(|p| (p, None));
        };
        let name = rare.name.as_deref().filter(|n| is_valid_name(n))?;
        // Compared in place: this runs for every session a store holds.
        let Rare {
            seed_length: None,
            foreign_key: Some(first_foreign),
            agent_preset: None,
            name: _,
            cwd_other: None,
            parent_other: None,
        } = &**rare
        else {
            return None;
        };
        (&**first_foreign == "name")
            .then(|| self.parts())
            .flatten()
            .map(|p| (p, Some(name)))
    }

    /// The header `plain_named` was taken from.
    pub fn from_plain_named(p: Plain<'_>, name: Option<&str>) -> Header {
        let mut h = Header::from_plain(p);
        h.rare = name.map(|n| Box::new(Rare::named(n)));
        h
    }

    /// The header `plain` was taken from.
    pub fn from_plain(p: Plain<'_>) -> Header {
        let (parent, cwd) = (p.parent.unwrap_or_default(), p.cwd.unwrap_or_default());
        let mut text = String::with_capacity(p.id.len() + parent.len() + cwd.len());
        text.push_str(p.id);
        text.push_str(parent);
        text.push_str(cwd);
        Header {
            // Each came from a header, whose ends fit.
            id_end: p.id.len() as u32,
            parent_end: (p.id.len() + parent.len()) as u32,
            text: text.into_boxed_str(),
            has_parent: p.parent.is_some(),
            has_cwd: p.cwd.is_some(),
            created_at: p.created_at,
            delegation_depth: p.delegation_depth,
            version: p.version.map(|v| Box::new(Number::from(v))),
            is_seeded: p.is_seeded,
            origin_subagent: p.origin_subagent,
            rare: None,
        }
    }
}

impl Header {
    /// The session id.
    pub fn id(&self) -> &str {
        &self.text[..self.id_end as usize]
    }
    pub fn cwd_str(&self) -> Option<&str> {
        self.has_cwd.then(|| &self.text[self.parent_end as usize..])
    }
    /// `cwd` as written, when present.
    pub fn cwd(&self) -> Option<Member<'_>> {
        match (
            self.cwd_str(),
            self.rare.as_ref().and_then(|r| r.cwd_other.as_ref()),
        ) {
            (Some(s), _) => Some(Member::Str(s)),
            (None, Some(v)) => Some(Member::Other(v)),
            (None, None) => None,
        }
    }
    /// The parent session id when it is a string (DSH compares with `===`).
    pub fn parent(&self) -> Option<&str> {
        self.has_parent
            .then(|| &self.text[self.id_end as usize..self.parent_end as usize])
    }
    /// `parentSession` present but not a string.
    fn parent_not_string(&self) -> bool {
        self.rare.as_ref().is_some_and(|r| r.parent_other.is_some())
    }
    /// `version` as written (listing tolerates any number).
    pub fn version(&self) -> Number {
        self.version.as_deref().cloned().unwrap_or_else(|| 0.into())
    }
    /// `seedLength` as read: `Some(Err)` when present but unusable.
    pub fn seed_length(&self) -> Option<Result<u64, ()>> {
        self.rare.as_ref().and_then(|r| r.seed_length)
    }
    /// `seedLength` when it is a usable count.
    pub fn seed_len(&self) -> u64 {
        match self.seed_length() {
            Some(Ok(n)) => n,
            _ => 0,
        }
    }
    /// The first key outside the closed header key set, if any.
    pub fn foreign_key(&self) -> Option<&str> {
        self.rare.as_ref()?.foreign_key.as_deref()
    }
    /// `agentPreset`, when given.
    pub fn agent_preset(&self) -> Option<&str> {
        self.rare.as_ref()?.agent_preset.as_deref()
    }
    /// `name` as written (valid or not).
    pub fn name(&self) -> Option<&str> {
        self.rare.as_ref()?.name.as_deref()
    }
    /// The format generation the header declares, when it is one this
    /// build reads (enumeration has checked it against the file name).
    pub fn generation(&self) -> Option<u32> {
        let Some(version) = &self.version else {
            return Some(0);
        };
        // JavaScript compares numbers: `0.0` is version 0.
        let v = version.as_f64()?;
        (v.fract() == 0.0 && (0.0..=f64::from(crate::format::generation::NEWEST_READ)).contains(&v))
            .then_some(v as u32)
    }
    /// A valid agent name per contract §3, or `None` (an invalid name is as absent).
    pub fn valid_name(&self) -> Option<&str> {
        self.name().filter(|n| is_valid_name(n))
    }
}

/// The v2 name of every tree root, which no session may take as its own.
pub const ROOT_NAME: &str = "lead";

/// 1–64 characters of `[A-Za-z0-9._-]`, never `lead`, and never `.` or
/// `..`: a name is a step of a name path, and `reviewer/..` must not name a
/// child of `reviewer`.
pub fn is_valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name != ROOT_NAME
        && name != "."
        && name != ".."
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// Outcome of reading a first line during listing.
#[derive(Debug)]
pub enum HeaderParse {
    Valid(Box<Header>),
    /// Not JSON or not header-shaped: DSH silently skips the session.
    NotHeader(&'static str),
    /// The retired policy fields: DSH aborts the whole listing.
    Retired,
}

fn safe_nonneg_int(v: Option<&Jv>) -> Option<i64> {
    let v = v?;
    // -0 is a float in serde_json and is rejected along with every fraction.
    if let Some(i) = v.as_i64() {
        if (0..=MAX_SAFE_INTEGER).contains(&i) {
            return Some(i);
        }
        return None;
    }
    if let Some(u) = v.as_u64() {
        return (u as i128 <= MAX_SAFE_INTEGER as i128).then_some(u as i64);
    }
    let f = v.as_f64()?;
    if f.fract() == 0.0
        && f >= 0.0
        && f <= MAX_SAFE_INTEGER as f64
        && !(f == 0.0 && f.is_sign_negative())
    {
        return Some(f as i64);
    }
    None
}

/// DSH `parseHeaderMeta` + `isHeaderLine` + `fromHeaderLine` on one line of text.
pub fn parse_header_line(line: &str) -> HeaderParse {
    let Some(value) = crate::format::jv_read::parse(line.as_bytes()) else {
        return HeaderParse::NotHeader("header line is not valid JSON");
    };
    match value {
        Jv::Obj(map) => parse_header_object(&map),
        _ => HeaderParse::NotHeader("first line is not a session header"),
    }
}

fn parse_header_object(map: &Obj) -> HeaderParse {
    // Each refusal names the member DSH's header check failed on.
    let not = |why: &'static str| HeaderParse::NotHeader(why);
    if map.get("type").and_then(Jv::as_str) != Some("session") {
        return not("first line is not a session header (\"type\" is not \"session\")");
    }
    let version = match map.get("version").map(Jv::to_value) {
        Some(Value::Number(n)) if n.as_u64() == Some(0) => None,
        Some(Value::Number(n)) => Some(Box::new(n)),
        _ => {
            return not(
                "first line is not a session header (\"version\" is missing or not a number)",
            );
        }
    };
    let Some(id) = map.get("id").and_then(Jv::as_str) else {
        return not("first line is not a session header (\"id\" is missing or not a string)");
    };
    let Some(created_at) = safe_nonneg_int(map.get("createdAt")) else {
        return not(
            "first line is not a session header (\"createdAt\" is missing or not a non-negative safe integer)",
        );
    };
    let Some(delegation_depth) = safe_nonneg_int(map.get("delegationDepth")) else {
        return not(
            "first line is not a session header (\"delegationDepth\" is missing or not a non-negative safe integer)",
        );
    };
    let origin_subagent = match map.get("origin") {
        None => false,
        Some(Jv::Str(s)) if s == "subagent" => true,
        Some(_) => {
            return not("first line is not a session header (\"origin\" is not \"subagent\")");
        }
    };
    let agent_preset = match map.get("agentPreset") {
        None => None,
        Some(Jv::Str(s)) => Some(s.as_ref().into()),
        Some(_) => {
            return not("first line is not a session header (\"agentPreset\" is not a string)");
        }
    };
    if map.contains_key("sandboxMode") || map.contains_key("approvalPolicy") {
        return HeaderParse::Retired;
    }
    // JSON `null` is "present" to `!== undefined` checks, so keep it.
    let seed_length = map
        .get("seedLength")
        .map(|v| safe_nonneg_int(Some(v)).map(|n| n as u64).ok_or(()));
    let is_seeded = map.get("isSeeded").map(|v| match v {
        Jv::Bool(b) => Ok(*b),
        _ => Err(()),
    });
    let closed = crate::format::generation::header_keys(2).unwrap_or_default();
    let foreign_key = map.keys().find(|k| !closed.contains(k)).map(Box::from);
    let (cwd, cwd_other) = member_of(map.get("cwd"));
    let (parent, parent_other) = member_of(map.get("parentSession"));
    let rare = Rare {
        seed_length,
        foreign_key,
        agent_preset,
        name: map.get("name").and_then(Jv::as_str).map(Box::from),
        cwd_other,
        parent_other,
    };
    let mut text = String::with_capacity(
        id.len() + parent.as_ref().map_or(0, |p| p.len()) + cwd.as_ref().map_or(0, |c| c.len()),
    );
    text.push_str(id);
    let id_end = text.len();
    text.push_str(parent.as_deref().unwrap_or_default());
    let parent_end = text.len();
    text.push_str(cwd.as_deref().unwrap_or_default());
    // A header line is at most `MAX_LINE` bytes.
    let (Ok(id_end), Ok(parent_end), Ok(_)) = (
        u32::try_from(id_end),
        u32::try_from(parent_end),
        u32::try_from(text.len()),
    ) else {
        return HeaderParse::NotHeader("header line is too long");
    };
    HeaderParse::Valid(Box::new(Header {
        version,
        text: text.into_boxed_str(),
        id_end,
        parent_end,
        has_parent: parent.is_some(),
        has_cwd: cwd.is_some(),
        created_at,
        is_seeded,
        origin_subagent,
        delegation_depth,
        rare: (rare != Rare::default()).then(|| Box::new(rare)),
    }))
}

/// DSH's restore-time header validation of the header of a log file of
/// generation `file` (`session.jsonl` is 0); `Err` makes the log
/// unreadable. A header must declare its file's generation: rc.8 refuses
/// any version but 0 in `session.jsonl`, and a newer harness reads each
/// generation from its own file.
pub fn validate_for_restore(h: &Header, file: u32) -> Result<(), RestoreRefusal> {
    let Some(generation) = h.generation() else {
        return Err(RestoreRefusal::UnreadableVersion {
            id: h.id().to_string(),
            version: h.version().to_string(),
            newest: crate::format::generation::NEWEST_READ,
        });
    };
    if !declares_file_generation(h, file) {
        return Err(RestoreRefusal::NotTheFileGeneration {
            id: h.id().to_string(),
            generation,
            file,
        });
    }
    if crate::format::generation::header_keys(generation).is_some() {
        if let Some(k) = h.foreign_key() {
            return Err(RestoreRefusal::UnexpectedField {
                generation,
                key: k.to_string(),
            });
        }
        if h.is_seeded.is_none_or(|s| s.is_err()) {
            return Err(RestoreRefusal::SeededNotBoolean { generation });
        }
    }
    if let Some(cwd) = h.cwd() {
        match cwd.as_str() {
            Some(s) if s.starts_with('/') => {}
            Some(s) => {
                return Err(RestoreRefusal::RelativeCwd { cwd: s.to_string() });
            }
            None => return Err(RestoreRefusal::CwdNotString),
        }
    }
    if h.parent_not_string() {
        return Err(RestoreRefusal::ParentNotString);
    }
    if h.seed_length() == Some(Err(())) {
        return Err(RestoreRefusal::BadSeedLength);
    }
    Ok(())
}

/// A header DSH's restore path refuses; its text is rc.8's own.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RestoreRefusal {
    #[error("session \"{id}\" uses log format v{version}, but this build reads v0 to v{newest}")]
    UnreadableVersion {
        id: String,
        version: String,
        newest: u32,
    },
    /// A header of a generation this build reads, in another
    /// generation's log file.
    #[error("session \"{id}\" uses log format v{generation}, but its log file is a v{file} log")]
    NotTheFileGeneration {
        id: String,
        generation: u32,
        file: u32,
    },
    #[error("format v{generation} header has unexpected field \"{key}\"")]
    UnexpectedField { generation: u32, key: String },
    #[error("format v{generation} header isSeeded must be a boolean")]
    SeededNotBoolean { generation: u32 },
    #[error("session header cwd must be an absolute path, got \"{cwd}\"")]
    RelativeCwd { cwd: String },
    #[error("session header cwd must be a string")]
    CwdNotString,
    #[error("session header parentSession must be a string")]
    ParentNotString,
    #[error("session header seedLength must be a non-negative safe integer")]
    BadSeedLength,
}

/// Where a session's own events start, as far as its header tells:
/// `seedLength` (generations 0–1), 0 for an unseeded log of generation 2
/// on, and `None` for a seeded one (its cut is the seq of the inherited
/// `session/end-seed`, `is_inherited_marker`).
pub fn header_cut(header: &Header) -> Option<u64> {
    let g = header.generation().unwrap_or(0);
    if !crate::format::generation::cut_in_log(g) {
        Some(header.seed_len())
    } else if header.is_seeded == Some(Ok(true)) {
        None
    } else {
        Some(0)
    }
}

/// Whether `header` declares the generation its log file's name carries:
/// a newer file holding another generation's header is a store problem
/// (enumeration), a `session.jsonl` holding a newer header lists but is
/// refused on read, as rc.8 refuses every version but 0 (restore).
pub fn declares_file_generation(header: &Header, file: u32) -> bool {
    header.generation() == Some(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_header_names_the_member_it_failed_on() {
        let base = r#""type":"session","version":0,"id":"s","createdAt":1,"delegationDepth":0"#;
        for (line, member) in [
            (r#"{"type":"other"}"#.to_string(), "\"type\""),
            (r#"{"type":"session","id":"s"}"#.to_string(), "\"version\""),
            (
                r#"{"type":"session","version":0,"createdAt":1,"delegationDepth":0}"#.to_string(),
                "\"id\"",
            ),
            (
                r#"{"type":"session","version":0,"id":"s","createdAt":-1,"delegationDepth":0}"#
                    .to_string(),
                "\"createdAt\"",
            ),
            (
                r#"{"type":"session","version":0,"id":"s","createdAt":1}"#.to_string(),
                "\"delegationDepth\"",
            ),
            (format!(r#"{{{base},"origin":"other"}}"#), "\"origin\""),
            (format!(r#"{{{base},"agentPreset":3}}"#), "\"agentPreset\""),
        ] {
            match parse_header_line(&line) {
                HeaderParse::NotHeader(why) => {
                    assert!(
                        why.starts_with("first line is not a session header"),
                        "{line}: {why}"
                    );
                    assert!(why.contains(member), "{line}: {why}");
                }
                _ => panic!("{line}: taken as a header"),
            }
        }
        assert!(matches!(
            parse_header_line(&format!("{{{base}}}")),
            HeaderParse::Valid(_)
        ));
    }

    /// The members kept together in one buffer, and the rare ones kept
    /// apart, read back as written: (members, id, parent, cwd, version).
    #[test]
    fn members_read_back_as_written() {
        type Case = (
            &'static str,
            &'static str,
            Option<&'static str>,
            Option<Member<'static>>,
            &'static str,
        );
        let other = Value::from(7);
        let rows: [Case; 7] = [
            ("", "a", None, None, "0"),
            (r#","parentSession":"p""#, "a", Some("p"), None, "0"),
            (r#","cwd":"/w""#, "a", None, Some(Member::Str("/w")), "0"),
            (
                r#","parentSession":"","cwd":"""#,
                "a",
                Some(""),
                Some(Member::Str("")),
                "0",
            ),
            (
                r#","parentSession":"pé","cwd":"/wé""#,
                "a",
                Some("pé"),
                Some(Member::Str("/wé")),
                "0",
            ),
            (r#","parentSession":7,"cwd":7"#, "a", None, None, "0"),
            (r#","version":0.0"#, "a", None, None, "0.0"),
        ];
        for (members, id, parent, cwd, version) in rows {
            let version_member = if members.contains("version") {
                ""
            } else {
                r#","version":0"#
            };
            let line = format!(
                r#"{{"type":"session","id":"{id}","createdAt":1,"delegationDepth":0{version_member}{members}}}"#
            );
            let HeaderParse::Valid(h) = parse_header_line(&line) else {
                panic!("not a header: {line}")
            };
            assert_eq!(h.id(), id, "{line}");
            assert_eq!(h.parent(), parent, "{line}");
            assert_eq!(h.version().to_string(), version, "{line}");
            match cwd {
                Some(c) => assert_eq!(h.cwd(), Some(c), "{line}"),
                None if members.contains(r#""cwd":7"#) => {
                    assert_eq!(h.cwd(), Some(Member::Other(&other)), "{line}");
                    assert!(h.parent_not_string(), "{line}");
                }
                None => assert_eq!(h.cwd(), None, "{line}"),
            }
        }
    }

    #[test]
    fn shape_check_follows_dsh() {
        let ok = r#"{"type":"session","version":0,"id":"a","createdAt":1,"delegationDepth":0}"#;
        assert!(matches!(parse_header_line(ok), HeaderParse::Valid(_)));
        let neg_zero =
            r#"{"type":"session","version":0,"id":"a","createdAt":-0,"delegationDepth":0}"#;
        assert!(matches!(
            parse_header_line(neg_zero),
            HeaderParse::NotHeader(_)
        ));
        let no_depth = r#"{"type":"session","version":0,"id":"a","createdAt":1}"#;
        assert!(matches!(
            parse_header_line(no_depth),
            HeaderParse::NotHeader(_)
        ));
        let retired = r#"{"type":"session","version":0,"id":"a","createdAt":1,"delegationDepth":0,"sandboxMode":"x"}"#;
        assert!(matches!(parse_header_line(retired), HeaderParse::Retired));
        let foreign =
            r#"{"type":"session","version":4,"id":"a","createdAt":1,"delegationDepth":0}"#;
        let HeaderParse::Valid(h) = parse_header_line(foreign) else {
            panic!()
        };
        assert!(validate_for_restore(&h, 4).is_err());
    }

    #[test]
    fn a_header_must_declare_its_files_generation() {
        let header = |version: u32| {
            let line = format!(
                r#"{{"type":"session","version":{version},"id":"a","createdAt":1,"delegationDepth":0,"isSeeded":false}}"#
            );
            match parse_header_line(&line) {
                HeaderParse::Valid(h) => h,
                other => panic!("{other:?}"),
            }
        };
        // (header version, file generation, refused)
        let table = [
            (0, 0, false),
            (1, 0, true),
            (3, 0, true),
            (0, 1, true),
            (1, 1, false),
            (3, 3, false),
            (2, 3, true),
        ];
        for (version, file, refused) in table {
            let got = validate_for_restore(&header(version), file);
            assert_eq!(
                matches!(got, Err(RestoreRefusal::NotTheFileGeneration { .. })),
                refused,
                "v{version} header in a v{file} file: {got:?}"
            );
        }
    }

    #[test]
    fn names() {
        assert!(is_valid_name("reviewer"));
        assert!(!is_valid_name("lead"));
        assert!(!is_valid_name("a/b"));
        assert!(!is_valid_name(""));
        assert!(!is_valid_name("."));
        assert!(!is_valid_name(".."));
        assert!(is_valid_name("..."));
        assert!(is_valid_name(".hidden"));
        assert!(!is_valid_name(&"x".repeat(65)));
    }
}
