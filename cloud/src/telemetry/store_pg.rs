//! Ingest's group write on PostgreSQL, through the native pool (`Db::pg_durable`): the raw
//! samples are streamed with `COPY ... FROM STDIN` (text format) into the session's staging
//! table, then moved into `pv_telemetry_raw` by one `INSERT ... SELECT ... ON CONFLICT DO
//! NOTHING`, so a replayed batch inserts nothing and the count of new rows stays exact. The newest
//! sample per device and the rollup marks go as one statement each over arrays (`UNNEST`). Same
//! transaction, same answer as `store::write_group`, which SQLite keeps (ingest's writer picks).
//!
//! Statements here are static text with every value bound or streamed; they run on the native
//! pool because the `Any` driver behind `kernel::sql` has neither COPY nor arrays.

use std::io::Write;

use sqlx::postgres::PgPool;

use super::store::{LatestRow, RawRow};
use crate::kernel::ApiError;

/// COPY data is sent in pieces of about this size (the server is fed while the rest is encoded).
const SEND_BYTES: usize = 1 << 20;

/// See `store::write_group`; `latest` one row per device, `dirty` distinct pairs.
#[allow(clippy::too_many_arguments)] // one transaction's inputs, as store::write_group
pub async fn write_group(
    pool: &PgPool,
    raws: &[RawRow],
    latest: &[LatestRow],
    dirty: &[(i64, i64)],
    mark: i64,
    now: i64,
    acquire_wait: &prometheus_client::metrics::histogram::Histogram,
) -> Result<u64, ApiError> {
    let asked = std::time::Instant::now();
    let mut tx = pool.begin().await?;
    acquire_wait.observe(asked.elapsed().as_secs_f64());
    let mut copy = tx
        .copy_in_raw(
            "COPY pv_raw_stage (device_id, ts, tenant_id, station_id, seq, metrics, suspect) FROM STDIN",
        )
        .await?;
    let mut buf = Vec::with_capacity(SEND_BYTES + 4096);
    // On an error the dropped `copy` tells the server the COPY failed, and the dropped
    // transaction rolls back: nothing of the group is stored, nothing acknowledged.
    for r in raws {
        copy_line(&mut buf, r);
        if buf.len() >= SEND_BYTES {
            copy.send(std::mem::take(&mut buf)).await?;
        }
    }
    if !buf.is_empty() {
        copy.send(buf).await?;
    }
    copy.finish().await?;
    let inserted = sqlx::query(
        "INSERT INTO pv_telemetry_raw (device_id, ts, tenant_id, station_id, seq, metrics, suspect) \
         SELECT device_id, ts, tenant_id, station_id, seq, metrics, suspect FROM pv_raw_stage \
         ON CONFLICT (device_id, ts) DO NOTHING",
    )
    .execute(&mut *tx)
    .await?
    .rows_affected();

    // In device order: concurrent writers then lock shared rows in one order (no deadlock).
    let mut latest: Vec<&LatestRow> = latest.iter().collect();
    latest.sort_unstable_by_key(|r| r.device_id);
    if !latest.is_empty() {
        sqlx::query(
            "INSERT INTO pv_telemetry_latest (device_id, tenant_id, station_id, device_kind, gateway_id, \
             ts, metrics, suspect, online, changed_at) \
             SELECT d, t, s, k, g, ts, m, q, 1, $9 FROM UNNEST($1::BIGINT[], $2::TEXT[], $3::BIGINT[], \
             $4::TEXT[], $5::TEXT[], $6::BIGINT[], $7::TEXT[], $8::TEXT[]) AS u(d, t, s, k, g, ts, m, q) \
             ON CONFLICT (device_id) DO UPDATE SET tenant_id = excluded.tenant_id, \
             station_id = excluded.station_id, device_kind = excluded.device_kind, \
             gateway_id = excluded.gateway_id, ts = excluded.ts, metrics = excluded.metrics, \
             suspect = excluded.suspect, online = 1, changed_at = excluded.changed_at \
             WHERE excluded.ts > pv_telemetry_latest.ts",
        )
        .bind(latest.iter().map(|r| r.device_id).collect::<Vec<_>>())
        .bind(latest.iter().map(|r| r.tenant_id.as_str()).collect::<Vec<_>>())
        .bind(latest.iter().map(|r| r.station_id).collect::<Vec<_>>())
        .bind(latest.iter().map(|r| r.kind).collect::<Vec<_>>())
        .bind(latest.iter().map(|r| r.gateway_id.as_str()).collect::<Vec<_>>())
        .bind(latest.iter().map(|r| r.ts).collect::<Vec<_>>())
        .bind(latest.iter().map(|r| r.metrics.as_str()).collect::<Vec<_>>())
        .bind(latest.iter().map(|r| r.suspect.as_deref()).collect::<Vec<_>>())
        .bind(now)
        .execute(&mut *tx)
        .await?;
    }
    let mut dirty = dirty.to_vec();
    dirty.sort_unstable();
    if !dirty.is_empty() {
        sqlx::query(
            "INSERT INTO pv_telemetry_dirty (device_id, bucket, mark) \
             SELECT d, b, $3 FROM UNNEST($1::BIGINT[], $2::BIGINT[]) AS u(d, b) \
             ON CONFLICT (device_id, bucket) DO UPDATE SET mark = excluded.mark",
        )
        .bind(dirty.iter().map(|(d, _)| *d).collect::<Vec<_>>())
        .bind(dirty.iter().map(|(_, b)| *b).collect::<Vec<_>>())
        .bind(mark)
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(inserted)
}

/// One row of COPY's text format: tab-separated, `\N` for NULL.
fn copy_line(buf: &mut Vec<u8>, r: &RawRow) {
    // Writing to a Vec cannot fail.
    let _ = write!(buf, "{}\t{}\t", r.device_id, r.ts);
    escape(buf, &r.tenant_id);
    let _ = write!(buf, "\t{}\t{}\t", r.station_id, r.seq);
    escape(buf, &r.metrics);
    buf.push(b'\t');
    match &r.suspect {
        Some(q) => escape(buf, q),
        None => buf.extend_from_slice(b"\\N"),
    }
    buf.push(b'\n');
}

/// COPY text escapes: backslash, and the delimiters tab, newline and carriage return (JSON
/// text has its own backslashes, which must reach the table as they are).
fn escape(buf: &mut Vec<u8>, s: &str) {
    // Most values need none: copied whole.
    if !s.bytes().any(|b| matches!(b, b'\\' | b'\t' | b'\n' | b'\r')) {
        buf.extend_from_slice(s.as_bytes());
        return;
    }
    for &b in s.as_bytes() {
        match b {
            b'\\' => buf.extend_from_slice(b"\\\\"),
            b'\t' => buf.extend_from_slice(b"\\t"),
            b'\n' => buf.extend_from_slice(b"\\n"),
            b'\r' => buf.extend_from_slice(b"\\r"),
            _ => buf.push(b),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_text_keeps_backslashes_and_delimiters_inside_fields() {
        let r = RawRow {
            device_id: 7,
            ts: -5,
            tenant_id: "T\t1".into(),
            station_id: 3,
            seq: 9,
            metrics: r#"{"status_text":"a\"b\\n"}"#.into(),
            suspect: None,
        };
        let mut buf = Vec::new();
        copy_line(&mut buf, &r);
        assert_eq!(
            String::from_utf8(buf).expect("utf-8"),
            "7\t-5\tT\\t1\t3\t9\t{\"status_text\":\"a\\\\\"b\\\\\\\\n\"}\t\\N\n"
        );
    }
}
