//! Wall-clock time for the `ts` of messages on the wire (milliseconds since the Unix epoch, UTC).
//!
//! Intervals and timeouts use `Instant` instead: the wall clock of a field gateway is set by NTP
//! when it gets a network and may jump. A clock before 1970 (a real-time clock that lost its
//! battery) gives 0 instead of stopping the agent.

use std::time::{SystemTime, UNIX_EPOCH};

/// Now, as the `ts` of a sample, status message or command answer.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}
