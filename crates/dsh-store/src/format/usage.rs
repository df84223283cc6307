//! Token accounting (`usage`, `tree`'s TOKENS): what one `assistant/message`
//! reports in `data.usage` (DSH's `TokenUsage`: `inputTokens` is uncached
//! input only, `cacheReadTokens`/`cacheWriteTokens` the cached input, the
//! three disjoint; `reasoningTokens`, where a provider gives it, is part of
//! `outputTokens`), summed over a session's own events (after its inherited
//! cut: a fork's seed holds its parent's calls, which its parent counts).

use serde::{Deserialize, Serialize};

/// The members of `data.usage`, in the order the columns show them.
pub const FIELDS: [&str; 5] = [
    "inputTokens",
    "cacheReadTokens",
    "cacheWriteTokens",
    "outputTokens",
    "reasoningTokens",
];

/// Token counts summed over model calls.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenCounts {
    /// Model calls that reported usage.
    pub calls: u64,
    pub input_tokens: u64,
    pub cache_read_tokens: u64,
    pub cache_write_tokens: u64,
    pub output_tokens: u64,
    pub reasoning_tokens: u64,
}

impl TokenCounts {
    /// Add one `assistant/message`'s usage, read member by member through
    /// `get` (`FIELDS` names; a missing, negative or non-integral count is
    /// 0). A message without a `usage` object (`has_usage` false) adds
    /// nothing.
    pub fn add_call(&mut self, has_usage: bool, get: impl Fn(&str) -> Option<u64>) {
        if !has_usage {
            return;
        }
        let [i, cr, cw, o, r] = FIELDS.map(|f| get(f).unwrap_or(0));
        self.add(&TokenCounts {
            calls: 1,
            input_tokens: i,
            cache_read_tokens: cr,
            cache_write_tokens: cw,
            output_tokens: o,
            reasoning_tokens: r,
        });
    }

    /// The six counts in the order reports show them: calls, input,
    /// cache read, cache write, output, reasoning.
    pub fn counts(&self) -> [u64; 6] {
        [
            self.calls,
            self.input_tokens,
            self.cache_read_tokens,
            self.cache_write_tokens,
            self.output_tokens,
            self.reasoning_tokens,
        ]
    }

    /// Sums saturate at `u64::MAX`: counts come from files, and a sum that
    /// wrapped would show a total smaller than its parts.
    pub fn add(&mut self, other: &TokenCounts) {
        self.calls = self.calls.saturating_add(other.calls);
        self.input_tokens = self.input_tokens.saturating_add(other.input_tokens);
        self.cache_read_tokens = self
            .cache_read_tokens
            .saturating_add(other.cache_read_tokens);
        self.cache_write_tokens = self
            .cache_write_tokens
            .saturating_add(other.cache_write_tokens);
        self.output_tokens = self.output_tokens.saturating_add(other.output_tokens);
        self.reasoning_tokens = self.reasoning_tokens.saturating_add(other.reasoning_tokens);
    }

    /// Every token billed: the three disjoint inputs and the output
    /// (reasoning is inside the output); saturating, as the sums are.
    pub fn total(&self) -> u64 {
        self.input_tokens
            .saturating_add(self.cache_read_tokens)
            .saturating_add(self.cache_write_tokens)
            .saturating_add(self.output_tokens)
    }
}

/// A count for a narrow column: `980`, `12.3k`, `4.5M`, `1.2G`.
pub fn short(n: u64) -> String {
    match n {
        0..=999 => n.to_string(),
        1_000..=999_999 => scaled(n, 1e3, "k"),
        1_000_000..=999_999_999 => scaled(n, 1e6, "M"),
        _ => scaled(n, 1e9, "G"),
    }
}

fn scaled(n: u64, unit: f64, suffix: &str) -> String {
    let v = n as f64 / unit;
    if v < 9.95 {
        format!("{v:.1}{suffix}")
    } else {
        format!("{:.0}{suffix}", v.floor())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_saturate_and_a_total_is_never_below_its_parts() {
        let mut t = TokenCounts::default();
        for _ in 0..5 {
            t.add_call(true, |f| (f == "inputTokens").then_some(u64::MAX));
        }
        t.add_call(true, |f| (f == "outputTokens").then_some(5));
        assert_eq!(t.input_tokens, u64::MAX);
        assert_eq!(t.calls, 6);
        assert_eq!(t.total(), u64::MAX);
        assert!(t.total() >= t.output_tokens);
    }

    #[test]
    fn counts_and_short_forms() {
        let mut t = TokenCounts::default();
        t.add_call(true, |f| match f {
            "inputTokens" => Some(10),
            "cacheReadTokens" => Some(5),
            "outputTokens" => Some(3),
            "reasoningTokens" => Some(2),
            _ => None,
        });
        t.add_call(false, |_| Some(100));
        assert_eq!((t.calls, t.total(), t.reasoning_tokens), (1, 18, 2));
        let cases = [
            (0, "0"),
            (999, "999"),
            (1_000, "1.0k"),
            (12_345, "12k"),
            (9_949, "9.9k"),
            (999_999, "999k"),
            (4_500_000, "4.5M"),
            (2_000_000_000, "2.0G"),
        ];
        for (n, want) in cases {
            assert_eq!(short(n), want, "{n}");
        }
    }
}
