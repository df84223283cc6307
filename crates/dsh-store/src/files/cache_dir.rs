//! The cache directory, outside the store: where each store's caches live
//! (`store_dir`, keyed by a hash that is stable across builds), how a cache
//! file is replaced whole, and the rule every cache writer checks first —
//! a cache inside the store would be a project directory to DSH
//! (`inside_store`).

use std::path::{Path, PathBuf};

/// Whether the cache directory `cache` lies inside the store at `root`,
/// compared as the file system resolves them (links, `..`), not as text:
/// a symlinked store or `x/../store` must not slip a cache into the store.
pub fn inside_store(cache: &Path, root: &Path) -> bool {
    cache.starts_with(root) || resolved(cache).starts_with(resolved(root))
}

/// `path` with its deepest existing ancestor canonicalized and the rest
/// appended lexically (`..` taking a component off).
fn resolved(path: &Path) -> PathBuf {
    use std::path::Component;
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let parts: Vec<Component> = absolute.components().collect();
    for split in (0..=parts.len()).rev() {
        let head: PathBuf = parts[..split].iter().collect();
        let Ok(mut out) = std::fs::canonicalize(&head) else {
            continue;
        };
        for c in &parts[split..] {
            match c {
                Component::ParentDir => {
                    out.pop();
                }
                Component::Normal(n) => out.push(n),
                _ => {}
            }
        }
        return out;
    }
    absolute
}

/// This store's own directory in the cache.
pub fn store_dir(cache: &Path, root: &Path) -> PathBuf {
    cache.join("stores").join(format!(
        "{:016x}",
        fnv(&[root.as_os_str().as_encoded_bytes()])
    ))
}

/// FNV-1a: stable across builds and platforms, as an on-disk key must be.
pub fn fnv(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for (k, part) in parts.iter().enumerate() {
        if k > 0 {
            h = (h ^ 0xff).wrapping_mul(0x100_0000_01b3);
        }
        for b in *part {
            h = (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3);
        }
    }
    h
}

/// Write `bytes` to a temporary file beside `path`, then rename it over.
/// The temporary file is made new (`O_EXCL`), so a link planted at its
/// name is removed, not written through.
pub fn replace(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)?;
    f.write_all(bytes)?;
    drop(f);
    std::fs::rename(&tmp, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cache_inside_the_store_is_seen_through_links_and_dots() {
        let base = std::env::temp_dir().join(format!("inside-{}", std::process::id()));
        let store = base.join("store");
        std::fs::create_dir_all(store.join("proj")).unwrap();
        std::fs::create_dir_all(base.join("x")).unwrap();
        std::os::unix::fs::symlink(&store, base.join("link")).unwrap();
        let table = [
            (base.join("store/cache"), true),
            (base.join("x/../store/cache"), true),
            (base.join("link/cache/deeper"), true),
            (base.join("x/cache"), false),
            (base.join("storefront"), false),
        ];
        for (cache, inside) in table {
            assert_eq!(inside_store(&cache, &store), inside, "{}", cache.display());
            assert_eq!(
                inside_store(&cache, &base.join("link")),
                inside,
                "via the link: {}",
                cache.display()
            );
        }
        std::fs::remove_dir_all(&base).unwrap();
    }
}
