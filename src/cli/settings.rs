//! The environment switches a command obeys, read once, here, into one
//! value: nothing below the command line reads the environment for them.

use super::args::Cli;
use std::ffi::OsString;
use std::path::PathBuf;

/// Scan the whole store even where sessions could be found by path (a
/// diagnostic, and how the tests prove both paths agree).
pub const FULL_SCAN_ENV: &str = "DSH_AGENTS_FULL_SCAN";
/// `0` turns reading ahead off (a diagnostic; the tests prove both ways give
/// the same answers).
pub const READ_AHEAD_ENV: &str = "DSH_AGENTS_READ_AHEAD";
/// Where the name index and the saved listing edges live.
pub const CACHE_DIR_ENV: &str = "DSH_AGENTS_CACHE_DIR";
/// The root tool call a `call wait_agent` reports under (as `wait-agent
/// --call`).
pub const CALL_ID_ENV: &str = "DSH_CALL_ID";

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Settings {
    pub full_scan: bool,
    pub read_ahead: bool,
    /// The cache directory, unless `--no-cache` or a full scan says not to
    /// use one (absolute).
    pub name_cache: Option<PathBuf>,
    pub call_id: Option<String>,
}

impl Settings {
    /// The settings of `cli` in this process's environment.
    pub fn of(cli: &Cli) -> Settings {
        Settings::from_vars(cli.global.no_cache, |k| std::env::var_os(k))
    }

    /// The settings `var` gives (a variable set to the empty string is unset).
    pub fn from_vars(no_cache: bool, var: impl Fn(&str) -> Option<OsString>) -> Settings {
        let var = |k: &str| var(k).filter(|v| !v.is_empty());
        let full_scan = var(FULL_SCAN_ENV).is_some_and(|v| v != "0");
        let cache_dir = var(CACHE_DIR_ENV)
            .map(PathBuf::from)
            .or_else(|| var("XDG_CACHE_HOME").map(|d| PathBuf::from(d).join("dsh-agents")))
            .or_else(|| var("HOME").map(|h| PathBuf::from(h).join(".cache").join("dsh-agents")));
        Settings {
            full_scan,
            read_ahead: var(READ_AHEAD_ENV).is_none_or(|v| v != "0"),
            name_cache: cache_dir
                .filter(|_| !no_cache && !full_scan)
                .and_then(|d| std::path::absolute(d).ok()),
            call_id: var(CALL_ID_ENV).and_then(|v| v.into_string().ok()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (variables, `--no-cache`, full scan, read ahead, cache dir)
    type Case<'a> = (&'a [(&'a str, &'a str)], bool, bool, bool, Option<&'a str>);

    #[test]
    fn switches_read_from_the_environment() {
        let cases: &[Case] = &[
            (
                &[("HOME", "/h")],
                false,
                false,
                true,
                Some("/h/.cache/dsh-agents"),
            ),
            (
                &[("HOME", "/h"), ("XDG_CACHE_HOME", "/x")],
                false,
                false,
                true,
                Some("/x/dsh-agents"),
            ),
            (
                &[("HOME", "/h"), (CACHE_DIR_ENV, "/c")],
                false,
                false,
                true,
                Some("/c"),
            ),
            (
                &[("HOME", "/h"), (CACHE_DIR_ENV, "")],
                false,
                false,
                true,
                Some("/h/.cache/dsh-agents"),
            ),
            (&[("HOME", "/h")], true, false, true, None),
            (
                &[("HOME", "/h"), (FULL_SCAN_ENV, "1")],
                false,
                true,
                true,
                None,
            ),
            (
                &[("HOME", "/h"), (FULL_SCAN_ENV, "0")],
                false,
                false,
                true,
                Some("/h/.cache/dsh-agents"),
            ),
            (
                &[("HOME", "/h"), (READ_AHEAD_ENV, "0")],
                false,
                false,
                false,
                Some("/h/.cache/dsh-agents"),
            ),
            (&[], false, false, true, None),
        ];
        for (vars, no_cache, full, ahead, cache) in cases {
            let s = Settings::from_vars(*no_cache, |k| {
                vars.iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| OsString::from(v))
            });
            assert_eq!(s.full_scan, *full, "{vars:?}");
            assert_eq!(s.read_ahead, *ahead, "{vars:?}");
            assert_eq!(
                s.name_cache.as_deref(),
                cache.map(std::path::Path::new),
                "{vars:?}"
            );
        }
    }
}
