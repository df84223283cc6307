//! Generation 4's parent-owned catalog (reference §4.5): `subagent/catalog`
//! rows in a parent's own suffix (after its inherited cut), in event order,
//! each naming a child with its mode and label. Where a parent has one, the
//! listing takes its children's order, modes and labels from it
//! (`tree::corpus`); children it does not name follow in sibling order,
//! with what their headers and descriptors say.

use crate::error::LogError;
use crate::format::descriptor::{Identity, Mode};
use crate::set::enumerate::SessionRecord;
use serde_json::Value;

/// One catalog row: the child and what the parent recorded of it.
#[derive(Debug, Clone, PartialEq)]
pub struct CatalogRow {
    pub child_id: String,
    /// `None` for `subagent/catalog-unknown`: the parent could not tell the
    /// child's mode, so the child's own descriptor decides.
    pub identity: Option<Identity>,
}

/// Whether a log of generation `generation` can hold a catalog.
pub fn has_catalogs(generation: u32) -> bool {
    generation >= 4
}

/// A row's payload as DSH's strict schema admits it (unknown keys refused),
/// or `None`.
fn row(ty: &str, data: &Value) -> Option<CatalogRow> {
    let map = data.as_object()?;
    let known = ["version", "childId", "childCreatedAt", "mode", "label"];
    if map.keys().any(|k| !known.contains(&k.as_str()))
        || map.get("version")?.as_u64()? != 0
        || !map.get("childCreatedAt")?.is_number()
    {
        return None;
    }
    let child_id = map.get("childId")?.as_str()?.to_string();
    let label = match map.get("label") {
        None => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => return None,
    };
    let mode = map.get("mode")?.as_str()?;
    let identity = match (ty, mode) {
        ("subagent/catalog", "one-shot") => Some(Identity {
            mode: Mode::OneShot,
            label,
        }),
        ("subagent/catalog", "continuable") => Some(Identity {
            mode: Mode::Continuable,
            label: Some(label?),
        }),
        ("subagent/catalog-unknown", "unknown") => None,
        _ => return None,
    };
    Some(CatalogRow { child_id, identity })
}

/// The catalog of `rec`'s log, in event order (a later row for the same
/// child replaces the earlier one in place); rows DSH's schema refuses are
/// passed over. Empty for a generation without catalogs.
pub fn read(rec: &SessionRecord) -> Result<Vec<CatalogRow>, LogError> {
    let mut out: Vec<CatalogRow> = Vec::new();
    if !has_catalogs(rec.generation) {
        return Ok(out);
    }
    crate::log::reader::for_each_own_event(&rec.log(), &rec.header, |ev| {
        let ty = ev["type"].as_str().unwrap_or("");
        if !matches!(ty, "subagent/catalog" | "subagent/catalog-unknown") {
            return;
        }
        if let Some(r) = row(ty, &ev["data"]) {
            match out.iter_mut().find(|o| o.child_id == r.child_id) {
                Some(o) => *o = r,
                None => out.push(r),
            }
        }
    })?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rows_follow_the_strict_schema() {
        let ok = |ty: &str, d: Value| row(ty, &d);
        let base =
            json!({"version":0,"childId":"k","childCreatedAt":1,"mode":"continuable","label":"w"});
        assert_eq!(
            ok("subagent/catalog", base.clone()).unwrap().identity,
            Some(Identity {
                mode: Mode::Continuable,
                label: Some("w".into())
            })
        );
        let cases = [
            (
                "subagent/catalog",
                json!({"version":0,"childId":"k","childCreatedAt":1,"mode":"continuable"}),
                false,
            ),
            (
                "subagent/catalog",
                json!({"version":0,"childId":"k","childCreatedAt":1,"mode":"one-shot"}),
                true,
            ),
            (
                "subagent/catalog",
                json!({"version":1,"childId":"k","childCreatedAt":1,"mode":"one-shot"}),
                false,
            ),
            (
                "subagent/catalog",
                json!({"version":0,"childId":"k","childCreatedAt":1,"mode":"one-shot","x":1}),
                false,
            ),
            (
                "subagent/catalog",
                json!({"version":0,"childId":"k","childCreatedAt":1,"mode":"unknown"}),
                false,
            ),
            (
                "subagent/catalog-unknown",
                json!({"version":0,"childId":"k","childCreatedAt":1,"mode":"unknown"}),
                true,
            ),
            (
                "subagent/catalog-unknown",
                json!({"version":0,"childId":"k","childCreatedAt":1,"mode":"one-shot"}),
                false,
            ),
            (
                "subagent/catalog",
                json!({"version":0,"childId":7,"childCreatedAt":1,"mode":"one-shot"}),
                false,
            ),
        ];
        for (ty, data, admitted) in cases {
            assert_eq!(ok(ty, data.clone()).is_some(), admitted, "{ty} {data}");
        }
    }
}
