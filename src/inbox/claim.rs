//! The claim sequence a step boundary runs (contract §6): look without the
//! lock (an idle agent writes nothing), then lock, re-read, take what is
//! claimable, let the caller record the turn that will run it, and only
//! then append the claim. A crash between the two leaves the message
//! pending (it runs again, in a later turn the log shows); a claim is never
//! written for input no turn recorded. `serve` and `claim` both use this.

use super::deliver::{Inbox, Limits};
use super::error::DeliveryError;
use super::record::{Message, Record};
use crate::support::clock::now_ms;

/// What one claim took.
#[derive(Debug, Clone, Default)]
pub struct Claimed {
    /// The claimed messages, in claim order.
    pub messages: Vec<Message>,
    /// The id of the newest interrupt when the claim was made.
    pub last_interrupt: Option<String>,
    /// The inbox (inode, length) right after the claim: interrupts appended
    /// from there on are new (`Inbox::interrupted_since`).
    pub inbox_at: Option<(u64, u64)>,
}

/// Claim all pending next-step input plus one unparked next-turn message.
/// `record_turn` runs under the inbox lock with the messages about to be
/// claimed, before the claim is written; its failure writes no claim.
pub fn claim_with<T, E: From<DeliveryError>>(
    inbox: &Inbox,
    limits: Limits,
    record_turn: impl FnOnce(&[Message]) -> Result<T, E>,
) -> Result<Option<(Claimed, T)>, E> {
    if inbox
        .read_claimable()
        .map_err(DeliveryError::from)?
        .claimable()
        .is_empty()
    {
        return Ok(None);
    }
    let mut guard = inbox.lock(limits.lock_timeout)?;
    let fold = inbox.read_claimable().map_err(DeliveryError::from)?;
    let messages: Vec<Message> = fold.claimable().into_iter().cloned().collect();
    if messages.is_empty() {
        return Ok(None);
    }
    let recorded = record_turn(&messages)?;
    let ids = messages.iter().map(|m| m.id.clone()).collect();
    inbox
        .record(
            &mut guard,
            &Record::Claim {
                time: now_ms(),
                ids,
            },
        )
        .map_err(DeliveryError::from)?;
    let inbox_at = {
        use std::os::unix::fs::MetadataExt;
        guard.inbox.metadata().ok().map(|m| (m.ino(), guard.len))
    };
    Ok(Some((
        Claimed {
            messages,
            last_interrupt: fold.last_interrupt_id,
            inbox_at,
        },
        recorded,
    )))
}

/// Claim with nothing to record first (the `claim` command).
pub fn claim(inbox: &Inbox, limits: Limits) -> Result<Claimed, DeliveryError> {
    Ok(claim_with(inbox, limits, |_| Ok::<(), DeliveryError>(()))?
        .map(|(c, ())| c)
        .unwrap_or_default())
}
