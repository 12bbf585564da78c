//! Sign-in throttling, keyed by account AND client address. Wrong passwords for one account from
//! one address earn growing waits and then a captcha requirement; another address (the real
//! owner) is not slowed by them. One address failing across many accounts is stopped by its own
//! cap. Accounts are keyed by the name as typed, existing or not, so every answer here is the
//! same for known and unknown accounts. State lives in `auth_throttle` (restarts and several
//! hubs on one database see the same counts).

use std::net::IpAddr;

use crate::config::AuthConfig;
use crate::kernel::db::Db;
use crate::kernel::lang::Text;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, time};

pub const CAPTCHA_NEEDED: Text = Text::new(
    "登录失败次数过多，请输入验证码后登录",
    "Too many failed sign-ins: please sign in with the captcha",
);

/// What the counts say about the next try.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Allowed,
    /// Refused for this many more seconds.
    Wait(i64),
    /// The password grant is refused; the captcha grant may try.
    NeedsCaptcha,
}

/// Failure counts of one row.
#[derive(Debug, Clone, Copy, Default, sqlx::FromRow)]
pub struct Counts {
    pub failures: i64,
    pub window_start: i64,
    pub last_failure: i64,
}

/// The wait owed after `failures` failures: none for the free ones, then the base doubling up
/// to the maximum.
pub fn wait_seconds(cfg: &AuthConfig, failures: i64) -> i64 {
    let past = failures - cfg.throttle_free_failures;
    if past < 0 {
        return 0;
    }
    let doubled = cfg.throttle_base_seconds.saturating_mul(1_i64 << past.min(40));
    doubled.min(cfg.throttle_max_seconds).max(0)
}

/// The verdict for a try at `now_ms` given the account-and-address counts and the address's
/// counts (`None`: no row). `captcha` says whether the try carries a checked captcha.
pub fn judge(
    cfg: &AuthConfig,
    pair: Option<Counts>,
    address: Option<Counts>,
    captcha: bool,
    now_ms: i64,
) -> Verdict {
    let window_ms = cfg.throttle_window_minutes * 60_000;
    if let Some(a) = address
        && a.failures >= cfg.throttle_address_failures
        && a.window_start + window_ms > now_ms
    {
        return Verdict::Wait(ceil_seconds(a.window_start + window_ms - now_ms));
    }
    let Some(p) = pair.filter(|p| p.last_failure + window_ms > now_ms) else {
        return Verdict::Allowed;
    };
    let until = p.last_failure + wait_seconds(cfg, p.failures) * 1000;
    if until > now_ms {
        return Verdict::Wait(ceil_seconds(until - now_ms));
    }
    if !captcha && p.failures >= cfg.throttle_captcha_after {
        return Verdict::NeedsCaptcha;
    }
    Verdict::Allowed
}

fn ceil_seconds(ms: i64) -> i64 {
    (ms + 999) / 1000
}

/// The refusal of a try that must wait, the same for every account.
pub fn wait_error(seconds: i64) -> ApiError {
    ApiError::TooManyRequests {
        text: Text::owned(
            format!("登录失败次数过多，请{seconds}秒后再试"),
            format!("Too many failed sign-ins: try again in {seconds} s"),
        ),
        retry_after: seconds.max(1) as u64,
    }
}

fn pair_key(tenant: &str, account: &str, addr: IpAddr) -> String {
    format!("pair\n{tenant}\n{account}\n{addr}")
}

fn address_key(addr: IpAddr) -> String {
    format!("address\n{addr}")
}

async fn counts(db: &Db, key: &str) -> Result<Option<Counts>, ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT failures, window_start, last_failure FROM auth_throttle WHERE throttle_key = ?",
        [key.into()],
    );
    sql.fetch_optional::<Counts, _>(db.pool()).await
}

/// The verdict for a try of `account` of `tenant` from `addr`.
pub async fn check(
    db: &Db,
    cfg: &AuthConfig,
    tenant: &str,
    account: &str,
    addr: IpAddr,
    captcha: bool,
) -> Result<Verdict, ApiError> {
    let pair = counts(db, &pair_key(tenant, account, addr)).await?;
    let address = counts(db, &address_key(addr)).await?;
    Ok(judge(cfg, pair, address, captcha, time::now_ms()))
}

/// Counts a failed try in both rows, one statement each so concurrent failures all count. A
/// pair row forgets its failures after a quiet window; an address row when its window ends.
/// Returns the wait the pair now owes, in seconds.
pub async fn record_failure(
    db: &Db,
    cfg: &AuthConfig,
    tenant: &str,
    account: &str,
    addr: IpAddr,
) -> Result<i64, ApiError> {
    let now = time::now_ms();
    let stale = now - cfg.throttle_window_minutes * 60_000;
    let addr_text = addr.to_string();
    let mut pair = Sql::default();
    pair.push_bind(
        "INSERT INTO auth_throttle (throttle_key, tenant_id, account, address, failures, window_start, \
         last_failure) VALUES (?, ?, ?, ?, 1, ?, ?) ON CONFLICT (throttle_key) DO UPDATE SET \
         failures = CASE WHEN auth_throttle.last_failure < ? THEN 1 ELSE auth_throttle.failures + 1 END, \
         window_start = CASE WHEN auth_throttle.last_failure < ? THEN excluded.window_start \
         ELSE auth_throttle.window_start END, last_failure = excluded.last_failure RETURNING failures",
        [
            pair_key(tenant, account, addr).into(),
            tenant.into(),
            account.into(),
            addr_text.clone().into(),
            Value::Int(now),
            Value::Int(now),
            Value::Int(stale),
            Value::Int(stale),
        ],
    );
    let failures: i64 = pair.scalar(db.pool()).await?;
    let mut address = Sql::default();
    address.push_bind(
        "INSERT INTO auth_throttle (throttle_key, address, failures, window_start, last_failure) \
         VALUES (?, ?, 1, ?, ?) ON CONFLICT (throttle_key) DO UPDATE SET \
         failures = CASE WHEN auth_throttle.window_start < ? THEN 1 ELSE auth_throttle.failures + 1 END, \
         window_start = CASE WHEN auth_throttle.window_start < ? THEN excluded.window_start \
         ELSE auth_throttle.window_start END, last_failure = excluded.last_failure",
        [
            address_key(addr).into(),
            addr_text.into(),
            Value::Int(now),
            Value::Int(now),
            Value::Int(stale),
            Value::Int(stale),
        ],
    );
    address.execute(db.pool()).await?;
    let wait = wait_seconds(cfg, failures);
    if wait > 0 {
        // Administrators see the account as throttled (and may clear it) while any address waits.
        let mut mark = Sql::default();
        mark.push_bind(
            "UPDATE blade_user SET locked_until = ? WHERE tenant_id = ? AND account = ? \
             AND is_deleted = 0 AND (locked_until IS NULL OR locked_until < ?)",
            [
                Value::Int(now + wait * 1000),
                tenant.into(),
                account.into(),
                Value::Int(now + wait * 1000),
            ],
        );
        mark.execute(db.pool()).await?;
    }
    // Rows nobody will read again: older than a window past their last failure.
    let mut sweep = Sql::default();
    sweep.push_bind(
        "DELETE FROM auth_throttle WHERE last_failure < ?",
        [Value::Int(stale - cfg.throttle_max_seconds * 1000)],
    );
    sweep.execute(db.pool()).await?;
    Ok(wait)
}

/// A successful sign-in clears its account-and-address row (the address's own count stays).
pub async fn record_success(db: &Db, tenant: &str, account: &str, addr: IpAddr) -> Result<(), ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "DELETE FROM auth_throttle WHERE throttle_key = ?",
        [pair_key(tenant, account, addr).into()],
    );
    sql.execute(db.pool()).await.map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> AuthConfig {
        crate::config::Config::default().auth
    }

    fn pair(failures: i64, last_failure: i64) -> Option<Counts> {
        Some(Counts {
            failures,
            window_start: 0,
            last_failure,
        })
    }

    #[test]
    fn waits_grow_after_the_free_failures_and_stop_at_the_maximum() {
        let c = cfg();
        let waits: Vec<i64> = (0..=14).map(|n| wait_seconds(&c, n)).collect();
        assert_eq!(&waits[..7], &[0, 0, 0, 2, 4, 8, 16]);
        assert_eq!(waits[14], 900, "capped at throttle_max_seconds");
        assert_eq!(wait_seconds(&c, i64::MAX), 900);
    }

    #[test]
    fn verdicts() {
        let c = cfg();
        let now = 10_000_000;
        assert_eq!(judge(&c, None, None, false, now), Verdict::Allowed);
        assert_eq!(judge(&c, pair(2, now - 10), None, false, now), Verdict::Allowed);
        // Third failure 1 s ago: 2 s wait, 1 left.
        assert_eq!(judge(&c, pair(3, now - 1_000), None, true, now), Verdict::Wait(1));
        // Wait over: the password grant needs the captcha now, the captcha grant may try.
        assert_eq!(
            judge(&c, pair(3, now - 2_000), None, false, now),
            Verdict::NeedsCaptcha
        );
        assert_eq!(judge(&c, pair(3, now - 2_000), None, true, now), Verdict::Allowed);
        // Quiet for a whole window: forgotten.
        assert_eq!(
            judge(&c, pair(9, now - 3_600_001), None, false, now),
            Verdict::Allowed
        );
        // The address sprayed too many accounts: refused until its window ends.
        let sprayed = Some(Counts {
            failures: 50,
            window_start: now - 3_000_000,
            last_failure: now - 5,
        });
        assert_eq!(judge(&c, None, sprayed, true, now), Verdict::Wait(600));
    }
}
