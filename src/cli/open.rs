//! Which sessions of the store a command opens: only those it names (and as
//! much of their ancestry as its rules look at) when it names them by exact
//! id, else the whole store. One `Open` per command: the store root and
//! the settings that decide it.

use super::settings::Settings;
use crate::error::Result;
use dsh_store::set::Ancestry;
use dsh_store::{self as store, Plan, Store};
use std::path::{Path, PathBuf};

/// The store root and the settings a command opens it with.
pub(super) struct Open {
    pub root: PathBuf,
    pub settings: Settings,
}

impl Open {
    /// The store a command needs: located by path when it names its
    /// sessions by exact id (`named` plus `others`), else scanned (`others`
    /// is `None` when the command needs the whole store; an unnamed caller
    /// is the only root, which only a scan can find; a full scan is asked
    /// for by the settings).
    pub fn ids(
        &self,
        named: Option<&str>,
        others: Option<Vec<&str>>,
        up: Ancestry,
    ) -> Result<Store> {
        self.ids_reading(named, others, up, None)
    }

    /// As `ids`, each located log read whole as it is probed when `ahead`
    /// is given: a command that inspects every session it locates (a v2
    /// tool: its caller's ancestry) then opens each log once.
    pub fn ids_reading(
        &self,
        named: Option<&str>,
        others: Option<Vec<&str>>,
        up: Ancestry,
        ahead: Option<&dsh_store::set::Located>,
    ) -> Result<Store> {
        let why = match (named, &others) {
            _ if self.settings.full_scan => "a full scan was asked for",
            (None, _) => "no caller named (the only root is found by a scan)",
            (_, None) => "the command reads every session",
            (Some(named), Some(others)) => {
                let mut ids = others.clone();
                ids.push(named);
                return Ok(store::open(
                    &self.root,
                    Plan::Ids {
                        ids: &ids,
                        up,
                        ahead,
                    },
                )?);
            }
        };
        Ok(store::open(&self.root, Plan::Whole { why })?)
    }

    /// The whole store, for a command that reads every session (`why`).
    pub fn whole(&self, why: &str) -> Result<Store> {
        Ok(store::open(&self.root, Plan::Whole { why })?)
    }

    /// The store for a command that names one session (or leaves its
    /// caller to be the only root).
    pub fn named(&self, named: Option<&str>) -> Result<Store> {
        self.ids(named, Some(Vec::new()), Ancestry::Whole)
    }

    /// As `named`, for a command whose rules look at the named session only
    /// (its inbox, its own log): a deep chain above it is not read.
    pub fn own(&self, named: Option<&str>) -> Result<Store> {
        self.ids(named, Some(Vec::new()), Ancestry::None)
    }

    /// Where the name index lives, if anywhere.
    pub fn cache(&self) -> Option<&Path> {
        self.settings.name_cache.as_deref()
    }
}
