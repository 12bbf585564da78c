//! The deliverer: every replica polls the outbox and sends what is due, each row by exactly one
//! of them. A row is claimed by a conditional UPDATE (waiting and due, or a claim whose lease
//! ran out) that only one replica's statement can win; the winner sends and records the result.
//! A provider that is down (connection refused, 5xx, 429) gets the row again later with
//! exponential backoff (30 s, 1 min, 2 min … at most 1 h between tries, given up after
//! [`MAX_ATTEMPTS`]); a refusal (bad signature, bad address) fails the row at once.
//!
//! Quiet hours and the digest are decided at sending time against `now` (the hub's clock in
//! production, the test's in tests): a non-urgent row met in the user's quiet hours, or an alarm
//! below the user's digest level, waits for the digest instead; the digest gathers a user's
//! waiting rows into one message at the user's digest hour (outside quiet hours).

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use sqlx::Row;

use super::outbox::{self, DIGESTED, EMAIL, FAILED, SENDING, SENT, SKIPPED, SMS, WAITING};
use super::settings::{self, Settings};
use crate::kernel::ApiError;
use crate::kernel::clock::SiteClock;
use crate::kernel::sql::{Sql, Value};
use crate::resource::ResourceCtx;

/// Tries of one row before it is given up.
pub const MAX_ATTEMPTS: i64 = 12;
/// How long a claim holds: a replica that dies mid-send leaves the row to another after this.
const LEASE_MS: i64 = 5 * 60_000;
const BACKOFF_FIRST_MS: i64 = 30_000;
const BACKOFF_MAX_MS: i64 = 3_600_000;
/// Rows kept in the log.
const KEEP_MS: i64 = 90 * 86_400_000;

/// What one pass did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Pass {
    pub sent: usize,
    pub retrying: usize,
    pub failed: usize,
    pub skipped: usize,
    /// Rows moved to the digest.
    pub held: usize,
    /// Digest messages made.
    pub digests: usize,
}

/// The wait before try `attempts + 1` after `attempts` failed ones.
pub fn backoff_ms(attempts: i64) -> i64 {
    let shift = u32::try_from(attempts.clamp(1, 20) - 1).unwrap_or(0);
    BACKOFF_FIRST_MS.saturating_mul(1 << shift).min(BACKOFF_MAX_MS)
}

#[derive(Debug, sqlx::FromRow)]
struct Queued {
    id: i64,
    tenant_id: String,
    user_id: i64,
    channel: String,
    event: String,
    level: i64,
    title: String,
    title_en: String,
    content: String,
    content_en: String,
    urgent: i64,
    attempts: i64,
    create_time: i64,
}

const COLUMNS: &str = "id, tenant_id, user_id, channel, event, level, title, title_en, content, content_en, \
                       urgent, attempts, create_time";

/// One pass at `now`: digests that are due, then every row that is due.
pub async fn run_once(ctx: &ResourceCtx, now: i64) -> Result<Pass, ApiError> {
    let mut pass = Pass::default();
    make_digests(ctx, now, &mut pass).await?;
    loop {
        let mut sql = Sql::new(&format!("SELECT {COLUMNS} FROM pv_notify_outbox WHERE "));
        // Across tenants: the deliverer works for every tenant.
        sql.push_bind(
            "digest = 0 AND ((status = ? AND next_time <= ?) OR (status = ? AND lease_until < ?)) \
             ORDER BY next_time, id LIMIT 50",
            [
                Value::Int(WAITING),
                Value::Int(now),
                Value::Int(SENDING),
                Value::Int(now),
            ],
        );
        let due = sql.fetch_all::<Queued, _>(ctx.db.pool()).await?;
        let mut claimed_any = false;
        for row in due {
            if !claim(ctx, row.id, now).await? {
                continue;
            }
            claimed_any = true;
            deliver(ctx, &row, now, &mut pass).await?;
        }
        if !claimed_any {
            break;
        }
    }
    let mut old = Sql::new("DELETE FROM pv_notify_outbox WHERE ");
    old.push_bind(
        "status IN (?, ?, ?, ?) AND create_time < ?",
        [
            Value::Int(SENT),
            Value::Int(FAILED),
            Value::Int(SKIPPED),
            Value::Int(DIGESTED),
            Value::Int(now - KEEP_MS),
        ],
    );
    old.execute(ctx.db.pool()).await?;
    Ok(pass)
}

/// Takes the row for this replica; false when another has it (or it is no longer due).
async fn claim(ctx: &ResourceCtx, id: i64, now: i64) -> Result<bool, ApiError> {
    let mut sql = Sql::new("UPDATE pv_notify_outbox SET ");
    sql.push_bind(
        "status = ?, lease_until = ?, attempts = attempts + 1 WHERE id = ? AND digest = 0 AND \
         ((status = ? AND next_time <= ?) OR (status = ? AND lease_until < ?))",
        [
            Value::Int(SENDING),
            Value::Int(now + LEASE_MS),
            Value::Int(id),
            Value::Int(WAITING),
            Value::Int(now),
            Value::Int(SENDING),
            Value::Int(now),
        ],
    );
    Ok(sql.execute(ctx.db.pool()).await? == 1)
}

async fn finish(
    ctx: &ResourceCtx,
    id: i64,
    status: i64,
    next_time: i64,
    address: &str,
    result: &str,
    sent_time: Option<i64>,
) -> Result<(), ApiError> {
    let mut sql = Sql::new("UPDATE pv_notify_outbox SET ");
    sql.push_bind(
        "status = ?, next_time = ?, address = ?, result = ?, sent_time = ? WHERE id = ? AND status = ?",
        [
            Value::Int(status),
            Value::Int(next_time),
            Value::from(address.chars().take(255).collect::<String>()),
            Value::from(result.chars().take(500).collect::<String>()),
            sent_time.map(Value::Int).unwrap_or(Value::Null),
            Value::Int(id),
            Value::Int(SENDING),
        ],
    );
    sql.execute(ctx.db.pool()).await?;
    Ok(())
}

/// Whether a non-urgent row waits for the digest (its level, or the user's quiet hours now).
fn held(row: &Queued, s: &Settings, now: i64) -> bool {
    row.urgent == 0
        && row.event != super::DIGEST
        && ((row.level > 0 && row.level < s.digest_below) || s.quiet_at(now))
}

async fn deliver(ctx: &ResourceCtx, row: &Queued, now: i64, pass: &mut Pass) -> Result<(), ApiError> {
    let s = settings::load(ctx.db.pool(), row.user_id).await?;
    if held(row, &s, now) {
        let mut sql = Sql::new("UPDATE pv_notify_outbox SET ");
        // Not a try: the claim's count is given back.
        sql.push_bind(
            "status = ?, digest = 1, attempts = attempts - 1, result = ? WHERE id = ? AND status = ?",
            [
                Value::Int(WAITING),
                Value::from("held for the digest"),
                Value::Int(row.id),
                Value::Int(SENDING),
            ],
        );
        sql.execute(ctx.db.pool()).await?;
        pass.held += 1;
        return Ok(());
    }
    let mut who = Sql::new("SELECT phone, email FROM blade_user WHERE ");
    who.push_bind("id = ? AND is_deleted = 0", [Value::Int(row.user_id)]);
    let (phone, email) = match who.row(ctx.db.pool()).await? {
        Some(r) => (
            r.try_get::<Option<String>, _>("phone")?.unwrap_or_default(),
            r.try_get::<Option<String>, _>("email")?.unwrap_or_default(),
        ),
        None => (String::new(), String::new()),
    };
    let (title, content) = if s.en() {
        (&row.title_en, &row.content_en)
    } else {
        (&row.title, &row.content)
    };
    let outcome = match row.channel.as_str() {
        SMS => send_sms(ctx, &row.tenant_id, phone.trim(), title).await,
        EMAIL => send_email(ctx, email.trim(), &s, title, content).await,
        other => Outcome::Refused(format!("unknown channel {other}")),
    };
    let address = if row.channel == SMS { phone } else { email };
    match outcome {
        Outcome::Sent => {
            finish(ctx, row.id, SENT, now, &address, "ok", Some(now)).await?;
            pass.sent += 1;
        }
        Outcome::Skipped(why) => {
            finish(ctx, row.id, SKIPPED, now, &address, &why, None).await?;
            pass.skipped += 1;
        }
        Outcome::Refused(why) => {
            finish(ctx, row.id, FAILED, now, &address, &why, None).await?;
            pass.failed += 1;
        }
        Outcome::Down(why) if row.attempts + 1 >= MAX_ATTEMPTS => {
            finish(ctx, row.id, FAILED, now, &address, &why, None).await?;
            pass.failed += 1;
        }
        Outcome::Down(why) => {
            let next = now + backoff_ms(row.attempts + 1);
            finish(ctx, row.id, WAITING, next, &address, &why, None).await?;
            pass.retrying += 1;
        }
    }
    Ok(())
}

enum Outcome {
    Sent,
    /// Nothing to send with (no provider, no address): not retried.
    Skipped(String),
    /// The provider refused: not retried.
    Refused(String),
    /// The provider could not be reached: retried later.
    Down(String),
}

async fn send_sms(ctx: &ResourceCtx, tenant: &str, phone: &str, title: &str) -> Outcome {
    if phone.is_empty() {
        return Outcome::Skipped("no phone number".into());
    }
    let provider = match crate::resource::sms_admin::enabled(ctx, tenant).await {
        Ok(Some((_, p))) => p,
        Ok(None) => return Outcome::Skipped("no SMS configuration enabled".into()),
        Err(e) => return Outcome::Down(e.to_string()),
    };
    // Template variable `title` (providers cap a variable's length; the console has the rest).
    let params = BTreeMap::from([("title".to_owned(), title.chars().take(35).collect::<String>())]);
    match provider.send(&[phone.to_owned()], &params).await {
        Ok(()) => Outcome::Sent,
        Err(e) if e.is_transient() => Outcome::Down(e.to_string()),
        Err(e) => Outcome::Refused(e.to_string()),
    }
}

async fn send_email(ctx: &ResourceCtx, to: &str, s: &Settings, title: &str, content: &str) -> Outcome {
    if to.is_empty() {
        return Outcome::Skipped("no e-mail address".into());
    }
    if ctx.config.mail.host.trim().is_empty() {
        return Outcome::Skipped("no SMTP server configured (mail.host)".into());
    }
    let subject = if s.en() {
        format!("[PV O&M] {title}")
    } else {
        format!("【光伏运维】{title}")
    };
    match crate::resource::mail::send(&ctx.config.mail, &[to.to_owned()], &subject, content).await {
        Ok(()) => Outcome::Sent,
        Err(e) if e.is_transient() => Outcome::Down(e.to_string()),
        Err(e) => Outcome::Refused(e.to_string()),
    }
}

/// For each user whose digest is due at `now`: the waiting digest rows become one message (an
/// e-mail, or an SMS for a user without an address), made in one transaction that only one
/// replica can win (the rows' conditional UPDATE must take all of them).
async fn make_digests(ctx: &ResourceCtx, now: i64, pass: &mut Pass) -> Result<(), ApiError> {
    let mut sql =
        Sql::new("SELECT user_id, tenant_id, MIN(create_time) AS oldest FROM pv_notify_outbox WHERE ");
    sql.push_bind(
        "status = ? AND digest = 1 GROUP BY user_id, tenant_id",
        [Value::Int(WAITING)],
    );
    for r in sql.rows(ctx.db.pool()).await? {
        let user: i64 = r.try_get("user_id")?;
        let tenant: String = r.try_get("tenant_id")?;
        let oldest: i64 = r.try_get("oldest")?;
        let s = settings::load(ctx.db.pool(), user).await?;
        if now < s.digest_after(oldest) || s.quiet_at(now) {
            continue;
        }
        if digest_one(ctx, user, &tenant, &s, now).await? {
            pass.digests += 1;
        }
    }
    Ok(())
}

async fn digest_one(
    ctx: &ResourceCtx,
    user: i64,
    tenant: &str,
    s: &Settings,
    now: i64,
) -> Result<bool, ApiError> {
    let mut sql = Sql::new(&format!("SELECT {COLUMNS} FROM pv_notify_outbox WHERE "));
    sql.push_bind(
        "user_id = ? AND status = ? AND digest = 1 ORDER BY create_time, id",
        [Value::Int(user), Value::Int(WAITING)],
    );
    let rows = sql.fetch_all::<Queued, _>(ctx.db.pool()).await?;
    if rows.is_empty() {
        return Ok(false);
    }
    let mut who = Sql::new("SELECT email FROM blade_user WHERE ");
    who.push_bind("id = ?", [Value::Int(user)]);
    let email: Option<String> = who
        .scalar_optional::<Option<String>, _>(ctx.db.pool())
        .await?
        .flatten();
    let channel = if email.is_some_and(|e| !e.trim().is_empty()) {
        EMAIL
    } else {
        SMS
    };
    // One line per event, however many channels it was meant for.
    let clock = SiteClock::hub();
    let mut seen = BTreeSet::new();
    let mut lines = Vec::new();
    for r in &rows {
        let (title, content) = if s.en() {
            (&r.title_en, &r.content_en)
        } else {
            (&r.title, &r.content)
        };
        if seen.insert((r.event.clone(), title.clone(), r.create_time)) {
            lines.push(format!("{} {title}: {content}", clock.format_ms(r.create_time)));
        }
    }
    let n = lines.len();
    let (title, title_en) = (
        format!("通知摘要（{n} 条）"),
        format!("Digest ({n} notifications)"),
    );
    let body = lines.join("\n");
    let digest_id = ctx.ids.next().0;
    let mut tx = ctx.db.begin_write().await?;
    let mut take = Sql::new("UPDATE pv_notify_outbox SET ");
    take.push_bind(
        "status = ?, digest_id = ?, result = ? WHERE status = ? AND digest = 1 AND id IN (",
        [
            Value::Int(DIGESTED),
            Value::Int(digest_id),
            Value::from("sent in the digest"),
            Value::Int(WAITING),
        ],
    );
    for (i, r) in rows.iter().enumerate() {
        take.push_bind(if i == 0 { "?" } else { ", ?" }, [Value::Int(r.id)]);
    }
    take.push(")");
    if take.execute(&mut *tx).await? != rows.len() as u64 {
        // Another replica made this digest first.
        tx.rollback().await?;
        return Ok(false);
    }
    let mut ins = Sql::new(
        "INSERT INTO pv_notify_outbox (id, tenant_id, user_id, channel, event, level, title, title_en, \
         content, content_en, urgent, digest, status, attempts, next_time, lease_until, create_time) VALUES ",
    );
    ins.push_bind(
        "(?, ?, ?, ?, ?, 0, ?, ?, ?, ?, 1, 0, ?, 0, ?, 0, ?)",
        [
            Value::Int(digest_id),
            Value::from(tenant),
            Value::Int(user),
            Value::from(channel),
            Value::from(super::DIGEST),
            Value::from(title),
            Value::from(title_en),
            Value::from(body.chars().take(1000).collect::<String>()),
            Value::from(body.chars().take(1000).collect::<String>()),
            Value::Int(WAITING),
            Value::Int(now),
            Value::Int(now),
        ],
    );
    ins.execute(&mut *tx).await?;
    tx.commit().await?;
    Ok(true)
}

/// Runs [`run_once`] on this replica every `every`, and at once when this process enqueues.
pub fn spawn(ctx: ResourceCtx, every: Duration) {
    tokio::spawn(async move {
        loop {
            let Some(busy) = ctx.shutdown.pass() else {
                return;
            };
            match run_once(&ctx, ctx.clock.now_ms()).await {
                Ok(p) if p != Pass::default() => tracing::info!(?p, "notifications"),
                Ok(_) => {}
                Err(e) => tracing::warn!(error = %e, "notification pass failed"),
            }
            drop(busy);
            tokio::select! {
                _ = tokio::time::sleep(every) => {}
                _ = outbox::WAKE.notified() => {}
                _ = ctx.shutdown.stopping() => return,
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_an_hour() {
        assert_eq!(backoff_ms(1), 30_000);
        assert_eq!(backoff_ms(2), 60_000);
        assert_eq!(backoff_ms(5), 480_000);
        assert_eq!(backoff_ms(11), 3_600_000);
        assert_eq!(backoff_ms(40), 3_600_000);
    }
}
