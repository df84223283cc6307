//! Session log format generations (reference §0.2, §1.7, §2.4, §4.4): which
//! log of a session directory is current (`session.jsonl[.zstd]` is
//! generation 0, `session.v<N>.jsonl[.zstd]` generation N, the highest
//! wins), and what differs between the generations this build reads: event
//! vocabulary, surface types, the replace range's keys, the inherited cut,
//! descriptor versions and header keys. Every per-generation rule lives here,
//! as a pure table: no I/O, and nothing of the store's types (file names are
//! `log_name`, header-derived answers `header`).

/// The newest generation this build reads: 1–3 as DSH's own published
/// codecs write them (0.1.3, 0.1.5), 4 as the reference describes it
/// (0.2.x: generation 3 plus parent-owned catalogs).
pub const NEWEST_READ: u32 = 4;

/// Which rules to read descriptors by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// DSH 0.1.0-rc.8: version 2 only, modes one-shot and continuable.
    Rc8,
    /// This design's reading of seed 001: versions 2 and 3, plus `external`.
    Seed001,
}

/// The rc.8 event vocabulary (`KNOWN_SESSION_EVENT_TYPES`).
pub const KNOWN_EVENT_TYPES: &[&str] = &[
    "agent-preset/selected",
    "agent/inbox/spliced",
    "approval/asked",
    "approval/decided",
    "approval/policy",
    "assistant/chunk",
    "assistant/message",
    "command/done",
    "command/run",
    "compaction/end",
    "compaction/prune",
    "compaction/start",
    "compaction/summary",
    "feedback/record",
    "goal/change",
    "hook/invoked",
    "hook/result",
    "llm/retry",
    "llm/retry-started",
    "permission/preset",
    "plan/mode",
    "request/context",
    "request/header",
    "sandbox/mode",
    "schedule/change",
    "session/end-seed",
    "session/title",
    "session/title-llm-request",
    "step/end",
    "step/start",
    "subagent/descriptor",
    "team/member",
    "team/message/delivered",
    "team/message/queued",
    "team/task",
    "todo/write",
    "tool-workflow/agent-end",
    "tool-workflow/agent-start",
    "tool-workflow/run-end",
    "tool-workflow/run-start",
    "tool/call",
    "tool/code-dispatch",
    "tool/code-dispatch-start",
    "tool/result",
    "turn/end",
    "turn/start",
    "user/message",
    "web/deepseek-search-llm-request",
];

/// Whether `ty` is in the vocabulary: one hash, not a string comparison
/// for each of its types, on every event of every log.
pub fn is_known_type(ty: &str) -> bool {
    static KNOWN: std::sync::LazyLock<std::collections::HashSet<&str>> =
        std::sync::LazyLock::new(|| KNOWN_EVENT_TYPES.iter().copied().collect());
    KNOWN.contains(ty)
}

/// Event types of generations 0–1 that rc.8's list lacks (DSH 0.1.3's
/// `RELEASED_V0_EVENT_TYPES`, read from the published package).
const ADDED_IN_1: &[&str] = &[
    "model/selection",
    "session-log-deepseek/delivery-accepted",
    "subagent/model-selection-policy",
];

/// Whether `ty` is in generation `g`'s vocabulary (beyond rc.8's, which
/// `is_known_type` holds). Generation 2 folds `assistant/chunk`
/// into `assistant/attempt`; 3 adds `system/message` and renames the
/// code-mode dispatch events; 4 adds the parent-owned catalog.
pub fn known_type(g: u32, ty: &str) -> bool {
    let rc8 = is_known_type(ty);
    match g {
        0 => rc8,
        1 => rc8 || ADDED_IN_1.contains(&ty),
        _ => {
            let base = (rc8 || ADDED_IN_1.contains(&ty) || ty == "assistant/attempt")
                && ty != "assistant/chunk";
            if g == 2 {
                return base;
            }
            let v3 = (base && !matches!(ty, "tool/code-dispatch-start" | "tool/code-dispatch"))
                || matches!(
                    ty,
                    "system/message"
                        | "tool/ptc-dispatch-start"
                        | "tool/ptc-dispatch"
                        | "feedback/message-put"
                        | "feedback/message-delete"
                );
            v3 || (g >= 4 && matches!(ty, "subagent/catalog" | "subagent/catalog-unknown"))
        }
    }
}

/// Whether `ty` is a surface type (carries `surfaceOp`) in generation `g`.
pub fn is_surface(g: u32, ty: &str) -> bool {
    matches!(ty, "user/message" | "assistant/message" | "tool/result")
        || (g >= 3 && ty == "system/message")
}

/// The keys of a `replace` surfaceOp's range in generation `g`.
pub fn replace_keys(g: u32) -> (&'static str, &'static str) {
    if g >= 3 {
        ("startSeq", "endSeq")
    } else {
        ("start", "end")
    }
}

/// Whether generation `g` carries its inherited cut in the log (a
/// `session/end-seed {"inherited":true}`) with `isSeeded` in the header,
/// rather than as the header's `seedLength`.
pub fn cut_in_log(g: u32) -> bool {
    g >= 2
}

/// Whether an event of `ty` with `inherited` data member `inherited_true`
/// marks the inherited cut in a log of generation `g`.
pub fn is_inherited_marker(g: u32, ty: &str, inherited_true: bool) -> bool {
    cut_in_log(g) && ty == "session/end-seed" && inherited_true
}

/// Whether a descriptor of `version` is one the listing reads in a log of
/// generation `g`. rc.8 reads version 2 only; from generation 1 on DSH
/// (0.1.3+) refuses version 2 and reads 3 (the Rust port also 4); this
/// design's seed-001 reading adds 3 to generation 0.
pub fn descriptor_accepted(g: u32, version: f64, dialect: Dialect) -> bool {
    match (g, dialect) {
        (0, Dialect::Rc8) => version == 2.0,
        (0, Dialect::Seed001) => version == 2.0 || version == 3.0,
        _ => version == 3.0 || version == 4.0,
    }
}

/// The header keys of generation `g` when its key set is closed (from
/// generation 2 on); `None` for the open headers of generations 0–1.
pub fn header_keys(g: u32) -> Option<&'static [&'static str]> {
    (g >= 2).then_some(
        &[
            "type",
            "version",
            "id",
            "createdAt",
            "isSeeded",
            "delegationDepth",
            "cwd",
            "parentSession",
            "origin",
            "agentPreset",
        ][..],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vocabulary_by_generation() {
        let cases: &[(&str, [bool; 5])] = &[
            ("turn/start", [true; 5]),
            ("assistant/chunk", [true, true, false, false, false]),
            ("assistant/attempt", [false, false, true, true, true]),
            ("model/selection", [false, true, true, true, true]),
            ("system/message", [false, false, false, true, true]),
            ("tool/code-dispatch", [true, true, true, false, false]),
            ("tool/ptc-dispatch", [false, false, false, true, true]),
            ("subagent/catalog", [false, false, false, false, true]),
            ("made/up", [false; 5]),
        ];
        for (ty, want) in cases {
            for (g, w) in want.iter().enumerate() {
                assert_eq!(known_type(g as u32, ty), *w, "{ty} in generation {g}");
            }
        }
    }
}
