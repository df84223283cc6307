//! Log file names: a session directory's current log (`session.jsonl[.zstd]`
//! is generation 0, `session.v<N>.jsonl[.zstd]` generation N, the highest
//! wins) and the store's compression suffix. Names only: what a generation
//! means is `generation`'s.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

/// A log file name, which fixes the store's encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Suffix {
    Jsonl,
    JsonlZstd,
}

impl Suffix {
    pub fn file_name(self) -> &'static str {
        match self {
            Suffix::Jsonl => "session.jsonl",
            Suffix::JsonlZstd => "session.jsonl.zstd",
        }
    }
    pub fn ext(self) -> &'static str {
        match self {
            Suffix::Jsonl => ".jsonl",
            Suffix::JsonlZstd => ".jsonl.zstd",
        }
    }
    pub fn compression(self) -> &'static str {
        match self {
            Suffix::Jsonl => "none",
            Suffix::JsonlZstd => "zstd",
        }
    }
    pub fn opposite(self) -> Suffix {
        match self {
            Suffix::Jsonl => Suffix::JsonlZstd,
            Suffix::JsonlZstd => Suffix::Jsonl,
        }
    }
}

/// A log file name: its generation and compression.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogName {
    pub generation: u32,
    pub suffix: Suffix,
}

impl LogName {
    pub const fn v0(suffix: Suffix) -> LogName {
        LogName {
            generation: 0,
            suffix,
        }
    }

    /// `session.jsonl`, `session.v3.jsonl.zstd`, ….
    pub fn file_name(self) -> Cow<'static, str> {
        match self.generation {
            0 => Cow::Borrowed(self.suffix.file_name()),
            n => Cow::Owned(format!(
                "session.v{n}{}",
                self.suffix.file_name().trim_start_matches("session")
            )),
        }
    }

    /// The generation a canonical log name carries (DSH's
    /// `parseSessionFormatLogFilename`: no leading zero, no `.v0`).
    pub fn parse(name: &str) -> Option<LogName> {
        let (stem, suffix) = if let Some(stem) = name.strip_suffix(".jsonl.zstd") {
            (stem, Suffix::JsonlZstd)
        } else {
            (name.strip_suffix(".jsonl")?, Suffix::Jsonl)
        };
        if stem == "session" {
            return Some(LogName::v0(suffix));
        }
        let digits = stem.strip_prefix("session.v")?;
        let canonical = !digits.is_empty()
            && !digits.starts_with('0')
            && digits.bytes().all(|b| b.is_ascii_digit());
        let generation = digits.parse::<u32>().ok().filter(|_| canonical)?;
        Some(LogName { generation, suffix })
    }
}

/// The current log of a session directory, from its file names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Current {
    None,
    One(LogName),
    /// Both encodings of the highest generation: a store error.
    Both(u32),
}

impl Current {
    /// Take one more directory entry's name into account.
    pub fn with(self, name: &[u8]) -> Current {
        let Some(log) = std::str::from_utf8(name).ok().and_then(LogName::parse) else {
            return self;
        };
        match self {
            Current::None => Current::One(log),
            Current::One(b) if log.generation > b.generation => Current::One(log),
            Current::One(b) if log.generation == b.generation && log.suffix != b.suffix => {
                Current::Both(log.generation)
            }
            Current::Both(g) if log.generation > g => Current::One(log),
            keep => keep,
        }
    }
}

/// The highest generation among `names` (a directory's entries).
#[cfg(test)]
pub fn current_of<'a>(names: impl Iterator<Item = &'a str>) -> Current {
    names.fold(Current::None, |c, n| c.with(n.as_bytes()))
}

/// The current log of the session directory `dir` (listing it), if any.
pub fn current_in(dir: &Path) -> Current {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Current::None;
    };
    use std::os::unix::ffi::OsStrExt;
    entries
        .flatten()
        .fold(Current::None, |c, e| c.with(e.file_name().as_bytes()))
}

/// The path of the current log of `dir` (raw preferred when both exist).
pub fn current_log(dir: &Path) -> Option<PathBuf> {
    match current_in(dir) {
        Current::None => None,
        Current::One(log) => Some(dir.join(&*log.file_name())),
        Current::Both(generation) => Some(
            dir.join(
                &*LogName {
                    generation,
                    suffix: Suffix::Jsonl,
                }
                .file_name(),
            ),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_names() {
        let cases: &[(&str, Option<(u32, Suffix)>)] = &[
            ("session.jsonl", Some((0, Suffix::Jsonl))),
            ("session.jsonl.zstd", Some((0, Suffix::JsonlZstd))),
            ("session.v1.jsonl", Some((1, Suffix::Jsonl))),
            ("session.v12.jsonl.zstd", Some((12, Suffix::JsonlZstd))),
            ("session.v0.jsonl", None),
            ("session.v01.jsonl", None),
            ("session.v.jsonl", None),
            ("session.V2.jsonl", None),
            ("session.v2.jsonl.tmp", None),
            ("session.v99999999999.jsonl", None),
            ("inbox.jsonl", None),
        ];
        for (name, want) in cases {
            let got = LogName::parse(name).map(|l| (l.generation, l.suffix));
            assert_eq!(got, *want, "{name}");
            if let Some(l) = LogName::parse(name) {
                assert_eq!(l.file_name(), *name);
            }
        }
    }

    #[test]
    fn the_highest_generation_is_current() {
        let cases: &[(&[&str], Current)] = &[
            (&["inbox.jsonl", "live.json"], Current::None),
            (
                &["session.jsonl", "session.v3.jsonl", "session.v2.jsonl"],
                Current::One(LogName {
                    generation: 3,
                    suffix: Suffix::Jsonl,
                }),
            ),
            (
                &["session.v2.jsonl", "session.v2.jsonl.zstd"],
                Current::Both(2),
            ),
            (
                &[
                    "session.v2.jsonl",
                    "session.v2.jsonl.zstd",
                    "session.v3.jsonl.zstd",
                ],
                Current::One(LogName {
                    generation: 3,
                    suffix: Suffix::JsonlZstd,
                }),
            ),
            (&["session.jsonl", "session.jsonl.zstd"], Current::Both(0)),
        ];
        for (names, want) in cases {
            assert_eq!(current_of(names.iter().copied()), *want, "{names:?}");
        }
    }
}
