//! The operator acting as the user: `followup` (next turn), `steer` (next
//! step) and `interrupt`, framed as DSH frames user input.

use crate::error::{Error, Result};
use crate::inbox::deliver::NewMessage;
use crate::inbox::framing::{Framing, InterruptCause};
use crate::inbox::{Inbox, Limits, Receipt, Target};
use crate::tree::Corpus;
use dsh_store::accel::ScanCache;

/// Deliver `message` to `target`'s `list` as the user.
pub fn send_as_user(
    corpus: &Corpus,
    target: usize,
    message: &str,
    list: Target,
    id: Option<String>,
    limits: Limits,
) -> Result<(String, Receipt)> {
    let rec = corpus.record(target);
    let new = NewMessage {
        target: list,
        framing: Framing::User,
        text: message,
        id,
    };
    let receipt = Inbox::new(&rec.dir()).deliver(new, limits)?;
    let text = match list {
        Target::NextTurn => format!(
            "message queued as the next turn for agent {}",
            rec.header.id()
        ),
        Target::NextStep => format!(
            "message queued as next-step input for agent {}",
            rec.header.id()
        ),
    };
    Ok((text, receipt))
}

/// The operator's interrupt, with the user's authority.
pub fn interrupt_as_user(corpus: &Corpus, target: usize, limits: Limits) -> Result<String> {
    interrupt_as_user_once(corpus, target, limits, None)
}

/// As `interrupt_as_user`; with an `id` (a fleet mail's), applied once
/// however often it comes.
pub fn interrupt_as_user_once(
    corpus: &Corpus,
    target: usize,
    limits: Limits,
    id: Option<&str>,
) -> Result<String> {
    let cache = ScanCache::default();
    let reached = crate::tools::interrupt_agent::request_once(
        corpus,
        &cache,
        target,
        InterruptCause::User,
        limits,
        id,
    )?;
    if !reached {
        // A refusal writes nothing, not even a cache.
        return Err(crate::error::Error::tool(format!(
            "agent {} is not running: no DSH process or serve holds it, so there is no turn to stop; nothing was written",
            corpus.id(target)
        )));
    }
    cache.commit();
    Ok(format!(
        "interrupt requested for agent {}",
        corpus.id(target)
    ))
}

/// Operator delivery and `serve` need a session that can run a turn.
pub fn refuse_unrunnable(corpus: &Corpus, target: usize) -> Result<()> {
    let cache = ScanCache::default();
    corpus.runnable(&cache, target).map_err(|why| {
        Error::usage(format!(
            "agent \"{}\" cannot run a turn: {}; nothing was written",
            corpus.id(target),
            why.why()
        ))
    })
}

/// An operator interrupt needs a turn that can be running: a session whose
/// log cannot be used, or a one-shot that is not live (its one turn is
/// over, and it never runs another), is refused. A live one-shot and an
/// external execution (which an interrupt stops for good) take it.
pub fn refuse_uninterruptible(corpus: &Corpus, target: usize) -> Result<()> {
    use crate::tree::v2::NotRunnable;
    let cache = ScanCache::default();
    match corpus.runnable(&cache, target) {
        Ok(()) | Err(NotRunnable::External) => Ok(()),
        Err(NotRunnable::OneShot) if corpus.live(target).is_live() => Ok(()),
        Err(why) => Err(Error::usage(format!(
            "agent \"{}\" has no turn to interrupt: {}; nothing was written",
            corpus.id(target),
            why.why()
        ))),
    }
}
