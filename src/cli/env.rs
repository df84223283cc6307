//! What every command handler shares: the environment read once from the
//! global options (`Env`), what a command prints (`Output`), and the
//! streaming of rendered text to stdout. Handlers (`commands`,
//! `model_tools`) and the dispatch table import it; it imports none of them.

use super::args::Cli;
use super::open::Open;
use super::settings::Settings;
use crate::error::{Error, ErrorKind, Result};
use crate::inbox::Limits;
use crate::tools::Contract;
use serde_json::Value;
use std::path::PathBuf;

/// What a successful command prints on stdout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Output {
    /// Rendered text; the CLI adds one final newline.
    Text(String),
    /// Bytes printed exactly as they are.
    Raw(String),
    /// A report printed on stdout that still fails the command (`check`).
    Failed(String, ErrorKind),
}

/// The store root: `--store`/`DSH_STORE`, else `$DSH_HOME/sessions`, else
/// `~/.dsh/sessions`.
pub fn store_root(cli: &Cli) -> Result<PathBuf> {
    if let Some(s) = &cli.global.store {
        return Ok(s.clone());
    }
    if let Some(home) = std::env::var_os("DSH_HOME").filter(|h| !h.is_empty()) {
        return Ok(PathBuf::from(home).join("sessions"));
    }
    match std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        Some(home) => Ok(PathBuf::from(home).join(".dsh").join("sessions")),
        None => Err(Error::usage(
            "no store: pass --store DIR or set DSH_STORE, DSH_HOME or HOME",
        )),
    }
}

/// What every command reads from the global options and the environment,
/// read once.
pub(super) struct Env {
    pub root: PathBuf,
    pub open: Open,
    pub settings: Settings,
    pub json: bool,
    pub contract: Contract,
    pub limits: Limits,
}

/// The text `render` hands over in pieces, written to `out` as it comes
/// with one final newline, as the CLI ends every text; a closed pipe ends
/// the writing quietly (contract §8).
pub(super) fn stream_to(
    out: &mut dyn std::io::Write,
    render: impl FnOnce(&mut dyn FnMut(&str)) -> Result<()>,
) -> Result<()> {
    use std::io::Write;
    let mut w = std::io::BufWriter::with_capacity(64 * 1024, out);
    let mut failed = None;
    render(&mut |t| {
        if failed.is_none() {
            failed = w.write_all(t.as_bytes()).err();
        }
    })?;
    let written = match failed {
        Some(e) => Err(e),
        None => w.write_all(b"\n").and_then(|()| w.flush()),
    };
    match written {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(dsh_store::StoreError::io("stdout", e).into())
        }
        _ => Ok(()),
    }
}

pub(super) fn to_json(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}
