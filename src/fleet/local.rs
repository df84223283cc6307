//! A host's fleet files, in `<store>/.fleet/`: which fleet it joined
//! (`host.json`), the outbox of cross-host sends (`outbox`, one mail a
//! line, appended under `outbox.lock` and fsynced before a send is
//! answered), how far the daemon has handed it to the hub
//! (`outbox.cursor`), and the receipts that came back (`receipts`).
//!
//! None of these names ends in `.jsonl` and none is a directory: DSH takes
//! `.fleet` for a project directory, and neither rc.8 nor this tool finds
//! a session or a flat-file artifact in it.

use super::ask::{Answer, AskMail};
use super::error::FleetError;
use super::mail::{Level, Mail, Receipt};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

pub const DIR: &str = dsh_store::files::FLEET_DIR;

/// The fleet a store's host belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Membership {
    pub host: String,
    /// The hub's URLs, comma-separated (`nats://127.0.0.1:4222,…`).
    pub hub: String,
    /// The host's NKey seed file.
    pub creds: PathBuf,
    /// The CA certificate the hub's TLS is checked against, when it speaks TLS.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tls_ca: Option<PathBuf>,
}

/// How long a host may go unheard before it shows as unreachable: three
/// heartbeats.
pub const UNREACHABLE_AFTER_MS: i64 = 15_000;

/// Whether a host last heard from at `seen` is live at `now`.
pub fn live(seen: i64, now: i64) -> bool {
    now - seen <= UNREACHABLE_AFTER_MS
}

/// When a host was last heard from (its heartbeat, as the hub holds it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Beat {
    pub host: String,
    /// Milliseconds since the epoch.
    pub time: i64,
}

/// A message accepted here whose delivery its sender is told of.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Following {
    pub id: String,
    /// The session whose inbox holds it.
    pub session: String,
    /// The sending host.
    pub from: String,
    /// When it was accepted (epoch ms).
    pub time: i64,
}

/// The fleet files of one store.
#[derive(Debug, Clone)]
pub struct Local {
    dir: PathBuf,
}

fn read_or_empty(path: &Path) -> Result<Vec<u8>, FleetError> {
    let mut bytes = Vec::new();
    if let Some(mut file) = open_or_none(path)? {
        file.read_to_end(&mut bytes)
            .map_err(|e| FleetError::io(path, e))?;
    }
    Ok(bytes)
}

/// The rows file at `path` read by `read` through a buffer, not whole: a
/// host of 100,000 rows is tens of megabytes of JSON of which a view keeps
/// a few fields. `None` when the file is gone.
fn read_rows<T>(
    path: &Path,
    read: impl FnOnce(std::io::BufReader<File>) -> serde_json::Result<T>,
) -> Result<Option<T>, FleetError> {
    let Some(file) = open_or_none(path)? else {
        return Ok(None);
    };
    read(std::io::BufReader::with_capacity(1 << 16, file))
        .map(Some)
        .map_err(|err| FleetError::Corrupt {
            path: path.to_path_buf(),
            why: err.to_string(),
        })
}

/// Hands each element of a JSON array to its closure as it is read
/// (`Local::each_row`).
struct EachRow<'e>(&'e mut dyn FnMut(&serde_json::Value));

impl<'de> serde::de::DeserializeSeed<'de> for EachRow<'_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> serde::de::Visitor<'de> for EachRow<'_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an array of session rows")
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(row) = seq.next_element::<serde_json::Value>()? {
            (self.0)(&row);
        }
        Ok(())
    }
}

/// A file of the fleet's own opened to be written with `options`: never
/// through a symbolic link (which could lead out of the store), and only a
/// regular file — a FIFO in its place is an error naming it, not an open
/// that waits for a reader.
fn open_for_writing(options: &mut OpenOptions, path: &Path) -> Result<File, FleetError> {
    use std::os::unix::fs::OpenOptionsExt;
    let flags = rustix::fs::OFlags::NONBLOCK | rustix::fs::OFlags::NOFOLLOW;
    let f = options
        .custom_flags(flags.bits() as i32)
        .open(path)
        .map_err(|e| match rustix::io::Errno::from_io_error(&e) {
            // A link, or a FIFO no one reads.
            Some(rustix::io::Errno::LOOP | rustix::io::Errno::NXIO) => FleetError::Corrupt {
                path: path.to_path_buf(),
                why: "not a regular file".into(),
            },
            _ => FleetError::io(path, e),
        })?;
    match f.metadata() {
        Ok(m) if m.is_file() => Ok(f),
        Ok(_) => Err(FleetError::Corrupt {
            path: path.to_path_buf(),
            why: "not a regular file".into(),
        }),
        Err(e) => Err(FleetError::io(path, e)),
    }
}

/// A file of the fleet's own opened for reading, `None` when it is absent.
/// Only a regular file is read: a FIFO or a device put in its place is an
/// error naming it, never a read that blocks.
pub(super) fn open_or_none(path: &Path) -> Result<Option<std::fs::File>, FleetError> {
    match dsh_store::files::open_regular(path) {
        Ok(f) => Ok(Some(f)),
        Err(dsh_store::StoreError::Io { source, .. })
            if source.kind() == std::io::ErrorKind::NotFound =>
        {
            Ok(None)
        }
        Err(dsh_store::StoreError::Io { source, .. }) => Err(FleetError::io(path, source)),
        Err(_) => Err(FleetError::Corrupt {
            path: path.to_path_buf(),
            why: "not a regular file".into(),
        }),
    }
}

/// Whether `id` can name a file of the fleet's own (a message id).
fn safe_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 128
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// Replace `path` with `bytes`: a temporary file, fsynced, renamed over it.
fn replace(path: &Path, bytes: &[u8]) -> Result<(), FleetError> {
    let tmp = path.with_extension("tmp");
    let io = |e| FleetError::io(path, e);
    let mut f = File::create(&tmp).map_err(io)?;
    f.write_all(bytes).and_then(|()| f.sync_all()).map_err(io)?;
    std::fs::rename(&tmp, path).map_err(io)?;
    if let Some(dir) = path.parent() {
        File::open(dir).and_then(|d| d.sync_all()).map_err(io)?;
    }
    Ok(())
}

/// The complete lines of `bytes` (a torn last line, a crash mid-append, is
/// not one), each with the offset just past it.
fn lines(bytes: &[u8]) -> impl Iterator<Item = (&[u8], u64)> {
    let mut at = 0usize;
    std::iter::from_fn(move || {
        let rest = bytes.get(at..)?;
        let end = memchr::memchr(b'\n', rest)?;
        let line = &rest[..end];
        at += end + 1;
        Some((line, at as u64))
    })
}

/// This machine's name, for a daemon's lock.
fn machine() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "this machine".into())
}

impl Local {
    pub fn of(store: &Path) -> Local {
        Local {
            dir: store.join(DIR),
        }
    }

    /// The directory of the fleet files (what a waiter watches).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// The fleet this host joined, if any.
    pub fn membership(&self) -> Result<Option<Membership>, FleetError> {
        let path = self.path("host.json");
        let bytes = read_or_empty(&path)?;
        if bytes.is_empty() {
            return Ok(None);
        }
        serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| FleetError::Corrupt {
                path,
                why: e.to_string(),
            })
    }

    /// The fleet this host joined, or the error that says how to join.
    pub fn joined(&self) -> Result<Membership, FleetError> {
        self.membership()?.ok_or_else(|| FleetError::NotJoined {
            store: self.store(),
        })
    }

    /// Record that this store is host `m.host` (its hub and credential may
    /// change; its name may not: its sends and receipts carry it).
    pub fn join(&self, m: &Membership) -> Result<(), FleetError> {
        if !super::address::valid_host(&m.host) {
            return Err(FleetError::BadHost {
                host: m.host.clone(),
            });
        }
        if let Some(old) = self.membership()?
            && old.host != m.host
        {
            return Err(FleetError::OtherHost {
                store: self.store(),
                host: old.host,
            });
        }
        std::fs::create_dir_all(&self.dir).map_err(|e| FleetError::io(&self.dir, e))?;
        let text = serde_json::to_vec_pretty(m).unwrap_or_default();
        replace(&self.path("host.json"), &text)
    }

    /// The fleet file `name`, made when missing, open to read and write.
    fn open(&self, name: &str) -> Result<(File, PathBuf), FleetError> {
        std::fs::create_dir_all(&self.dir).map_err(|e| FleetError::io(&self.dir, e))?;
        let path = self.path(name);
        let f = open_for_writing(
            OpenOptions::new()
                .create(true)
                .truncate(false)
                .read(true)
                .write(true),
            &path,
        )?;
        Ok((f, path))
    }

    /// The lock every outbox writer holds (a blocking `flock`: holders
    /// hold it for one append).
    fn lock(&self, name: &str) -> Result<File, FleetError> {
        let (f, path) = self.open(name)?;
        f.lock().map_err(|e| FleetError::io(&path, e))?;
        Ok(f)
    }

    fn store(&self) -> PathBuf {
        self.dir.parent().map(Path::to_path_buf).unwrap_or_default()
    }

    /// The daemon's lock: one daemon per host. The holder writes its pid
    /// and machine into it, so a second daemon can name the first.
    pub fn daemon_lock(&self) -> Result<File, FleetError> {
        let (mut f, path) = self.open("daemon.lock")?;
        match f.try_lock() {
            Ok(()) => {
                let me = format!("pid {} on {}\n", std::process::id(), machine());
                f.set_len(0)
                    .and_then(|()| f.write_all(me.as_bytes()))
                    .map_err(|e| FleetError::io(&path, e))?;
                Ok(f)
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = f.read_to_string(&mut holder);
                Err(FleetError::DaemonRunning {
                    store: self.store(),
                    holder: holder.trim().to_string(),
                })
            }
            Err(std::fs::TryLockError::Error(e)) => Err(FleetError::io(&path, e)),
        }
    }

    /// The daemon serving this host (its `pid N on MACHINE`), if one runs.
    pub fn daemon(&self) -> Result<Option<String>, FleetError> {
        match self.daemon_lock() {
            Ok(_released_on_drop) => Ok(None),
            Err(FleetError::DaemonRunning { holder, .. }) => Ok(Some(holder)),
            Err(e) => Err(e),
        }
    }

    /// Keep the hosts' heartbeats as the hub last told them.
    pub fn set_beats(&self, beats: &[Beat]) -> Result<(), FleetError> {
        std::fs::create_dir_all(&self.dir).map_err(|e| FleetError::io(&self.dir, e))?;
        let bytes = serde_json::to_vec_pretty(beats).unwrap_or_default();
        replace(&self.path("hosts.json"), &bytes)
    }

    /// The hosts' heartbeats as the daemon last saw them (none before it ran).
    pub fn beats(&self) -> Result<Vec<Beat>, FleetError> {
        let path = self.path("hosts.json");
        let bytes = read_or_empty(&path)?;
        if bytes.is_empty() {
            return Ok(Vec::new());
        }
        serde_json::from_slice(&bytes).map_err(|e| FleetError::Corrupt {
            path,
            why: e.to_string(),
        })
    }

    /// Append `mail` to the outbox, fsynced, unless its id is there already
    /// (then `false`: a retried send is the same send). The same id with
    /// other text is refused: an id names one message forever.
    pub fn send(&self, mail: &Mail) -> Result<bool, FleetError> {
        let _lock = self.lock("outbox.lock")?;
        let (mut f, path) = self.open("outbox")?;
        let io = |e| FleetError::io(&path, e);
        let mut bytes = Vec::new();
        f.read_to_end(&mut bytes).map_err(io)?;
        let mut complete = 0u64;
        for (line, end) in lines(&bytes) {
            complete = end;
            if let Ok(old) = serde_json::from_slice::<Mail>(line)
                && old.id == mail.id
            {
                if old.to == mail.to && old.agent == mail.agent && old.text == mail.text {
                    return Ok(false);
                }
                return Err(FleetError::Corrupt {
                    path: path.clone(),
                    why: format!(
                        "message id {} was sent before with another target or text; an id names one message",
                        mail.id
                    ),
                });
            }
        }
        // A torn tail (a writer killed mid-line) is cut before appending.
        if complete < bytes.len() as u64 {
            f.set_len(complete).map_err(io)?;
        }
        let mut line = serde_json::to_vec(mail).unwrap_or_default();
        line.push(b'\n');
        f.seek(SeekFrom::Start(complete)).map_err(io)?;
        f.write_all(&line)
            .and_then(|()| f.sync_data())
            .map_err(io)?;
        Ok(true)
    }

    /// The outbox's mails from byte `from`, each with the offset past it.
    pub fn outbox_from(&self, from: u64) -> Result<Vec<(Mail, u64)>, FleetError> {
        let path = self.path("outbox");
        let bytes = read_or_empty(&path)?;
        let start = usize::try_from(from).unwrap_or(usize::MAX).min(bytes.len());
        let mut out = Vec::new();
        for (line, end) in lines(&bytes[start..]) {
            let mail = serde_json::from_slice(line).map_err(|e| FleetError::Corrupt {
                path: path.clone(),
                why: format!("a line of the outbox: {e}"),
            })?;
            out.push((mail, end + start as u64));
        }
        Ok(out)
    }

    /// How far the hub has taken the outbox.
    pub fn cursor(&self) -> Result<u64, FleetError> {
        Ok(self
            .number("outbox.cursor", "not a byte offset")?
            .unwrap_or(0))
    }

    /// The number file `name` holds; `None` when it is empty or absent,
    /// an error saying `not` when it holds anything else.
    fn number(&self, name: &str, not: &str) -> Result<Option<u64>, FleetError> {
        let path = self.path(name);
        let bytes = read_or_empty(&path)?;
        if bytes.is_empty() {
            return Ok(None);
        }
        std::str::from_utf8(&bytes)
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .map(Some)
            .ok_or(FleetError::Corrupt {
                path,
                why: not.into(),
            })
    }

    pub fn set_cursor(&self, at: u64) -> Result<(), FleetError> {
        replace(&self.path("outbox.cursor"), at.to_string().as_bytes())
    }

    /// Keep the ack wait of this host's consumer `consumer` before the
    /// daemon deletes it to make it again (`queue.rs`): a daemon that died
    /// between the two makes it on its next start.
    pub fn keep_ack_wait(&self, consumer: &str, ack_wait: Duration) -> Result<(), FleetError> {
        let ms = ack_wait.as_millis().to_string();
        replace(&self.path(&format!("{consumer}.ack-wait")), ms.as_bytes())
    }

    /// The ack wait kept for consumer `consumer`, if one was.
    pub fn kept_ack_wait(&self, consumer: &str) -> Result<Option<Duration>, FleetError> {
        let ms = self.number(
            &format!("{consumer}.ack-wait"),
            "not a number of milliseconds",
        )?;
        Ok(ms.map(Duration::from_millis))
    }

    /// Append `value` as one line to file `name` under lock file `lock`,
    /// fsynced before it returns.
    fn append<T: Serialize>(&self, lock: &str, name: &str, value: &T) -> Result<(), FleetError> {
        let _lock = self.lock(lock)?;
        let path = self.path(name);
        let io = |e| FleetError::io(&path, e);
        let mut f = open_for_writing(OpenOptions::new().create(true).append(true), &path)?;
        let mut line = serde_json::to_vec(value).unwrap_or_default();
        line.push(b'\n');
        f.write_all(&line).and_then(|()| f.sync_data()).map_err(io)
    }

    /// Keep a receipt that came back.
    pub fn record_receipt(&self, r: &Receipt) -> Result<(), FleetError> {
        self.append("outbox.lock", "receipts", r)
    }

    /// Note that message `t.id`, accepted into session `t.session`'s
    /// inbox here, is followed until it is delivered (fsynced before the
    /// acceptance is told; a mail taken again is followed again, which
    /// tells its delivery again under the same Msg-Id, and is let go of
    /// whole).
    pub fn follow_delivery(&self, t: &Following) -> Result<(), FleetError> {
        self.append("deliveries.lock", "deliveries", t)
    }

    /// The accepted messages not yet seen delivered.
    pub fn followed(&self) -> Result<Vec<Following>, FleetError> {
        let path = self.path("deliveries");
        Ok(lines(&read_or_empty(&path)?)
            .filter_map(|(l, _)| serde_json::from_slice(l).ok())
            .collect())
    }

    /// Stop following `ids` (their delivery was told).
    pub fn unfollow(&self, ids: &[String]) -> Result<(), FleetError> {
        let _lock = self.lock("deliveries.lock")?;
        let path = self.path("deliveries");
        let mut kept = Vec::new();
        for (l, _) in lines(&read_or_empty(&path)?) {
            let id = serde_json::from_slice::<Following>(l).map(|f| f.id);
            if !id.is_ok_and(|id| ids.contains(&id)) {
                kept.extend_from_slice(l);
                kept.push(b'\n');
            }
        }
        replace(&path, &kept)
    }

    /// An ask for another host (`ask-ID.json`), for the daemon to carry.
    pub fn ask(&self, mail: &AskMail) -> Result<(), FleetError> {
        let bytes = serde_json::to_vec(mail).map_err(|e| FleetError::Corrupt {
            path: self.path("ask"),
            why: e.to_string(),
        })?;
        replace(&self.path(&format!("ask-{}.json", mail.id)), &bytes)
    }

    /// The asks waiting to be carried (one that cannot be read is left).
    pub fn asks(&self) -> Vec<AskMail> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        entries
            .flatten()
            .filter(|e| {
                let name = e.file_name();
                let name = name.to_string_lossy();
                name.starts_with("ask-") && name.ends_with(".json")
            })
            .filter_map(|e| read_or_empty(&e.path()).ok())
            .filter_map(|b| serde_json::from_slice::<AskMail>(&b).ok())
            .filter(|m| safe_id(&m.id))
            .collect()
    }

    /// Take ask `id` to carry it; `false` when it is not waiting (carried
    /// already, or given up by its command).
    pub fn take_ask(&self, id: &str) -> bool {
        std::fs::rename(
            self.path(&format!("ask-{id}.json")),
            self.path(&format!("asking-{id}.json")),
        )
        .is_ok()
    }

    /// The answer to ask `id`, for its command to read.
    pub fn answer(&self, id: &str, answer: &Answer) -> Result<(), FleetError> {
        let bytes = serde_json::to_vec(answer).map_err(|e| FleetError::Corrupt {
            path: self.path("answer"),
            why: e.to_string(),
        })?;
        replace(&self.path(&format!("answer-{id}.json")), &bytes)?;
        let _ = std::fs::remove_file(self.path(&format!("asking-{id}.json")));
        Ok(())
    }

    /// The answer to ask `id`, once there.
    pub fn answer_of(&self, id: &str) -> Option<Answer> {
        let bytes = read_or_empty(&self.path(&format!("answer-{id}.json"))).ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    /// Ask `id` and its answer gone (answered, or given up).
    pub fn forget_ask(&self, id: &str) {
        for name in ["ask", "asking", "answer"] {
            let _ = std::fs::remove_file(self.path(&format!("{name}-{id}.json")));
        }
    }

    /// Keep host `host`'s session rows as the hub holds them
    /// (`rows-HOST.json`: a JSON array of the rows' own JSON texts,
    /// replaced whole).
    pub fn set_rows(&self, host: &str, rows: &[&[u8]]) -> Result<(), FleetError> {
        let mut text = Vec::with_capacity(rows.iter().map(|r| r.len() + 1).sum::<usize>() + 2);
        text.push(b'[');
        for (n, row) in rows.iter().enumerate() {
            if n > 0 {
                text.push(b',');
            }
            text.extend_from_slice(row);
        }
        text.push(b']');
        replace(&self.path(&format!("rows-{host}.json")), &text)
    }

    /// Each host's mirrored rows file (`rows-HOST.json`), by host name.
    pub fn row_files(&self) -> Result<Vec<(String, PathBuf)>, FleetError> {
        let mut out = Vec::new();
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
            Err(e) => return Err(FleetError::io(&self.dir, e)),
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if let Some(host) = name
                .strip_prefix("rows-")
                .and_then(|n| n.strip_suffix(".json"))
            {
                out.push((host.to_string(), e.path()));
            }
        }
        out.sort();
        Ok(out)
    }

    /// Every host's mirrored rows, each file read as `T` (a view that
    /// keeps only what it shows).
    pub fn rows_of<T: serde::de::DeserializeOwned>(&self) -> Result<Vec<(String, T)>, FleetError> {
        let mut out = Vec::new();
        for (host, path) in self.row_files()? {
            if let Some(rows) = read_rows(&path, |r| serde_json::from_reader(r))? {
                out.push((host, rows));
            }
        }
        Ok(out)
    }

    /// Each row of the rows file at `path` handed to `each` as it is read
    /// (one row's value alive at a time): no host's rows are ever held
    /// whole. A bad file is an error after `each` saw the rows before the
    /// fault (`check_rows` first where nothing may come out before it).
    /// False when the file is gone.
    pub fn each_row(
        path: &Path,
        each: &mut dyn FnMut(&serde_json::Value),
    ) -> Result<bool, FleetError> {
        let read = read_rows(path, |r| {
            use serde::de::DeserializeSeed;
            let mut d = serde_json::Deserializer::from_reader(r);
            EachRow(each).deserialize(&mut d)?;
            d.end()
        })?;
        Ok(read.is_some())
    }

    /// Whether the rows file at `path` is an array of JSON values (an
    /// error naming it when not), read without keeping a row.
    pub fn check_rows(path: &Path) -> Result<(), FleetError> {
        read_rows(path, |r| {
            serde_json::from_reader::<_, Vec<serde::de::IgnoredAny>>(r).map(|_| ())
        })
        .map(|_| ())
    }

    /// Every sent message and how far it got, in the order sent.
    pub fn sent(&self) -> Result<Vec<(Mail, Level, Option<Receipt>)>, FleetError> {
        let cursor = self.cursor()?;
        let path = self.path("receipts");
        let mut receipts: HashMap<String, Receipt> = HashMap::new();
        for (line, _) in lines(&read_or_empty(&path)?) {
            if let Ok(r) = serde_json::from_slice::<Receipt>(line) {
                // The furthest answer counts (a refusal after an acceptance
                // cannot happen: the id was kept).
                match receipts.get(&r.id) {
                    Some(kept) if kept.level.rank() >= r.level.rank() => {}
                    _ => {
                        receipts.insert(r.id.clone(), r);
                    }
                }
            }
        }
        Ok(self
            .outbox_from(0)?
            .into_iter()
            .map(|(mail, end)| {
                let receipt = receipts.remove(&mail.id);
                let level = match (&receipt, end <= cursor) {
                    (Some(r), _) => r.level,
                    (None, true) => Level::InTheFleet,
                    (None, false) => Level::Queued,
                };
                (mail, level, receipt)
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mail(id: &str, text: &str) -> Mail {
        Mail {
            id: id.into(),
            from: "a".into(),
            to: "b".into(),
            agent: "lead".into(),
            target: "next-turn".into(),
            text: text.into(),
            time: 1,
            not_after: None,
        }
    }

    #[test]
    fn an_outbox_keeps_each_id_once_and_cuts_a_torn_tail() {
        let tmp = tempfile::tempdir().unwrap();
        let l = Local::of(tmp.path());
        assert!(l.send(&mail("m1", "hi")).unwrap());
        assert!(
            !l.send(&mail("m1", "hi")).unwrap(),
            "a retry is the same send"
        );
        assert!(matches!(
            l.send(&mail("m1", "other")),
            Err(FleetError::Corrupt { .. })
        ));
        // A writer killed mid-line.
        let path = tmp.path().join(DIR).join("outbox");
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"{\"id\":\"torn").unwrap();
        assert_eq!(l.outbox_from(0).unwrap().len(), 1, "a torn line is no mail");
        assert!(l.send(&mail("m2", "there")).unwrap());
        let all = l.outbox_from(0).unwrap();
        let ids: Vec<&str> = all.iter().map(|(m, _)| m.id.as_str()).collect();
        assert_eq!(ids, ["m1", "m2"]);
        // The cursor splits queued from taken; a receipt wins over both.
        l.set_cursor(all[0].1).unwrap();
        l.record_receipt(&Receipt {
            id: "m2".into(),
            host: "b".into(),
            level: Level::Accepted,
            reason: None,
            time: 2,
        })
        .unwrap();
        let levels: Vec<Level> = l.sent().unwrap().into_iter().map(|(_, l, _)| l).collect();
        assert_eq!(levels, [Level::InTheFleet, Level::Accepted]);
        assert_eq!(l.outbox_from(all[0].1).unwrap().len(), 1);
    }
}
