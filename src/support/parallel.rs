//! An order-preserving parallel map: listing is dominated by independent
//! per-session file reads, which spread well over the available cores.
//! Rayon's work stealing splits the items adaptively (logs differ in size:
//! with fixed parts, a thread that drew the larger ones kept the others
//! idle), and its indexed collect writes each result straight into the
//! output, so a map over every session of a large store holds its results
//! once. A long walk can also be piped: read on one thread, used on this.

use rayon::prelude::*;

pub use dsh_store::parallel::par_map;

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

/// `iter`'s items handed to `each` on this thread while another thread
/// makes the next ones (a walk's reads overlap what is done with what it
/// read), in order; the iterator comes back once it is done. A panic on
/// either side reaches the caller.
pub fn piped<I, T>(mut iter: I, mut each: impl FnMut(T)) -> I
where
    I: Iterator<Item = T> + Send,
    T: Send,
{
    const CHUNK: usize = 256;
    std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<T>>(4);
        let maker = s.spawn(move || {
            loop {
                let chunk: Vec<T> = iter.by_ref().take(CHUNK).collect();
                // A receiver gone (its side panicked) ends the making.
                if chunk.is_empty() || tx.send(chunk).is_err() {
                    break;
                }
            }
            iter
        });
        for chunk in rx {
            chunk.into_iter().for_each(&mut each);
        }
        match maker.join() {
            Ok(iter) => iter,
            Err(panic) => std::panic::resume_unwind(panic),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn piped_items_come_in_order_and_the_iterator_back() {
        for n in [0, 1, 255, 256, 257, 5000] {
            let mut got = Vec::new();
            let mut rest = piped(0..n, |i| got.push(i));
            assert_eq!(got, (0..n).collect::<Vec<_>>(), "{n} items");
            assert_eq!(rest.next(), None);
        }
        let caught = std::panic::catch_unwind(|| {
            piped(0..10_000, |i| assert!(i != 3000, "item 3000"));
        });
        assert!(caught.is_err());
        let caught = std::panic::catch_unwind(|| {
            let made = (0..10_000).inspect(|i| assert!(*i != 3000, "made 3000"));
            let _ = piped(made, |_| {});
        });
        assert!(caught.is_err());
    }

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
