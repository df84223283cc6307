//! The command line's value enums, each mapped onto the domain type it
//! names: clap's derives stay in this layer, and the words a flag accepts
//! (`--compression none`, `--mode steer`) are spelled here once.

use crate::inbox::Target;
use crate::operator::spawn::SpawnMode;
use crate::tools::Contract;
use crate::tools::list_agents::Scope;
use clap::ValueEnum;
use dsh_store::log::Encoding;

/// `--contract`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ContractArg {
    /// The tools DSH 0.1.0-rc.8 ships, byte for byte: agents by Session id, a parent messages its direct children
    V1,
    /// Name-addressed tools: the caller's whole tree, messages to any member by name, wait_agent
    V2,
}

impl From<ContractArg> for Contract {
    fn from(c: ContractArg) -> Contract {
        match c {
            ContractArg::V1 => Contract::V1,
            ContractArg::V2 => Contract::V2,
        }
    }
}

/// `list-agents --scope` (v1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ScopeArg {
    Children,
    Descendants,
}

impl From<ScopeArg> for Scope {
    fn from(s: ScopeArg) -> Scope {
        match s {
            ScopeArg::Children => Scope::Children,
            ScopeArg::Descendants => Scope::Descendants,
        }
    }
}

/// `--mode`: the pending list, named by DSH's delivery calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TargetArg {
    /// Queue as the next turn
    Followup,
    /// Inject at the next step
    Steer,
}

impl From<TargetArg> for Target {
    fn from(t: TargetArg) -> Target {
        match t {
            TargetArg::Followup => Target::NextTurn,
            TargetArg::Steer => Target::NextStep,
        }
    }
}

/// `spawn --mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SpawnModeArg {
    Continuable,
    OneShot,
    /// An external execution (descriptor version 3; contract v2 only)
    External,
}

impl From<SpawnModeArg> for SpawnMode {
    fn from(m: SpawnModeArg) -> SpawnMode {
        match m {
            SpawnModeArg::Continuable => SpawnMode::Continuable,
            SpawnModeArg::OneShot => SpawnMode::OneShot,
            SpawnModeArg::External => SpawnMode::External,
        }
    }
}

/// `spawn --compression`: raw is `none`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CompressionArg {
    None,
    Zstd,
}

impl From<CompressionArg> for Encoding {
    fn from(c: CompressionArg) -> Encoding {
        match c {
            CompressionArg::None => Encoding::Raw,
            CompressionArg::Zstd => Encoding::Zstd,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every word a flag accepts names the domain value it did when the
    /// domain types carried clap's derives.
    #[test]
    fn words_map_onto_domain_values() {
        let word = |v: &dyn Fn() -> Option<clap::builder::PossibleValue>| {
            v().map(|p| p.get_name().to_string()).unwrap_or_default()
        };
        for (arg, want) in [
            (ContractArg::V1, Contract::V1),
            (ContractArg::V2, Contract::V2),
        ] {
            assert_eq!(
                word(&|| arg.to_possible_value()),
                Contract::from(arg).as_str()
            );
            assert_eq!(Contract::from(arg), want);
        }
        for arg in [ScopeArg::Children, ScopeArg::Descendants] {
            let w = word(&|| arg.to_possible_value());
            assert_eq!(Scope::parse(&w), Some(Scope::from(arg)), "{w}");
        }
        let cases = [
            (
                word(&|| TargetArg::Followup.to_possible_value()),
                Target::from(TargetArg::Followup),
                "followup",
                Target::NextTurn,
            ),
            (
                word(&|| TargetArg::Steer.to_possible_value()),
                Target::from(TargetArg::Steer),
                "steer",
                Target::NextStep,
            ),
        ];
        for (w, got, want_word, want) in cases {
            assert_eq!((w.as_str(), got), (want_word, want));
        }
        for (arg, w, want) in [
            (
                SpawnModeArg::Continuable,
                "continuable",
                SpawnMode::Continuable,
            ),
            (SpawnModeArg::OneShot, "one-shot", SpawnMode::OneShot),
            (SpawnModeArg::External, "external", SpawnMode::External),
        ] {
            assert_eq!(word(&|| arg.to_possible_value()), w);
            assert_eq!(SpawnMode::from(arg), want);
        }
        for (arg, w, want) in [
            (CompressionArg::None, "none", Encoding::Raw),
            (CompressionArg::Zstd, "zstd", Encoding::Zstd),
        ] {
            assert_eq!(word(&|| arg.to_possible_value()), w);
            assert_eq!(Encoding::from(arg), want);
        }
    }
}

/// `usage --by`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ByArg {
    Agent,
    Model,
    Turn,
}

impl From<ByArg> for crate::operator::usage::By {
    fn from(b: ByArg) -> Self {
        match b {
            ByArg::Agent => Self::Agent,
            ByArg::Model => Self::Model,
            ByArg::Turn => Self::Turn,
        }
    }
}

/// A flag value its parser refuses; clap shows the text after the flag.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadValue {
    /// `--since`: not a time.
    #[error(
        "\"{0}\" is not a time: give epoch milliseconds, a UTC date such as 2026-12-01 or 2026-12-01T08:30, or an age such as 30m, 2h, 7d"
    )]
    NotTime(String),
    /// `--stale-after`: not an age.
    #[error("\"{0}\" is not an age: give a whole number and a unit, such as 90s, 10m, 2h or 7d")]
    NotAge(String),
    /// `--last`: not a whole number.
    #[error("\"{0}\" is not a whole number of turns (1 or more)")]
    NotTurns(String),
    /// `--last 0`.
    #[error("shows the last N turns: N must be at least 1")]
    NoTurns,
}

/// An age (`90s`, `30m`, `2h`, `7d`) in milliseconds: `None` when `text`
/// is not written as one, `Some(None)` when it is but does not fit.
fn age_ms(text: &str) -> Option<Option<i64>> {
    let (n, unit) = text
        .char_indices()
        .last()
        .map(|(i, c)| (&text[..i], c))
        .filter(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))?;
    let ms = match unit {
        's' => 1_000,
        'm' => 60_000,
        'h' => 3_600_000,
        'd' => 86_400_000,
        _ => return None,
    };
    Some(n.parse::<i64>().ok().and_then(|n| n.checked_mul(ms)))
}

/// `--stale-after`: an age (`90s`, `10m`, `2h`, `7d`), in milliseconds.
pub fn parse_age(text: &str) -> Result<i64, BadValue> {
    age_ms(text)
        .flatten()
        .ok_or_else(|| BadValue::NotAge(text.to_string()))
}

/// `--since`: epoch milliseconds, a UTC date or time (`2026-12-01`,
/// `2026-12-01T08:30`, `2026-12-01T08:30:00Z`), or an age (`90s`, `30m`,
/// `2h`, `7d`) before now.
pub fn parse_since(text: &str) -> Result<i64, BadValue> {
    let bad = || BadValue::NotTime(text.to_string());
    if let Ok(ms) = text.parse::<i64>() {
        return if ms >= 0 { Ok(ms) } else { Err(bad()) };
    }
    if let Some(age) = age_ms(text) {
        return age
            .map(|d| crate::support::clock::now_ms() - d)
            .ok_or_else(bad);
    }
    let text_z = text.strip_suffix('Z').unwrap_or(text);
    let (date, time) = text_z.split_once('T').unwrap_or((text_z, "00:00:00"));
    let num = |s: &str| {
        s.parse::<i64>()
            .ok()
            .filter(|_| s.bytes().all(|b| b.is_ascii_digit()))
    };
    let d: Vec<i64> = date
        .split('-')
        .map(num)
        .collect::<Option<_>>()
        .ok_or_else(bad)?;
    let t: Vec<i64> = time
        .split(':')
        .map(num)
        .collect::<Option<_>>()
        .ok_or_else(bad)?;
    let [y, mo, da] = d[..] else {
        return Err(bad());
    };
    let (h, mi, s) = match t[..] {
        [h, mi] => (h, mi, 0),
        [h, mi, s] => (h, mi, s),
        _ => return Err(bad()),
    };
    if !(1..=12).contains(&mo) || !(1..=31).contains(&da) || h > 23 || mi > 59 || s > 59 {
        return Err(bad());
    }
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if mo <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (mo + if mo > 2 { -3 } else { 9 }) + 2) / 5 + da - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Ok(((days * 86_400) + h * 3_600 + mi * 60 + s) * 1_000)
}

#[cfg(test)]
mod since_tests {
    use super::*;

    #[test]
    fn since_forms() {
        let cases: &[(&str, Option<i64>)] = &[
            ("0", Some(0)),
            ("1796236838603", Some(1_796_236_838_603)),
            ("1970-01-01", Some(0)),
            ("2026-12-02", Some(1_796_169_600_000)),
            ("2026-12-02T18:40", Some(1_796_236_800_000)),
            ("2026-12-02T18:40:46Z", Some(1_796_236_846_000)),
            ("2000-02-29", Some(951_782_400_000)),
            ("-5", None),
            ("2026-13-01", None),
            ("2026-12-02T25:00", None),
            ("yesterday", None),
            ("5w", None),
            ("m", None),
        ];
        for (text, want) in cases {
            assert_eq!(parse_since(text).ok(), *want, "{text}");
        }
        let ago = parse_since("2h").unwrap();
        let now = crate::support::clock::now_ms();
        assert!((now - 7_200_000 - 1_000..=now - 7_200_000).contains(&ago));
    }
}
