//! An amount a budget counts and an event reports: tokens, or money in
//! millionths of the price table's currency, so amounts compare exactly
//! and a cost that is not zero never shows as nothing; how far a subtree
//! is into its budget, and where a budget stands (`top`'s colours).

/// An amount a budget counts: tokens, or money in millionths of the price
/// table's currency (exact to compare and to show).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Amount {
    Tokens(u64),
    Micros(u64),
}

impl std::fmt::Display for Amount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Amount::Tokens(n) => write!(f, "{n} tokens"),
            // A cost that is not zero never shows as nothing.
            Amount::Micros(m) if *m > 0 && *m < 100 => write!(f, "<$0.0001"),
            Amount::Micros(m) => write!(f, "${}.{:04}", m / 1_000_000, (m % 1_000_000) / 100),
        }
    }
}

impl Amount {
    pub fn value(self) -> u64 {
        match self {
            Amount::Tokens(n) | Amount::Micros(n) => n,
        }
    }

    pub fn json(self) -> serde_json::Value {
        match self {
            Amount::Tokens(n) => serde_json::json!({ "tokens": n }),
            Amount::Micros(m) => serde_json::json!({ "cost": m as f64 / 1e6 }),
        }
    }
}

/// How far a subtree is into its budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Under,
    /// At least 80%.
    Warning,
    /// At least 100%.
    Exceeded,
}

pub fn level_of(spent: u64, limit: u64) -> Level {
    let (spent, limit) = (u128::from(spent), u128::from(limit));
    if spent >= limit {
        Level::Exceeded
    } else if spent * 5 >= limit * 4 {
        Level::Warning
    } else {
        Level::Under
    }
}

/// Where a budget stands, for `top`'s colours.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mark {
    /// The budget's agent, by Session id and as the budget names it.
    pub id: String,
    pub agent: String,
    pub spent: Amount,
    pub limit: Amount,
    pub level: Level,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_show_as_tokens_or_money() {
        assert_eq!(Amount::Tokens(1200).to_string(), "1200 tokens");
        assert_eq!(Amount::Micros(5_000_000).to_string(), "$5.0000");
        assert_eq!(Amount::Micros(1_234_567).to_string(), "$1.2345");
        assert_eq!(Amount::Micros(42).to_string(), "<$0.0001");
        assert_eq!(Amount::Micros(0).to_string(), "$0.0000");
    }

    #[test]
    fn levels() {
        let cases = [
            (0, 1000, Level::Under),
            (799, 1000, Level::Under),
            (800, 1000, Level::Warning),
            (999, 1000, Level::Warning),
            (1000, 1000, Level::Exceeded),
            (u64::MAX, u64::MAX, Level::Exceeded),
            (u64::MAX - 1, u64::MAX, Level::Warning),
            (3, 4, Level::Under),
            (4, 5, Level::Warning),
        ];
        for (spent, limit, want) in cases {
            assert_eq!(level_of(spent, limit), want, "{spent} of {limit}");
        }
    }
}
