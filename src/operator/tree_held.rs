//! A block of `tree` rows kept in memory: between `tree`'s two walks of a
//! block small enough to keep (`Held`), and between a live view's draws
//! (`HeldBlock`). A kept row holds its facts as they are and its texts its
//! own way — names as steps, labels in one text — so a kept block costs
//! about half what its `Row`s would, and a row is made whole only when
//! asked for.

use super::tree_rows::{Facts, Row};
use crate::tree::names::{NameRef, Names};
use dsh_store::SessionPos;

/// Where a string is in a held block's text.
#[derive(Debug, Clone, Copy, Default)]
struct Span {
    start: u32,
    len: u32,
}

impl Span {
    /// Append `s` to `text`; a text past 4 GiB keeps empty spans.
    fn push(text: &mut String, s: &str) -> Span {
        match (u32::try_from(text.len()), u32::try_from(s.len())) {
            (Ok(start), Ok(len)) if start.checked_add(len).is_some() => {
                text.push_str(s);
                Span { start, len }
            }
            _ => Span::default(),
        }
    }

    fn of(self, text: &str) -> &str {
        let start = self.start as usize;
        text.get(start..start + self.len as usize)
            .unwrap_or_default()
    }
}

/// A row kept between the walks: its facts as they are, its name and label
/// in the block's names and text (no allocation a row, and about half the
/// bytes of a `Row`).
#[derive(Debug)]
struct HeldRow {
    facts: Facts,
    name: NameRef,
    label: Span,
}

/// A block's rows as the first walk made them.
#[derive(Debug, Default)]
pub(super) struct Held {
    rows: Vec<HeldRow>,
    /// The rows' labels.
    text: String,
    /// The rows' names, held as steps.
    names: Names,
}

impl Held {
    pub(super) fn push(&mut self, r: Row) {
        let label = Span::push(&mut self.text, &r.label);
        self.rows.push(HeldRow {
            name: self.names.take(&r.name),
            label,
            facts: r.facts,
        });
    }

    fn row_of(&self, h: &HeldRow) -> Row {
        Row {
            facts: h.facts.clone(),
            name: self.names.name(h.name),
            label: h.label.of(&self.text).to_string(),
        }
    }

    /// Row `k`, made whole.
    pub(super) fn row(&self, k: usize) -> Option<Row> {
        self.rows.get(k).map(|h| self.row_of(h))
    }

    /// Every row, each made whole as it comes.
    pub(super) fn iter(&self) -> impl Iterator<Item = Row> + Send + '_ {
        self.rows.iter().map(|h| self.row_of(h))
    }

    /// Row `k` as `r` (the same member, read again) says now: its name
    /// stays; a new label is added to the text.
    pub(super) fn set(&mut self, k: usize, r: Row) {
        let label = match self.rows.get(k) {
            Some(h) if h.label.of(&self.text) == r.label => h.label,
            _ => Span::push(&mut self.text, &r.label),
        };
        if let Some(h) = self.rows.get_mut(k) {
            h.facts = r.facts;
            h.label = label;
        }
    }

    pub(super) fn into_rows(self) -> impl Iterator<Item = Row> {
        let Held { rows, text, names } = self;
        rows.into_iter().map(move |h| Row {
            facts: h.facts,
            name: names.name(h.name),
            label: h.label.of(&text).to_string(),
        })
    }
}

/// A block's rows, held by the caller between draws (`top`: a change to a
/// few sessions is drawn again from these, with those rows made again,
/// not from a walk of the store). Held as the first walk holds a block's
/// rows: names as steps, labels in one text.
#[derive(Debug)]
pub struct HeldBlock {
    pub root: SessionPos,
    pub title: Option<String>,
    held: Held,
}

impl HeldBlock {
    pub(super) fn new(root: SessionPos, title: Option<String>, held: Held) -> HeldBlock {
        HeldBlock { root, title, held }
    }

    /// Its rows as held.
    pub(super) fn held(&self) -> &Held {
        &self.held
    }

    /// How many rows it holds.
    pub fn count(&self) -> usize {
        self.held.rows.len()
    }

    /// Row `k` (in pre-order), made whole.
    pub fn row(&self, k: usize) -> Option<Row> {
        self.held.row(k)
    }

    /// Every row in pre-order, each made whole as it comes.
    pub fn rows(&self) -> impl Iterator<Item = Row> + '_ {
        self.held.iter()
    }

    /// Each row's session, in pre-order (nothing made).
    pub fn positions(&self) -> impl Iterator<Item = SessionPos> + '_ {
        self.held.rows.iter().map(|h| h.facts.index)
    }

    /// Row `k` as `r` (the same member, read again) says now; the row it
    /// was.
    pub fn replace(&mut self, k: usize, r: Row) -> Option<Row> {
        let was = self.held.row(k)?;
        self.held.set(k, r);
        Some(was)
    }

    /// The parent of row `k`, without making the row.
    pub(super) fn parent_at(&self, k: usize) -> Option<SessionPos> {
        self.held.rows.get(k).and_then(|h| h.facts.parent)
    }
}
