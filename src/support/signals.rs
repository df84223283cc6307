//! Ctrl-C and SIGTERM as a flag the long-running commands poll, so they stop
//! cleanly: a served turn is ended, locks are released, a wait reports an
//! error instead of a timeout. The process then exits 128 + the signal's
//! number (130 for Ctrl-C, 143 for SIGTERM), as shells expect of a command
//! a signal stopped.

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

static STOP: AtomicBool = AtomicBool::new(false);
static SIGNAL: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_signal(signo: libc::c_int) {
    SIGNAL.store(signo, Ordering::SeqCst);
    STOP.store(true, Ordering::SeqCst);
}

/// The exit status of a command a signal stopped: 128 + its number.
pub fn exit_status() -> Option<u8> {
    match SIGNAL.load(Ordering::SeqCst) {
        0 => None,
        n => u8::try_from(128 + n).ok(),
    }
}

pub fn install() {
    // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
    unsafe {
        libc::signal(libc::SIGINT, on_signal as *const () as libc::sighandler_t);
        libc::signal(libc::SIGTERM, on_signal as *const () as libc::sighandler_t);
    }
}

pub fn stop_requested() -> bool {
    STOP.load(Ordering::SeqCst)
}
