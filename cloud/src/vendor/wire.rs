//! What the four connectors share on the wire: every request takes a budget token first, network
//! failures and 5xx answers are `Unavailable`, HTTP 429 is `Throttled` (after pausing the budget for
//! its Retry-After), and vendor numbers arrive as JSON numbers or numeric strings.

use std::collections::BTreeMap;
use std::time::Duration;

use reqwest::StatusCode;
use serde_json::Value;

use super::budget::Budget;
use super::model::VendorError;

/// One vendor answer that is neither a network failure, a 5xx nor a 429.
pub struct Answer {
    pub status: StatusCode,
    pub headers: reqwest::header::HeaderMap,
    pub body: bytes::Bytes,
}

impl Answer {
    pub fn json(&self) -> Result<Value, VendorError> {
        serde_json::from_slice(&self.body)
            .map_err(|e| VendorError::Protocol(format!("not JSON ({e}): {}", snippet(&self.body))))
    }
}

fn snippet(body: &[u8]) -> String {
    String::from_utf8_lossy(&body[..body.len().min(120)]).into_owned()
}

const TIMEOUT: Duration = Duration::from_secs(30);

pub async fn send(budget: &Budget, req: reqwest::RequestBuilder) -> Result<Answer, VendorError> {
    budget.take().await;
    let resp = req
        .timeout(TIMEOUT)
        .send()
        .await
        .map_err(|e| VendorError::Unavailable(e.to_string()))?;
    let status = resp.status();
    let headers = resp.headers().clone();
    let body = resp
        .bytes()
        .await
        .map_err(|e| VendorError::Unavailable(e.to_string()))?;
    if status == StatusCode::TOO_MANY_REQUESTS {
        let retry_after = headers
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(Duration::from_secs);
        return Err(throttled(
            budget,
            retry_after,
            format!("HTTP 429: {}", snippet(&body)),
        ));
    }
    if status.is_server_error() {
        return Err(VendorError::Unavailable(format!(
            "HTTP {status}: {}",
            snippet(&body)
        )));
    }
    Ok(Answer {
        status,
        headers,
        body,
    })
}

/// The vendor's throttling answer: pauses the account's budget, then reports it.
pub fn throttled(budget: &Budget, retry_after: Option<Duration>, message: String) -> VendorError {
    budget.throttled(retry_after);
    VendorError::Throttled { retry_after, message }
}

/// A number the vendor wrote as a JSON number or a numeric string ("", "--" and null are absent).
pub fn num(v: &Value, key: &str) -> Option<f64> {
    match v.get(key)? {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse::<f64>().ok(),
        _ => None,
    }
    .filter(|x| x.is_finite())
}

/// A string or number field as text.
pub fn text(v: &Value, key: &str) -> Option<String> {
    match v.get(key)? {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Stores `value * factor` under the canonical `name`; rounding drops the float noise of the
/// unit conversion (1234.567 kWh is 1234567 Wh, not 1234567.0000000002).
pub fn put(values: &mut BTreeMap<String, f64>, name: impl Into<String>, value: Option<f64>, factor: f64) {
    if let Some(v) = value {
        values.insert(name.into(), (v * factor * 1e6).round() / 1e6);
    }
}

/// "yyyy-MM-dd HH:mm:ss" (or "yyyyMMddHHmmss") at a fixed UTC offset, to ms since the epoch.
pub fn parse_time(s: &str, offset_ms: i64) -> Option<i64> {
    let t = chrono::NaiveDateTime::parse_from_str(s.trim(), "%Y-%m-%d %H:%M:%S")
        .or_else(|_| chrono::NaiveDateTime::parse_from_str(s.trim(), "%Y%m%d%H%M%S"))
        .ok()?;
    Some(t.and_utc().timestamp_millis() - offset_ms)
}

/// ms since the epoch at a fixed UTC offset, in `format`.
pub fn format_time(ms: i64, offset_ms: i64, format: &str) -> String {
    chrono::DateTime::from_timestamp_millis(ms + offset_ms)
        .map(|t| t.format(format).to_string())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_arrive_as_numbers_or_strings() {
        let v = serde_json::json!({"a": 1.5, "b": "2.25", "c": "--", "d": null, "e": ""});
        assert_eq!(num(&v, "a"), Some(1.5));
        assert_eq!(num(&v, "b"), Some(2.25));
        assert_eq!(num(&v, "c"), None);
        assert_eq!(num(&v, "d"), None);
        assert_eq!(num(&v, "e"), None);
        let mut m = BTreeMap::new();
        put(&mut m, "energy_total", Some(1234.567), 1000.0);
        assert_eq!(m["energy_total"], 1_234_567.0);
    }

    #[test]
    fn local_times_convert_with_their_offset() {
        let eight = 8 * 3_600_000;
        assert_eq!(parse_time("2026-01-01 08:00:00", eight), Some(1_767_225_600_000));
        assert_eq!(parse_time("20260101000000", 0), Some(1_767_225_600_000));
        assert_eq!(
            format_time(1_767_225_600_000, eight, "%Y-%m-%d %H:%M:%S"),
            "2026-01-01 08:00:00"
        );
    }
}
