//! The fleet against real `nats-server`s on loopback: a hub of one or three
//! nodes (`fleet config` + `fleet init`), two stores as two hosts with
//! their daemons (`fleet run`), cross-host followups that land once in the
//! target's inbox through crashes of either daemon between its two writes,
//! hub nodes killed, and the server refusing a credential another host's
//! mail. The server is the pinned one: `DSH_AGENTS_NATS_SERVER`, else what
//! `scripts/nats-server.sh` installs. Ignored by a plain `cargo test` (it
//! needs nothing outside the repository): `scripts/test-fleet.sh` runs
//! them and fails when fewer ran than this file holds.

use crate::common::{Reaped, cmd, reaped, temp_dir};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};
use tempfile::TempDir;

/// Long enough for a loaded 2-core machine; only a hang ever reaches it.
const PATIENCE: Duration = Duration::from_secs(120);

fn nats_server() -> &'static Path {
    static SERVER: OnceLock<PathBuf> = OnceLock::new();
    SERVER.get_or_init(|| {
        if let Some(p) = std::env::var_os("DSH_AGENTS_NATS_SERVER") {
            return PathBuf::from(p);
        }
        let out = Command::new("bash")
            .arg(crate::common::repo().join("scripts/nats-server.sh"))
            .stderr(Stdio::inherit())
            .output()
            .unwrap();
        assert!(out.status.success(), "scripts/nats-server.sh failed");
        PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
    })
}

/// `base`, `base + 1`, … `base + n - 1` and the same 100 and 200 above,
/// all free now (what `fleet config --port` lays the nodes on, and their
/// monitoring ports).
fn free_ports(n: u16) -> u16 {
    for _ in 0..200 {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let base = l.local_addr().unwrap().port();
        drop(l);
        if base > 65000 {
            continue;
        }
        let all_free = (0..n).all(|i| {
            [base + i, base + 100 + i, base + 200 + i]
                .iter()
                .all(|p| std::net::TcpListener::bind(("127.0.0.1", *p)).is_ok())
        });
        if all_free {
            return base;
        }
    }
    panic!("no free ports");
}

fn wait_for(what: &str, mut done: impl FnMut() -> bool, logs: &dyn Fn() -> String) {
    let deadline = Instant::now() + PATIENCE;
    while !done() {
        if Instant::now() > deadline {
            panic!("waited in vain for {what}\n{}", logs());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// A hub of `nodes` nats-servers, killed when dropped.
struct Hub {
    dir: TempDir,
    /// Where the nodes listen (127.0.0.1 but for the partition test).
    addr: String,
    base: u16,
    nodes: Vec<Option<Reaped>>,
    /// The CA the nodes' TLS certificate is signed by, when they speak TLS.
    tls_ca: Option<PathBuf>,
}

impl Hub {
    /// Configure and start the hub for `hosts` and create the streams.
    fn start(hosts: &[&str], nodes: u16, init: &[&str]) -> Hub {
        Hub::start_with(hosts, nodes, init, false)
    }

    /// `start`, the nodes speaking TLS with a certificate of a CA made for
    /// the test (openssl) when `tls`.
    fn start_with(hosts: &[&str], nodes: u16, init: &[&str], tls: bool) -> Hub {
        Hub::start_on("127.0.0.1", hosts, nodes, init, tls)
    }

    /// `start_with`, the nodes listening on `addr`.
    fn start_on(addr: &str, hosts: &[&str], nodes: u16, init: &[&str], tls: bool) -> Hub {
        let dir = temp_dir("fleet-hub");
        let base = free_ports(nodes);
        let out = dir.path().join("hub");
        let mut config = cmd();
        config
            .args(["fleet", "config", "--hosts", &hosts.join(",")])
            .arg("--out")
            .arg(&out)
            .args(["--nodes", &nodes.to_string(), "--port", &base.to_string()])
            .args(["--addresses", addr]);
        let tls_ca = tls.then(|| {
            let pki = dir.path().join("pki");
            make_certificates(&pki);
            config
                .arg("--tls-cert")
                .arg(pki.join("node.pem"))
                .arg("--tls-key")
                .arg(pki.join("node.key"))
                .arg("--tls-ca")
                .arg(pki.join("ca.pem"));
            pki.join("ca.pem")
        });
        config.assert().success();
        let mut hub = Hub {
            dir,
            addr: addr.to_string(),
            base,
            nodes: (0..nodes).map(|_| None).collect(),
            tls_ca,
        };
        for n in 0..usize::from(nodes) {
            hub.start_node(n);
        }
        let replicas = nodes.min(3).to_string();
        let r = cmd()
            .args(["fleet", "init", "--nats", &hub.urls(), "--creds"])
            .arg(hub.creds("admin"))
            .args(["--replicas", &replicas])
            .args(hub.tls_args())
            .args(init)
            .timeout(PATIENCE)
            .output()
            .unwrap();
        assert!(
            r.status.success(),
            "fleet init: {}\n{}",
            String::from_utf8_lossy(&r.stderr),
            hub.logs()
        );
        hub
    }

    fn start_node(&mut self, n: usize) {
        let conf = self.dir.path().join(format!("hub/hub-{}.conf", n + 1));
        let log = std::fs::File::create(self.log(n)).unwrap();
        let child = Command::new(nats_server())
            .arg("-c")
            .arg(&conf)
            .args(["-m", &self.monitor_port(n).to_string()])
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap();
        self.nodes[n] = Some(reaped(child));
        let port = self.base + n as u16;
        wait_for(
            "a hub node to listen",
            || std::net::TcpStream::connect((self.addr.as_str(), port)).is_ok(),
            &|| self.logs(),
        );
    }

    fn monitor_port(&self, n: usize) -> u16 {
        self.base + 200 + n as u16
    }

    /// What each live node says of the fleet's streams and consumers (its
    /// monitoring endpoint `/jsz`): for a failure's report.
    fn streams(&self) -> String {
        use std::io::{Read, Write};
        let mut out = String::new();
        for n in (0..self.nodes.len()).filter(|n| self.nodes[*n].is_some()) {
            let got = std::net::TcpStream::connect((self.addr.as_str(), self.monitor_port(n)))
                .and_then(|mut c| {
                    c.set_read_timeout(Some(Duration::from_secs(10)))?;
                    c.write_all(
                        b"GET /jsz?accounts=true&streams=true&consumers=true HTTP/1.0\r\n\r\n",
                    )?;
                    let mut body = String::new();
                    c.read_to_string(&mut body)?;
                    Ok(body)
                });
            let body = got.unwrap_or_else(|e| format!("(not read: {e})"));
            out.push_str(&format!("--- hub node {} /jsz ---\n{body}\n", n + 1));
        }
        out
    }

    /// SIGKILL node `n` (and reap it).
    fn kill_node(&mut self, n: usize) {
        self.nodes[n] = None;
    }

    fn log(&self, n: usize) -> PathBuf {
        self.dir.path().join(format!("node-{}.log", n + 1))
    }

    fn urls(&self) -> String {
        (0..self.nodes.len())
            .map(|n| format!("nats://{}:{}", self.addr, self.base + n as u16))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// `--tls-ca CA` for a hub that speaks TLS.
    fn tls_args(&self) -> Vec<std::ffi::OsString> {
        self.tls_ca
            .iter()
            .flat_map(|ca| ["--tls-ca".into(), ca.clone().into_os_string()])
            .collect()
    }

    fn creds(&self, host: &str) -> PathBuf {
        self.dir.path().join(format!("hub/{host}.nk"))
    }

    fn logs(&self) -> String {
        (0..self.nodes.len())
            .map(|n| format!("--- hub node {} ---\n{}", n + 1, read(&self.log(n))))
            .collect()
    }
}

/// One store as one host of the fleet, its daemon killed when dropped.
struct Host {
    name: &'static str,
    /// The store (`store/`) and the daemon's logs.
    dir: TempDir,
    daemon: Option<Reaped>,
    runs: usize,
    /// The network namespace its daemon runs in (the partition test).
    netns: Option<String>,
}

impl Host {
    /// A store with one root session (`lead`).
    fn new(name: &'static str) -> Host {
        let dir = temp_dir("fleet-host");
        std::fs::create_dir(dir.path().join("store")).unwrap();
        cmd()
            .arg("--store")
            .arg(dir.path().join("store"))
            .args(["spawn", "--prompt", "lead the work"])
            .assert()
            .success();
        Host {
            name,
            dir,
            daemon: None,
            runs: 0,
            netns: None,
        }
    }

    /// A copy of `testdata/stores/NAME`.
    fn of_store(name: &'static str, store: &str) -> Host {
        let dir = temp_dir("fleet-host");
        crate::common::copy_dir(
            &crate::common::repo().join("testdata/stores").join(store),
            &dir.path().join("store"),
        );
        Host {
            name,
            dir,
            daemon: None,
            runs: 0,
            netns: None,
        }
    }

    fn path(&self) -> PathBuf {
        self.dir.path().join("store")
    }

    /// The binary on this host's store.
    fn cli(&self) -> assert_cmd::Command {
        let mut c = cmd();
        c.arg("--store").arg(self.path());
        c
    }

    fn daemon_command(&self, hub: &Hub, creds_of: &str) -> Command {
        let bin = assert_cmd::cargo::cargo_bin!("dsh-agents");
        // `ip netns exec` enters the namespace and execs the daemon: the
        // child's pid is the daemon's, killed on drop as any other.
        let mut c = match &self.netns {
            Some(ns) => {
                let mut c = Command::new("ip");
                c.args(["netns", "exec", ns]).arg(bin);
                c
            }
            None => Command::new(bin),
        };
        c.arg("--store")
            .arg(self.path())
            .args(["fleet", "run", "--host", self.name, "--nats", &hub.urls()])
            .arg("--creds")
            .arg(hub.creds(creds_of))
            .args(hub.tls_args())
            .env_remove("DSH_AGENTS_FAULT")
            .stdin(Stdio::null());
        c
    }

    /// Start the daemon (with a fault switch when `fault` is set), its
    /// output in a log of its own per run.
    fn run(&mut self, hub: &Hub, fault: Option<&str>) {
        let mut c = self.daemon_command(hub, self.name);
        if let Some(stage) = fault {
            c.env("DSH_AGENTS_FAULT", stage);
        }
        self.runs += 1;
        let log = std::fs::File::create(self.log(self.runs)).unwrap();
        c.stdout(log.try_clone().unwrap()).stderr(log);
        self.daemon = Some(reaped(c.spawn().unwrap()));
        // Serving: the store joined and the hub answered.
        let log = self.log(self.runs);
        wait_for(
            "the daemon to serve",
            || read(&log).contains("serving"),
            &|| format!("{}{}", hub.logs(), self.logs()),
        );
    }

    fn log(&self, run: usize) -> PathBuf {
        self.dir.path().join(format!("daemon-{run}.log"))
    }

    fn logs(&self) -> String {
        (1..=self.runs)
            .map(|r| {
                format!(
                    "--- host {} daemon run {r} ---\n{}",
                    self.name,
                    read(&self.log(r))
                )
            })
            .collect()
    }

    /// Wait for the daemon to die of its fault switch.
    fn wait_daemon_gone(&mut self, hub: &Hub, other: &Host) {
        let mut daemon = self.daemon.take().unwrap();
        wait_for(
            "the daemon to stop at its fault",
            || daemon.try_wait().unwrap().is_some(),
            &|| all_logs(hub, &[self, other]),
        );
    }

    fn followup(&self, to: &str, text: &str, id: &str) -> String {
        let out = self
            .cli()
            .args(["followup", to, text, "--id", id])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "followup {to}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    fn status(&self) -> Value {
        let out = self
            .cli()
            .args(["--json", "fleet", "status"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "fleet status: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }

    /// The level `fleet status` shows for message `id`.
    fn level(&self, id: &str) -> Option<String> {
        let status = self.status();
        status["sent"]
            .as_array()?
            .iter()
            .find(|s| s["messageId"] == id)
            .map(|s| s["level"].as_str().unwrap().to_string())
    }

    /// The records of the root's inbox (both lists) with message `id`.
    fn inbox_records(&self, id: &str) -> usize {
        let out = self
            .cli()
            .args(["--json", "inbox", "lead"])
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        ["nextTurn", "nextStep"]
            .iter()
            .flat_map(|l| v[l].as_array().unwrap().iter())
            .filter(|r| r["id"] == id)
            .count()
    }

    /// The receipts kept for message `id` (one per answer that came back).
    fn receipts(&self, id: &str) -> usize {
        read(&self.path().join(".fleet/receipts"))
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|r| r["id"] == id)
            .count()
    }
}

/// A one-node hub with host a (a spawned root) and host `b`, both daemons
/// serving.
fn two_hosts(mut b: Host) -> (Hub, Host, Host) {
    let hub = Hub::start(&["a", "b"], 1, &[]);
    let mut a = Host::new("a");
    a.run(&hub, None);
    b.run(&hub, None);
    (hub, a, b)
}

fn all_logs(hub: &Hub, hosts: &[&Host]) -> String {
    let mut s = hub.logs();
    for h in hosts {
        s.push_str(&h.logs());
    }
    s.push_str(&hub.streams());
    s
}

#[test]
#[ignore = "needs nats-server: scripts/test-fleet.sh"]
fn a_followup_to_another_host_lands_once_and_its_sender_sees_how_far_it_got() {
    let (hub, a, b) = two_hosts(Host::new("b"));
    let logs = || all_logs(&hub, &[&a, &b]);

    let said = a.followup("b:lead", "review the diff", "f-1");
    assert!(
        said.contains("message f-1 queued for agent lead on host b"),
        "{said}"
    );
    wait_for(
        "f-1 accepted",
        || a.level("f-1").as_deref() == Some("accepted"),
        &logs,
    );
    assert_eq!(b.inbox_records("f-1"), 1, "{}", logs());
    // The text arrived as sent, as the user's.
    let inbox = b.cli().args(["inbox", "lead"]).output().unwrap();
    let inbox = String::from_utf8(inbox.stdout).unwrap();
    assert!(
        inbox.contains("f-1") && inbox.contains("review the diff"),
        "{inbox}"
    );

    // A retried send is the same send: nothing new leaves the host.
    a.followup("b:lead", "review the diff", "f-1");
    let sent = a.status()["sent"].as_array().unwrap().len();
    assert_eq!(sent, 1, "a retry queued a second mail");
    // The same id with other text is refused, naming the id.
    let reused = a
        .cli()
        .args(["followup", "b:lead", "other text", "--id", "f-1"])
        .output()
        .unwrap();
    assert_eq!(reused.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&reused.stderr).contains("f-1"));

    // An agent the target host does not have: refused, with the reason,
    // and a send that waits for its receipt says so (exit 2).
    let refused = a
        .cli()
        .args(["followup", "b:nobody", "hello?", "--id", "f-2"])
        .args(["--wait", "accepted", "--timeout", "120"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{err}\n{}", logs());
    assert!(
        err.contains("host b refused message f-2") && err.contains("nobody"),
        "{err}"
    );
    let status = a.status();
    let refused = status["sent"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["messageId"] == "f-2")
        .unwrap()
        .clone();
    assert!(
        refused["reason"].as_str().unwrap().contains("nobody"),
        "{refused}"
    );
    assert_eq!(b.inbox_records("f-2"), 0);

    // A send that waits returns once the target's inbox holds it.
    let waited = a
        .cli()
        .args(["--json", "steer", "b:lead", "mind the tests", "--id", "f-3"])
        .args(["--wait", "accepted", "--timeout", "120"])
        .output()
        .unwrap();
    assert!(
        waited.status.success(),
        "{}",
        String::from_utf8_lossy(&waited.stderr)
    );
    let v: Value = serde_json::from_slice(&waited.stdout).unwrap();
    assert_eq!(v["level"], "accepted");
    assert_eq!(b.inbox_records("f-3"), 1);

    // Both hosts show in the status, live, and the outbox is empty.
    wait_for(
        "both hosts heard",
        || a.status()["hosts"].as_array().is_some_and(|h| h.len() == 2),
        &logs,
    );
    let status = a.status();
    assert!(
        status["hosts"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h["live"] == true)
    );
    assert_eq!(status["outbox"]["waiting"], 0);
    assert_eq!(status["host"], "a");

    // A second daemon for one host is refused, naming the first.
    let second = b
        .daemon_command(&hub, "b")
        .timeout_free_output(PATIENCE)
        .expect("a second daemon ran on");
    assert_eq!(second.status.code(), Some(3));
    let err = String::from_utf8_lossy(&second.stderr);
    assert!(
        err.contains("another fleet daemon") && err.contains("pid"),
        "{err}"
    );
}

#[test]
#[ignore = "needs nats-server: scripts/test-fleet.sh"]
fn a_receiver_killed_between_its_inbox_and_its_ack_takes_the_mail_again_and_writes_it_once() {
    let hub = Hub::start(&["a", "b"], 1, &["--ack-wait", "2"]);
    let (mut a, mut b) = (Host::new("a"), Host::new("b"));
    a.run(&hub, None);
    b.run(&hub, Some("fleet-before-ack"));
    a.followup("b:lead", "once only", "r-1");
    b.wait_daemon_gone(&hub, &a);
    // The inbox holds it; no receipt went back.
    assert_eq!(b.inbox_records("r-1"), 1);
    assert_ne!(a.level("r-1").as_deref(), Some("accepted"));
    b.run(&hub, None);
    let logs = || all_logs(&hub, &[&a, &b]);
    wait_for(
        "r-1 accepted",
        || a.level("r-1").as_deref() == Some("accepted"),
        &logs,
    );
    assert_eq!(b.inbox_records("r-1"), 1, "{}", logs());
}

#[test]
#[ignore = "needs nats-server: scripts/test-fleet.sh"]
fn a_consumer_the_hub_stopped_handing_out_is_made_again_and_the_mail_it_held_lands_once() {
    // b's daemon pauses its own mail consumer for an hour before it takes
    // any (`fleet-pause-mail`): the hub holds b's mail and hands none out,
    // as servers have been seen to do with a work-queue consumer.
    let hub = Hub::start(&["a", "b"], 1, &["--ack-wait", "2"]);
    let (mut a, mut b) = (Host::new("a"), Host::new("b"));
    a.run(&hub, None);
    b.run(&hub, Some("fleet-pause-mail"));
    a.followup("b:lead", "held", "p-1");
    a.followup("b:lead", "held too", "p-2");
    let logs = || all_logs(&hub, &[&a, &b]);
    wait_for(
        "the held mail accepted",
        || {
            a.level("p-1").as_deref() == Some("accepted")
                && a.level("p-2").as_deref() == Some("accepted")
        },
        &logs,
    );
    assert_eq!(
        (b.inbox_records("p-1"), b.inbox_records("p-2")),
        (1, 1),
        "{}",
        logs()
    );
    let made_again = b.logs().matches("is made again").count();
    assert_eq!(made_again, 1, "{}", logs());
}

#[test]
#[ignore = "needs nats-server: scripts/test-fleet.sh"]
fn a_daemon_killed_between_deleting_a_stalled_consumer_and_making_it_makes_it_when_it_starts() {
    let hub = Hub::start(&["a", "b"], 1, &["--ack-wait", "2"]);
    let (mut a, mut b) = (Host::new("a"), Host::new("b"));
    a.run(&hub, None);
    b.run(&hub, Some("fleet-pause-mail,fleet-after-consumer-delete"));
    a.followup("b:lead", "held", "k-1");
    b.wait_daemon_gone(&hub, &a);
    // The consumer is gone from the hub; the daemon kept its ack wait.
    let kept = b.path().join(".fleet/mail-b.ack-wait");
    assert_eq!(read(&kept), "2000", "{}", all_logs(&hub, &[&a, &b]));
    b.run(&hub, None);
    let logs = || all_logs(&hub, &[&a, &b]);
    wait_for(
        "the held mail accepted",
        || a.level("k-1").as_deref() == Some("accepted"),
        &logs,
    );
    assert_eq!(b.inbox_records("k-1"), 1, "{}", logs());
}

#[test]
#[ignore = "needs nats-server: scripts/test-fleet.sh"]
fn a_sender_killed_between_the_hub_ack_and_its_cursor_publishes_again_and_the_inbox_keeps_one() {
    let (hub, a, b, _) = published_twice("s-1", false);
    let logs = || all_logs(&hub, &[&a, &b]);
    // Two receipts: the first copy's and the second's (both accepted).
    wait_for("a second copy answered", || a.receipts("s-1") >= 2, &logs);
    assert_eq!(a.level("s-1").as_deref(), Some("accepted"));
    assert_eq!(b.inbox_records("s-1"), 1, "{}", logs());
}

/// A 1 s dedup window; `a` publishes `id` to `b:lead` and dies before its
/// cursor moves (`fleet-after-publish`); past the window `a` starts again
/// and publishes it a second time, which reaches the stream: only the
/// target's inbox stands between it and a second run. With `b_away`, b's
/// daemon is stopped (SIGSTOP; its pid returned) from before the send, so
/// both copies wait for it together; without, the first copy is in b's
/// inbox before the second is published.
fn published_twice(id: &str, b_away: bool) -> (Hub, Host, Host, Option<u32>) {
    let hub = Hub::start(&["a", "b"], 1, &["--dedup-window", "1"]);
    let (mut a, mut b) = (Host::new("a"), Host::new("b"));
    b.run(&hub, None);
    a.run(&hub, Some("fleet-after-publish"));
    let away = b_away.then(|| {
        let pid = b.daemon.as_ref().unwrap().id();
        crate::common::signal(pid, rustix::process::Signal::STOP);
        pid
    });
    a.followup("b:lead", "once only", id);
    a.wait_daemon_gone(&hub, &b);
    if !b_away {
        wait_for(
            "the first copy in b's inbox",
            || b.inbox_records(id) == 1,
            &|| all_logs(&hub, &[&a, &b]),
        );
    }
    std::thread::sleep(Duration::from_millis(1500));
    a.run(&hub, None);
    (hub, a, b, away)
}

#[test]
#[ignore = "needs nats-server: scripts/test-fleet.sh"]
fn a_receiver_stopped_past_the_dedup_window_takes_both_copies_of_a_mail_and_writes_one() {
    use rustix::process::Signal;
    // b is away (SIGSTOP) while a publishes, dies before its cursor moves,
    // and publishes again past the window: two copies of one id wait in
    // the stream together, and b takes them when it is back.
    let (hub, a, b, away) = published_twice("w-1", true);
    let logs = || all_logs(&hub, &[&a, &b]);
    assert_eq!(b.inbox_records("w-1"), 0, "{}", logs());
    crate::common::signal(away.unwrap(), Signal::CONT);
    // b took the second copy too (its receipt is one the hub already
    // holds, within the window of the first's), and wrote nothing for it.
    let second = "w-1 is in lead's inbox already; this copy wrote nothing";
    wait_for("the second copy taken", || b.logs().contains(second), &logs);
    wait_for(
        "w-1 accepted",
        || a.level("w-1").as_deref() == Some("accepted"),
        &logs,
    );
    assert_eq!(b.inbox_records("w-1"), 1, "{}", logs());
    assert_eq!(b.logs().matches(second).count(), 1, "{}", logs());
}

#[test]
#[ignore = "needs nats-server: scripts/test-fleet.sh"]
fn sends_go_on_with_one_hub_node_down_and_wait_in_the_outbox_with_two() {
    let mut hub = Hub::start(&["a", "b"], 3, &[]);
    let (mut a, mut b) = (Host::new("a"), Host::new("b"));
    a.run(&hub, None);
    b.run(&hub, None);
    let logs = |hub: &Hub, a: &Host, b: &Host| all_logs(hub, &[a, b]);

    hub.kill_node(0);
    a.followup("b:lead", "one node down", "n-1");
    wait_for(
        "n-1 accepted with a node down",
        || a.level("n-1").as_deref() == Some("accepted"),
        &|| logs(&hub, &a, &b),
    );

    // Without a quorum the hub takes nothing: the sends wait in the
    // outbox, and all arrive, once each, when the nodes are back.
    hub.kill_node(1);
    a.followup("b:lead", "two nodes down", "n-2");
    a.followup("b:lead", "still down", "n-3");
    hub.start_node(0);
    hub.start_node(1);
    for id in ["n-2", "n-3"] {
        wait_for(
            "the queued sends accepted",
            || a.level(id).as_deref() == Some("accepted"),
            &|| logs(&hub, &a, &b),
        );
    }
    for id in ["n-1", "n-2", "n-3"] {
        assert_eq!(b.inbox_records(id), 1, "{id}\n{}", logs(&hub, &a, &b));
    }
}

#[test]
#[ignore = "needs nats-server: scripts/test-fleet.sh"]
fn the_hub_refuses_a_credential_another_hosts_mail() {
    let hub = Hub::start(&["a", "b"], 1, &[]);
    let c = Host::new("a");
    // Host a's daemon with host b's credential.
    let out = c
        .daemon_command(&hub, "b")
        .timeout_free_output(PATIENCE)
        .unwrap_or_else(|| panic!("the daemon did not stop\n{}", hub.logs()));
    assert_eq!(out.status.code(), Some(3), "{}", hub.logs());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("read this host's mail"), "{err}");
    let log = hub.logs();
    assert!(
        log.contains("Violation") && log.contains("mail-a"),
        "the server did not refuse it:\n{log}"
    );
}

/// `Command::output` that gives up (killing the child) after `limit`.
trait OutputWithin {
    fn timeout_free_output(&mut self, limit: Duration) -> Option<std::process::Output>;
}

impl OutputWithin for Command {
    fn timeout_free_output(&mut self, limit: Duration) -> Option<std::process::Output> {
        let dir = temp_dir("fleet-out");
        let (o, e) = (dir.path().join("out"), dir.path().join("err"));
        self.stdout(std::fs::File::create(&o).unwrap())
            .stderr(std::fs::File::create(&e).unwrap());
        let mut child = reaped(self.spawn().unwrap());
        let deadline = Instant::now() + limit;
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                return Some(std::process::Output {
                    status,
                    stdout: std::fs::read(&o).unwrap(),
                    stderr: std::fs::read(&e).unwrap(),
                });
            }
            if Instant::now() > deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// A small reproducible generator for where the kills fall (the seed is
/// printed, and `DSH_AGENTS_BURST_SEED` replays it).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

#[test]
#[ignore = "needs nats-server: scripts/test-fleet.sh"]
fn a_burst_from_two_hosts_through_daemon_and_hub_node_kills_lands_each_acknowledged_id_once() {
    const ROUNDS: usize = 3;
    const PER_HOST: usize = 100;
    let seed = std::env::var("DSH_AGENTS_BURST_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
        });
    eprintln!("burst seed {seed} (DSH_AGENTS_BURST_SEED={seed} replays it)");
    let mut rng = Lcg(seed);
    let mut hub = Hub::start(&["a", "b", "c"], 3, &["--ack-wait", "2"]);
    let (mut a, mut b, mut c) = (Host::new("a"), Host::new("b"), Host::new("c"));
    a.run(&hub, None);
    b.run(&hub, None);
    c.run(&hub, None);
    // b's lead is a resident agent: each message it takes is a turn of `cat`.
    let _serve = b.serve_lead(&["--quiet"], "cat");
    let mut acked: Vec<(&'static str, String)> = Vec::new();
    for round in 0..ROUNDS {
        // Where this round's kills fall: a sender's daemon, the receiver's,
        // and one hub node (back a few sends later).
        let kill_sender = rng.below(PER_HOST as u64) as usize;
        let kill_receiver = rng.below(PER_HOST as u64) as usize;
        let kill_node = rng.below(PER_HOST as u64 - 10) as usize;
        let node = rng.below(3) as usize;
        for i in 0..PER_HOST {
            if i == kill_sender {
                let sender = if round % 2 == 0 { &mut a } else { &mut c };
                drop(sender.daemon.take());
                sender.run(&hub, None);
            }
            if i == kill_receiver {
                drop(b.daemon.take());
                b.run(&hub, None);
            }
            if i == kill_node {
                hub.kill_node(node);
            }
            if i == kill_node + 10 {
                hub.start_node(node);
            }
            for sender in [&a, &c] {
                let id = format!("{}-{round}-{i}", sender.name);
                sender.followup("b:lead", &format!("burst {id}"), &id);
                acked.push((sender.name, id));
            }
        }
    }
    let logs = |hub: &Hub| all_logs(hub, &[&a, &b, &c]);
    // b's agent runs each: the sender sees it delivered (past accepted).
    let delivered = |h: &Host| -> usize {
        h.status()["sent"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["level"] == "delivered")
            .count()
    };
    let total = ROUNDS * PER_HOST;
    let behind = |h: &Host| -> Vec<String> {
        h.status()["sent"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["level"] != "delivered")
            .map(|s| format!("{} {}", s["messageId"], s["level"]))
            .collect()
    };
    wait_for(
        "every acknowledged send delivered",
        || delivered(&a) == total && delivered(&c) == total,
        &|| {
            // Whether b ran the ones its senders never heard of: a lost
            // receipt, or a mail b never took.
            let ran = b.completed_turns();
            let stuck: Vec<String> = [&a, &c].iter().flat_map(|h| behind(h)).collect();
            let ran_here = stuck
                .iter()
                .filter(|s| {
                    let id = s.split('"').nth(1).unwrap_or("");
                    ran.contains_key(id)
                })
                .count();
            format!(
                "seed {seed}\nnot delivered: {stuck:?}\nof them run on b: {ran_here}\n{}",
                logs(&hub)
            )
        },
    );
    // Each acknowledged id is one completed turn of b's agent: a second
    // inbox record of an id would be a second turn.
    let all_ran = || {
        let ran = b.completed_turns();
        acked.iter().all(|(_, id)| ran.contains_key(id))
    };
    wait_for("every acknowledged id run", all_ran, &|| {
        format!("seed {seed}\n{}", logs(&hub))
    });
    let ran = b.completed_turns();
    let lost: Vec<&String> = acked
        .iter()
        .map(|(_, id)| id)
        .filter(|id| !ran.contains_key(*id))
        .collect();
    let twice: Vec<(&String, &usize)> = ran.iter().filter(|(_, n)| **n > 1).collect();
    assert!(
        lost.is_empty() && twice.is_empty(),
        "seed {seed}: lost {lost:?}, run twice {twice:?}"
    );
    // The root's first prompt is the one turn besides them.
    assert_eq!(
        ran.len(),
        acked.len() + 1,
        "seed {seed}: turns of ids never sent"
    );
    // How often a daemon found its consumer stalled (seen with --nocapture).
    let made_again = [&a, &b, &c]
        .iter()
        .map(|h| h.logs().matches("is made again").count())
        .sum::<usize>();
    eprintln!("burst seed {seed}: consumers made again {made_again}");
}

#[test]
#[ignore = "needs nats-server: scripts/test-fleet.sh"]
fn a_host_gone_quiet_shows_unreachable_its_mail_waits_on_the_hub_and_lands_once_when_it_is_back() {
    use rustix::process::Signal;
    let (hub, a, b) = two_hosts(Host::new("b"));
    let logs = |hub: &Hub, a: &Host, b: &Host| all_logs(hub, &[a, b]);
    let b_live = |a: &Host| a.hears_live("b");
    wait_for("b heard live", || b_live(&a) == Some(true), &|| {
        logs(&hub, &a, &b)
    });
    // b's daemon stops (as a host cut off would): no heartbeat, no mail taken.
    let pid = b.daemon.as_ref().unwrap().id();
    crate::common::signal(pid, Signal::STOP);
    a.followup("b:lead", "while b is away", "p-1");
    wait_for("b shown unreachable", || b_live(&a) == Some(false), &|| {
        logs(&hub, &a, &b)
    });
    let text = a.cli().args(["fleet", "status"]).output().unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("b  unreachable · last seen"), "{text}");
    // The hub holds the mail; b's inbox has nothing yet.
    assert_eq!(a.level("p-1").as_deref(), Some("in-the-fleet"));
    assert_eq!(b.inbox_records("p-1"), 0);
    crate::common::signal(pid, Signal::CONT);
    wait_for(
        "p-1 accepted once b is back",
        || a.level("p-1").as_deref() == Some("accepted"),
        &|| logs(&hub, &a, &b),
    );
    wait_for("b live again", || b_live(&a) == Some(true), &|| {
        logs(&hub, &a, &b)
    });
    assert_eq!(b.inbox_records("p-1"), 1, "{}", logs(&hub, &a, &b));
}

/// Every process group whose leader wrote its pid to `path`, killed when
/// dropped (a served handler outlives a killed `serve`).
struct Groups(PathBuf);

impl Drop for Groups {
    fn drop(&mut self) {
        for pid in read(&self.0).lines().filter(|p| !p.is_empty()) {
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{pid}")])
                .stderr(Stdio::null())
                .status();
        }
    }
}

impl Host {
    /// Whether `fleet status` here shows `host` live (`None`: not listed).
    fn hears_live(&self, host: &str) -> Option<bool> {
        self.status()["hosts"]
            .as_array()
            .unwrap()
            .iter()
            .find(|h| h["host"] == host)
            .map(|h| h["live"] == true)
    }

    /// `serve --as lead FLAGS -- sh -c 'exec HANDLER'` on this host's store,
    /// it and then every handler's process group killed when dropped.
    fn serve_lead(&self, flags: &[&str], handler: &str) -> (Reaped, Groups) {
        let pids = self.dir.path().join("handler.pids");
        let groups = Groups(pids.clone());
        let serve = reaped(
            Command::new(assert_cmd::cargo::cargo_bin!("dsh-agents"))
                .arg("--store")
                .arg(self.path())
                .args(["serve", "--as", "lead"])
                .args(flags)
                .args(["--", "sh", "-c"])
                .arg(format!("echo $$ >> {}; exec {handler}", pids.display()))
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .spawn()
                .unwrap(),
        );
        (serve, groups)
    }

    /// The state `tree` shows for the root.
    fn lead_state(&self) -> String {
        let out = self.cli().args(["--json", "tree"]).output().unwrap();
        let trees: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
        trees[0]["members"][0]["state"]
            .as_str()
            .unwrap_or("")
            .to_string()
    }

    /// The interrupt records of the root's inbox with id `id`.
    fn interrupts(&self, id: &str) -> usize {
        let root = self.path().join("_no-cwd");
        std::fs::read_dir(&root)
            .unwrap()
            .flatten()
            .map(|d| read(&d.path().join("inbox.jsonl")))
            .flat_map(|text| {
                text.lines()
                    .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                    .collect::<Vec<_>>()
            })
            .filter(|r| r["type"] == "interrupt" && r["id"] == id)
            .count()
    }

    /// How many completed turns of the root took each message id.
    fn completed_turns(&self) -> std::collections::HashMap<String, usize> {
        let root = self.path().join("_no-cwd");
        let dir = std::fs::read_dir(&root).unwrap().flatten().next().unwrap();
        let mut ran: std::collections::HashMap<String, usize> = Default::default();
        let mut turn: Vec<String> = Vec::new();
        for line in read(&dir.path().join("session.jsonl")).lines() {
            let Ok(e) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            match e["type"].as_str() {
                Some("turn/start") => turn.clear(),
                Some("user/message") => {
                    turn.extend(e["data"]["id"].as_str().map(str::to_string));
                }
                Some("turn/end") if e["data"]["reason"]["kind"] == "completed" => {
                    for id in turn.drain(..) {
                        *ran.entry(id).or_default() += 1;
                    }
                }
                _ => {}
            }
        }
        ran
    }

    /// The last event of the root's log.
    fn lead_last_event(&self) -> Value {
        let root = self.path().join("_no-cwd");
        let dir = std::fs::read_dir(&root).unwrap().flatten().next().unwrap();
        read(&dir.path().join("session.jsonl"))
            .lines()
            .last()
            .and_then(|l| serde_json::from_str(l).ok())
            .unwrap_or(Value::Null)
    }
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

#[test]
#[ignore = "needs nats-server: scripts/test-fleet.sh"]
fn an_interrupt_to_another_host_is_applied_once_in_time_and_reported_expired_after_it() {
    let hub = Hub::start(&["a", "b"], 1, &[]);
    let (mut a, mut b) = (Host::new("a"), Host::new("b"));
    a.run(&hub, None);
    let interrupt = |expires: &str| -> String {
        let out = a
            .cli()
            .args(["--json", "interrupt", "b:lead", "--expires", expires])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["level"], "queued");
        v["messageId"].as_str().unwrap().to_string()
    };

    // b's lead mid-turn under `serve`, its handler asleep.
    let _serve = b.serve_lead(&["--grace-ms", "300"], "sleep 60");
    wait_for("b's lead live", || b.lead_state() == "idle", &|| {
        all_logs(&hub, &[&a, &b])
    });
    b.cli()
        .args(["followup", "lead", "work"])
        .assert()
        .success();
    wait_for("b's lead mid-turn", || b.lead_state() == "running", &|| {
        all_logs(&hub, &[&a, &b])
    });

    // Sent while b's daemon is away, with a second to live: by the time b
    // takes it, it is late.
    let sent = now_ms();
    let late = interrupt("1");
    wait_for("the second to pass", || now_ms() > sent + 1500, &|| {
        all_logs(&hub, &[&a, &b])
    });
    b.run(&hub, None);
    let logs = || all_logs(&hub, &[&a, &b]);
    wait_for(
        "the late interrupt expired",
        || a.level(&late).as_deref() == Some("expired"),
        &logs,
    );
    assert_eq!(b.interrupts(&late), 0, "not applied: {}", logs());
    assert_eq!(b.lead_state(), "running", "the turn goes on");

    // In time: applied, once, and the turn ends interrupted.
    let on_time = interrupt("60");
    wait_for(
        "the interrupt accepted",
        || a.level(&on_time).as_deref() == Some("accepted"),
        &logs,
    );
    assert_eq!(b.interrupts(&on_time), 1, "{}", logs());
    wait_for(
        "the turn ends interrupted",
        || b.lead_last_event()["data"]["reason"]["kind"] == "interrupted",
        &logs,
    );
    let status = a.status();
    let expired = status["sent"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["messageId"] == late.as_str())
        .cloned()
        .unwrap();
    assert_eq!(expired["level"], "expired", "{status}");
}

/// `--wait delivered`: a send returns once the target agent's turn took
/// the message into its transcript (the receiving daemon follows it there
/// and sends a `delivered` receipt); before that it says how far it got.
#[test]
#[ignore = "needs nats-server: scripts/test-fleet.sh"]
fn a_send_that_waits_for_delivery_returns_once_the_agent_ran_it() {
    let (hub, a, b) = two_hosts(Host::new("b"));
    let logs = || all_logs(&hub, &[&a, &b]);
    a.followup("b:lead", "run the checks", "d-1");
    wait_for(
        "d-1 accepted",
        || a.level("d-1").as_deref() == Some("accepted"),
        &logs,
    );
    // No turn ran it yet: a wait for delivery ends saying where it is.
    let send_again = |timeout: &str| {
        a.cli()
            .args([
                "--json",
                "followup",
                "b:lead",
                "run the checks",
                "--id",
                "d-1",
            ])
            .args(["--wait", "delivered", "--timeout", timeout])
            .output()
            .unwrap()
    };
    let early = send_again("1");
    let err = String::from_utf8_lossy(&early.stderr);
    assert!(!early.status.success(), "{err}");
    assert!(
        err.contains("message d-1 for host b is accepted after 1 s, not yet delivered"),
        "{err}"
    );
    // Host b's agent runs one turn: the message enters its transcript.
    let served = b
        .cli()
        .args(["serve", "--as", "lead", "--once", "--quiet", "--", "cat"])
        .timeout(PATIENCE)
        .output()
        .unwrap();
    assert!(
        served.status.success(),
        "{}",
        String::from_utf8_lossy(&served.stderr)
    );
    let waited = send_again("120");
    assert!(
        waited.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&waited.stderr),
        logs()
    );
    let v: Value = serde_json::from_slice(&waited.stdout).unwrap();
    assert_eq!(v["level"], "delivered");
    assert_eq!(a.level("d-1").as_deref(), Some("delivered"));
    // Told once: host b no longer follows it.
    let followed = b.path().join(".fleet/deliveries");
    wait_for(
        "host b to stop following d-1",
        || !read(&followed).contains("\"d-1\""),
        &logs,
    );
}

/// `cancel ID --to HOST:AGENT`: the target host withdraws the pending
/// message with the operator's `cancel`; a second cancel finds it canceled
/// and says so again; an id the target does not hold is refused with the
/// reason.
#[test]
#[ignore = "needs nats-server: scripts/test-fleet.sh"]
fn a_cancel_to_another_host_withdraws_the_message() {
    let (hub, a, b) = two_hosts(Host::new("b"));
    let logs = || all_logs(&hub, &[&a, &b]);
    a.followup("b:lead", "this can wait", "c-1");
    wait_for(
        "c-1 accepted",
        || a.level("c-1").as_deref() == Some("accepted"),
        &logs,
    );
    let pending = |id: &str| {
        let out = b.cli().args(["--json", "inbox", "lead"]).output().unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        ["nextTurn", "nextStep"]
            .iter()
            .flat_map(|l| v[l].as_array().unwrap().iter())
            .any(|r| r["id"] == id)
    };
    assert!(pending("c-1"), "{}", logs());
    let cancel = |id: &str| {
        a.cli()
            .args(["cancel", id, "--to", "b:lead", "--wait", "accepted"])
            .args(["--timeout", "120"])
            .output()
            .unwrap()
    };
    for round in 0..2 {
        let out = cancel("c-1");
        assert!(
            out.status.success(),
            "round {round}: {}\n{}",
            String::from_utf8_lossy(&out.stderr),
            logs()
        );
        assert_eq!(
            String::from_utf8_lossy(&out.stdout).trim(),
            "canceled message c-1 to agent lead on host b"
        );
        assert!(!pending("c-1"), "round {round}: still pending");
    }
    let unknown = cancel("c-nobody");
    let err = String::from_utf8_lossy(&unknown.stderr);
    assert_eq!(unknown.status.code(), Some(2), "{err}");
    assert!(
        err.contains("host b refused message") && err.contains("c-nobody"),
        "{err}"
    );
}

/// A CA, and a certificate it signed for 127.0.0.1 (the nodes' client and
/// route ports), made with openssl into `dir`.
fn make_certificates(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let openssl = |args: &[&str]| {
        let out = Command::new("openssl")
            .args(args)
            .current_dir(dir)
            .output()
            .expect("openssl: the TLS test makes its certificates with it");
        assert!(
            out.status.success(),
            "openssl {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    openssl(&[
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-days",
        "2",
        "-subj",
        "/CN=dsh-agents fleet test CA",
    ]);
    openssl(&[
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "node.key",
        "-out",
        "node.csr",
        "-subj",
        "/CN=127.0.0.1",
    ]);
    std::fs::write(
        dir.join("node.ext"),
        "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n",
    )
    .unwrap();
    openssl(&[
        "x509",
        "-req",
        "-in",
        "node.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "node.pem",
        "-days",
        "2",
        "-extfile",
        "node.ext",
    ]);
}

/// TLS on the client and route ports: `fleet config --tls-*` writes the
/// nodes' TLS blocks, three nodes form their cluster over TLS, hosts that
/// trust the CA (`--tls-ca`) send and receive, and a host that does not is
/// turned away at the handshake.
#[test]
#[ignore = "needs nats-server: scripts/test-fleet.sh"]
fn a_hub_speaking_tls_carries_mail_only_for_hosts_that_trust_its_ca() {
    let hub = Hub::start_with(&["a", "b"], 3, &[], true);
    let conf = read(&hub.dir.path().join("hub/hub-1.conf"));
    assert_eq!(
        conf.matches("tls {").count(),
        2,
        "client and routes: {conf}"
    );
    let (mut a, mut b) = (Host::new("a"), Host::new("b"));
    a.run(&hub, None);
    b.run(&hub, None);
    let logs = || all_logs(&hub, &[&a, &b]);
    a.followup("b:lead", "over tls", "t-1");
    wait_for(
        "t-1 accepted over TLS",
        || a.level("t-1").as_deref() == Some("accepted"),
        &logs,
    );
    assert_eq!(b.inbox_records("t-1"), 1, "{}", logs());
    // A host that does not trust the CA never gets through.
    let stranger = Host::new("b");
    let mut untrusting = Command::new(assert_cmd::cargo::cargo_bin!("dsh-agents"));
    untrusting
        .arg("--store")
        .arg(stranger.path())
        .args(["fleet", "run", "--host", "b", "--nats", &hub.urls()])
        .arg("--creds")
        .arg(hub.creds("b"))
        .env_remove("DSH_AGENTS_FAULT")
        .stdin(Stdio::null());
    let log = std::fs::File::create(stranger.dir.path().join("untrusting.log")).unwrap();
    untrusting.stdout(log.try_clone().unwrap()).stderr(log);
    let child = reaped(untrusting.spawn().unwrap());
    wait_for(
        "the hub to refuse a client that does not trust its CA",
        || hub.logs().contains("TLS handshake error"),
        &|| {
            format!(
                "{}{}",
                logs(),
                read(&stranger.dir.path().join("untrusting.log"))
            )
        },
    );
    drop(child);
    assert!(
        !read(&stranger.dir.path().join("untrusting.log")).contains("serving"),
        "a host that does not trust the CA was served"
    );
}

/// `tree --fleet`: each host's daemon writes its session rows to the hub
/// when they change and mirrors every host's; a host's tree shows the
/// others' under a line saying they are heard from, and follows a change
/// made there.
#[test]
#[ignore = "needs nats-server: scripts/test-fleet.sh"]
fn the_fleet_tree_shows_every_hosts_rows_and_follows_their_changes() {
    let hub = Hub::start(&["a", "b"], 1, &[]);
    let (mut a, mut b) = (Host::new("a"), Host::new("b"));
    let tree_json = |h: &Host, args: &[&str]| -> Value {
        let out = h
            .cli()
            .arg("--json")
            .arg("tree")
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let root = tree_json(&b, &["--all"])[0]["root"]
        .as_str()
        .unwrap()
        .to_string();
    let spawned = b
        .cli()
        .args(["spawn", "--parent", &root, "--name", "reviewer"])
        .args(["--label", "Review the diff"])
        .output()
        .unwrap();
    assert!(spawned.status.success());
    a.run(&hub, None);
    b.run(&hub, None);
    let logs = || all_logs(&hub, &[&a, &b]);
    let fleet_text = || {
        let out = a
            .cli()
            .args(["tree", "--fleet", "--width", "120"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    wait_for(
        "host a to show host b's tree",
        || {
            let t = fleet_text();
            t.contains("host b · live")
                && t.contains("└─ reviewer")
                && t.contains("Review the diff")
        },
        &|| format!("{}{}", fleet_text(), logs()),
    );
    let text = fleet_text();
    assert!(text.starts_with("host a (this host)\n"), "{text}");
    // A message waits for b's reviewer: host a sees it pending.
    let sent = b
        .cli()
        .args(["followup", "reviewer", "look again"])
        .output()
        .unwrap();
    assert!(sent.status.success());
    let reviewer_pending = || {
        let v = tree_json(&a, &["--fleet"]);
        v["hosts"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|h| h["host"] == "b")
            .flat_map(|h| h["rows"].as_array().unwrap().iter())
            .find(|r| r["name"] == "reviewer")
            .and_then(|r| r["pending"].as_u64())
    };
    wait_for(
        "host b's change to reach host a",
        || reviewer_pending() == Some(1),
        &logs,
    );
    let v = tree_json(&a, &["--fleet"]);
    assert_eq!(v["host"], "a");
    assert_eq!(v["hosts"][0]["live"], true, "{v}");
    // a's daemon starts again after b's rows were written: its mirror
    // begins with every row the hub holds, not only the next change.
    drop(a.daemon.take());
    a.run(&hub, None);
    let sent = b
        .cli()
        .args(["followup", "reviewer", "and again"])
        .output()
        .unwrap();
    assert!(sent.status.success());
    let b_rows = |a: &Host| -> Vec<Value> {
        let v = tree_json(a, &["--fleet"]);
        v["hosts"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|h| h["host"] == "b")
            .flat_map(|h| h["rows"].as_array().unwrap().clone())
            .collect()
    };
    wait_for(
        "host b's next change to reach host a",
        || {
            b_rows(&a)
                .iter()
                .any(|r| r["name"] == "reviewer" && r["pending"] == 2)
        },
        &|| all_logs(&hub, &[&a, &b]),
    );
    assert_eq!(b_rows(&a).len(), 2, "{:?}", b_rows(&a));
}

/// `usage --fleet`: each host's token counts added up from its session
/// rows (this host's read now), and the fleet's total: host b's is what
/// `usage` on host b counts.
#[test]
#[ignore = "needs nats-server: scripts/test-fleet.sh"]
fn usage_across_the_fleet_adds_up_each_hosts_rows() {
    let (hub, a, b) = two_hosts(Host::of_store("b", "rc8-cli"));
    let logs = || all_logs(&hub, &[&a, &b]);
    let json = |h: &Host, args: &[&str]| -> Value {
        let out = h.cli().arg("--json").args(args).output().unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    // What host b counts of itself.
    let mut want = [0u64; 2];
    for row in json(&b, &["usage"])["rows"].as_array().unwrap() {
        want[0] += row["tokens"]["inputTokens"].as_u64().unwrap();
        want[1] += row["tokens"]["outputTokens"].as_u64().unwrap();
    }
    assert!(want[0] > 0, "the store holds counted calls");
    let host_b = || {
        json(&a, &["usage", "--fleet"])["hosts"]
            .as_array()
            .unwrap()
            .iter()
            .find(|h| h["host"] == "b")
            .cloned()
    };
    wait_for(
        "host b's rows to reach host a",
        || host_b().is_some_and(|h| h["sessions"] == 2),
        &logs,
    );
    let b_row = host_b().unwrap();
    assert_eq!(b_row["state"], "live");
    assert_eq!(b_row["tokens"]["inputTokens"], want[0]);
    assert_eq!(b_row["tokens"]["outputTokens"], want[1]);
    let all = json(&a, &["usage", "--fleet"]);
    assert_eq!(
        all["tokens"]["inputTokens"], want[0],
        "host a counts nothing"
    );
    let text = a.cli().args(["usage", "--fleet"]).output().unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.starts_with("HOST"), "{text}");
    assert!(
        text.lines()
            .any(|l| l.starts_with("a ") && l.contains("this host")),
        "{text}"
    );
    assert!(text.lines().last().unwrap().starts_with("TOTAL"), "{text}");
}

/// `check --fleet`: this store checked as `check` does, then every session
/// another host's rows call a problem (here DSH cannot resume two of host
/// b's), and the command fails for them.
#[test]
#[ignore = "needs nats-server: scripts/test-fleet.sh"]
fn check_across_the_fleet_names_the_other_hosts_problems() {
    let (hub, a, b) = two_hosts(Host::of_store("b", "rc8-inbox-invalid"));
    let logs = || all_logs(&hub, &[&a, &b]);
    let check = || a.cli().args(["check", "--fleet"]).output().unwrap();
    wait_for(
        "host b's rows to reach host a",
        || String::from_utf8_lossy(&check().stdout).contains("host b:"),
        &logs,
    );
    let out = check();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{text}");
    let problems: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("error: host b: "))
        .collect();
    assert_eq!(problems.len(), 2, "{text}");
    assert!(
        problems.iter().all(|l| l.ends_with(": unresumable")),
        "{text}"
    );
    assert!(
        text.lines()
            .last()
            .unwrap()
            .ends_with("; 2 problem(s) on 1 other host(s)"),
        "{text}"
    );
    // Host b's own check agrees.
    let own = b.cli().arg("check").output().unwrap();
    assert!(String::from_utf8_lossy(&own.stdout).contains("2 problem(s)"));
}

/// `log`, `inbox` and `trace` of an agent on another host print what they
/// print there (an error too, said as that host's), asked of its daemon
/// over the hub; with that daemon gone the read says no host answered.
#[test]
#[ignore = "needs nats-server: scripts/test-fleet.sh"]
fn reads_of_another_hosts_agent_print_what_they_print_there() {
    let (hub, a, mut b) = two_hosts(Host::of_store("b", "team"));
    b.cli()
        .args(["followup", "reviewer", "look again", "--id", "t-1"])
        .assert()
        .success();
    let cases: [(&[&str], &[&str]); 6] = [
        (
            &["log", "b:rev-0001", "--last", "2"],
            &["log", "rev-0001", "--last", "2"],
        ),
        (&["log", "b:reviewer"], &["log", "reviewer"]),
        (&["inbox", "b:reviewer"], &["inbox", "reviewer"]),
        (
            &["--json", "inbox", "b:reviewer"],
            &["--json", "inbox", "reviewer"],
        ),
        (
            &["trace", "t-1", "--to", "b:reviewer"],
            &["trace", "t-1", "--to", "reviewer"],
        ),
        (&["log", "b:nobody"], &["log", "nobody"]),
    ];
    for (here, there) in cases {
        let want = b.cli().args(there).output().unwrap();
        let got = a.cli().args(here).output().unwrap();
        assert_eq!(
            got.status.code(),
            want.status.code(),
            "{here:?}\n{}\n{}",
            String::from_utf8_lossy(&got.stderr),
            all_logs(&hub, &[&a, &b])
        );
        if want.status.success() {
            assert!(!want.stdout.is_empty(), "{there:?}");
            assert_eq!(
                String::from_utf8_lossy(&got.stdout),
                String::from_utf8_lossy(&want.stdout),
                "{here:?}"
            );
        } else {
            let said = String::from_utf8_lossy(&want.stderr);
            let said = said.trim().trim_start_matches("Error: ");
            assert_eq!(
                String::from_utf8_lossy(&got.stderr).trim(),
                format!("Error: host b: {said}"),
                "{here:?}"
            );
        }
    }
    // Following another host's log is refused, saying so.
    let got = a
        .cli()
        .args(["log", "b:reviewer", "--follow"])
        .output()
        .unwrap();
    assert_eq!(got.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&got.stderr).contains("--follow of an agent on another host"),
        "{}",
        String::from_utf8_lossy(&got.stderr)
    );
    // Host b's daemon gone: no one answers its reads.
    drop(b.daemon.take());
    let got = a.cli().args(["inbox", "b:reviewer"]).output().unwrap();
    let err = String::from_utf8_lossy(&got.stderr);
    assert_eq!(
        got.status.code(),
        Some(3),
        "{err}\n{}",
        all_logs(&hub, &[&a, &b])
    );
    assert!(err.contains("host b did not answer"), "{err}");
    // Nothing of the asks is left in a's fleet files.
    let left: Vec<String> = std::fs::read_dir(a.path().join(".fleet"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("ask") || n.starts_with("answer"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// A network namespace joined to this one by a veth pair: inside it a
/// daemon reaches the hub only over the link, which the test takes down
/// and up. Both are removed when dropped.
struct Netns {
    name: String,
    /// The link's end inside the namespace.
    inner: String,
    /// This side's address (where the hub listens).
    outside: String,
}

impl Netns {
    /// None where this machine cannot make one (not root, no `ip`).
    fn create() -> Option<Netns> {
        let id = std::process::id();
        let name = format!("dshp{id}");
        let (outer, inner) = (format!("dsho{id}"), format!("dshi{id}"));
        let net = format!("10.213.{}.{}", (id >> 6) & 255, (id & 63) * 4);
        let base: Vec<u8> = net.split('.').map(|p| p.parse().unwrap()).collect();
        let at = |k: u8| format!("{}.{}.{}.{}", base[0], base[1], base[2], base[3] + k);
        let ns = Netns {
            name: name.clone(),
            inner: inner.clone(),
            outside: at(1),
        };
        let ip = |args: &[&str]| {
            Command::new("ip")
                .args(args)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        };
        // The first step that fails leaves what it made to Drop.
        if !ip(&["netns", "add", &name]) {
            return None;
        }
        let (out_addr, in_addr) = (format!("{}/30", at(1)), format!("{}/30", at(2)));
        let made = ip(&[
            "link", "add", &outer, "type", "veth", "peer", "name", &inner,
        ]) && ip(&["link", "set", &inner, "netns", &name])
            && ip(&["addr", "add", &out_addr, "dev", &outer])
            && ip(&["link", "set", &outer, "up"])
            && ip(&[
                "netns", "exec", &name, "ip", "addr", "add", &in_addr, "dev", &inner,
            ])
            && ip(&["netns", "exec", &name, "ip", "link", "set", "lo", "up"])
            && ip(&["netns", "exec", &name, "ip", "link", "set", &inner, "up"]);
        made.then_some(ns)
    }

    /// Bring the link up or take it down (from inside: the hub's side keeps
    /// its address, so the other hosts still reach the hub).
    fn link(&self, up: bool) {
        let state = if up { "up" } else { "down" };
        let ok = Command::new("ip")
            .args([
                "netns",
                "exec",
                &self.name,
                "ip",
                "link",
                "set",
                &self.inner,
                state,
            ])
            .status()
            .unwrap();
        assert!(ok.success(), "ip link set {} {state}", self.inner);
    }
}

impl Drop for Netns {
    fn drop(&mut self) {
        // Deleting the namespace deletes the veth pair with it.
        let _ = Command::new("ip")
            .args(["netns", "del", &self.name])
            .stderr(Stdio::null())
            .status();
    }
}

#[test]
#[ignore = "needs nats-server: scripts/test-fleet.sh"]
fn a_host_cut_off_by_its_link_shows_unreachable_and_its_sends_both_ways_land_once_when_it_is_back()
{
    let Some(net) = Netns::create() else {
        // scripts/test-fleet.sh asks for it as root: there it must run.
        assert!(
            std::env::var_os("DSH_AGENTS_REQUIRE_NETNS").is_none(),
            "DSH_AGENTS_REQUIRE_NETNS is set and no network namespace could be made"
        );
        eprintln!(
            "SKIPPED: no network namespace here (needs root and `ip`); the partition is not tested"
        );
        return;
    };
    let hub = Hub::start_on(&net.outside, &["a", "b"], 1, &[], false);
    let mut a = Host::new("a");
    let mut b = Host::new("b");
    b.netns = Some(net.name.clone());
    a.run(&hub, None);
    b.run(&hub, None);
    let logs = |a: &Host, b: &Host| all_logs(&hub, &[a, b]);
    let b_live = |a: &Host| a.hears_live("b");
    wait_for("b heard live", || b_live(&a) == Some(true), &|| {
        logs(&a, &b)
    });
    net.link(false);
    let cut = Instant::now();
    a.followup("b:lead", "across the cut", "x-1");
    b.followup("a:lead", "from the far side", "x-2");
    wait_for("b shown unreachable", || b_live(&a) == Some(false), &|| {
        logs(&a, &b)
    });
    // The hub holds a's mail; b's waits in b's outbox.
    assert_eq!(a.level("x-1").as_deref(), Some("in-the-fleet"));
    assert_eq!(b.level("x-2").as_deref(), Some("queued"));
    assert_eq!(b.inbox_records("x-1"), 0);
    assert_eq!(a.inbox_records("x-2"), 0);
    // Ten seconds apart at least, as a cut that outlives a heartbeat or two.
    std::thread::sleep(Duration::from_secs(10).saturating_sub(cut.elapsed()));
    assert_eq!(
        b.level("x-2").as_deref(),
        Some("queued"),
        "{}",
        logs(&a, &b)
    );
    net.link(true);
    wait_for(
        "x-1 accepted once b is back",
        || a.level("x-1").as_deref() == Some("accepted"),
        &|| logs(&a, &b),
    );
    wait_for(
        "x-2 accepted once b is back",
        || b.level("x-2").as_deref() == Some("accepted"),
        &|| logs(&a, &b),
    );
    wait_for("b live again", || b_live(&a) == Some(true), &|| {
        logs(&a, &b)
    });
    assert_eq!(b.inbox_records("x-1"), 1, "{}", logs(&a, &b));
    assert_eq!(a.inbox_records("x-2"), 1, "{}", logs(&a, &b));
}
