//! The command line's value enums, each mapped onto the domain type it
//! names: clap's derives stay in this layer, and the words a flag accepts
//! (`--compression none`, `--mode steer`) are spelled here once.

use crate::inbox::Target;
use crate::operator::spawn::SpawnMode;
use crate::store::reader::Encoding;
use crate::tools::Contract;
use crate::tools::list_agents::Scope;
use clap::ValueEnum;

/// `--contract`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ContractArg {
    /// DSH 0.1.0-rc.8 (seed 000): id-addressed tools
    V1,
    /// Seed 001: name-addressed tools
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
