//! Waking on inbox changes: inotify on the session directory as a hint,
//! plus a short re-check poll so a wait is correct even where notification
//! is unavailable (network file systems, `--poll`, and every system but
//! Linux, where only the poll path is built).

use rustix::event::{PollFd, PollFlags, Timespec};
use std::os::fd::OwnedFd;
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

    /// `wait`, also returning as soon as `also` (a pidfd, say) is readable.
    pub fn wait_also(&self, also: Option<&OwnedFd>, timeout: Duration) {
        let Some(other) = also else {
            return self.wait(timeout);
        };
        let mut fds = vec![PollFd::new(other, PollFlags::IN)];
        if let Some(fd) = &self.fd {
            fds.push(PollFd::new(fd, PollFlags::IN));
        }
        let cap = if self.fd.is_some() { RECHECK } else { POLL };
        let ready = poll(&mut fds, timeout.min(cap));
        if ready
            && let Some(fd) = &self.fd
            && !fds[1].revents().is_empty()
        {
            drain(fd);
        }
    }

    /// Return after a change in the directory, or after at most `timeout`
    /// (capped at the re-check interval).
    pub fn wait(&self, timeout: Duration) {
        match &self.fd {
            Some(fd) => {
                wait_readable(fd, timeout.min(RECHECK));
            }
            None => std::thread::sleep(timeout.min(POLL)),
        }
    }
}

/// `poll` for up to `timeout`; whether any descriptor is ready (an
/// interrupted or failed poll is a spurious wake, which every caller
/// tolerates: each re-checks what it waits for).
fn poll(fds: &mut [PollFd<'_>], timeout: Duration) -> bool {
    let limit = Timespec::try_from(timeout).ok();
    rustix::event::poll(fds, limit.as_ref()).is_ok_and(|n| n > 0)
}

/// Read the pending events of a non-blocking descriptor: their content does
/// not matter, only that something changed.
fn drain(fd: &OwnedFd) {
    let mut buf = [0u8; 4096];
    while rustix::io::read(fd, &mut buf).is_ok_and(|n| n > 0) {}
}

#[cfg(not(target_os = "linux"))]
fn inotify(_dir: &Path) -> Option<OwnedFd> {
    None
}

#[cfg(target_os = "linux")]
fn inotify(dir: &Path) -> Option<OwnedFd> {
    use rustix::fs::inotify::WatchFlags;
    let fd = inotify_instance()?;
    // Not IN_CLOSE_WRITE: merely opening the inbox for writing (as a
    // lock holder does) would wake every watcher, including ourselves.
    let mask = WatchFlags::MODIFY | WatchFlags::MOVED_TO | WatchFlags::CREATE;
    rustix::fs::inotify::add_watch(&fd, dir, mask).ok()?;
    Some(fd)
}

/// One notification instance over many session directories, for a process
/// that follows many agents (the bridge): `add` and `remove` from one
/// thread, `wait` from another. Without inotify it never wakes early, and
/// its user polls.
pub struct DirWatch {
    fd: Option<OwnedFd>,
}

impl DirWatch {
    pub fn new() -> DirWatch {
        DirWatch {
            fd: inotify_instance(),
        }
    }

    /// Watch `dir`; the watch descriptor, or `None` when it cannot be watched.
    pub fn add(&self, dir: &Path) -> Option<i32> {
        add_watch(self.fd.as_ref()?, dir)
    }

    pub fn remove(&self, wd: i32) {
        if let Some(fd) = &self.fd {
            rm_watch(fd, wd);
        }
    }

    /// Wait up to `timeout` for a change in any watched directory; whether
    /// one came.
    pub fn wait(&self, timeout: Duration) -> bool {
        match &self.fd {
            Some(fd) => wait_readable(fd, timeout),
            None => {
                std::thread::sleep(timeout);
                false
            }
        }
    }
}

impl Default for DirWatch {
    fn default() -> Self {
        DirWatch::new()
    }
}

#[cfg(not(target_os = "linux"))]
fn inotify_instance() -> Option<OwnedFd> {
    None
}

#[cfg(not(target_os = "linux"))]
fn add_watch(_fd: &OwnedFd, _dir: &Path) -> Option<i32> {
    None
}

#[cfg(not(target_os = "linux"))]
fn rm_watch(_fd: &OwnedFd, _wd: i32) {}

#[cfg(not(target_os = "linux"))]
fn wait_readable(_fd: &OwnedFd, timeout: Duration) -> bool {
    std::thread::sleep(timeout);
    false
}

#[cfg(target_os = "linux")]
fn inotify_instance() -> Option<OwnedFd> {
    use rustix::fs::inotify::{CreateFlags, init};
    init(CreateFlags::NONBLOCK | CreateFlags::CLOEXEC).ok()
}

#[cfg(target_os = "linux")]
fn add_watch(fd: &OwnedFd, dir: &Path) -> Option<i32> {
    use rustix::fs::inotify::WatchFlags;
    let mask = WatchFlags::MODIFY | WatchFlags::MOVED_TO | WatchFlags::CREATE | WatchFlags::ONLYDIR;
    rustix::fs::inotify::add_watch(fd, dir, mask).ok()
}

#[cfg(target_os = "linux")]
fn rm_watch(fd: &OwnedFd, wd: i32) {
    // A stale wd is an error, not harm.
    let _ = rustix::fs::inotify::remove_watch(fd, wd);
}

#[cfg(target_os = "linux")]
fn wait_readable(fd: &OwnedFd, timeout: Duration) -> bool {
    let ready = poll(&mut [PollFd::new(fd, PollFlags::IN)], timeout);
    if ready {
        drain(fd);
    }
    ready
}
