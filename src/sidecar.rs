//! Sidecar files in a session directory (DESIGN §6): opened without
//! following a symbolic link planted at their name, so a write can never
//! land outside the store, and replaced atomically (temp file + rename).

use crate::error::{Error, Result};
use std::fs::{self, File, OpenOptions};
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt};
use std::path::Path;

/// Open `path` with `options`, refusing a symbolic link or a directory.
pub fn open(path: &Path, options: &OpenOptions) -> Result<File> {
    let before = fs::symlink_metadata(path).ok();
    if let Some(m) = &before {
        if m.file_type().is_symlink() {
            return Err(Error::store(format!(
                "{}: refusing to follow a symbolic link",
                path.display()
            )));
        }
        if m.is_dir() {
            return Err(Error::store(format!(
                "{}: is a directory, not a file",
                path.display()
            )));
        }
    }
    let file = options.open(path).map_err(|e| Error::io(path, &e))?;
    let opened = file.metadata().map_err(|e| Error::io(path, &e))?;
    let now = fs::symlink_metadata(path).map_err(|e| Error::io(path, &e))?;
    if now.file_type().is_symlink() || now.ino() != opened.ino() || now.dev() != opened.dev() {
        return Err(Error::store(format!(
            "{}: changed while being opened; refusing to write",
            path.display()
        )));
    }
    Ok(file)
}

/// Open (creating, mode 0600) for reading and writing: lock files, the inbox.
pub fn open_rw(path: &Path) -> Result<File> {
    open(
        path,
        OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .mode(0o600),
    )
}

/// Replace `path` with `bytes` atomically; `durable` syncs before the rename.
pub fn replace(path: &Path, bytes: &[u8], durable: bool) -> Result<()> {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".tmp");
    let tmp = path.with_file_name(name);
    let _ = fs::remove_file(&tmp);
    let f = open(
        &tmp,
        OpenOptions::new().write(true).create_new(true).mode(0o600),
    )?;
    f.write_all_at(bytes, 0)
        .and_then(|()| if durable { f.sync_data() } else { Ok(()) })
        .map_err(|e| Error::io(&tmp, &e))?;
    fs::rename(&tmp, path).map_err(|e| Error::io(path, &e))
}
