//! Helpers shared by the integration tests.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `../shared/conformance` beside the checkout (CI lays `shared/` there), or
/// `DSH_CONFORMANCE_DIR`. Missing conformance data fails the test.
pub fn conformance_dir() -> PathBuf {
    let dir = std::env::var_os("DSH_CONFORMANCE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("..").join("shared").join("conformance"));
    assert!(
        dir.join("v1").join("cases.tsv").is_file(),
        "conformance data not found at {}",
        dir.display()
    );
    dir
}

/// The binary with a clean environment: no inherited store, caller or contract.
pub fn cmd() -> assert_cmd::Command {
    let mut c = assert_cmd::cargo::cargo_bin_cmd!("dsh-agents");
    for var in [
        "DSH_STORE",
        "DSH_AGENT",
        "DSH_CONTRACT",
        "DSH_HOME",
        "DSH_CALL_ID",
    ] {
        c.env_remove(var);
    }
    c.current_dir(repo());
    c
}

pub struct Run {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

pub fn run<I, S>(args: I) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let out = cmd().args(args).output().expect("run dsh-agents");
    Run {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code().unwrap_or(-1),
    }
}

/// A directory removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        static N: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir().join(format!(
            "dsh-agents-test-{}-{}-{tag}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Copy a store (read-only inputs are never written) into a temp dir.
pub fn copy_store(src: &Path, tag: &str) -> TempDir {
    let tmp = TempDir::new(tag);
    copy_dir(src, tmp.path());
    tmp
}

pub fn copy_dir(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).unwrap();
    for entry in std::fs::read_dir(src).unwrap() {
        let entry = entry.unwrap();
        let to = dst.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &to);
        } else {
            std::fs::copy(entry.path(), &to).unwrap();
        }
    }
}

/// Write `lines` (each followed by `\n`) as a raw session log for `id`.
pub fn write_log(store: &Path, project: &str, dir: &str, lines: &[&str]) -> PathBuf {
    let d = store.join(project).join(dir);
    std::fs::create_dir_all(&d).unwrap();
    let mut body = String::new();
    for l in lines {
        body.push_str(l);
        body.push('\n');
    }
    let p = d.join("session.jsonl");
    std::fs::write(&p, body).unwrap();
    p
}

/// Every file under `dir` with its bytes, to prove a command changed nothing.
pub fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    fn walk(d: &Path, out: &mut Vec<(PathBuf, Vec<u8>)>) {
        let Ok(rd) = std::fs::read_dir(d) else { return };
        let mut entries: Vec<_> = rd.map(|e| e.unwrap()).collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let ft = e.file_type().unwrap();
            if ft.is_dir() {
                walk(&e.path(), out);
            } else if ft.is_file() {
                out.push((e.path(), std::fs::read(e.path()).unwrap_or_default()));
            } else {
                out.push((e.path(), Vec::new()));
            }
        }
    }
    walk(dir, &mut out);
    out
}

/// `snapshot` without the scan caches a successful command may refresh:
/// they summarize logs and never change an answer.
pub fn snapshot_without_caches(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    snapshot(dir)
        .into_iter()
        .filter(|(p, _)| p.file_name().is_none_or(|n| n != "scan.cache"))
        .collect()
}

/// Golden comparison; `DSH_AGENTS_BLESS=1` rewrites the file instead.
pub fn assert_golden(file: &Path, actual: &str) {
    if std::env::var_os("DSH_AGENTS_BLESS").is_some() {
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(file).unwrap_or_else(|_| {
        panic!(
            "missing golden file {} (run with DSH_AGENTS_BLESS=1)",
            file.display()
        )
    });
    assert!(
        expected == actual,
        "golden mismatch for {}\n--- expected\n{expected}\n--- actual\n{actual}",
        file.display()
    );
}
