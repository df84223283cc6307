//! The one clock and id source: epoch milliseconds for record and event
//! times, time-ordered message ids, random session ids.

use std::time::{SystemTime, UNIX_EPOCH};

/// Milliseconds since the Unix epoch (0 if the clock is before it).
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// A fresh, unique, time-ordered message id (UUID v7).
pub fn new_message_id() -> String {
    uuid::Uuid::now_v7().to_string()
}

/// A fresh random id (UUID v4): session ids and user/message ids, as DSH mints them.
pub fn new_random_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// A short random suffix for temporary file names, unique per writer.
pub fn temp_suffix() -> String {
    uuid::Uuid::new_v4().simple().to_string()[..12].to_string()
}
