//! `subagent/descriptor` payloads and the listing identity fold (contract §3):
//! the last valid descriptor over the whole log wins, and an invalid or
//! unknown-version one resets the identity. rc.8 (contract v1) accepts only
//! version 2; contract v2 also accepts version 3 and the `external` mode.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The mode a descriptor declares.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Mode {
    OneShot,
    Continuable,
    External,
    /// A mode this build does not know (contract v2 lists it as `unsupported`).
    Unknown(String),
}

impl Mode {
    pub fn as_str(&self) -> &str {
        match self {
            Mode::OneShot => "one-shot",
            Mode::Continuable => "continuable",
            Mode::External => "external",
            Mode::Unknown(m) => m,
        }
    }
}

/// A session's listing identity.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Identity {
    pub mode: Mode,
    pub label: Option<String>,
}

pub use crate::format::generation::Dialect;

const BASE_KEYS: &[&str] = &["version", "mode", "provider", "label"];
const CONTINUABLE_KEYS: &[&str] = &["agentProvider", "agentModel", "persona", "toolFilter"];

fn check_keys(map: &Map<String, Value>, extra: &[&str]) -> Result<(), DescriptorError> {
    match map
        .keys()
        .find(|k| !BASE_KEYS.contains(&k.as_str()) && !extra.contains(&k.as_str()))
    {
        Some(k) => Err(DescriptorError::UnknownField { key: k.clone() }),
        None => Ok(()),
    }
}

fn optional_string(map: &Map<String, Value>, key: &str) -> Result<Option<String>, DescriptorError> {
    match map.get(key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(DescriptorError::NotString { key: key.into() }),
    }
}

fn check_tool_filter(value: &Value) -> Result<(), DescriptorError> {
    let Value::Object(map) = value else {
        return Err(DescriptorError::ToolFilterNotObject);
    };
    if let Some(k) = map.keys().find(|k| *k != "allow" && *k != "deny") {
        return Err(DescriptorError::ToolFilterUnknownField { key: k.clone() });
    }
    for key in ["allow", "deny"] {
        if let Some(v) = map.get(key) {
            let ok = v.as_array().is_some_and(|a| a.iter().all(Value::is_string));
            if !ok {
                return Err(DescriptorError::ToolFilterNotStrings { key: key.into() });
            }
        }
    }
    if map.is_empty() {
        return Err(DescriptorError::ToolFilterEmpty);
    }
    Ok(())
}

/// Parse one payload. `Ok(None)` is "no descriptor" (another version);
/// `Err` is a malformed payload. Both reset the listing identity.
pub fn parse(data: &Value, dialect: Dialect) -> Result<Option<Identity>, DescriptorError> {
    parse_in(data, dialect, 0)
}

/// `parse` for a log of format generation `generation` (which descriptor
/// versions count differs; `store::format::generation::descriptor_accepted`).
pub fn parse_in(
    data: &Value,
    dialect: Dialect,
    generation: u32,
) -> Result<Option<Identity>, DescriptorError> {
    let Value::Object(map) = data else {
        return Err(DescriptorError::NotObject);
    };
    let Some(version) = map.get("version").and_then(Value::as_f64) else {
        return Err(DescriptorError::VersionNotNumber);
    };
    if !crate::format::generation::descriptor_accepted(generation, version, dialect) {
        return Ok(None);
    }
    let seed001 = dialect == Dialect::Seed001;
    let mode = match map.get("mode").and_then(Value::as_str) {
        Some("one-shot") => Mode::OneShot,
        Some("continuable") => Mode::Continuable,
        Some("external") if seed001 => Mode::External,
        Some(other) if seed001 => {
            // An unknown mode is still an identity: the row reads `unsupported`.
            return Ok(Some(Identity {
                mode: Mode::Unknown(other.to_string()),
                label: None,
            }));
        }
        _ => {
            return Err(DescriptorError::BadMode);
        }
    };
    let mut extra: Vec<&str> = Vec::new();
    if mode != Mode::OneShot {
        extra.extend_from_slice(CONTINUABLE_KEYS);
    }
    if version >= 3.0 && mode != Mode::OneShot {
        extra.push("agentReasoningEffort");
    }
    if version == 4.0 && mode != Mode::OneShot {
        extra.push("agentMaxTokens");
    }
    check_keys(map, &extra)?;
    if !map.get("provider").is_some_and(Value::is_string) {
        return Err(DescriptorError::NotString {
            key: "provider".into(),
        });
    }
    let label = if mode == Mode::OneShot {
        optional_string(map, "label")?
    } else {
        match map.get("label") {
            Some(Value::String(s)) => Some(s.clone()),
            _ => {
                return Err(DescriptorError::NotString {
                    key: "label".into(),
                });
            }
        }
    };
    if mode != Mode::OneShot {
        for key in [
            "agentProvider",
            "agentModel",
            "persona",
            "agentReasoningEffort",
        ] {
            optional_string(map, key)?;
        }
        if let Some(tf) = map.get("toolFilter") {
            check_tool_filter(tf)?;
        }
    }
    Ok(Some(Identity { mode, label }))
}

/// A `subagent/descriptor` payload DSH refuses; its text is rc.8's own.
/// Serialized in the scan cache, which keeps a session's resume authority.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
pub enum DescriptorError {
    #[error("persisted subagent descriptor payload has unknown field \"{key}\"")]
    UnknownField { key: String },
    #[error("persisted subagent descriptor {key} must be a string")]
    NotString { key: String },
    #[error("persisted subagent descriptor toolFilter must be an object")]
    ToolFilterNotObject,
    #[error("persisted subagent descriptor toolFilter has unknown field \"{key}\"")]
    ToolFilterUnknownField { key: String },
    #[error("persisted subagent descriptor toolFilter.{key} must be an array of strings")]
    ToolFilterNotStrings { key: String },
    #[error("persisted subagent descriptor toolFilter must declare allow and/or deny")]
    ToolFilterEmpty,
    #[error("persisted subagent descriptor payload must be an object")]
    NotObject,
    #[error("persisted subagent descriptor version must be a number")]
    VersionNotNumber,
    #[error("persisted subagent descriptor mode must be \"one-shot\" or \"continuable\"")]
    BadMode,
}

/// The last-wins listing fold, one descriptor event at a time.
#[derive(Debug, Clone, Default)]
pub struct IdentityFold {
    pub identity: Option<Identity>,
}

impl IdentityFold {
    /// Fold one descriptor of a log of format generation `generation`.
    pub fn apply_in(&mut self, data: &Value, dialect: Dialect, generation: u32) {
        self.identity = parse_in(data, dialect, generation).ok().flatten();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rc8_rules() {
        let ok = json!({"version":2,"mode":"continuable","provider":"spawn","label":"x"});
        assert_eq!(
            parse(&ok, Dialect::Rc8).unwrap().unwrap().label.as_deref(),
            Some("x")
        );
        let unknown_key = json!({"version":2,"mode":"one-shot","provider":"spawn","persona":"p"});
        assert!(parse(&unknown_key, Dialect::Rc8).is_err());
        let v3 = json!({"version":3,"mode":"external","provider":"codex","label":"e"});
        assert!(parse(&v3, Dialect::Rc8).unwrap().is_none());
        assert_eq!(
            parse(&v3, Dialect::Seed001).unwrap().unwrap().mode,
            Mode::External
        );
        let no_label = json!({"version":2,"mode":"continuable","provider":"spawn"});
        assert!(parse(&no_label, Dialect::Rc8).is_err());
        let swarm = json!({"version":3,"mode":"swarm","provider":"spawn"});
        assert!(matches!(
            parse(&swarm, Dialect::Seed001).unwrap().unwrap().mode,
            Mode::Unknown(_)
        ));
    }
}
