//! Ctrl-C and SIGTERM as a flag the long-running commands poll, so they stop
//! cleanly: a served turn is ended, locks are released, a wait reports an
//! error instead of a timeout. The process then exits 128 + the signal's
//! number (130 for Ctrl-C, 143 for SIGTERM), as shells expect of a command
//! a signal stopped. A live view that writes to standard output also
//! stops once the reader of that pipe is gone (`output_closed`).

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

/// Whether standard output is a pipe or socket whose reader is gone. A
/// live view that prints only on a change (`tree --watch | head -3`) would
/// else run on until its next write failed; it stops as that write would
/// stop it. A terminal, a file or `/dev/null` is never closed so.
pub fn output_closed() -> bool {
    use rustix::event::{PollFd, PollFlags, Timespec};
    let stdout = std::io::stdout();
    let mut fds = [PollFd::new(&stdout, PollFlags::empty())];
    let now = Timespec::try_from(std::time::Duration::ZERO).ok();
    rustix::event::poll(&mut fds, now.as_ref()).is_ok_and(|n| n > 0)
        && fds[0].revents().intersects(PollFlags::ERR | PollFlags::HUP)
}

/// Whether a live view that prints to standard output should stop: a
/// signal asked, or its reader left.
pub fn view_done() -> bool {
    stop_requested() || output_closed()
}
