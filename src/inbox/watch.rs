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

    /// `wait`, also returning as soon as `also` (a pidfd, say) is readable.
    pub fn wait_also(&self, also: Option<&OwnedFd>, timeout: Duration) {
        let Some(other) = also else {
            return self.wait(timeout);
        };
        let mut fds = vec![libc::pollfd {
            fd: other.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        }];
        if let Some(fd) = &self.fd {
            fds.push(libc::pollfd {
                fd: fd.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            });
        }
        let cap = if self.fd.is_some() { RECHECK } else { POLL };
        let ms = timeout.min(cap).as_millis() as libc::c_int;
        // SAFETY: valid pollfds for the duration of the call.
        let ready = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, ms) };
        if ready > 0
            && let Some(fd) = &self.fd
            && fds[1].revents != 0
        {
            let mut buf = [0u8; 4096];
            // SAFETY: the buffer is valid for its length; the fd is non-blocking.
            while unsafe { libc::read(fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) } > 0 {}
        }
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
    // SAFETY: a plain syscall; the fd is owned by OwnedFd from here on.
    unsafe {
        let fd = libc::inotify_init1(libc::IN_NONBLOCK | libc::IN_CLOEXEC);
        (fd >= 0).then(|| OwnedFd::from_raw_fd(fd))
    }
}

#[cfg(target_os = "linux")]
fn add_watch(fd: &OwnedFd, dir: &Path) -> Option<i32> {
    use std::os::unix::ffi::OsStrExt;
    let path = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    let mask = libc::IN_MODIFY | libc::IN_MOVED_TO | libc::IN_CREATE | libc::IN_ONLYDIR;
    // SAFETY: a valid inotify descriptor and C string.
    let wd = unsafe { libc::inotify_add_watch(fd.as_raw_fd(), path.as_ptr(), mask) };
    (wd >= 0).then_some(wd)
}

#[cfg(target_os = "linux")]
fn rm_watch(fd: &OwnedFd, wd: i32) {
    // SAFETY: a valid inotify descriptor; a stale wd is an error, not harm.
    unsafe { libc::inotify_rm_watch(fd.as_raw_fd(), wd) };
}

#[cfg(target_os = "linux")]
fn wait_readable(fd: &OwnedFd, timeout: Duration) -> bool {
    let mut pfd = libc::pollfd {
        fd: fd.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    let ms = timeout.as_millis().min(i32::MAX as u128) as libc::c_int;
    // SAFETY: one valid pollfd for the duration of the call.
    let ready = unsafe { libc::poll(&mut pfd, 1, ms) };
    if ready <= 0 {
        return false;
    }
    let mut buf = [0u8; 4096];
    // SAFETY: the buffer is valid for its length; the fd is non-blocking.
    while unsafe { libc::read(fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) } > 0 {}
    true
}
