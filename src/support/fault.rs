//! Crash-test hook: `DSH_AGENTS_FAULT=<stage>` kills the process at that
//! stage (or, for `hold-lock`, holds on forever), so tests can prove a
//! process dying anywhere loses nothing acknowledged and blocks nobody.
//! Stages: inbox appends `after-lock`, `mid-record`, `before-sync`,
//! `hold-lock`; served turns `serve-after-turn-start`, `serve-after-claim`,
//! `serve-before-turn-end`; the bridge `bridge-before-claim` (DSH accepted
//! a delivery, its claim is not written yet). `bridge-slow-hand` instead
//! makes the bridge pause 200 ms before it takes an inbox lock to hand
//! messages on, so a test can race `cancel` against delivery. The fleet
//! daemon: `fleet-after-publish` (the hub took an outbox mail, the cursor
//! is not moved yet), `fleet-before-ack` (a mail is in the target's inbox,
//! neither receipt nor ack sent); `fleet-pause-mail` makes it pause its
//! own mail consumer instead (a hub that holds mail and hands none out),
//! and `fleet-after-consumer-delete` kills it once it deleted a stalled
//! consumer, before it made it again. Stages may be listed with commas.

use std::time::Duration;

pub fn fault(stage: &str) {
    if set(stage) {
        if stage == "bridge-slow-hand" {
            std::thread::sleep(Duration::from_millis(200));
            return;
        }
        if stage == "hold-lock" {
            loop {
                std::thread::sleep(Duration::from_secs(3600));
            }
        }
        std::process::abort();
    }
}

/// Whether fault `stage` is set: for the faults a process acts out rather
/// than dies of (`fleet-pause-mail`: the daemon pauses its own mail
/// consumer for an hour, a consumer that hands nothing out while the hub
/// holds its mail).
pub fn set(stage: &str) -> bool {
    std::env::var("DSH_AGENTS_FAULT").is_ok_and(|s| s.split(',').any(|s| s == stage))
}

/// Whether any fault is armed (the append path then writes in two halves).
pub fn armed() -> bool {
    std::env::var_os("DSH_AGENTS_FAULT").is_some()
}
