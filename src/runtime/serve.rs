//! `serve --as AGENT -- CMD…` (contract §7): a resident runtime that holds the
//! agent live (`live.lock` for its lifetime, `live.json` current), claims
//! input at each turn boundary as DSH's loop does, runs CMD once per turn
//! with the claimed messages as JSON on stdin, records the turn in the
//! agent's own log, and stops the running CMD when an interrupt arrives.

use super::transcript::{Transcript, TurnEnding};
use crate::error::{Error, Result};
use crate::inbox::DeliveryError;
use crate::inbox::claim::{Claimed, claim_with};
use crate::inbox::liveness::{LiveLock, LiveState};
use crate::inbox::record::{Message, messages_json};
use crate::inbox::watch::{Watcher, stamp};
use crate::inbox::{Inbox, Limits};
use crate::support::fault::fault;
use crate::support::signals;
use dsh_store::{SessionRecord, StoreError};
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
    /// No per-turn line on stderr.
    pub quiet: bool,
}

/// The handler must be a program that can run, checked before anything is
/// claimed: a typo must not eat a message.
fn check_handler(program: &str) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let executable = |p: &Path| {
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    let found = if program.contains('/') {
        executable(Path::new(program))
    } else {
        std::env::var_os("PATH").is_some_and(|paths| {
            std::env::split_paths(&paths).any(|d| executable(&d.join(program)))
        })
    };
    if found {
        Ok(())
    } else {
        Err(Error::usage(format!(
            "serve: the handler \"{program}\" is not an executable file (or not found on PATH); nothing was claimed"
        )))
    }
}

/// A descriptor that becomes readable when process `pid` exits (Linux
/// 5.3 on); `None` elsewhere, and the wait polls.
fn pidfd(pid: u32) -> Option<std::os::fd::OwnedFd> {
    #[cfg(target_os = "linux")]
    {
        use rustix::process::{Pid, PidfdFlags, pidfd_open};
        let pid = Pid::from_raw(i32::try_from(pid).ok()?)?;
        pidfd_open(pid, PidfdFlags::empty()).ok()
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = pid;
        None
    }
}

/// How a running turn ended.
enum Ending {
    Exited(std::process::ExitStatus),
    Interrupted { permanent: bool },
    Stopped,
}

struct Runtime {
    /// Turns that did not complete.
    failed: std::cell::Cell<u64>,
    store_root: PathBuf,
    id: String,
    inbox: Inbox,
    watcher: Watcher,
    opts: ServeOptions,
}

/// Serve the session `rec` until stopped (or, with `--once`, until nothing
/// runnable is left). Returns the number of turns run.
pub fn serve(store_root: &Path, rec: &SessionRecord, opts: ServeOptions) -> Result<u64> {
    let id = rec.header.id().to_string();
    if opts.command.is_empty() {
        return Err(Error::usage("serve needs a command after --"));
    }
    check_handler(&opts.command[0])?;
    let live = LiveLock::take(&rec.dir(), &id)?;
    signals::install();
    let fold = Inbox::new(&rec.dir()).read()?;
    let mut transcript = Transcript::open(rec, |id| !fold.consumed.is_pending(id))?;
    live.publish(LiveState::Idle, transcript.last_turn)?;
    let rt = Runtime {
        failed: std::cell::Cell::new(0),
        store_root: store_root.to_path_buf(),
        id,
        inbox: Inbox::new(&rec.dir()),
        watcher: Watcher::new(&rec.dir(), opts.poll),
        opts,
    };
    let turns = rt.run(&live, &mut transcript)?;
    let failed = rt.failed.get();
    if rt.opts.once && failed > 0 {
        return Err(Error::tool(format!(
            "serve: {failed} of {turns} turn(s) did not complete"
        )));
    }
    Ok(turns)
}

impl Runtime {
    fn run(&self, live: &LiveLock, transcript: &mut Transcript) -> Result<u64> {
        let mut turns = 0;
        if let Some(stop) = self.recover(live, transcript)? {
            turns += 1;
            if stop {
                return Ok(turns);
            }
        }
        let mut backoff = Duration::from_millis(100);
        loop {
            if signals::stop_requested() || self.inbox.stopped() {
                return Ok(turns);
            }
            // The turn is in the log before its claim is written: a crash in
            // between leaves the input pending, to run again in a later turn.
            let claimed = claim_with(&self.inbox, self.opts.limits, |messages| {
                let turn = transcript.start_turn(messages).map_err(Error::from);
                fault("serve-after-turn-start");
                turn
            });
            let (claimed, turn) = match claimed {
                Ok(Some(c)) => {
                    fault("serve-after-claim");
                    backoff = Duration::from_millis(100);
                    c
                }
                Ok(None) => {
                    if self.opts.once {
                        return Ok(turns);
                    }
                    self.watcher.wait(Duration::from_secs(1));
                    continue;
                }
                // A slow or stuck writer holds the inbox: ride it out.
                Err(Error::Delivery(e @ DeliveryError::LockTimeout { .. })) => {
                    let _ = writeln!(
                        std::io::stderr(),
                        "dsh-agents serve: {e}; retrying in {:.1}s",
                        backoff.as_secs_f64()
                    );
                    std::thread::sleep(backoff);
                    backoff = (backoff * 2).min(Duration::from_secs(5));
                    continue;
                }
                Err(e) => {
                    if transcript.open_turn() {
                        let _ = transcript.end_turn(&TurnEnding::Error {
                            message: e.to_string(),
                            code: "CLAIM_FAILED",
                        });
                    }
                    return Err(e);
                }
            };
            let Claimed {
                messages,
                last_interrupt,
                inbox_at,
            } = claimed;
            turns += 1;
            if self.turn(live, transcript, turn, &messages, last_interrupt, inbox_at)? {
                return Ok(turns);
            }
        }
    }

    /// Input a crash left in an open turn after it was claimed: it never
    /// finished its turn, so it runs again, in a new turn the log shows.
    fn recover(&self, live: &LiveLock, transcript: &mut Transcript) -> Result<Option<bool>> {
        let claimed = std::mem::take(&mut transcript.recovered);
        if claimed.is_empty() {
            return Ok(None);
        }
        let fold = self.inbox.read()?;
        let turn = transcript.last_turn;
        self.turn(
            live,
            transcript,
            turn,
            &claimed,
            fold.last_interrupt_id,
            None,
        )
        .map(Some)
    }

    /// Run one recorded turn to its end; `true` when serving must stop.
    fn turn(
        &self,
        live: &LiveLock,
        transcript: &mut Transcript,
        turn: u64,
        messages: &[Message],
        last_interrupt: Option<String>,
        inbox_at: Option<(u64, u64)>,
    ) -> Result<bool> {
        live.publish(LiveState::Running, turn)?;
        let started = Instant::now();
        let ran = self.run_turn(turn, messages, last_interrupt, inbox_at);
        let ending = match &ran {
            Ok(Ending::Exited(status)) if status.success() => TurnEnding::Completed,
            Ok(Ending::Exited(status)) => TurnEnding::Error {
                message: format!("command exited with {status}"),
                code: "COMMAND_FAILED",
            },
            Ok(Ending::Interrupted { .. }) => TurnEnding::Interrupted,
            Ok(Ending::Stopped) => TurnEnding::AbortedByUser,
            Err(e) => TurnEnding::Error {
                message: e.to_string(),
                code: "COMMAND_NOT_RUN",
            },
        };
        fault("serve-before-turn-end");
        transcript.end_turn(&ending)?;
        live.publish(LiveState::Idle, turn)?;
        if ending != TurnEnding::Completed {
            self.failed.set(self.failed.get() + 1);
        }
        if !self.opts.quiet {
            let ids: Vec<&str> = messages.iter().map(|m| m.id.as_str()).collect();
            let status = match &ran {
                Ok(Ending::Exited(st)) => format!(", handler {st}"),
                _ => String::new(),
            };
            let ended = match &ending {
                TurnEnding::Error { message, .. } => format!("failed ({message})"),
                other => other.word().to_string(),
            };
            let _ = writeln!(
                std::io::stderr(),
                "dsh-agents serve {}: turn {turn} [{}] {ended}{status}, {} ms",
                self.id,
                ids.join(", "),
                started.elapsed().as_millis()
            );
        }
        match ran {
            Err(e) => Err(e),
            Ok(Ending::Interrupted { permanent: true }) | Ok(Ending::Stopped) => Ok(true),
            Ok(_) => Ok(false),
        }
    }

    fn spawn(&self, turn: u64, claimed: &[Message]) -> Result<Child> {
        let program = &self.opts.command[0];
        let mut cmd = Command::new(program);
        cmd.args(&self.opts.command[1..])
            .stdin(Stdio::piped())
            .env("DSH_STORE", &self.store_root)
            .env("DSH_AGENT", &self.id)
            .env("DSH_TURN", turn.to_string())
            // Waits inside one turn share a root call, as in one run_code program.
            .env("DSH_CALL_ID", format!("{}:turn-{turn}", self.id))
            .process_group(0);
        let mut child = cmd.spawn().map_err(|e| StoreError::Spawn {
            program: program.clone(),
            source: e,
        })?;
        let input = messages_json(claimed).to_string();
        if let Some(mut stdin) = child.stdin.take() {
            // A handler that does not read its input must not block the turn.
            std::thread::spawn(move || {
                let _ = stdin.write_all(input.as_bytes());
            });
        }
        Ok(child)
    }

    fn run_turn(
        &self,
        turn: u64,
        claimed: &[Message],
        baseline: Option<String>,
        mut inbox_at: Option<(u64, u64)>,
    ) -> Result<Ending> {
        let mut child = self.spawn(turn, claimed)?;
        // The handler's exit wakes the wait at once where pidfds exist.
        let exited = pidfd(child.id());
        let mut seen = None;
        loop {
            if let Some(status) = child
                .try_wait()
                .map_err(|e| StoreError::io(&self.opts.command[0], e))?
            {
                return Ok(Ending::Exited(status));
            }
            if signals::stop_requested() {
                self.stop(&mut child);
                return Ok(Ending::Stopped);
            }
            let now = stamp(&self.inbox.path());
            if now != seen {
                seen = now;
                // Only what was appended since the claim is read.
                if let Some(permanent) = self
                    .inbox
                    .interrupted_since(&mut inbox_at, baseline.as_deref())?
                {
                    self.stop(&mut child);
                    return Ok(Ending::Interrupted { permanent });
                }
            }
            let wait = if exited.is_some() {
                Duration::from_millis(50)
            } else {
                Duration::from_millis(5)
            };
            self.watcher.wait_also(exited.as_ref(), wait);
        }
    }

    /// SIGTERM to CMD's process group, SIGKILL after the grace period.
    fn stop(&self, child: &mut Child) {
        use rustix::process::{Pid, Signal, kill_process_group};
        // The group we created: CMD leads it, under its own pid.
        let group = i32::try_from(child.id()).ok().and_then(Pid::from_raw);
        let signal = |sig| {
            if let Some(group) = group {
                let _ = kill_process_group(group, sig);
            }
        };
        signal(Signal::TERM);
        let deadline = Instant::now() + self.opts.grace;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = child.try_wait() {
                // The leader is gone; make sure nothing it started lingers.
                signal(Signal::KILL);
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        signal(Signal::KILL);
        let _ = child.wait();
    }
}
