//! What every test module shares: one command builder (`dsh`), one store
//! builder (`StoreBuilder`) over typed fixture values, snapshot settings,
//! and file-tree snapshots that prove a command changed nothing.

use serde_json::{Value, json};
use std::path::{Path, PathBuf};

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The conformance data the repository carries (`testdata/conformance`),
/// copied from `../shared/conformance`.
pub fn conformance_dir() -> PathBuf {
    repo().join("testdata").join("conformance")
}

/// The case lines of a conformance `cases.tsv`, split on tabs (comments
/// and blank lines left out).
pub fn cases(file: &Path) -> Vec<Vec<String>> {
    std::fs::read_to_string(file)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

/// Run one v1 conformance case line (`store caller scope exit expected`)
/// against the store at `store`, with `env`, and compare its exit status and
/// stdout with the expected file under `expected_dir`; `what` names the run
/// in a failure.
pub fn assert_v1_case(
    store: &Path,
    case: &[String],
    expected_dir: &Path,
    env: &[(&str, &str)],
    what: &str,
) {
    let [_, caller, scope, exit, expected] = case else {
        panic!("bad case line {case:?}")
    };
    let r = v1_list(store, caller, scope, env);
    let want = std::fs::read_to_string(expected_dir.join(expected)).unwrap();
    assert_eq!(
        r.code.to_string(),
        *exit,
        "exit status for {case:?} {what} {env:?}: {}",
        r.stderr
    );
    assert_eq!(r.stdout, want, "stdout for {case:?} {what} {env:?}");
}

/// `../shared/conformance` beside the checkout, when it is there.
pub fn shared_conformance_dir() -> Option<PathBuf> {
    let dir = repo().join("..").join("shared").join("conformance");
    dir.join("v1").join("cases.tsv").is_file().then_some(dir)
}

/// A directory of this test run's own under the temp dir, `<prefix><pid>`.
/// Those of earlier runs whose process is gone are removed on first use,
/// so runs do not pile copies up in the temp dir.
pub fn run_dir(prefix: &str) -> PathBuf {
    static SWEPT: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let tmp = std::env::temp_dir();
    let mut swept = SWEPT.lock().unwrap_or_else(|e| e.into_inner());
    if !swept.iter().any(|p| p == prefix) {
        swept.push(prefix.to_string());
        for entry in std::fs::read_dir(&tmp).into_iter().flatten().flatten() {
            let name = entry.file_name();
            let Some(pid) = name
                .to_str()
                .and_then(|n| n.strip_prefix(prefix))
                .and_then(|p| p.parse::<i32>().ok())
                .and_then(rustix::process::Pid::from_raw)
            else {
                continue;
            };
            let gone = rustix::process::test_kill_process(pid) == Err(rustix::io::Errno::SRCH);
            if gone {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }
    tmp.join(format!("{prefix}{}", std::process::id()))
}

/// rc.8's `list_agents` as `caller` (`--as=`: ids may start with `-`)
/// with `scope`, under contract v1 on `store`, with `env`.
pub fn v1_list(store: &Path, caller: &str, scope: &str, env: &[(&str, &str)]) -> Run {
    run_env(
        [
            "--contract",
            "v1",
            "--store",
            store.to_str().unwrap(),
            "list-agents",
            &format!("--as={caller}"),
            "--scope",
            scope,
        ],
        env,
    )
}

/// The variable that turns off reading listed logs during enumeration.
pub const READ_AHEAD: &str = "DSH_AGENTS_READ_AHEAD";

/// Both ways a listing reads its logs: during enumeration (the default) and
/// afterwards (`DSH_AGENTS_READ_AHEAD=0`); every listing case runs in both.
pub const READ_MODES: [&[(&str, &str)]; 2] = [&[], &[(READ_AHEAD, "0")]];

/// The binary with a clean environment: no inherited store, caller or contract.
pub fn cmd() -> assert_cmd::Command {
    let mut c = assert_cmd::cargo::cargo_bin_cmd!("dsh-agents");
    for var in [
        "DSH_STORE",
        "DSH_AGENT",
        "DSH_CONTRACT",
        "DSH_HOME",
        "DSH_CALL_ID",
        "DSH_LOCK_TIMEOUT",
        "DSH_INBOX_MAX_PENDING",
        "COLUMNS",
    ] {
        c.env_remove(var);
    }
    // The name index goes to a cache of the test run's own, never $HOME's.
    c.env("DSH_AGENTS_CACHE_DIR", run_dir("dsh-agents-test-cache-"));
    c.env_remove("DSH_AGENTS_FULL_SCAN");
    c.env_remove(READ_AHEAD);
    // Relative times in `tree` are shown against a fixed clock.
    c.env("DSH_AGENTS_NOW_MS", "1800000000000");
    c.current_dir(repo());
    c
}

/// One finished run of the binary.
pub struct Run {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

impl Run {
    /// stdout, stderr and the exit status together, as snapshots hold them.
    pub fn blob(&self, args: &[&str]) -> String {
        format!(
            "$ dsh-agents {}\n{}--- stderr\n{}--- exit: {}\n",
            args.join(" "),
            self.stdout,
            self.stderr,
            self.code
        )
    }
}

pub fn run<I, S>(args: I) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    run_env(args, &[])
}

/// `run` with environment variables set.
pub fn run_env<I, S>(args: I, env: &[(&str, &str)]) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let mut c = cmd();
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.args(args).output().expect("run dsh-agents");
    Run {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code().unwrap_or(-1),
    }
}

/// Run with `--store STORE` first.
pub fn run_in(store: &Path, args: &[&str]) -> Run {
    run_in_env(store, &[], args)
}

/// `run_in` with environment variables set.
pub fn run_in_env(store: &Path, env: &[(&str, &str)], args: &[&str]) -> Run {
    let mut argv = vec!["--store", store.to_str().unwrap()];
    argv.extend_from_slice(args);
    run_env(&argv, env)
}

/// What a run printed and its exit status as a snapshot holds it, the
/// environment it was given first.
pub fn blob_env(r: &Run, env: &[(&str, &str)], args: &[&str]) -> String {
    let vars: String = env.iter().map(|(k, v)| format!("{k}={v:?} ")).collect();
    format!("{vars}{}", r.blob(args))
}

/// `run_in`, held to an inline snapshot of what it printed and its exit
/// status (the store's path and generated ids filtered), as jj's command
/// tests hold theirs.
macro_rules! assert_at {
    ($store:expr, $args:expr, @$want:literal) => {{
        let store: &std::path::Path = $store;
        let args: &[&str] = $args;
        let r = $crate::common::run_in(store, args);
        $crate::common::snapshot_settings(Some(store))
            .bind(|| insta::assert_snapshot!(r.blob(args), @$want));
        r
    }};
    ($store:expr, env = $env:expr, $args:expr, @$want:literal) => {{
        let store: &std::path::Path = $store;
        let env: &[(&str, &str)] = $env;
        let args: &[&str] = $args;
        let r = $crate::common::run_in_env(store, env, args);
        $crate::common::snapshot_settings(Some(store))
            .bind(|| insta::assert_snapshot!($crate::common::blob_env(&r, env, args), @$want));
        r
    }};
}

/// Each of `cases` run as `assert_at!` runs one, all held to one inline
/// snapshot (a table of refusals read as one page).
macro_rules! assert_each_at {
    ($store:expr, $cases:expr, @$want:literal) => {{
        let store: &std::path::Path = $store;
        let cases: &[&[&str]] = $cases;
        let all: String = cases
            .iter()
            .map(|args| $crate::common::run_in(store, args).blob(args))
            .collect();
        $crate::common::snapshot_settings(Some(store))
            .bind(|| insta::assert_snapshot!(all, @$want));
    }};
}

/// Insta settings for snapshots under `testdata/golden`, with filters for
/// what varies between runs: the repository and store paths, message ids,
/// record times.
pub fn snapshot_settings(store: Option<&Path>) -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path(repo().join("testdata").join("golden"));
    s.set_prepend_module_to_snapshot(false);
    s.set_omit_expression(true);
    let mut filters: Vec<(String, String)> = Vec::new();
    if let Some(store) = store {
        filters.push((regex_escape(store.to_str().unwrap()), "[STORE]".into()));
    }
    filters.push((regex_escape(repo().to_str().unwrap()), "[REPO]".into()));
    filters.push((
        "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}".into(),
        "[ID]".into(),
    ));
    filters.push((r#""time":[0-9]+"#.into(), r#""time":[TIME]"#.into()));
    for (from, to) in filters {
        s.add_filter(&from, to);
    }
    s
}

fn regex_escape(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if "\\.+*?()|[]{}^$#&-~".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A directory removed on drop.
pub use tempfile::TempDir;

/// A fresh directory in the temp dir, removed when dropped; `tag` names
/// the test in its name, for whoever finds one left by a killed run.
pub fn temp_dir(tag: &str) -> TempDir {
    tempfile::Builder::new()
        .prefix(&format!("dsh-agents-test-{tag}-"))
        .tempdir()
        .unwrap()
}

/// Copy a store (read-only inputs are never written) into a temp dir.
pub fn copy_store(src: &Path, tag: &str) -> TempDir {
    let tmp = temp_dir(tag);
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

/// Typed fixture values: session headers and events as DSH writes them.
pub mod fixture {
    use super::*;

    /// A root session header.
    pub fn root(id: &str, created: u64) -> Value {
        json!({"type":"session","version":0,"id":id,"createdAt":created,"delegationDepth":0})
    }

    /// A subagent child header under `parent`.
    pub fn child(id: &str, created: u64, parent: &str) -> Value {
        json!({"type":"session","version":0,"id":id,"createdAt":created,"parentSession":parent,"origin":"subagent","delegationDepth":1})
    }

    /// A continuable version-2 descriptor event.
    pub fn descriptor(seq: u64, label: &str) -> Value {
        json!({"type":"subagent/descriptor","seq":seq,"time":1,"data":{"version":2,"mode":"continuable","provider":"spawn","label":label}})
    }
}

/// Write `lines` (each followed by `\n`) as a raw session log in `dir`.
pub fn write_log<L: AsRef<str>>(store: &Path, project: &str, dir: &str, lines: &[L]) -> PathBuf {
    let d = store.join(project).join(dir);
    std::fs::create_dir_all(&d).unwrap();
    let mut body = String::new();
    for l in lines {
        body.push_str(l.as_ref());
        body.push('\n');
    }
    let p = d.join("session.jsonl");
    std::fs::write(&p, body).unwrap();
    p
}

/// A store built from typed values, in a temp dir.
pub struct StoreBuilder {
    dir: TempDir,
}

impl StoreBuilder {
    pub fn new(tag: &str) -> StoreBuilder {
        StoreBuilder { dir: temp_dir(tag) }
    }

    /// A session whose log holds `records` (headers, events) under `_no-cwd`.
    pub fn session(self, dir: &str, records: &[Value]) -> StoreBuilder {
        let lines: Vec<String> = records.iter().map(Value::to_string).collect();
        write_log(self.dir.path(), "_no-cwd", dir, &lines);
        self
    }

    /// A root session.
    pub fn root(self, id: &str) -> StoreBuilder {
        self.session(id, &[fixture::root(id, 1)])
    }

    /// A continuable child with a descriptor.
    pub fn child(self, id: &str, created: u64, parent: &str, label: &str) -> StoreBuilder {
        self.session(
            id,
            &[
                fixture::child(id, created, parent),
                fixture::descriptor(0, label),
            ],
        )
    }

    pub fn build(self) -> TempDir {
        self.dir
    }
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
        .filter(|(p, _)| {
            p.file_name()
                .is_none_or(|n| n != "scan.cache" && n != "inbox.fold" && n != "inbox.consumed")
        })
        .collect()
}

/// Wait (up to 20 s) until another process holds the lock file at `path`:
/// a fixed sleep races a slow start on a loaded machine.
pub fn wait_until_locked(path: &Path) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        if let Ok(f) = std::fs::File::open(path) {
            match f.try_lock() {
                Err(std::fs::TryLockError::WouldBlock) => return,
                Ok(()) => f.unlock().unwrap(),
                Err(std::fs::TryLockError::Error(e)) => panic!("{}: {e}", path.display()),
            }
        }
        assert!(
            std::time::Instant::now() < deadline,
            "nobody took {}",
            path.display()
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// A child process killed and reaped when the guard drops, so a failing
/// test never leaves one running (holding a lock, or the run itself).
pub struct Reaped(Option<std::process::Child>);

/// Guard `child` (see `Reaped`).
pub fn reaped(child: std::process::Child) -> Reaped {
    Reaped(Some(child))
}

impl Reaped {
    /// As `Child::wait_with_output`; the guard is spent.
    pub fn wait_with_output(mut self) -> std::io::Result<std::process::Output> {
        self.0.take().expect("a guarded child").wait_with_output()
    }
}

impl std::ops::Deref for Reaped {
    type Target = std::process::Child;
    fn deref(&self) -> &std::process::Child {
        self.0.as_ref().expect("a guarded child")
    }
}

impl std::ops::DerefMut for Reaped {
    fn deref_mut(&mut self) -> &mut std::process::Child {
        self.0.as_mut().expect("a guarded child")
    }
}

impl Drop for Reaped {
    fn drop(&mut self) {
        if let Some(mut c) = self.0.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// A FIFO at `path`: what a reader that blocks on open would hang on.
pub fn mkfifo(path: &Path) {
    use rustix::fs::{CWD, Mode, mkfifoat};
    mkfifoat(CWD, path, Mode::RUSR | Mode::WUSR).unwrap();
}

/// Send `signal` to our child `pid`.
pub fn signal(pid: u32, signal: rustix::process::Signal) {
    let pid = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
        .expect("a child's pid");
    rustix::process::kill_process(pid, signal).unwrap();
}

/// Run the binary as an unprivileged user when the tests run as root (as CI
/// does), so permission faults are real. The binary is copied somewhere that
/// user can reach: the checkout may live in a private (0700) directory.
pub fn run_unprivileged(args: &[&str]) -> Run {
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;
    static BIN: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    let bin = BIN.get_or_init(|| {
        let dir = run_dir("dsh-agents-test-bin-");
        std::fs::create_dir_all(&dir).unwrap();
        let bin = dir.join("dsh-agents");
        std::fs::copy(assert_cmd::cargo::cargo_bin!("dsh-agents"), &bin).unwrap();
        for (path, mode) in [(dir.as_path(), 0o755), (bin.as_path(), 0o755)] {
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
        }
        bin
    });
    let mut c = std::process::Command::new(bin);
    c.args(args).env_remove("DSH_STORE").env_remove("DSH_AGENT");
    if rustix::process::geteuid().is_root() {
        c.uid(65534).gid(65534);
    }
    // A copy just written may be briefly busy (ETXTBSY) while another test
    // thread forks with its descriptor; try again.
    let mut tries = 0;
    let out = loop {
        match c.output() {
            Err(e)
                if e.raw_os_error() == Some(rustix::io::Errno::TXTBSY.raw_os_error())
                    && tries < 50 =>
            {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            other => break other.unwrap(),
        }
    };
    Run {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code().unwrap_or(-1),
    }
}
