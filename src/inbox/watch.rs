//! Waking on inbox changes: inotify on the session directory as a hint,
//! plus a short re-check poll so a wait is correct even where notification
//! is unavailable (network file systems, `--poll`, and every system but
//! Linux, where only the poll path is built).

#[cfg(target_os = "linux")]
use std::os::fd::FromRawFd;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::Path;
use std::time::Duration;

/// How often a notified wait re-checks anyway.
pub const RECHECK: Duration = Duration::from_millis(250);
/// How often a polling wait checks.
pub const POLL: Duration = Duration::from_millis(20);

/// What a file looks like from outside: inode, length and modification
/// time. Any write or replace changes it, even one that keeps the length.
pub fn stamp(path: &Path) -> Option<(u64, u64, i64, i64)> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::symlink_metadata(path).ok()?;
    Some((m.ino(), m.len(), m.mtime(), m.mtime_nsec()))
}

pub struct Watcher {
    fd: Option<OwnedFd>,
}

impl Drop for Watcher {
    fn drop(&mut self) {
        // Closing an inotify instance waits for a kernel grace period
        // (about 10 ms here), which would delay the result a waiter is about
        // to print. Leave the descriptor to process exit instead.
        if let Some(fd) = self.fd.take() {
            std::mem::forget(fd);
        }
    }
}

impl Watcher {
    /// Watch `dir`; with `poll_only`, or when inotify fails, only poll.
    pub fn new(dir: &Path, poll_only: bool) -> Watcher {
        if poll_only {
            return Watcher { fd: None };
        }
        Watcher { fd: inotify(dir) }
    }

    /// Return after a change in the directory, or after at most `timeout`
    /// (capped at the re-check interval).
    pub fn wait(&self, timeout: Duration) {
        match &self.fd {
            Some(fd) => {
                let ms = timeout.min(RECHECK).as_millis() as libc::c_int;
                let mut pfd = libc::pollfd {
                    fd: fd.as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                };
                // SAFETY: one valid pollfd for the duration of the call.
                let ready = unsafe { libc::poll(&mut pfd, 1, ms) };
                if ready > 0 {
                    let mut buf = [0u8; 4096];
                    // Drain the events; their content does not matter, only that something changed.
                    // SAFETY: the buffer is valid for its length; the fd is non-blocking.
                    while unsafe { libc::read(fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) }
                        > 0
                    {}
                }
            }
            None => std::thread::sleep(timeout.min(POLL)),
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn inotify(_dir: &Path) -> Option<OwnedFd> {
    None
}

#[cfg(target_os = "linux")]
fn inotify(dir: &Path) -> Option<OwnedFd> {
    use std::os::unix::ffi::OsStrExt;
    let path = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    // SAFETY: plain syscalls; the fd is owned by OwnedFd from here on.
    unsafe {
        let fd = libc::inotify_init1(libc::IN_NONBLOCK | libc::IN_CLOEXEC);
        if fd < 0 {
            return None;
        }
        let owned = OwnedFd::from_raw_fd(fd);
        // Not IN_CLOSE_WRITE: merely opening the inbox for writing (as a
        // lock holder does) would wake every watcher, including ourselves.
        let mask = libc::IN_MODIFY | libc::IN_MOVED_TO | libc::IN_CREATE;
        if libc::inotify_add_watch(fd, path.as_ptr(), mask) < 0 {
            return None;
        }
        Some(owned)
    }
}
