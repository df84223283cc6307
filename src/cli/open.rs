//! Which sessions of the store a command opens: only those it names (and as
//! much of their ancestry as its rules look at) when it names them by exact
//! id, the whole store read ahead for a listing, else a scan; and where the
//! name index lives.

use super::args::Cli;
use crate::error::Result;
use crate::store::Store;
use crate::store::locate::Ancestry;
use std::path::PathBuf;

/// The store a command needs: located by path when it names its sessions
/// by exact id (`named` plus `others`), else scanned (`others` is `None`
/// when the command needs the whole store; an unnamed caller is the only
/// root, which only a scan can find).
pub(super) fn open_for(
    root: &std::path::Path,
    named: Option<&str>,
    others: Option<Vec<&str>>,
    up: Ancestry,
) -> Result<Store> {
    let ids = named.zip(others).map(|(named, mut others)| {
        others.push(named);
        others
    });
    Ok(Store::open_addressing(root, ids.as_deref(), up)?)
}

/// The store for a listing, reading ahead the logs it guesses it will
/// list, from the edges the last listing saw when there is a cache (and
/// saving this one's for the next).
pub(super) fn open_reading_ahead(
    root: &std::path::Path,
    cache: Option<&std::path::Path>,
    ahead: crate::tree::ahead::ListingAhead,
) -> Result<Store> {
    use crate::store::edge_cache;
    let ahead = match (cache, std::path::absolute(root)) {
        (Some(cache), Ok(root)) => ahead.with_edges(&edge_cache::load(cache, &root)),
        _ => ahead,
    };
    let store = Store::open_ahead(root, &ahead)?;
    drop(ahead);
    if let Some(cache) = cache {
        edge_cache::save(cache, &store);
    }
    Ok(store)
}

/// The store for a command that names one session (or leaves its caller
/// to be the only root).
pub(super) fn open_named(root: &std::path::Path, named: Option<&str>) -> Result<Store> {
    open_for(root, named, Some(Vec::new()), Ancestry::Whole)
}

/// As `open_named`, for a command whose rules look at the named session
/// only (its inbox, its own log): a deep chain above it is not read.
pub(super) fn open_own(root: &std::path::Path, named: Option<&str>) -> Result<Store> {
    open_for(root, named, Some(Vec::new()), Ancestry::None)
}

/// Where the name index lives, unless `--no-cache` or a forced scan says
/// not to use one.
pub(super) fn name_cache(cli: &Cli) -> Option<PathBuf> {
    if cli.global.no_cache || crate::store::locate::full_scan_forced() {
        return None;
    }
    std::path::absolute(crate::store::name_index::cache_dir()?).ok()
}
