//! Packed chunk rows (`text-chunks`, `reasoning-chunks`, `tool-call-chunks`):
//! rc.8's `decodeStorageRecord`, which expands one stored row into the
//! `assistant/chunk` events it stands for.

use crate::format::events::{has_exact_keys, safe_int};
use crate::format::header::MAX_SAFE_INTEGER;
use crate::format::jv::{Jv, Obj};

/// A packed chunk row rc.8 refuses: its tag, and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("malformed {tag} storage row: {why}")]
pub struct PackedRowError {
    pub tag: String,
    pub why: &'static str,
}

/// Decode one parsed line into its events (`decodeStorageRecord`): packed
/// chunk rows expand, every other value passes through unvalidated.
pub fn decode_storage_record(value: Jv<'_>) -> Result<Vec<Jv<'_>>, PackedRowError> {
    let tag = match &value {
        Jv::Obj(m) => m.get("type").and_then(Jv::as_str).unwrap_or(""),
        _ => "",
    };
    if !matches!(tag, "text-chunks" | "reasoning-chunks" | "tool-call-chunks") {
        return Ok(vec![value]);
    }
    let tag = tag.to_string();
    let malformed = |why: &'static str| PackedRowError {
        tag: tag.clone(),
        why,
    };
    let Jv::Obj(row) = value else {
        unreachable!("tag read from an object")
    };
    if !has_exact_keys(&row, &["type", "seq0", "time0", "data"]) {
        return Err(malformed(
            "envelope must be exactly {type, seq0, time0, data}",
        ));
    }
    let seq0 = safe_int(row.get("seq0"))
        .filter(|s| *s >= 0)
        .ok_or_else(|| malformed("seq0 must be a non-negative safe integer"))?;
    let time0 =
        safe_int(row.get("time0")).ok_or_else(|| malformed("time0 must be a safe integer"))?;
    let Some(Jv::Obj(data)) = row.get("data") else {
        return Err(malformed("data must be an object"));
    };
    let payload_key = if tag == "tool-call-chunks" {
        let with_name =
            has_exact_keys(data, &["turn", "step", "index", "id", "name", "dt", "args"]);
        if !with_name && !has_exact_keys(data, &["turn", "step", "index", "id", "dt", "args"]) {
            return Err(malformed(
                "data must be exactly {turn, step, index, id, name?, dt, args}",
            ));
        }
        if !data["id"].is_string() || (with_name && !data["name"].is_string()) {
            return Err(malformed("id (and name when present) must be strings"));
        }
        "args"
    } else {
        if !has_exact_keys(data, &["turn", "step", "index", "dt", "texts"]) {
            return Err(malformed(
                "data must be exactly {turn, step, index, dt, texts}",
            ));
        }
        "texts"
    };
    if !data["turn"].is_number() || !data["step"].is_number() || !data["index"].is_number() {
        return Err(malformed("turn/step/index must be numbers"));
    }
    let members = match data.get(payload_key) {
        Some(Jv::Arr(a)) if !a.is_empty() && a.iter().all(Jv::is_string) => a,
        _ => return Err(malformed("payload must be a non-empty string array")),
    };
    let dt: Vec<i64> = match data.get("dt") {
        Some(Jv::Arr(a)) => a
            .iter()
            .map(|g| safe_int(Some(g)))
            .collect::<Option<_>>()
            .ok_or_else(|| malformed("dt must be an array of safe integers"))?,
        _ => return Err(malformed("dt must be an array of safe integers")),
    };
    if dt.len() != members.len() - 1 {
        return Err(malformed("dt length does not match members"));
    }
    if seq0 + members.len() as i64 - 1 > MAX_SAFE_INTEGER {
        return Err(malformed("member seqs must stay safe integers"));
    }
    let mut time = time0;
    let mut out = Vec::with_capacity(members.len());
    for (k, member) in members.iter().enumerate() {
        if k > 0 {
            time += dt[k - 1];
            if time.abs() > MAX_SAFE_INTEGER {
                return Err(malformed("member times must stay safe integers"));
            }
        }
        let chunk = match tag.as_str() {
            "text-chunks" | "reasoning-chunks" => {
                let kind = if tag == "text-chunks" {
                    "text-delta"
                } else {
                    "reasoning-delta"
                };
                Obj::of([
                    ("type", Jv::str(kind)),
                    ("index", data["index"].clone()),
                    ("text", member.clone()),
                ])
            }
            _ => {
                let mut chunk = Obj::of([
                    ("type", Jv::str("tool-call-delta")),
                    ("index", data["index"].clone()),
                    ("id", data["id"].clone()),
                ]);
                if let Some(name) = data.get("name") {
                    chunk.insert("name", name.clone());
                }
                chunk.insert("argumentsDelta", member.clone());
                chunk
            }
        };
        let event_data = Obj::of([
            ("turn", data["turn"].clone()),
            ("step", data["step"].clone()),
            ("chunk", Jv::Obj(chunk)),
        ]);
        out.push(Jv::Obj(Obj::of([
            ("type", Jv::str("assistant/chunk")),
            ("seq", Jv::from(seq0 + k as i64)),
            ("time", Jv::from(time)),
            ("data", Jv::Obj(event_data)),
        ])));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(text: &str) -> Jv<'_> {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn packed_rows_expand() {
        let row = json(
            r#"{"type":"text-chunks","seq0":14,"time0":100,"data":{"turn":2,"step":1,"index":0,"dt":[0,3],"texts":["Hel","lo"," world"]}}"#,
        );
        let events = decode_storage_record(row).unwrap();
        assert_eq!(events.len(), 3);
        assert_eq!(events[2]["seq"].as_u64(), Some(16));
        assert_eq!(events[2]["time"].as_u64(), Some(103));
        assert_eq!(events[2]["data"]["chunk"]["text"].as_str(), Some(" world"));
        let bad = json(
            r#"{"type":"text-chunks","seq0":14,"time0":100,"data":{"turn":2,"step":1,"index":0,"dt":[0],"texts":["a","b","c"]}}"#,
        );
        assert!(decode_storage_record(bad).is_err());
    }
}
