//! An order-preserving parallel map: listing is dominated by independent
//! per-session file reads, which spread well over the available cores.
//! Rayon's work stealing splits the items adaptively (logs differ in size:
//! with fixed parts, a thread that drew the larger ones kept the others
//! idle), and its indexed collect writes each result straight into the
//! output, so a map over every session of a large store holds its results
//! once.

use rayon::prelude::*;

/// `items.map(f)` on rayon's threads, in input order. A short list is
/// mapped here: spreading 63 header reads costs more than it saves.
pub fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    if items.len() < 64 {
        return items.iter().map(&f).collect();
    }
    items.par_iter().map(&f).collect()
}

/// `(0..n).flat_map(f)` on rayon's threads, in order: a check of every
/// session holds its findings, not an empty list a session.
pub fn par_flat_map<R: Send, I: IntoIterator<Item = R>>(
    n: usize,
    f: impl Fn(usize) -> I + Sync + Send,
) -> Vec<R> {
    if n < 64 {
        return (0..n).flat_map(f).collect();
    }
    (0..n).into_par_iter().flat_map_iter(f).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_order_and_every_item() {
        for n in [0, 1, 63, 64, 65, 1000, 4097] {
            let items: Vec<usize> = (0..n).collect();
            let got = par_map(&items, |i| (i * 3).to_string());
            let want: Vec<String> = items.iter().map(|i| (i * 3).to_string()).collect();
            assert_eq!(got, want, "{n} items");
        }
    }

    #[test]
    fn a_panic_in_any_thread_reaches_the_caller() {
        let items: Vec<usize> = (0..1000).collect();
        let caught = std::panic::catch_unwind(|| {
            par_map(&items, |i| {
                assert!(*i != 700, "item 700");
                *i
            })
        });
        assert!(caught.is_err());
    }
}
