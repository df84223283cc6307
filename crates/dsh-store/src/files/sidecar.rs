//! The one file-opening discipline (contract §10). Everything that writes goes
//! through a `Dir`: a session directory opened component by component with
//! `O_NOFOLLOW`, so a directory swapped for a symbolic link is never entered,
//! and files opened relative to it with `O_NOFOLLOW | O_NONBLOCK`, checked to
//! be regular files with one link before anything is written. Readers that
//! follow DSH (a log read through a symbolic link) use `open_regular`, which
//! still opens only regular files and never blocks on a FIFO. Every
//! descriptor is close-on-exec.

#![deny(clippy::cast_possible_truncation, clippy::arithmetic_side_effects)]

use crate::error::StoreError;
use crate::format::limits::MAX_CACHE;
use rustix::fs::{self, AtFlags, CWD, FileType, Mode, OFlags, RawDir, Stat};
use rustix::io::Errno;
use std::fs::File;
use std::io::{self, Read};
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};

type Result<T> = std::result::Result<T, StoreError>;

fn classify(path: &Path, e: io::Error) -> StoreError {
    match Errno::from_io_error(&e) {
        Some(Errno::LOOP) => StoreError::Symlink { path: path.into() },
        Some(Errno::NOTDIR) => StoreError::NotADirectory { path: path.into() },
        Some(Errno::NXIO) => StoreError::NotRegular { path: path.into() },
        Some(Errno::ISDIR) => StoreError::IsDirectory { path: path.into() },
        _ => StoreError::io(path, e),
    }
}

/// `openat`, close-on-exec. A name holding a NUL byte is an `InvalidInput`
/// error, not a panic.
fn openat(dir: impl AsFd, name: &Path, flags: OFlags, mode: u32) -> io::Result<OwnedFd> {
    Ok(fs::openat(
        dir,
        name,
        flags | OFlags::CLOEXEC,
        Mode::from_raw_mode(mode),
    )?)
}

/// A regular file, or an error naming `path`.
fn regular(file: File, path: &Path) -> Result<File> {
    regular_meta(file, path).map(|(f, _)| f)
}

/// `regular`, with the metadata it checked.
fn regular_meta(file: File, path: &Path) -> Result<(File, std::fs::Metadata)> {
    let meta = file.metadata().map_err(|e| StoreError::io(path, e))?;
    if meta.is_dir() {
        return Err(StoreError::IsDirectory { path: path.into() });
    }
    if !meta.is_file() {
        return Err(StoreError::NotRegular { path: path.into() });
    }
    Ok((file, meta))
}

/// A file the user named for output (`export -o`), created or truncated as a
/// shell redirection would (a link is followed). A pipe or FIFO with a
/// reader is written (`-o >(gzip)`); a FIFO no process reads is an error
/// naming it, never an open that waits for one.
pub fn create_output(path: &Path) -> Result<File> {
    let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::TRUNC | OFlags::NONBLOCK;
    let fd = openat(CWD, path, flags, 0o666).map_err(|e| classify(path, e))?;
    // Writes then wait for a slow reader, as a redirection's do.
    fs::fcntl_getfl(&fd)
        .and_then(|f| fs::fcntl_setfl(&fd, f.difference(OFlags::NONBLOCK)))
        .map_err(|e| StoreError::io(path, e.into()))?;
    Ok(File::from(fd))
}

/// Open `path` for reading, following a symbolic link as DSH does, but only
/// if it is a regular file: a FIFO or device neither blocks nor is read.
pub fn open_regular(path: &Path) -> Result<File> {
    open_regular_meta(path).map(|(f, _)| f)
}

/// `open_regular`, with the file's metadata (one `fstat`, not two).
pub fn open_regular_meta(path: &Path) -> Result<(File, std::fs::Metadata)> {
    let fd =
        openat(CWD, path, OFlags::RDONLY | OFlags::NONBLOCK, 0).map_err(|e| classify(path, e))?;
    regular_meta(File::from(fd), path)
}

/// A small cache or state file, or `None` when absent, not a regular file
/// (never followed through a link) or larger than `MAX_CACHE`.
pub fn read_small(path: &Path) -> Option<Vec<u8>> {
    read_capped(path, MAX_CACHE)
}

/// As `read_small`, for a cache that may hold up to `cap` bytes.
pub fn read_capped(path: &Path, cap: u64) -> Option<Vec<u8>> {
    let fd = openat(
        CWD,
        path,
        OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOFOLLOW,
        0,
    )
    .ok()?;
    let (file, meta) = regular_meta(File::from(fd), path).ok()?;
    // Sized from the fstat already made: one read, not a doubling series.
    let mut bytes =
        Vec::with_capacity(usize::try_from(meta.len().min(cap).saturating_add(1)).ok()?);
    file.take(cap.saturating_add(1))
        .read_to_end(&mut bytes)
        .ok()?;
    (bytes.len() as u64 <= cap).then_some(bytes)
}

/// A hash of the (up to) 4 KiB of `file` before `len`, and `len` itself:
/// what a cache that summarizes the file up to `len` must still find there.
pub fn tail_hash(file: &File, len: u64) -> Option<u64> {
    use std::hash::Hasher;
    let start = len.saturating_sub(4096);
    let mut buf = vec![0u8; usize::try_from(len.saturating_sub(start)).ok()?];
    file.read_exact_at(&mut buf, start).ok()?;
    let mut h = std::hash::DefaultHasher::new();
    h.write(&buf);
    h.write_u64(len);
    Some(h.finish())
}

/// A directory opened without following symbolic links.
pub struct Dir {
    fd: OwnedFd,
    path: PathBuf,
}

const DIR_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::NOFOLLOW);

impl Dir {
    /// The store root: the user names it, so a link there is followed.
    pub fn root(path: &Path) -> Result<Dir> {
        let fd = openat(CWD, path, OFlags::RDONLY | OFlags::DIRECTORY, 0)
            .map_err(|e| classify(path, e))?;
        Ok(Dir {
            fd,
            path: path.to_path_buf(),
        })
    }

    /// A session directory `<root>/<project>/<session>`: neither the project
    /// nor the session directory may be a symbolic link.
    pub fn session(dir: &Path) -> Result<Dir> {
        let (Some(project), Some(name)) = (dir.parent(), dir.file_name()) else {
            return Dir::root(dir);
        };
        let (Some(root), Some(project_name)) = (project.parent(), project.file_name()) else {
            return Dir::root(dir);
        };
        Dir::root(root)?.sub(project_name)?.sub(name)
    }

    /// An existing subdirectory, not followed through a link.
    pub fn sub(&self, name: &std::ffi::OsStr) -> Result<Dir> {
        let path = self.path.join(name);
        let fd = openat(&self.fd, Path::new(name), DIR_FLAGS, 0).map_err(|e| {
            let link = self
                .lstat_os(name)
                .is_some_and(|st| FileType::from_raw_mode(st.st_mode) == FileType::Symlink);
            if link {
                StoreError::Symlink { path: path.clone() }
            } else {
                classify(&path, e)
            }
        })?;
        Ok(Dir { fd, path })
    }

    /// A subdirectory, created (mode 0700) when missing.
    pub fn ensure_sub(&self, name: &std::ffi::OsStr) -> Result<Dir> {
        let path = self.path.join(name);
        match fs::mkdirat(&self.fd, name, Mode::RWXU) {
            Ok(()) | Err(Errno::EXIST) => {}
            Err(e) => return Err(StoreError::io(&path, e.into())),
        }
        self.sub(name)
    }

    pub fn join(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    fn open(&self, name: &str, flags: OFlags, mode: u32) -> Result<File> {
        let path = self.join(name);
        let fd = openat(
            &self.fd,
            Path::new(name),
            flags | OFlags::NOFOLLOW | OFlags::NONBLOCK,
            mode,
        )
        .map_err(|e| classify(&path, e))?;
        regular(File::from(fd), &path)
    }

    /// A file we write: regular, one link (a hard link planted at the name
    /// would make our writes land in a file elsewhere).
    fn writable(&self, file: File, name: &str) -> Result<File> {
        let meta = file
            .metadata()
            .map_err(|e| StoreError::io(self.join(name), e))?;
        if meta.nlink() > 1 {
            return Err(StoreError::HardLinked {
                path: self.join(name),
            });
        }
        Ok(file)
    }

    /// Read-only; `None` when absent.
    pub fn open_read(&self, name: &str) -> Result<Option<File>> {
        match self.open(name, OFlags::RDONLY, 0) {
            Err(StoreError::Io { source, .. }) if source.kind() == io::ErrorKind::NotFound => {
                Ok(None)
            }
            other => other.map(Some),
        }
    }

    /// Read and write, created (mode 0600) when missing: lock files, the inbox.
    pub fn open_rw(&self, name: &str) -> Result<File> {
        let f = self.open(name, OFlags::RDWR | OFlags::CREATE, 0o600)?;
        self.writable(f, name)
    }

    /// An existing file for reading and writing (a log `serve` appends to).
    pub fn open_existing_rw(&self, name: &str) -> Result<File> {
        let f = self.open(name, OFlags::RDWR, 0)?;
        self.writable(f, name)
    }

    /// Whether `name` exists (without following a link).
    pub fn exists(&self, name: &str) -> bool {
        self.lstat(name).is_some()
    }

    /// `open_regular_meta` of `rel` beneath this directory, following links
    /// as DSH's reads do. A probe of many entries opens each by its short
    /// name here, and the kernel walks two components, not the whole path
    /// from `/` again. Errors name the whole path.
    pub fn open_regular_meta_at(&self, rel: &Path) -> Result<(File, std::fs::Metadata)> {
        let path = self.path.join(rel);
        let fd = openat(&self.fd, rel, OFlags::RDONLY | OFlags::NONBLOCK, 0)
            .map_err(|e| classify(&path, e))?;
        regular_meta(File::from(fd), &path)
    }

    /// `lstat` of `name`.
    pub fn lstat(&self, name: &str) -> Option<Stat> {
        self.lstat_os(std::ffi::OsStr::new(name))
    }

    /// Call `f` with the name of every entry of the subdirectory `name` (a
    /// link there is not followed); nothing when it cannot be listed. Read
    /// with `getdents64` into a buffer on the stack: a listing per session
    /// directory costs an open, two reads and a close, nothing more.
    /// `Err` when the directory cannot be opened (a session that cannot be
    /// listed is never taken for an empty one).
    pub fn for_each_name_at(
        &self,
        name: &std::ffi::OsStr,
        mut f: impl FnMut(&[u8]),
    ) -> io::Result<()> {
        let dir = openat(&self.fd, Path::new(name), DIR_FLAGS, 0)?;
        let mut buf = [MaybeUninit::<u8>::uninit(); 8192];
        let mut entries = RawDir::new(dir, &mut buf);
        while let Some(entry) = entries.next() {
            f(entry?.file_name().to_bytes());
        }
        Ok(())
    }

    fn lstat_os(&self, name: &std::ffi::OsStr) -> Option<Stat> {
        fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW).ok()
    }

    pub fn remove(&self, name: &str) {
        let _ = fs::unlinkat(&self.fd, name, AtFlags::empty());
    }

    fn rename(&self, from: &str, to: &str) -> io::Result<()> {
        Ok(fs::renameat(&self.fd, from, &self.fd, to)?)
    }

    fn link(&self, from: &str, to: &str) -> io::Result<()> {
        Ok(fs::linkat(&self.fd, from, &self.fd, to, AtFlags::empty())?)
    }

    /// A new temporary file beside `name`, for a replace written in parts;
    /// finish it with `commit_temp`.
    pub fn temp_file(&self, name: &str) -> Result<(File, String)> {
        let tmp = format!("{name}.{}.tmp", temp_suffix());
        let f = self.open(&tmp, OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL, 0o600)?;
        Ok((f, tmp))
    }

    /// Sync the temporary file and rename it over `name`.
    pub fn commit_temp(&self, file: File, tmp: &str, name: &str) -> Result<()> {
        let done = file.sync_all().and_then(|()| self.rename(tmp, name));
        if let Err(e) = done {
            self.remove(tmp);
            return Err(StoreError::io(self.join(name), e));
        }
        Ok(())
    }

    fn temp(&self, name: &str, bytes: &[u8], durable: bool) -> Result<String> {
        let tmp = format!("{name}.{}.tmp", temp_suffix());
        let f = self.open(&tmp, OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL, 0o600)?;
        let written = f
            .write_all_at(bytes, 0)
            .and_then(|()| if durable { f.sync_all() } else { Ok(()) });
        if let Err(e) = written {
            self.remove(&tmp);
            return Err(StoreError::io(self.join(&tmp), e));
        }
        Ok(tmp)
    }

    /// Replace `name` with `bytes` atomically; `durable` syncs first. Each
    /// writer uses its own temporary name.
    /// Remove the temporary files a writer of `names` that was killed
    /// mid-replace left (`<name>.<hex>.tmp`). Call only while holding the
    /// lock every writer of those names holds, so none is in use.
    pub fn remove_leftovers(&self, names: &[&str]) {
        for file in leftovers(&self.path, Some(names)) {
            self.remove(&file);
        }
    }

    pub fn replace(&self, name: &str, bytes: &[u8], durable: bool) -> Result<()> {
        let tmp = self.temp(name, bytes, durable)?;
        if let Err(e) = self.rename(&tmp, name) {
            self.remove(&tmp);
            return Err(StoreError::io(self.join(name), e));
        }
        Ok(())
    }

    /// Publish `bytes` as a new file `name`: never overwrite, never show a
    /// partial file (temporary file, fsync, link without overwrite).
    pub fn publish(&self, name: &str, bytes: &[u8]) -> Result<()> {
        let tmp = self.temp(name, bytes, true)?;
        let linked = self.link(&tmp, name);
        self.remove(&tmp);
        linked.map_err(|e| StoreError::io(self.join(name), e))?;
        self.sync()
    }

    /// fsync the directory itself.
    pub fn sync(&self) -> Result<()> {
        fs::fsync(&self.fd).map_err(|e| StoreError::io(&self.path, e.into()))
    }
}

/// The temporary files (`<name>.<hex>.tmp`) a writer killed mid-replace
/// left in directory `dir`: of `names` only, or of any name.
pub fn leftovers(dir: &Path, names: Option<&[&str]>) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let is_hex = |hex: &str| !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit());
    let mut found: Vec<String> = entries
        .flatten()
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .filter(|file| {
            let Some(stem) = file.strip_suffix(".tmp") else {
                return false;
            };
            match names {
                Some(names) => names.iter().any(|n| {
                    stem.strip_prefix(n)
                        .and_then(|r| r.strip_prefix('.'))
                        .is_some_and(is_hex)
                }),
                None => stem
                    .rsplit_once('.')
                    .is_some_and(|(name, hex)| !name.is_empty() && is_hex(hex)),
            }
        })
        .collect();
    found.sort();
    found
}

/// A short random suffix for temporary file names, unique per writer.
fn temp_suffix() -> String {
    uuid::Uuid::new_v4().simple().to_string()[..12].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_fifos_and_hard_links_are_refused() {
        let dir = std::env::temp_dir().join(format!("dsh-agents-sidecar-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let session = dir.join("proj").join("sess");
        std::fs::create_dir_all(&session).unwrap();
        let outside = dir.join("outside");
        std::fs::write(&outside, "keep").unwrap();
        std::os::unix::fs::symlink(&outside, session.join("link")).unwrap();
        std::fs::hard_link(&outside, session.join("hard")).unwrap();
        fs::mkfifoat(CWD, session.join("fifo"), Mode::RUSR | Mode::WUSR).unwrap();
        std::os::unix::fs::symlink(&session, dir.join("proj").join("alias")).unwrap();

        let d = Dir::session(&session).unwrap();
        assert!(matches!(d.open_rw("link"), Err(StoreError::Symlink { .. })));
        assert!(matches!(
            d.open_rw("hard"),
            Err(StoreError::HardLinked { .. })
        ));
        assert!(matches!(
            d.open_rw("fifo"),
            Err(StoreError::NotRegular { .. })
        ));
        assert!(matches!(
            open_regular(&session.join("fifo")),
            Err(StoreError::NotRegular { .. })
        ));
        assert!(read_small(&session.join("link")).is_none());
        assert!(matches!(
            Dir::session(&dir.join("proj").join("alias")),
            Err(StoreError::Symlink { .. })
        ));
        d.replace("state", b"x", false).unwrap();
        assert_eq!(std::fs::read(session.join("state")).unwrap(), b"x");
        d.publish("new", b"y").unwrap();
        assert!(d.publish("new", b"z").is_err(), "never overwrites");
        assert_eq!(std::fs::read(&outside).unwrap(), b"keep");
        let _ = std::fs::remove_dir_all(dir);
    }
}
