//! Sidecar files in a session directory (DESIGN §6): opened without
//! following a symbolic link planted at their name, so a write can never
//! land outside the store, and replaced atomically (a temporary file unique
//! to this writer, then a rename).

use super::error::StoreError;
use crate::support::clock::temp_suffix;
use std::fs::{self, File, OpenOptions};
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt};
use std::path::Path;

type Result<T> = std::result::Result<T, StoreError>;

/// Open `path` with `options`, refusing a symbolic link or a directory.
/// Files are opened close-on-exec (Rust's default), so a lock held here is
/// never inherited by a program a command runs.
pub fn open(path: &Path, options: &OpenOptions) -> Result<File> {
    let before = fs::symlink_metadata(path).ok();
    if let Some(m) = &before {
        if m.file_type().is_symlink() {
            return Err(StoreError::Symlink { path: path.into() });
        }
        if m.is_dir() {
            return Err(StoreError::IsDirectory { path: path.into() });
        }
    }
    let file = options.open(path).map_err(|e| StoreError::io(path, e))?;
    let opened = file.metadata().map_err(|e| StoreError::io(path, e))?;
    let now = fs::symlink_metadata(path).map_err(|e| StoreError::io(path, e))?;
    if now.file_type().is_symlink() || now.ino() != opened.ino() || now.dev() != opened.dev() {
        return Err(StoreError::Changed { path: path.into() });
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
/// Each writer uses its own temporary name, so concurrent replaces of one
/// file never write into each other's temporary file.
pub fn replace(path: &Path, bytes: &[u8], durable: bool) -> Result<()> {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".{}.tmp", temp_suffix()));
    let tmp = path.with_file_name(name);
    let f = open(
        &tmp,
        OpenOptions::new().write(true).create_new(true).mode(0o600),
    )?;
    let written = f
        .write_all_at(bytes, 0)
        .and_then(|()| if durable { f.sync_data() } else { Ok(()) })
        .and_then(|()| fs::rename(&tmp, path));
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp);
        return Err(StoreError::io(path, e));
    }
    Ok(())
}
