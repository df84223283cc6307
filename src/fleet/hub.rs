//! `fleet config`: the hub's server configurations and one credential per
//! host. The hub is `nodes` nats-servers (3 for a real fleet: every stream
//! replicated 3 ways survives one node), each with JetStream and
//! `sync_interval: always` — the default flushes every 2 minutes, and
//! Jepsen's 2025 analysis of NATS 2.12.1 lost acknowledged messages on
//! power loss with it. Each host gets an NKey and permissions that let it
//! publish mail to any host but read only its own mail and receipts, and
//! write only its own heartbeat; an admin NKey (`fleet init`) manages the
//! streams.

use super::address::valid_host;
use super::error::FleetError;
use super::mail::{
    HOSTS_BUCKET, MAIL_STREAM, RECEIPT_STREAM, ROWS_BUCKET, mail_consumer, mail_subject,
    receipt_consumer, receipt_subject,
};
use std::fmt::Write as _;
use std::io::Read;
use std::path::{Path, PathBuf};

/// What `fleet config` writes.
#[derive(Debug, Clone)]
pub struct Plan {
    pub hosts: Vec<String>,
    pub out: PathBuf,
    pub nodes: usize,
    /// Client ports are `port`, `port + 1`, …; cluster ports `port + 100`, …
    /// (on one address); every node takes `port` on an address of its own.
    pub port: u16,
    /// Where the nodes listen and are dialed: one address for all, or one a node.
    pub addresses: Vec<String>,
    /// TLS on the client and route ports, from the operator's own PKI.
    pub tls: Option<Tls>,
}

/// The hub nodes' certificate and key, and the CA that signed them (which
/// every host trusts with `--tls-ca`, and the nodes trust each other by).
#[derive(Debug, Clone)]
pub struct Tls {
    pub cert: PathBuf,
    pub key: PathBuf,
    pub ca: PathBuf,
}

impl Tls {
    /// The `tls { … }` block a server configuration holds, paths absolute.
    fn block(&self) -> Result<String, FleetError> {
        let abs = |p: &Path| -> Result<String, FleetError> {
            let a = std::path::absolute(p).map_err(|e| FleetError::io(p, e))?;
            // A file that is not there is said now, not by a server at start.
            std::fs::metadata(&a).map_err(|e| FleetError::io(&a, e))?;
            Ok(a.display()
                .to_string()
                .replace('\\', "\\\\")
                .replace('"', "\\\""))
        };
        Ok(format!(
            "tls {{ cert_file: \"{}\", key_file: \"{}\", ca_file: \"{}\", timeout: 5 }}",
            abs(&self.cert)?,
            abs(&self.key)?,
            abs(&self.ca)?
        ))
    }
}

/// One user of the hub: its public key and its permissions.
fn user(public: &str, publish: &[String], subscribe: &[String]) -> String {
    let list = |v: &[String]| {
        v.iter()
            .map(|s| format!("\"{s}\""))
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!(
        "    {{ nkey: {public}, permissions: {{ publish: {{ allow: [{}] }}, subscribe: {{ allow: [{}] }}, allow_responses: true }} }}",
        list(publish),
        list(subscribe)
    )
}

/// What host `h` may publish: mail to any host, receipts to any host,
/// acks and next-message requests of its own consumers, its heartbeat.
fn host_publish(h: &str) -> Vec<String> {
    // Reads of any host's agents (answered on the asker's reply subject:
    // `allow_responses`).
    let mut p = vec![
        "mail.*".to_string(),
        "receipts.*".to_string(),
        "ask.*".to_string(),
    ];
    for (stream, consumer, subject) in [
        (MAIL_STREAM, mail_consumer(h), mail_subject(h)),
        (RECEIPT_STREAM, receipt_consumer(h), receipt_subject(h)),
    ] {
        p.push(format!("$JS.ACK.{stream}.{consumer}.>"));
        p.push(format!("$JS.API.CONSUMER.MSG.NEXT.{stream}.{consumer}"));
        p.push(format!("$JS.API.CONSUMER.INFO.{stream}.{consumer}"));
        p.push(format!("$JS.API.STREAM.INFO.{stream}"));
        // Its own consumer made again when it stalls (queue.rs): only on
        // its own subject, which the create subject carries.
        p.push(format!("$JS.API.CONSUMER.DELETE.{stream}.{consumer}"));
        p.push(format!(
            "$JS.API.CONSUMER.CREATE.{stream}.{consumer}.{subject}"
        ));
        p.push(format!("$JS.API.CONSUMER.PAUSE.{stream}.{consumer}"));
    }
    // Its own heartbeat; every host's, read through an ordered consumer.
    // Its own heartbeat and its own session rows only; every host's of
    // both are read (watched).
    p.push(format!("$KV.{HOSTS_BUCKET}.{h}"));
    p.push(format!("$KV.{ROWS_BUCKET}.{h}.>"));
    for bucket in [HOSTS_BUCKET, ROWS_BUCKET] {
        p.push(format!("$JS.API.STREAM.INFO.KV_{bucket}"));
        p.push(format!("$JS.API.CONSUMER.CREATE.KV_{bucket}"));
        p.push(format!("$JS.API.CONSUMER.CREATE.KV_{bucket}.>"));
        p.push(format!("$JS.API.CONSUMER.DELETE.KV_{bucket}.>"));
        p.push(format!("$JS.API.CONSUMER.INFO.KV_{bucket}.>"));
        p.push(format!("$JS.FC.KV_{bucket}.>"));
    }
    p.push("$JS.API.INFO".to_string());
    p
}

fn write_file(path: &Path, text: &str, private: bool) -> Result<(), FleetError> {
    use std::io::Write;
    let mut o = std::fs::OpenOptions::new();
    o.create(true).write(true).truncate(true);
    if private {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(0o600);
    }
    let mut f = o.open(path).map_err(|e| FleetError::io(path, e))?;
    f.write_all(text.as_bytes())
        .and_then(|()| f.sync_all())
        .map_err(|e| FleetError::io(path, e))
}

/// The name of the file beside the credentials that lists the hosts
/// (`fleet init` reads it when it is not told the hosts).
pub const FLEET_FILE: &str = "fleet.json";

/// The hosts `fleet config` wrote beside the credential `creds`.
pub fn hosts_beside(creds: &Path) -> Result<Vec<String>, FleetError> {
    let path = creds
        .parent()
        .unwrap_or_else(|| Path::new("."))
        .join(FLEET_FILE);
    // A regular file only: a FIFO in its place is an error, not a hang.
    let mut bytes = Vec::new();
    super::local::open_or_none(&path)?
        .ok_or_else(|| FleetError::NoHosts { path: path.clone() })?
        .read_to_end(&mut bytes)
        .map_err(|e| FleetError::io(&path, e))?;
    let v: serde_json::Value = serde_json::from_slice(&bytes).map_err(|e| FleetError::Corrupt {
        path: path.clone(),
        why: e.to_string(),
    })?;
    v.get("hosts")
        .and_then(|h| h.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|h| h.as_str().map(str::to_string))
                .collect()
        })
        .ok_or(FleetError::Corrupt {
            path,
            why: "no \"hosts\" list".into(),
        })
}

/// Write the node configurations (`hub-N.conf`, storage in `hub-N/`),
/// the credentials (`<host>.nk`, `admin.nk`, mode 0600) and `fleet.json`
/// (the hosts and the hub's URLs) into `plan.out`; the files written.
pub fn write(plan: &Plan) -> Result<Vec<PathBuf>, FleetError> {
    for h in &plan.hosts {
        if !valid_host(h) || h == "admin" {
            return Err(FleetError::BadHost { host: h.clone() });
        }
    }
    if plan.addresses.len() != 1 && plan.addresses.len() != plan.nodes {
        return Err(FleetError::AddressCount {
            given: plan.addresses.len(),
            nodes: plan.nodes,
        });
    }
    if let Some(a) = plan.addresses.iter().find(|a| !valid_address(a)) {
        return Err(FleetError::BadAddress { address: a.clone() });
    }
    let out = std::path::absolute(&plan.out).map_err(|e| FleetError::io(&plan.out, e))?;
    std::fs::create_dir_all(&out).map_err(|e| FleetError::io(&out, e))?;
    let mut written = Vec::new();
    let mut users = Vec::new();
    let admin = nkeys::KeyPair::new_user();
    let seed = |k: &nkeys::KeyPair| k.seed().map_err(|e| FleetError::hub("make an NKey", e));
    let path = out.join("admin.nk");
    write_file(&path, &format!("{}\n", seed(&admin)?), true)?;
    written.push(path);
    users.push(user(
        &admin.public_key(),
        &[">".to_string()],
        &[">".to_string()],
    ));
    for h in &plan.hosts {
        let key = nkeys::KeyPair::new_user();
        let path = out.join(format!("{h}.nk"));
        write_file(&path, &format!("{}\n", seed(&key)?), true)?;
        written.push(path);
        users.push(user(
            &key.public_key(),
            &host_publish(h),
            &["_INBOX.>".to_string(), super::ask::ask_subject(h)],
        ));
    }
    let tls = plan.tls.as_ref().map(Tls::block).transpose()?;
    let client = |n: usize| node_port(plan, n);
    let route = |n: usize| node_port(plan, n) + 100;
    for n in 0..plan.nodes {
        let mut c = String::new();
        let _ = writeln!(c, "# dsh-agents fleet hub node {} of {}", n + 1, plan.nodes);
        let _ = writeln!(c, "server_name: hub-{}", n + 1);
        let _ = writeln!(c, "listen: {}:{}", address(plan, n), client(n));
        if let Some(tls) = &tls {
            // Clients must speak TLS and trust the CA; the nodes present
            // the certificate (hosts prove who they are by NKey).
            let _ = writeln!(c, "{tls}");
        }
        let store = out.join(format!("hub-{}", n + 1));
        let _ = writeln!(
            c,
            "jetstream {{ store_dir: \"{}\", sync_interval: always }}",
            store.display()
        );
        if plan.nodes > 1 {
            let routes: Vec<String> = (0..plan.nodes)
                .filter(|m| *m != n)
                .map(|m| format!("\"nats://{}:{}\"", address(plan, m), route(m)))
                .collect();
            // Routes speak TLS too when clients do: the nodes check each
            // other's certificate against the CA.
            let route_tls = tls.as_deref().map_or(String::new(), |t| format!(", {t}"));
            let _ = writeln!(
                c,
                "cluster {{ name: dsh-fleet, listen: {}:{}, routes: [{}]{route_tls} }}",
                address(plan, n),
                route(n),
                routes.join(", ")
            );
        }
        let _ = writeln!(
            c,
            "authorization {{\n  users: [\n{}\n  ]\n}}",
            users.join(",\n")
        );
        let path = out.join(format!("hub-{}.conf", n + 1));
        write_file(&path, &c, false)?;
        written.push(path);
    }
    let path = out.join(FLEET_FILE);
    let about = serde_json::json!({"hosts": plan.hosts, "nats": urls(plan)});
    write_file(&path, &format!("{about:#}\n"), false)?;
    written.push(path);
    Ok(written)
}

/// Node `n`'s address: its own, or the one all share.
fn address(plan: &Plan, n: usize) -> &str {
    plan.addresses
        .get(n)
        .or(plan.addresses.first())
        .map_or("127.0.0.1", String::as_str)
}

/// Node `n`'s client port: consecutive ports when the nodes share an
/// address, the same port on addresses of their own.
fn node_port(plan: &Plan, n: usize) -> usize {
    if plan.addresses.len() > 1 {
        usize::from(plan.port)
    } else {
        usize::from(plan.port) + n
    }
}

/// An IPv4 address or a DNS name: what a URL and a server's `listen` both
/// take as written (nothing that would end the configuration's value).
fn valid_address(a: &str) -> bool {
    !a.is_empty()
        && a.len() <= 253
        && a.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-')
}

/// The hub's client URLs for a plan (what `fleet init --nats` and `fleet run --nats` take).
pub fn urls(plan: &Plan) -> String {
    (0..plan.nodes)
        .map(|n| format!("nats://{}:{}", address(plan, n), node_port(plan, n)))
        .collect::<Vec<_>>()
        .join(",")
}
