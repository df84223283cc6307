//! `serve --as AGENT -- CMD…` (DESIGN §7): a resident runtime that holds the
//! agent live (`live.lock` for its lifetime, `live.json` current), claims
//! input at each turn boundary as DSH's loop does, runs CMD once per turn
//! with the claimed messages as JSON on stdin, records the turn in the
//! agent's own log, and stops the running CMD when an interrupt arrives.

use crate::error::{Error, Result};
use crate::inbox::{Fold, Inbox, Limits, Message, Record, now_ms};
use crate::liveness::{LIVE_JSON, LIVE_LOCK, LiveInfo, LiveState};
use crate::store::Store;
use crate::transcript::Transcript;
use crate::watch::Watcher;
use serde_json::json;
use std::fs::{File, TryLockError};
use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

#[derive(Debug, Clone)]
pub struct ServeOptions {
    pub once: bool,
    pub poll: bool,
    /// How long a stopped CMD gets between SIGTERM and SIGKILL.
    pub grace: Duration,
    pub command: Vec<String>,
    pub limits: Limits,
}

/// Hold `live.lock` exclusively; fail naming the holder's pid when taken.
fn take_live_lock(dir: &Path, id: &str) -> Result<File> {
    let path = dir.join(LIVE_LOCK);
    let file = crate::sidecar::open_rw(&path)?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(TryLockError::WouldBlock) => {
            let holder = std::fs::read(dir.join(LIVE_JSON))
                .ok()
                .and_then(|b| serde_json::from_slice::<LiveInfo>(&b).ok())
                .map_or("another process".to_string(), |i| format!("pid {}", i.pid));
            Err(Error::store(format!(
                "agent \"{id}\" is already live: {holder} holds {}",
                path.display()
            )))
        }
        Err(TryLockError::Error(e)) => Err(Error::io(&path, &e)),
    }
}

/// Replace `live.json` atomically.
fn write_live(dir: &Path, state: LiveState, turn: u64) -> Result<()> {
    let info = LiveInfo {
        pid: std::process::id(),
        state,
        since: now_ms(),
        turn,
    };
    crate::sidecar::replace(
        &dir.join(LIVE_JSON),
        &serde_json::to_vec(&info).unwrap_or_default(),
        false,
    )
}

/// How a turn ended.
enum Ending {
    Exited(std::process::ExitStatus),
    Interrupted { permanent: bool },
    Stopped,
}

struct Runtime {
    store_root: PathBuf,
    id: String,
    dir: PathBuf,
    inbox: Inbox,
    watcher: Watcher,
    opts: ServeOptions,
}

/// Serve the session at `agent` until stopped (or, with `--once`, until
/// nothing runnable is left). Returns the number of turns run.
pub fn serve(store_root: &Path, store: &Store, agent: usize, opts: ServeOptions) -> Result<u64> {
    let rec = &store.sessions[agent];
    let id = rec.header.id.clone();
    if opts.command.is_empty() {
        return Err(Error::usage("serve needs a command after --"));
    }
    let lock = take_live_lock(&rec.dir, &id)?;
    crate::signals::install();
    let mut transcript = Transcript::open(rec)?;
    write_live(&rec.dir, LiveState::Idle, transcript.last_turn)?;
    let rt = Runtime {
        store_root: store_root.to_path_buf(),
        id,
        dir: rec.dir.clone(),
        inbox: Inbox::new(&rec.dir),
        watcher: Watcher::new(&rec.dir, opts.poll),
        opts,
    };
    let result = rt.run(&mut transcript);
    let _ = std::fs::remove_file(rt.dir.join(LIVE_JSON));
    drop(lock);
    result
}

impl Runtime {
    fn run(&self, transcript: &mut Transcript) -> Result<u64> {
        let mut turns = 0;
        loop {
            if crate::signals::stop_requested() || self.inbox.stopped() {
                return Ok(turns);
            }
            let Some((claimed, baseline)) = self.claim()? else {
                if self.opts.once {
                    return Ok(turns);
                }
                self.watcher.wait(Duration::from_secs(1));
                continue;
            };
            let turn = transcript.start_turn(&claimed)?;
            turns += 1;
            write_live(&self.dir, LiveState::Running, turn)?;
            let ending = self.run_turn(turn, &claimed, baseline);
            let reason = match &ending {
                Ok(Ending::Exited(status)) if status.success() => json!({"kind": "completed"}),
                Ok(Ending::Exited(status)) => json!({"kind": "error", "error": {
                    "message": format!("command exited with {status}"), "code": "COMMAND_FAILED"}}),
                Ok(Ending::Interrupted { .. }) => json!({"kind": "interrupted"}),
                Ok(Ending::Stopped) => json!({"kind": "aborted", "reason": {"kind": "user"}}),
                Err(e) => {
                    json!({"kind": "error", "error": {"message": e.message, "code": "COMMAND_NOT_RUN"}})
                }
            };
            transcript.end_turn(reason)?;
            write_live(&self.dir, LiveState::Idle, turn)?;
            match ending {
                Err(e) => return Err(e),
                Ok(Ending::Interrupted { permanent: true }) | Ok(Ending::Stopped) => {
                    return Ok(turns);
                }
                Ok(_) => {}
            }
        }
    }

    /// Claim all next-step input plus one unparked next-turn message.
    fn claim(&self) -> Result<Option<(Vec<Message>, Option<usize>)>> {
        // Look first without the lock: an idle agent must not write anything.
        if self.inbox.read()?.claimable().is_empty() {
            return Ok(None);
        }
        let mut guard = self.inbox.lock(self.opts.limits.lock_timeout)?;
        let fold = self.inbox.read()?;
        let claimed: Vec<Message> = fold.claimable().into_iter().cloned().collect();
        if claimed.is_empty() {
            return Ok(None);
        }
        let ids = claimed.iter().map(|m| m.id.clone()).collect();
        self.inbox.record(
            &mut guard,
            &Record::Claim {
                time: now_ms(),
                ids,
            },
        )?;
        Ok(Some((claimed, fold.last_interrupt)))
    }

    fn spawn(&self, turn: u64, claimed: &[Message]) -> Result<Child> {
        let mut cmd = Command::new(&self.opts.command[0]);
        cmd.args(&self.opts.command[1..])
            .stdin(Stdio::piped())
            .env("DSH_STORE", &self.store_root)
            .env("DSH_AGENT", &self.id)
            .env("DSH_TURN", turn.to_string())
            // Waits inside one turn share a root call, as in one run_code program.
            .env("DSH_CALL_ID", format!("{}:turn-{turn}", self.id))
            .process_group(0);
        let mut child = cmd
            .spawn()
            .map_err(|e| Error::store(format!("cannot run {}: {e}", self.opts.command[0])))?;
        let input = crate::inbox_view::claimed_json(claimed).to_string();
        if let Some(mut stdin) = child.stdin.take() {
            // A handler that does not read its input must not block the turn.
            std::thread::spawn(move || {
                let _ = stdin.write_all(input.as_bytes());
            });
        }
        Ok(child)
    }

    fn run_turn(&self, turn: u64, claimed: &[Message], baseline: Option<usize>) -> Result<Ending> {
        let mut child = self.spawn(turn, claimed)?;
        let mut seen_len = None;
        loop {
            if let Some(status) = child.try_wait().map_err(|e| Error::store(e.to_string()))? {
                return Ok(Ending::Exited(status));
            }
            if crate::signals::stop_requested() {
                self.stop(&mut child);
                return Ok(Ending::Stopped);
            }
            let len = std::fs::metadata(self.inbox.path()).map(|m| m.len()).ok();
            if len != seen_len {
                seen_len = len;
                let fold: Fold = self.inbox.read()?;
                if fold.last_interrupt != baseline && fold.last_interrupt.is_some() {
                    self.stop(&mut child);
                    return Ok(Ending::Interrupted {
                        permanent: fold.stopped,
                    });
                }
            }
            self.watcher.wait(Duration::from_millis(50));
        }
    }

    /// SIGTERM to CMD's process group, SIGKILL after the grace period.
    fn stop(&self, child: &mut Child) {
        let pgid = child.id() as libc::pid_t;
        // SAFETY: signalling a process group we created.
        unsafe { libc::kill(-pgid, libc::SIGTERM) };
        let deadline = Instant::now() + self.opts.grace;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = child.try_wait() {
                // The leader is gone; make sure nothing it started lingers.
                unsafe { libc::kill(-pgid, libc::SIGKILL) };
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        unsafe { libc::kill(-pgid, libc::SIGKILL) };
        let _ = child.wait();
    }
}
