//! Tool argument validation with the rc.8 tool runtime's messages
//! (`invalid arguments: …`): required properties first, then each declared
//! property's type, in declaration order; unknown keys are ignored.

use crate::error::{Error, Result};
use serde_json::{Map, Value};

/// What a declared property must hold.
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    String,
    Integer,
    Enum(&'static [&'static str]),
}

#[derive(Debug, Clone, Copy)]
pub struct Param {
    pub name: &'static str,
    pub kind: Kind,
    pub required: bool,
}

pub const fn req(name: &'static str, kind: Kind) -> Param {
    Param {
        name,
        kind,
        required: true,
    }
}

pub const fn opt(name: &'static str, kind: Kind) -> Param {
    Param {
        name,
        kind,
        required: false,
    }
}

/// Validate `args` against `params`, returning the object on success.
pub fn validate<'a>(args: &'a Value, params: &[Param]) -> Result<&'a Map<String, Value>> {
    let Value::Object(map) = args else {
        return Err(Error::tool(
            "invalid arguments: \"arguments\" must be an object",
        ));
    };
    let mut violations = Vec::new();
    for p in params.iter().filter(|p| p.required) {
        if !map.contains_key(p.name) {
            violations.push(format!("missing required property \"{}\"", p.name));
        }
    }
    for p in params {
        let Some(v) = map.get(p.name) else { continue };
        let bad = match p.kind {
            Kind::String => (!v.is_string()).then(|| format!("\"{}\" must be a string", p.name)),
            Kind::Integer => {
                let int = v.as_i64().is_some()
                    || v.as_u64().is_some()
                    || v.as_f64().is_some_and(|f| f.fract() == 0.0);
                (!int).then(|| format!("\"{}\" must be an integer", p.name))
            }
            Kind::Enum(allowed) => match v.as_str() {
                None => Some(format!("\"{}\" must be a string", p.name)),
                Some(s) if !allowed.contains(&s) => Some(format!(
                    "\"{}\" must be one of {}",
                    p.name,
                    serde_json::to_string(allowed).unwrap_or_default()
                )),
                Some(_) => None,
            },
        };
        violations.extend(bad);
    }
    if violations.is_empty() {
        Ok(map)
    } else {
        Err(Error::tool(format!(
            "invalid arguments: {}",
            violations.join("; ")
        )))
    }
}

/// A validated string property (present when required).
pub fn string<'a>(map: &'a Map<String, Value>, name: &str) -> Option<&'a str> {
    map.get(name).and_then(Value::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn messages_match_the_rc8_runtime() {
        let params = [
            req("subagent_id", Kind::String),
            req("message", Kind::String),
        ];
        let e = validate(&json!({}), &params).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid arguments: missing required property \"subagent_id\"; missing required property \"message\""
        );
        let e = validate(&json!({"subagent_id":5,"message":"x"}), &params).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid arguments: \"subagent_id\" must be a string"
        );
        let e = validate(&json!([]), &params).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid arguments: \"arguments\" must be an object"
        );
        assert!(validate(&json!({"subagent_id":"a","message":"b","x":1}), &params).is_ok());
    }
}
