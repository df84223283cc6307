//! Ctrl-C and SIGTERM as a flag the long-running commands poll, so they stop
//! cleanly: a served turn is ended, locks are released, a wait reports an
//! error instead of a timeout. The process then exits 128 + the signal's
//! number (130 for Ctrl-C, 143 for SIGTERM), as shells expect of a command
//! a signal stopped.

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The number of the signal that asked us to stop; 0 while none has.
static SIGNAL: AtomicUsize = AtomicUsize::new(0);

/// The exit status of a command a signal stopped: 128 + its number.
pub fn exit_status() -> Option<u8> {
    match SIGNAL.load(Ordering::SeqCst) {
        0 => None,
        n => u8::try_from(128 + n).ok(),
    }
}

pub fn install() {
    for signal in [SIGINT, SIGTERM] {
        // A signal that cannot be hooked keeps its default action, which
        // stops the process as before: nothing to report.
        let _ = signal_hook::flag::register_usize(signal, &SIGNAL, signal as usize);
    }
}

/// SIGHUP too, for a command that owns a terminal (`top`): a closed
/// terminal stops it cleanly, and it exits 129.
pub fn install_hangup() {
    let _ = signal_hook::flag::register_usize(SIGHUP, &SIGNAL, SIGHUP as usize);
}

pub fn stop_requested() -> bool {
    SIGNAL.load(Ordering::SeqCst) != 0
}
