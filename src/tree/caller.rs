//! Naming a session from outside: a Session id, or a unique prefix of one
//! of at least four characters; a caller left unnamed is the store's only
//! tree root. Operator commands also take a v2 name path. Contract v1
//! keeps rc.8's rule that a caller id is opaque.

use super::Corpus;
use super::error::{MIN_PREFIX, ResolveError};
use dsh_store::Store;

/// A Session id or unique id prefix (≥ 4 characters).
pub fn resolve_session(store: &Store, text: &str) -> Result<usize, ResolveError> {
    if let Some(i) = store.index_of(text) {
        return Ok(i);
    }
    if text.chars().count() >= MIN_PREFIX {
        let matches: Vec<usize> = (0..store.sessions.len())
            .filter(|i| store.sessions.id(*i).starts_with(text))
            .collect();
        match matches.as_slice() {
            [one] => return Ok(*one),
            [] => {}
            many => {
                return Err(ResolveError::AmbiguousPrefix {
                    text: text.to_string(),
                    candidates: many
                        .iter()
                        .map(|i| store.sessions.id(*i).to_string())
                        .collect(),
                });
            }
        }
    }
    Err(not_found(store, text))
}

fn not_found(store: &Store, text: &str) -> ResolveError {
    ResolveError::NotFound {
        text: text.to_string(),
        store: store.root.clone(),
        suggestions: suggestions(store, text),
    }
}

/// An agent an operator names: a Session id, a unique prefix, or a v2 name
/// path (`reviewer/checker`) that is unique across the store's trees.
pub fn resolve_agent(store: &Store, text: &str) -> Result<usize, ResolveError> {
    match resolve_session(store, text) {
        Err(ResolveError::NotFound { .. }) if !text.is_empty() => {}
        other => return other,
    }
    let corpus = Corpus::new(store);
    // A full name path from any root first, as `tree` and the v2 listing
    // show it: `lead` (a root), `reviewer/checker`, or an unnamed member's
    // Session id as its step (`<childId>/<grandchildId>`).
    let mut matches: Vec<usize> = (0..store.sessions.len())
        .filter(|i| !store.sessions.origin_subagent(*i))
        .flat_map(|root| corpus.v2_named(root, text))
        .collect();
    matches.sort_unstable();
    matches.dedup();
    let paths: Vec<(usize, String)> = if matches.is_empty() && !text.contains('/') {
        (0..store.sessions.len())
            .filter(|i| store.sessions.origin_subagent(*i))
            .filter_map(|i| Some((i, corpus.v2_name(corpus.root_of(i).ok()?, i))))
            .collect()
    } else {
        Vec::new()
    };
    // Else a last step (`checker`) unique in the store.
    if matches.is_empty() && !text.contains('/') {
        matches = paths
            .iter()
            .filter(|(i, p)| super::name_path::last_step(p, store.sessions.id(*i)) == text)
            .map(|(i, _)| *i)
            .collect();
    }
    match matches.as_slice() {
        [one] => Ok(*one),
        [] => Err(not_found(store, text)),
        many => Err(ResolveError::AmbiguousPrefix {
            text: text.to_string(),
            candidates: many
                .iter()
                .map(|i| store.sessions.id(*i).to_string())
                .collect(),
        }),
    }
}

/// The ids and names closest to a text that resolved to nothing.
fn suggestions(store: &Store, text: &str) -> Vec<String> {
    if text.is_empty() {
        return Vec::new();
    }
    let limit = (text.chars().count() / 3).max(2);
    let mut scored: Vec<(usize, String)> = Vec::new();
    let corpus = Corpus::new(store);
    let path_of = |i: usize| {
        corpus.root_of(i).map_or_else(
            |_| store.sessions.id(i).to_string(),
            |r| corpus.v2_name(r, i),
        )
    };
    for (i, rec) in store.sessions.iter().enumerate() {
        let h = &rec.header;
        let mut best = crate::support::suggest::distance(text, h.id());
        if let Some(name) = h.valid_name() {
            best = best.min(crate::support::suggest::distance(text, name));
        }
        if best <= limit {
            let shown = match h.valid_name() {
                Some(_) => format!("{} ({})", path_of(i), h.id()),
                None => h.id().to_string(),
            };
            scored.push((best, shown));
        }
    }
    scored.sort();
    scored.into_iter().take(3).map(|(_, s)| s).collect()
}

/// The caller: the named session (a Session id, a unique prefix, or a name
/// path as every other agent argument takes), or the store's only tree root.
pub fn resolve_caller(store: &Store, agent: Option<&str>) -> Result<usize, ResolveError> {
    if let Some(agent) = agent {
        return resolve_agent(store, agent);
    }
    only_root(store)
}

fn only_root(store: &Store) -> Result<usize, ResolveError> {
    let roots: Vec<usize> = (0..store.sessions.len())
        .filter(|i| !store.sessions.origin_subagent(*i))
        .collect();
    match roots.as_slice() {
        [one] => Ok(*one),
        [] => Err(ResolveError::NoRoot {
            store: store.root.clone(),
        }),
        many => Err(ResolveError::SeveralRoots {
            roots: many
                .iter()
                .map(|i| store.sessions.id(*i).to_string())
                .collect(),
        }),
    }
}

/// A v1 caller: rc.8 uses the caller's id verbatim (a live agent need not
/// have a log yet), so an id the store does not hold is an opaque caller
/// with no children. A unique prefix still names its session, and an
/// ambiguous prefix is an error naming the candidates.
pub fn resolve_v1_caller(
    store: &Store,
    agent: Option<&str>,
) -> Result<(String, Option<usize>), ResolveError> {
    // rc.8 takes the caller's id as it is: no name paths here.
    let found = match agent {
        Some(agent) => resolve_session(store, agent),
        None => only_root(store),
    };
    match found {
        Ok(i) => Ok((store.sessions.id(i).to_string(), Some(i))),
        Err(ResolveError::NotFound { text, .. }) if !text.is_empty() => Ok((text, None)),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn store_with(ids: &[&str]) -> (std::path::PathBuf, Store) {
        let dir = std::env::temp_dir().join(format!(
            "dsh-agents-caller-{}-{}",
            std::process::id(),
            ids.join("_")
        ));
        let _ = std::fs::remove_dir_all(&dir);
        for (n, id) in ids.iter().enumerate() {
            let d = dir.join("_no-cwd").join(id);
            std::fs::create_dir_all(&d).unwrap();
            let origin = if n == 0 {
                String::new()
            } else {
                format!(r#","origin":"subagent","parentSession":"{}""#, ids[0])
            };
            std::fs::write(
                d.join("session.jsonl"),
                format!(
                    "{{\"type\":\"session\",\"version\":0,\"id\":\"{id}\",\"createdAt\":{n},\"delegationDepth\":0{origin}}}\n"
                ),
            )
            .unwrap();
        }
        let store =
            dsh_store::open(Path::new(&dir), dsh_store::Plan::Whole { why: "test" }).unwrap();
        (dir, store)
    }

    #[test]
    fn edit_distances() {
        for (a, b, d) in [
            ("", "", 0),
            ("reviewer", "reviewer", 0),
            ("reviewr", "reviewer", 1),
            ("rev", "reviewer", 5),
            ("kitten", "sitting", 3),
            ("ü", "u", 1),
        ] {
            assert_eq!(crate::support::suggest::distance(a, b), d, "{a} / {b}");
        }
    }

    #[test]
    fn caller_rules() {
        let (dir, store) = store_with(&["root", "abcd-1", "abcd-2", "wxyz-1"]);
        type Want = Result<(&'static str, bool), &'static str>;
        let cases: &[(Option<&str>, Want)] = &[
            (None, Ok(("root", true))),
            (Some("root"), Ok(("root", true))),
            (Some("wxyz"), Ok(("wxyz-1", true))),
            (Some("nobody-x"), Ok(("nobody-x", false))),
            (Some("abc"), Ok(("abc", false))),
            (Some("abcd"), Err("ambiguous")),
            (Some(""), Err("not found")),
        ];
        for (agent, want) in cases {
            let got = resolve_v1_caller(&store, *agent);
            match (want, got) {
                (Ok((id, known)), Ok((got_id, index))) => {
                    assert_eq!(
                        (*id, *known),
                        (got_id.as_str(), index.is_some()),
                        "{agent:?}"
                    )
                }
                (Err("ambiguous"), Err(ResolveError::AmbiguousPrefix { candidates, .. })) => {
                    assert_eq!(candidates, ["abcd-1", "abcd-2"])
                }
                (Err("not found"), Err(ResolveError::NotFound { .. })) => {}
                (want, got) => panic!("{agent:?}: want {want:?}, got {got:?}"),
            }
        }
        assert!(matches!(
            resolve_caller(&store, Some("nobody-x")),
            Err(ResolveError::NotFound { .. })
        ));
        let _ = std::fs::remove_dir_all(dir);
    }
}
