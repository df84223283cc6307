#![no_main]
//! The inbox record parser and fold: pending, parked and claim order.
use dsh_agents::formats::{Fold, Target};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let fold = Fold::fold_bytes(data);
    let step = fold.pending(Target::NextStep).len();
    let turn = fold.pending(Target::NextTurn).len();
    assert_eq!(step + turn, fold.pending_count());
    let claim = fold.claimable();
    assert!(claim.len() <= step + 1);
    let _ = fold.parked();
});
