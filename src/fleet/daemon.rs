//! The one process per host that speaks NATS (`fleet run`), and
//! `fleet init` (the hub's streams, bucket and consumers, idempotent).
//!
//! The daemon runs three loops on one current-thread runtime:
//! - the forwarder publishes the outbox from its cursor, each mail with
//!   `Nats-Msg-Id` = its id, and moves the cursor only after the hub's ack
//!   (a crash between them publishes the mail again: same id, deduplicated
//!   by the hub within its window, and by the target inbox after it);
//! - the receiver takes this host's mail from its durable pull consumer,
//!   appends each through the inbox's keyed path (`followup --id`), which
//!   fsyncs, then publishes the sender's receipt, and only then
//!   double-acks (a crash before the ack redelivers the mail, the inbox
//!   writes nothing for an id it holds, and the receipt goes again);
//! - the receipts loop keeps the receipts of this host's sends.
//!
//! Every loop that talks to the hub starts again when the hub fails it:
//! an outage holds the daemon, never ends it.
//!
//! A heartbeat goes to the hosts bucket, and every host's is kept in
//! `.fleet/hosts.json` for `fleet status`. What cannot be delivered for good
//! (no such agent, an id reused with other text) is refused by receipt and
//! taken off the queue; what fails for now (a lock held, the store
//! unreadable) is retried.

use super::ask::{Answer, AskMail, ask_subject};
use super::error::FleetError;
use super::local::{Beat, Following, Local, Membership};
use super::mail::{
    HOSTS_BUCKET, Level, MAIL_STREAM, Mail, RECEIPT_STREAM, ROWS_BUCKET, Receipt, mail_consumer,
    mail_subject, receipt_consumer, receipt_subject,
};
use super::queue::Queue;
use crate::inbox::{Limits, Target};
use crate::support::clock::now_ms;
use async_nats::jetstream::{self, AckKind, consumer::pull::MessagesError, context::Context};
use futures_util::StreamExt;
use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

/// How often the outbox is looked at when nothing said it changed: a send
/// wakes the forwarder at once (inotify on `.fleet/`), this is the net
/// under that hint.
const OUTBOX_TICK: Duration = Duration::from_secs(1);
const HEARTBEAT: Duration = Duration::from_secs(5);

fn runtime() -> Result<tokio::runtime::Runtime, FleetError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| FleetError::io("<runtime>", e))
}

/// The credential seed: a FIFO or device in its place is an error naming
/// it, never a read that waits.
fn read_seed(path: &Path) -> Result<String, FleetError> {
    use std::io::Read;
    let mut text = String::new();
    dsh_store::files::open_regular(path)
        .map_err(|e| match e {
            dsh_store::StoreError::Io { source, .. } => FleetError::io(path, source),
            other => FleetError::Corrupt {
                path: path.to_path_buf(),
                why: other.reason(),
            },
        })?
        .read_to_string(&mut text)
        .map_err(|e| FleetError::io(path, e))?;
    Ok(text.trim().to_string())
}

/// Whether the hub said this connection's credential may not do what it
/// asked (a permissions violation): set from the client's event callback.
#[derive(Clone, Default)]
struct Refusals(std::sync::Arc<std::sync::atomic::AtomicBool>);

impl Refusals {
    fn seen(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::SeqCst)
    }

    fn note(&self, event: &async_nats::Event) {
        // The server's only signal is its protocol error line
        // (`-ERR 'Permissions Violation for Publish to "…"'`); the client
        // passes it on as text.
        let refused = match event {
            async_nats::Event::ServerError(async_nats::ServerError::AuthorizationViolation) => true,
            async_nats::Event::ServerError(async_nats::ServerError::Other(text)) => {
                text.to_ascii_lowercase().contains("permissions violation")
            }
            _ => false,
        };
        if refused {
            self.0.store(true, std::sync::atomic::Ordering::SeqCst);
        }
    }
}

async fn connect(
    hub: &str,
    creds: &Path,
    tls_ca: Option<&Path>,
    name: &str,
) -> Result<(Context, Refusals), FleetError> {
    let seed = read_seed(creds)?;
    let urls: Vec<String> = hub.split(',').map(|s| s.trim().to_string()).collect();
    let refusals = Refusals::default();
    let noted = refusals.clone();
    let mut options = async_nats::ConnectOptions::new()
        .nkey(seed)
        .name(name)
        .event_callback(move |event| {
            noted.note(&event);
            async {}
        })
        .retry_on_initial_connect();
    if let Some(ca) = tls_ca {
        options = options.require_tls(true).add_root_certificates(ca.into());
    }
    let client = options
        .connect(urls.as_slice())
        .await
        .map_err(|e| FleetError::hub("connect", e))?;
    Ok((jetstream::new(client), refusals))
}

/// How the hub keeps the fleet's streams.
#[derive(Debug, Clone, Copy)]
pub struct Streams {
    /// Copies of every stream and bucket.
    pub replicas: usize,
    /// A mail taken and not acked within it is handed out again.
    pub ack_wait: Duration,
    /// A mail republished under its id within it is dropped by the hub.
    pub dedup_window: Duration,
}

/// Create (or leave as they are) the streams, the hosts bucket and one
/// mail and one receipts consumer per host.
pub fn init(
    hub: &str,
    creds: &Path,
    tls_ca: Option<&Path>,
    hosts: &[String],
    how: &Streams,
) -> Result<(), FleetError> {
    for h in hosts {
        if !super::address::valid_host(h) {
            return Err(FleetError::BadHost { host: h.clone() });
        }
    }
    runtime()?.block_on(async {
        let (js, _) = connect(hub, creds, tls_ca, "dsh-agents fleet init").await?;
        // A hub just started elects its leaders first; until then every
        // request times out. Wait for it, up to a minute.
        let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
        loop {
            match create(&js, hosts, how).await {
                Err(e) if tokio::time::Instant::now() < deadline => {
                    say!("the hub is not ready ({e}); trying again");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
                done => return done,
            }
        }
    })
}

async fn create(js: &Context, hosts: &[String], how: &Streams) -> Result<(), FleetError> {
    let Streams {
        replicas,
        ack_wait,
        dedup_window,
    } = *how;
    let mail = js
        .get_or_create_stream(jetstream::stream::Config {
            name: MAIL_STREAM.into(),
            subjects: vec!["mail.*".into()],
            retention: jetstream::stream::RetentionPolicy::WorkQueue,
            num_replicas: replicas,
            duplicate_window: dedup_window,
            ..Default::default()
        })
        .await
        .map_err(|e| FleetError::hub("create the mail stream", e))?;
    let receipts = js
        .get_or_create_stream(jetstream::stream::Config {
            name: RECEIPT_STREAM.into(),
            subjects: vec!["receipts.*".into()],
            retention: jetstream::stream::RetentionPolicy::WorkQueue,
            num_replicas: replicas,
            duplicate_window: dedup_window,
            ..Default::default()
        })
        .await
        .map_err(|e| FleetError::hub("create the receipts stream", e))?;
    for (bucket, what) in [
        (HOSTS_BUCKET, "create the hosts bucket"),
        (ROWS_BUCKET, "create the rows bucket"),
    ] {
        js.create_or_update_key_value(jetstream::kv::Config {
            bucket: bucket.into(),
            history: 1,
            num_replicas: replicas,
            ..Default::default()
        })
        .await
        .map_err(|e| FleetError::hub(what, e))?;
    }
    for h in hosts {
        for (stream, name, subject) in [
            (&mail, mail_consumer(h), mail_subject(h)),
            (&receipts, receipt_consumer(h), receipt_subject(h)),
        ] {
            stream
                .get_or_create_consumer(
                    &name,
                    super::queue::consumer_config(&name, &subject, ack_wait),
                )
                .await
                .map_err(|e| FleetError::hub("create a consumer", e))?;
        }
    }
    Ok(())
}

/// Make `store` host `m.host` of the fleet and serve it until the hub
/// connection or a loop fails for good.
pub fn run(store: &Path, m: &Membership, limits: Limits) -> Result<(), FleetError> {
    let local = Local::of(store);
    let _lock = local.daemon_lock()?;
    local.join(m)?;
    let m = m.clone();
    runtime()?.block_on(async move {
        let name = format!("dsh-agents fleet run {}", m.host);
        let (js, refusals) = connect(&m.hub, &m.creds, m.tls_ca.as_deref(), &name).await?;
        // Once, before the loops: a hub that is down or electing holds the
        // daemon here; a credential the hub refuses this host's mail ends
        // it with the reason.
        loop {
            match probe(&js, &m, &local).await {
                Ok(()) => break,
                Err(e) if refusals.seen() => {
                    return Err(FleetError::hub(
                        "read this host's mail: the hub refused this credential (use this host's own)",
                        e,
                    ));
                }
                Err(e) => {
                    say!("{e}; trying again");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
            }
        }
        say!("host {} serving {}", m.host, store.display());
        let store = store.to_path_buf();
        let beats = Beats::default();
        tokio::select! {
            r = forward(&js, &local) => r,
            r = again("take mail", || receive(&js, &m, &store, &local, limits)) => r,
            r = again("tell deliveries", || deliveries(&js, &m, &store, &local)) => r,
            r = again("take receipts", || receipts(&js, &m, &local)) => r,
            r = again("beat", || heartbeat(&js, &m, &local, &beats)) => r,
            r = again("watch the hosts", || watch_hosts(&js, &local, &beats)) => r,
            r = again("write the rows", || super::rows::publish(&js, &m.host, &store)) => r,
            r = again("answer reads", || answer_asks(&js, &m, &store)) => r,
            r = again("mirror the rows", || super::rows::mirror(&js, &local, &m.host)) => r,
        }
    })
}

/// This host's mail consumer, as the hub has it.
async fn probe(js: &Context, m: &Membership, local: &Local) -> Result<(), FleetError> {
    Queue::mail(js, local, &m.host).find().await.map(|_| ())
}

/// Run `step` again after a second whenever the hub fails it (a node
/// down, no quorum, a consumer's heartbeat missed): a hub outage holds
/// the daemon, it does not end it. A failure of this host's own files
/// ends it.
async fn again<F, Fut>(what: &str, mut step: F) -> Result<(), FleetError>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<(), FleetError>>,
{
    loop {
        match step().await {
            Err(e @ FleetError::Hub { .. }) => {
                say!("{what}: {e}; trying again");
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
            other => return other,
        }
    }
}

/// Publish `payload` on `subject` with `id` as its `Nats-Msg-Id` until the
/// hub acknowledges it (a hub that is down holds the caller).
async fn publish_until_acked(js: &Context, subject: String, id: &str, payload: Vec<u8>) {
    loop {
        let sent = js
            .send_publish(
                subject.clone(),
                jetstream::message::PublishMessage::build()
                    .payload(payload.clone().into())
                    .message_id(id),
            )
            .await;
        let acked = match sent {
            Ok(ack) => ack.await.map(|_| ()).map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        };
        match acked {
            Ok(()) => return,
            Err(e) => {
                say!("the hub has not taken {id} yet ({e}); trying again");
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        }
    }
}

/// The most mails taken from the hub at once (those it has handed over).
const RECEIVE_BATCH: usize = 64;

/// The most outbox mails published before their acknowledgements are
/// awaited (and the cursor moved past them, once).
const PUBLISH_BATCH: usize = 64;

/// One message for the hub: its subject, its `Nats-Msg-Id`, its bytes.
struct Outgoing {
    subject: String,
    id: String,
    payload: Vec<u8>,
}

impl Outgoing {
    fn mail(mail: &Mail) -> Outgoing {
        Outgoing {
            subject: mail_subject(&mail.to),
            id: mail.id.clone(),
            payload: serde_json::to_vec(mail).unwrap_or_default(),
        }
    }
}

/// Publish every message of `batch` in order, all before awaiting the
/// hub's acknowledgements (one connection keeps them in order), then await
/// each; one the hub did not take is published again until it does. The
/// caller moves past them (a cursor, an ack) only once this returns, so a
/// crash before that publishes them again under the same Msg-Ids, which
/// the hub and then the target's inbox take once.
async fn publish_all(js: &Context, batch: Vec<Outgoing>) {
    let mut sent = Vec::with_capacity(batch.len());
    for out in batch {
        let publish = js
            .send_publish(
                out.subject.clone(),
                jetstream::message::PublishMessage::build()
                    .payload(out.payload.clone().into())
                    .message_id(&out.id),
            )
            .await;
        sent.push((out, publish));
    }
    for (out, publish) in sent {
        let taken = match publish {
            Ok(ack) => ack.await.is_ok(),
            Err(_) => false,
        };
        if !taken {
            publish_until_acked(js, out.subject, &out.id, out.payload).await;
        }
    }
}

async fn forward(js: &Context, local: &Local) -> Result<(), FleetError> {
    // A thread waits on the fleet directory and wakes the forwarder: a send
    // leaves as soon as its outbox line is written, not at the next tick.
    let changed = std::sync::Arc::new(tokio::sync::Notify::new());
    let waker = changed.clone();
    let dir = local.dir().to_path_buf();
    // It ends once this forwarder is gone (the daemon starts another after
    // a failure, with a watcher of its own).
    std::thread::spawn(move || {
        let watch = crate::inbox::watch::Watcher::new(&dir, false);
        while std::sync::Arc::strong_count(&waker) > 1 {
            watch.wait(OUTBOX_TICK);
            waker.notify_one();
        }
    });
    loop {
        carry_asks(js, local);
        let cursor = local.cursor()?;
        for batch in local.outbox_from(cursor)?.chunks(PUBLISH_BATCH) {
            publish_all(js, batch.iter().map(|(m, _)| Outgoing::mail(m)).collect()).await;
            crate::support::fault::fault("fleet-after-publish");
            if let Some((_, end)) = batch.last() {
                local.set_cursor(*end)?;
            }
        }
        // A permit stored while this pass ran wakes the next one at once.
        let _ = tokio::time::timeout(OUTBOX_TICK, changed.notified()).await;
    }
}

/// How long this daemon waits for another host to answer a read.
const ASK_ANSWER: Duration = Duration::from_secs(10);

/// Carry each read a command left in the fleet files to the host it asks
/// (NATS request and reply), each on a task of its own, and leave the
/// answer (or why none came) for the command.
fn carry_asks(js: &Context, local: &Local) {
    for mail in local.asks() {
        if !local.take_ask(&mail.id) {
            continue;
        }
        let client = js.client();
        let local = local.clone();
        tokio::spawn(async move {
            let answer = match serde_json::to_vec(&mail) {
                Ok(payload) => {
                    let asked = client.request(ask_subject(&mail.to), payload.into());
                    match tokio::time::timeout(ASK_ANSWER, asked).await {
                        Ok(Ok(reply)) => {
                            serde_json::from_slice(&reply.payload).unwrap_or_else(|e| {
                                Answer::unanswered(format!("an answer this build cannot read: {e}"))
                            })
                        }
                        Ok(Err(e)) => {
                            Answer::unanswered(format!("host {} did not answer: {e}", mail.to))
                        }
                        Err(_) => Answer::unanswered(format!(
                            "host {} did not answer in {} s",
                            mail.to,
                            ASK_ANSWER.as_secs()
                        )),
                    }
                }
                Err(e) => Answer::unanswered(e),
            };
            if let Err(e) = local.answer(&mail.id, &answer) {
                say!("{e}");
            }
        });
    }
}

/// Answer the reads other hosts ask of this one, from its store, one at a
/// time; an ask that cannot be read is answered with why.
async fn answer_asks(js: &Context, m: &Membership, store: &Path) -> Result<(), FleetError> {
    use futures_util::StreamExt;
    let client = js.client();
    let mut asks = client
        .subscribe(ask_subject(&m.host))
        .await
        .map_err(|e| FleetError::hub("take reads", e))?;
    while let Some(msg) = asks.next().await {
        let Some(reply) = msg.reply else { continue };
        let answer = match serde_json::from_slice::<AskMail>(&msg.payload) {
            Ok(mail) => {
                let root = store.to_path_buf();
                tokio::task::spawn_blocking(move || super::ask::answer(&root, &mail.ask))
                    .await
                    .unwrap_or_else(Answer::unanswered)
            }
            Err(e) => Answer::unanswered(format!("an ask this build cannot read: {e}")),
        };
        let payload = serde_json::to_vec(&answer).unwrap_or_default();
        client
            .publish(reply, payload.into())
            .await
            .map_err(|e| FleetError::hub("answer a read", e))?;
    }
    Err(FleetError::hub("take reads", "the subscription ended"))
}

/// What became of one mail on this host.
enum Outcome {
    /// In the inbox of this session (`None`: an interrupt, applied).
    Accepted(Option<String>),
    /// For good: the reason goes back to the sender.
    Refused(String),
    /// An interrupt that came after its not-after time: not applied.
    Expired(String),
    /// For now: the hub hands it out again.
    Later(String),
}

/// Do what `mail` asks of its agent on this host: append it to the
/// agent's inbox the way `followup --id` does, or interrupt it.
fn deliver_here(store: &Path, mail: &Mail, limits: Limits) -> Outcome {
    use crate::error::{Error, ErrorKind};
    // Ok(Ok(session)): accepted; Ok(Err(why)): an interrupt expired.
    let attempt = || -> Result<Result<Option<String>, String>, Error> {
        // As `followup`, `interrupt` and `cancel` open it: an agent named by
        // exact id is located by its path, a prefix or a name path reads
        // the whole store.
        let store = dsh_store::open(
            store,
            dsh_store::Plan::Ids {
                ids: &[mail.agent.as_str()],
                up: dsh_store::set::Ancestry::None,
                ahead: None,
            },
        )?;
        let corpus = crate::tree::Corpus::new(&store);
        let at = crate::tree::caller::resolve_agent(&store, &mail.agent)?;
        let target = match mail.target.as_str() {
            crate::fleet::mail::CANCEL => return cancel_here(&corpus, at, mail, limits).map(Ok),
            crate::fleet::mail::INTERRUPT => {
                return Ok(match interrupt_here(&corpus, at, mail, limits)? {
                    Some(why) => Err(why),
                    None => Ok(None),
                });
            }
            "next-step" => Target::NextStep,
            _ => Target::NextTurn,
        };
        crate::operator::deliver::refuse_unrunnable(&corpus, at)?;
        let (_, receipt) = crate::operator::deliver::send_as_user(
            &corpus,
            at,
            &mail.text,
            target,
            Some(mail.id.clone()),
            limits,
        )?;
        if receipt.duplicate {
            // A copy handed out again, or published again past the hub's
            // dedup window: the inbox holds the id, so nothing is written.
            say!(
                "{} is in {}'s inbox already; this copy wrote nothing",
                mail.id,
                mail.agent
            );
        }
        Ok(Ok(Some(corpus.id(at).to_string())))
    };
    match attempt() {
        Ok(Ok(session)) => Outcome::Accepted(session),
        Ok(Err(why)) => Outcome::Expired(why),
        Err(e) if e.kind() == ErrorKind::Store => Outcome::Later(e.to_string()),
        Err(e) => Outcome::Refused(e.to_string()),
    }
}

/// Withdraw the message a cancel mail names the way `cancel` does. One
/// already canceled (by this mail handed out again, or by another cancel)
/// is what was asked: accepted again, nothing written.
fn cancel_here(
    corpus: &crate::tree::Corpus,
    at: usize,
    mail: &Mail,
    limits: Limits,
) -> Result<Option<String>, crate::error::Error> {
    let inbox = crate::inbox::Inbox::new(&corpus.record(at).dir());
    match inbox.cancel(&mail.text, limits) {
        Ok(_) | Err(crate::inbox::DeliveryError::NotPending { claimed: false, .. }) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// Apply an interrupt mail the way `interrupt` does, once however often
/// the hub hands it out (its id is the interrupt record's). One that comes
/// after its not-after time and was not applied before is expired: why,
/// and nothing written.
fn interrupt_here(
    corpus: &crate::tree::Corpus,
    at: usize,
    mail: &Mail,
    limits: Limits,
) -> Result<Option<String>, crate::error::Error> {
    let inbox = crate::inbox::Inbox::new(&corpus.record(at).dir());
    let applied = inbox.interrupt_source(&mail.id)?.is_some();
    if let Some(t) = mail.not_after.filter(|t| !applied && now_ms() > *t) {
        return Ok(Some(format!(
            "the interrupt arrived at {}, after its not-after time {}; it was not applied",
            crate::support::clock::rfc3339(now_ms()),
            crate::support::clock::rfc3339(t)
        )));
    }
    crate::operator::deliver::refuse_uninterruptible(corpus, at)?;
    crate::operator::deliver::interrupt_as_user_once(corpus, at, limits, Some(&mail.id))?;
    Ok(None)
}

async fn receive(
    js: &Context,
    m: &Membership,
    store: &Path,
    local: &Local,
    limits: Limits,
) -> Result<(), FleetError> {
    let queue = Queue::mail(js, local, &m.host);
    if crate::support::fault::set("fleet-pause-mail") {
        queue.pause().await?;
    }
    // The mails the hub has already handed over are taken together: each
    // goes to its inbox in turn, then their receipts go out together and
    // then their acks, two round trips to the hub a batch, not a mail.
    queue
        .consume(RECEIVE_BATCH, |batch| {
            take_mail(js, m, store, local, limits, batch)
        })
        .await
}

async fn take_mail(
    js: &Context,
    m: &Membership,
    store: &Path,
    local: &Local,
    limits: Limits,
    batch: Vec<Result<jetstream::Message, MessagesError>>,
) -> Result<(), FleetError> {
    let mut taken = Vec::with_capacity(batch.len());
    let mut receipts = Vec::with_capacity(batch.len());
    for msg in batch {
        let msg = msg.map_err(|e| FleetError::hub("take mail", e))?;
        let Ok(mail) = serde_json::from_slice::<Mail>(&msg.payload) else {
            say!("a mail that is not one was dropped");
            let _ = msg.ack_with(AckKind::Term).await;
            continue;
        };
        let outcome = deliver_here(store, &mail, limits);
        let (level, reason) = match outcome {
            Outcome::Later(why) => {
                say!("{} to {} waits: {why}", mail.id, mail.agent);
                let _ = msg
                    .ack_with(AckKind::Nak(Some(Duration::from_secs(1))))
                    .await;
                continue;
            }
            Outcome::Accepted(session) => {
                // Followed before the acceptance is told: a crash between
                // them hands the mail out again, and following is once an id.
                if let Some(session) = session {
                    local.follow_delivery(&Following {
                        id: mail.id.clone(),
                        session,
                        from: mail.from.clone(),
                        time: now_ms(),
                    })?;
                }
                (Level::Accepted, None)
            }
            Outcome::Refused(why) => (Level::Refused, Some(why)),
            Outcome::Expired(why) => (Level::Expired, Some(why)),
        };
        crate::support::fault::fault("fleet-before-ack");
        // The receipt first, then the ack: a crash between them hands the
        // mail out again, the inbox writes nothing for the id it holds,
        // and the receipt goes again under the same Msg-Id.
        let receipt = Receipt {
            id: mail.id.clone(),
            host: m.host.clone(),
            level,
            reason,
            time: now_ms(),
        };
        receipts.push(Outgoing {
            subject: receipt_subject(&mail.from),
            id: format!("{}.{}", mail.id, level.word()),
            payload: serde_json::to_vec(&receipt).unwrap_or_default(),
        });
        taken.push(msg);
    }
    publish_all(js, receipts).await;
    let acks = futures_util::future::join_all(taken.iter().map(|msg| msg.double_ack())).await;
    for acked in acks {
        acked.map_err(|e| FleetError::hub("acknowledge a mail", e))?;
    }
    Ok(())
}

async fn receipts(js: &Context, m: &Membership, local: &Local) -> Result<(), FleetError> {
    Queue::receipts(js, local, &m.host)
        .consume(RECEIVE_BATCH, |batch| take_receipts(local, batch))
        .await
}

async fn take_receipts(
    local: &Local,
    batch: Vec<Result<jetstream::Message, MessagesError>>,
) -> Result<(), FleetError> {
    for msg in batch {
        let msg = msg.map_err(|e| FleetError::hub("take receipts", e))?;
        if let Ok(r) = serde_json::from_slice::<Receipt>(&msg.payload) {
            local.record_receipt(&r)?;
        }
        msg.double_ack()
            .await
            .map_err(|e| FleetError::hub("acknowledge a receipt", e))?;
    }
    Ok(())
}

/// How often the accepted messages are looked for in their transcripts.
const DELIVERY_TICK: Duration = Duration::from_millis(500);

/// How long an accepted message is followed at most: one its agent never
/// runs is not read for ever.
const FOLLOW_FOR_MS: i64 = 7 * 86_400_000;

/// Tell each sender when a message accepted here is delivered (in its
/// agent's transcript, as `trace` says): the receipt first, then the
/// message is no longer followed, so a crash between them tells it again
/// under the same Msg-Id. The looking runs off the loop that takes mail,
/// and reads a followed session's log only when it changed.
async fn deliveries(
    js: &Context,
    m: &Membership,
    store: &Path,
    local: &Local,
) -> Result<(), FleetError> {
    let mut seen: Seen = HashMap::new();
    loop {
        let followed = local.followed()?;
        if !followed.is_empty() {
            let (root, list, before) = (store.to_path_buf(), followed.clone(), seen);
            let (done, after) =
                tokio::task::spawn_blocking(move || delivered_of(&root, &list, before))
                    .await
                    .unwrap_or_default();
            seen = after;
            for f in &done {
                let receipt = Receipt {
                    id: f.id.clone(),
                    host: m.host.clone(),
                    level: Level::Delivered,
                    reason: None,
                    time: now_ms(),
                };
                let payload = serde_json::to_vec(&receipt).unwrap_or_default();
                let receipt_id = format!("{}.{}", f.id, Level::Delivered.word());
                publish_until_acked(js, receipt_subject(&f.from), &receipt_id, payload).await;
            }
            let stale = now_ms().saturating_sub(FOLLOW_FOR_MS);
            let mut over: Vec<String> = done.into_iter().map(|f| f.id).collect();
            over.extend(
                followed
                    .iter()
                    .filter(|f| f.time < stale)
                    .map(|f| f.id.clone()),
            );
            if !over.is_empty() {
                local.unfollow(&over)?;
            }
        }
        tokio::time::sleep(DELIVERY_TICK).await;
    }
}

/// Each followed session's log as last read (its stamp).
type Seen = HashMap<String, Option<(u64, u64, i64, i64)>>;

/// The followed messages now in their sessions' transcripts, each log read
/// once and only when it changed since `seen`.
fn delivered_of(store: &Path, followed: &[Following], mut seen: Seen) -> (Vec<Following>, Seen) {
    let mut sessions: Vec<&str> = followed.iter().map(|f| f.session.as_str()).collect();
    sessions.sort_unstable();
    sessions.dedup();
    let Ok(opened) = dsh_store::open(
        store,
        dsh_store::Plan::Ids {
            ids: &sessions,
            up: dsh_store::set::Ancestry::None,
            ahead: None,
        },
    ) else {
        return (Vec::new(), seen);
    };
    let mut done = Vec::new();
    for s in sessions {
        let Some(at) = opened.index_of(s) else {
            continue;
        };
        let log = opened.sessions.record(at).log();
        let stamp = crate::inbox::watch::stamp(&log);
        if stamp.is_some() && seen.get(s) == Some(&stamp) {
            continue;
        }
        seen.insert(s.to_string(), stamp);
        let Ok(messages) = dsh_store::log::LogMessages::read(&log) else {
            continue;
        };
        done.extend(
            followed
                .iter()
                .filter(|f| {
                    f.session == s && messages.state(&f.id) == dsh_store::log::InLog::Transcript
                })
                .cloned(),
        );
    }
    (done, seen)
}

/// Keep `.fleet/hosts.json` as the hub's hosts bucket changes.
/// Every host's last heartbeat, shared by the loop that beats and the
/// one that watches (both on this one thread), kept in `.fleet/hosts.json`.
#[derive(Default)]
struct Beats(std::cell::RefCell<std::collections::BTreeMap<String, Beat>>);

impl Beats {
    fn note(&self, beat: Beat, local: &Local) -> Result<(), FleetError> {
        let all: Vec<Beat> = {
            let mut map = self.0.borrow_mut();
            let newer = map.get(&beat.host).is_none_or(|b| b.time < beat.time);
            if !newer {
                return Ok(());
            }
            map.insert(beat.host.clone(), beat);
            map.values().cloned().collect()
        };
        local.set_beats(&all)
    }
}

async fn watch_hosts(js: &Context, local: &Local, beats: &Beats) -> Result<(), FleetError> {
    let kv = js
        .get_key_value(HOSTS_BUCKET)
        .await
        .map_err(|e| FleetError::hub("find the hosts bucket (run `fleet init`)", e))?;
    // Every key's current value first, then each change: `watch_all` starts
    // at the changes only, and a host that beat before it would wait for
    // its next beat to be heard.
    let mut entries = kv
        .watch_with_history(">")
        .await
        .map_err(|e| FleetError::hub("watch the hosts bucket", e))?;
    while let Some(entry) = entries.next().await {
        let entry = entry.map_err(|e| FleetError::hub("watch the hosts bucket", e))?;
        if let Ok(beat) = serde_json::from_slice::<Beat>(&entry.value) {
            beats.note(beat, local)?;
        }
    }
    Err(FleetError::hub("watch the hosts bucket", "the watch ended"))
}

/// Beat every few seconds; this host's own beat is kept as soon as the hub
/// took it (the watch may start after it).
async fn heartbeat(
    js: &Context,
    m: &Membership,
    local: &Local,
    beats: &Beats,
) -> Result<(), FleetError> {
    let kv = js
        .get_key_value(HOSTS_BUCKET)
        .await
        .map_err(|e| FleetError::hub("find the hosts bucket (run `fleet init`)", e))?;
    loop {
        let beat = Beat {
            host: m.host.clone(),
            time: now_ms(),
        };
        let bytes = serde_json::to_vec(&beat).unwrap_or_default();
        match kv.put(&m.host, bytes.into()).await {
            Ok(_) => beats.note(beat, local)?,
            Err(e) => say!("heartbeat not sent: {e}"),
        }
        tokio::time::sleep(HEARTBEAT).await;
    }
}
