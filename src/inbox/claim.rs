//! The claim sequence a step boundary runs (DESIGN §6): look without the
//! lock (an idle agent writes nothing), then lock, re-read, take what is
//! claimable, and record the claim. `serve` and `claim` both use this.

use super::deliver::{Inbox, Limits};
use super::error::DeliveryError;
use super::record::{Message, Record};
use crate::support::clock::now_ms;

/// What one claim took.
#[derive(Debug, Clone, Default)]
pub struct Claimed {
    /// The claimed messages, in claim order.
    pub messages: Vec<Message>,
    /// The newest interrupt when the claim was made (record index).
    pub last_interrupt: Option<usize>,
}

/// Claim all pending next-step input plus one unparked next-turn message.
pub fn claim(inbox: &Inbox, limits: Limits) -> Result<Claimed, DeliveryError> {
    if inbox.read()?.claimable().is_empty() {
        return Ok(Claimed::default());
    }
    let mut guard = inbox.lock(limits.lock_timeout)?;
    let fold = inbox.read()?;
    let messages: Vec<Message> = fold.claimable().into_iter().cloned().collect();
    if !messages.is_empty() {
        let ids = messages.iter().map(|m| m.id.clone()).collect();
        inbox.record(
            &mut guard,
            &Record::Claim {
                time: now_ms(),
                ids,
            },
        )?;
    }
    Ok(Claimed {
        messages,
        last_interrupt: fold.last_interrupt,
    })
}
