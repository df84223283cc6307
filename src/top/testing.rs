//! What `top`'s unit tests share: the carried stores, and a copy of one a
//! test may change (removed when the copy is dropped).

use std::path::{Path, PathBuf};

/// The carried store `name`.
pub fn store(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/stores")
        .join(name)
}

/// Every carried store's name, sorted.
pub fn store_names() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/stores");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A copy of the carried store `name`, removed on drop.
pub struct Copy(PathBuf);

impl Copy {
    pub fn of(name: &str, tag: &str) -> Copy {
        fn copy(from: &Path, to: &Path) {
            std::fs::create_dir_all(to).unwrap();
            for e in std::fs::read_dir(from).unwrap().flatten() {
                if e.file_type().unwrap().is_dir() {
                    copy(&e.path(), &to.join(e.file_name()));
                } else {
                    std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
                }
            }
        }
        let root = std::env::temp_dir().join(format!("top-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        copy(&store(name), &root);
        Copy(root)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Copy {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
