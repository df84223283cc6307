//! One host's durable pull consumer on a work-queue stream (its mail, its
//! receipts): its messages as they come, and the consumer made again when
//! the hub stops handing them out.
//!
//! Invariant: a consumer is made again only when the hub holds messages on
//! this host's subject and has handed none out (nor out again) for three
//! of its ack waits. NATS servers have been seen to keep messages in a
//! work-queue stream that its consumer no longer hands out (nats-server
//! issues 4736 and 7680); a new consumer starts at the first message still
//! held. Whatever it hands out a second time lands once: the inbox keeps
//! each id once, and a receipt only raises a send's level.

use super::error::FleetError;
use super::local::Local;
use super::mail::{
    MAIL_STREAM, RECEIPT_STREAM, mail_consumer, mail_subject, receipt_consumer, receipt_subject,
};
use async_nats::jetstream::{
    self, consumer::pull, consumer::pull::MessagesError, context::Context,
};
use futures_util::StreamExt;
use std::time::Duration;
use tokio::time::Instant;

/// How often a consumer is looked at for a stall: once its ack wait,
/// within these.
const LOOK_LEAST: Duration = Duration::from_secs(1);
const LOOK_MOST: Duration = Duration::from_secs(30);

/// The least time without a hand-out that counts as a stall, whatever the
/// ack wait (a short one in tests would otherwise take a slow hub for one).
const LEAST_STALL: Duration = Duration::from_secs(5);

/// This host's consumer of one stream, and its subject there.
pub struct Queue<'a> {
    js: &'a Context,
    local: &'a Local,
    stream: &'static str,
    consumer: String,
    subject: String,
}

/// What the last look at a consumer saw: how far it had handed out, since
/// when.
struct Watch {
    handed_out: Option<u64>,
    since: Instant,
}

impl Watch {
    fn new() -> Watch {
        Watch {
            handed_out: None,
            since: Instant::now(),
        }
    }
}

impl<'a> Queue<'a> {
    /// Host `host`'s mail.
    pub fn mail(js: &'a Context, local: &'a Local, host: &str) -> Queue<'a> {
        Queue {
            js,
            local,
            stream: MAIL_STREAM,
            consumer: mail_consumer(host),
            subject: mail_subject(host),
        }
    }

    /// The receipts of host `host`'s sends.
    pub fn receipts(js: &'a Context, local: &'a Local, host: &str) -> Queue<'a> {
        Queue {
            js,
            local,
            stream: RECEIPT_STREAM,
            consumer: receipt_consumer(host),
            subject: receipt_subject(host),
        }
    }

    async fn stream(&self) -> Result<jetstream::stream::Stream, FleetError> {
        self.js
            .get_stream(self.stream)
            .await
            .map_err(|e| FleetError::hub("find a stream of the fleet (run `fleet init`)", e))
    }

    /// The consumer, as the hub has it; made again as it was when this
    /// daemon deleted it to make it again and died before it did.
    pub async fn find(&self) -> Result<jetstream::consumer::PullConsumer, FleetError> {
        self.find_in(&self.stream().await?).await
    }

    async fn find_in(
        &self,
        stream: &jetstream::stream::Stream,
    ) -> Result<jetstream::consumer::PullConsumer, FleetError> {
        const LOST: &str = "find this host's consumer (run `fleet init`)";
        match self.local.kept_ack_wait(&self.consumer)? {
            Some(ack_wait) => {
                let config = consumer_config(&self.consumer, &self.subject, ack_wait);
                stream
                    .get_or_create_consumer(&self.consumer, config)
                    .await
                    .map_err(|e| FleetError::hub(LOST, e))
            }
            None => stream
                .get_consumer::<pull::Config>(&self.consumer)
                .await
                .map_err(|e| FleetError::hub(LOST, e)),
        }
    }

    /// Take the consumer's messages as they come, those already handed
    /// over together (up to `chunk`), each chunk through `take`; a consumer
    /// the hub stopped handing out is made again, with a line saying so.
    /// It is looked at once an ack wait (1 to 30 s): one question to the
    /// hub while it hands out, two while it does not.
    pub async fn consume<F, Fut>(&self, chunk: usize, mut take: F) -> Result<(), FleetError>
    where
        F: FnMut(Vec<Result<jetstream::Message, MessagesError>>) -> Fut,
        Fut: std::future::Future<Output = Result<(), FleetError>>,
    {
        loop {
            let stream = self.stream().await?;
            let mut consumer = self.find_in(&stream).await?;
            let ack_wait = consumer.cached_info().config.ack_wait;
            let mut chunks = consumer
                .messages()
                .await
                .map_err(|e| FleetError::hub("take messages", e))?
                .ready_chunks(chunk);
            let mut watch = Watch::new();
            let mut look = tokio::time::interval(ack_wait.clamp(LOOK_LEAST, LOOK_MOST));
            let held = loop {
                tokio::select! {
                    taken = chunks.next() => match taken {
                        Some(taken) => take(taken).await?,
                        None => return Err(FleetError::hub("take messages", "the subscription ended")),
                    },
                    _ = look.tick() => {
                        if let Some(held) = self.stalled(&stream, &mut consumer, &mut watch).await {
                            break held;
                        }
                    }
                }
            };
            say!(
                "the hub holds {held} message(s) on {} and has handed none out \
                 for three ack waits; its consumer {} is made again",
                self.subject,
                self.consumer
            );
            drop(chunks);
            self.make_again(&stream, ack_wait).await?;
        }
    }

    /// How many messages the hub holds for this host when it has handed
    /// none out since three of its ack waits; `None` while it hands out,
    /// holds nothing, or cannot be asked (a hub that cannot answer is no
    /// sign of a stall).
    async fn stalled(
        &self,
        stream: &jetstream::stream::Stream,
        consumer: &mut jetstream::consumer::PullConsumer,
        watch: &mut Watch,
    ) -> Option<u64> {
        let info = consumer.info().await.ok()?;
        let handed_out = info.delivered.consumer_sequence;
        let stall = info.config.ack_wait.saturating_mul(3).max(LEAST_STALL);
        if watch.handed_out != Some(handed_out) {
            watch.handed_out = Some(handed_out);
            watch.since = Instant::now();
            return None;
        }
        let held = held(stream, &self.subject).await?;
        if held == 0 {
            watch.since = Instant::now();
            return None;
        }
        (watch.since.elapsed() >= stall).then_some(held)
    }

    /// Make the consumer again as it was: it hands out every message the
    /// hub still holds on this host's subject, from the first.
    async fn make_again(
        &self,
        stream: &jetstream::stream::Stream,
        ack_wait: Duration,
    ) -> Result<(), FleetError> {
        self.local.keep_ack_wait(&self.consumer, ack_wait)?;
        stream
            .delete_consumer(&self.consumer)
            .await
            .map_err(|e| FleetError::hub("delete this host's stalled consumer", e))?;
        crate::support::fault::fault("fleet-after-consumer-delete");
        // Made until the hub takes it: gone, nothing would hand out this
        // host's messages (a daemon started later makes it from the ack
        // wait kept).
        loop {
            let config = consumer_config(&self.consumer, &self.subject, ack_wait);
            match stream.create_consumer(config).await {
                Ok(_) => return Ok(()),
                Err(e) => {
                    say!(
                        "consumer {} not made yet ({e}); trying again",
                        self.consumer
                    );
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
            }
        }
    }

    /// Pause the consumer for an hour (the `fleet-pause-mail` fault: a
    /// consumer that hands nothing out while the hub holds its mail).
    pub async fn pause(&self) -> Result<(), FleetError> {
        let until = async_nats::datetime::add_std_duration(async_nats::datetime::now(), HOUR)
            .map_err(|e| FleetError::hub("pause this host's consumer", e))?;
        self.stream()
            .await?
            .pause_consumer(&self.consumer, until)
            .await
            .map_err(|e| FleetError::hub("pause this host's consumer", e))?;
        Ok(())
    }
}

const HOUR: Duration = Duration::from_secs(3600);

/// How `fleet init` makes host consumer `name` on `subject`, and how a
/// stalled one is made again.
pub fn consumer_config(name: &str, subject: &str, ack_wait: Duration) -> pull::Config {
    pull::Config {
        durable_name: Some(name.to_string()),
        filter_subject: subject.to_string(),
        ack_policy: jetstream::consumer::AckPolicy::Explicit,
        ack_wait,
        ..Default::default()
    }
}

/// How many messages `stream` holds on `subject`.
async fn held(stream: &jetstream::stream::Stream, subject: &str) -> Option<u64> {
    use futures_util::TryStreamExt;
    let mut subjects = stream.info_with_subjects(subject).await.ok()?;
    let mut n = 0;
    while let Some((_, count)) = subjects.try_next().await.ok()? {
        n += u64::try_from(count).unwrap_or(u64::MAX);
    }
    Some(n)
}
