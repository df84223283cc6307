//! Sibling order: `createdAt`, then ids compared as JavaScript
//! `String.prototype.localeCompare` does (ICU root collation), not bytewise.

use icu_collator::options::CollatorOptions;
use icu_collator::{Collator, CollatorBorrowed, CollatorPreferences};
use std::cmp::Ordering;
use std::sync::OnceLock;

fn collator() -> Option<&'static CollatorBorrowed<'static>> {
    static COLLATOR: OnceLock<Option<CollatorBorrowed<'static>>> = OnceLock::new();
    COLLATOR
        .get_or_init(|| {
            Collator::try_new(CollatorPreferences::default(), CollatorOptions::default()).ok()
        })
        .as_ref()
}

/// `a.localeCompare(b)`; strings the collator calls equal fall back to
/// bytewise order so the result is total and deterministic.
pub fn locale_compare(a: &str, b: &str) -> Ordering {
    let by_collation = collator().map_or(Ordering::Equal, |c| c.compare(a, b));
    by_collation.then_with(|| a.cmp(b))
}

/// DSH `compareCorpusRecords`.
pub fn sibling_order(a_created: i64, a_id: &str, b_created: i64, b_id: &str) -> Ordering {
    a_created
        .cmp(&b_created)
        .then_with(|| locale_compare(a_id, b_id))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collation_is_not_bytewise() {
        // Bytewise, "B" < "a"; ICU root puts "a" first, as JavaScript does.
        assert_eq!(locale_compare("a", "B"), Ordering::Less);
        assert_eq!(locale_compare("a", "A"), Ordering::Less);
        assert_eq!(locale_compare("A", "b"), Ordering::Less);
        assert_eq!(locale_compare("é", "f"), Ordering::Less);
        assert_eq!(locale_compare("-b", "a"), Ordering::Less);
    }
}
