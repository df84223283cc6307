//! A small order-preserving parallel map over scoped threads: listing is
//! dominated by independent per-session file reads, which spread well over
//! the available cores.

use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;

/// The output slots, shared by the threads: each index is written by the
/// one thread that claimed it.
struct Slots<R>(*mut MaybeUninit<R>);

// SAFETY: threads write disjoint slots (see `par_map`), and a result is
// moved into its slot from the thread that made it, so `R: Send` suffices.
unsafe impl<R: Send> Sync for Slots<R> {}

impl<R> Slots<R> {
    /// # Safety
    /// `i` is below the capacity and no other thread writes it.
    unsafe fn write(&self, i: usize, result: R) {
        unsafe { self.0.add(i).write(MaybeUninit::new(result)) };
    }
}

/// `items.map(f)` on up to `available_parallelism` threads, in input order.
pub fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(8);
    if threads <= 1 || items.len() < 64 {
        return items.iter().map(&f).collect();
    }
    // Items are claimed a few at a time, not split in equal parts: logs
    // differ in size, and with fixed parts a thread that drew the larger
    // ones kept the others idle (15% of a 100,000-session listing).
    let grain = (items.len() / (threads * 64)).clamp(1, 64);
    let next = AtomicUsize::new(0);
    // Each thread writes its results straight into the output: no
    // per-thread vectors to concatenate, so a map over every session of a
    // large store holds its results once.
    let mut out: Vec<R> = Vec::with_capacity(items.len());
    let slots = Slots(out.spare_capacity_mut().as_mut_ptr());
    let work = || {
        loop {
            let start = next.fetch_add(grain, Ordering::Relaxed);
            if start >= items.len() {
                break;
            }
            for (i, item) in items.iter().enumerate().take(start + grain).skip(start) {
                let result = f(item);
                // SAFETY: `fetch_add` hands each range of indices to one
                // thread only, and every index is below the capacity.
                unsafe { slots.write(i, result) };
            }
        }
    };
    thread::scope(|s| {
        let handles: Vec<_> = (1..threads).map(|_| s.spawn(work)).collect();
        // The calling thread works too, rather than wait.
        let here = std::panic::catch_unwind(std::panic::AssertUnwindSafe(&work));
        for h in handles {
            if let Err(e) = h.join() {
                std::panic::resume_unwind(e);
            }
        }
        if let Err(e) = here {
            std::panic::resume_unwind(e);
        }
    });
    // SAFETY: every thread returned, and together they claimed every index
    // below `items.len()`, so each slot was written exactly once (a panic
    // above leaves the length at 0: what was written leaks, nothing is read
    // uninitialized).
    unsafe { out.set_len(items.len()) };
    out
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
