//! Per-tenant analytics settings in `pv_alarm_rule` (one JSON value per key; a missing key is
//! the built-in default): `dispersion` ([`dispersion::Setting`]) and `hday` ([`hours::Setting`]).

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value as Json};

use super::dispersion::Invalid;
use crate::kernel::Core;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, time};

pub const DISPERSION_KEY: &str = "dispersion";
pub const HDAY_KEY: &str = "hday";

/// The tenant's setting under `key`, or the default. A stored value that no longer parses
/// (written by an older version, or by hand) is logged and replaced by the default rather than
/// failing every page and the warning job.
pub async fn load<T: DeserializeOwned + Default>(
    state: &Core,
    tenant: &str,
    key: &str,
) -> Result<T, ApiError> {
    let mut sql = Sql::default();
    // By tenant, not through a caller: the warning job reads a tenant's settings with no caller.
    sql.push_bind(
        "SELECT value FROM pv_alarm_rule WHERE tenant_id = ? AND rule_key = ?",
        [Value::from(tenant), Value::from(key)],
    );
    let raw: Option<String> = sql.scalar_optional(state.db.pool()).await?;
    Ok(match raw {
        None => T::default(),
        Some(raw) => serde_json::from_str(&raw).unwrap_or_else(|e| {
            tracing::warn!(tenant, key, error = %e, "ignoring an unreadable analytics setting");
            T::default()
        }),
    })
}

/// `current` changed by the fields `body` names (others keep their value), checked by
/// `validate`. Type errors and refused values answer 400 with the message in both languages.
pub fn merge<T: Serialize + DeserializeOwned>(
    current: &T,
    body: Json,
    validate: impl Fn(&T) -> Result<(), Invalid>,
) -> Result<T, ApiError> {
    let Json::Object(changes) = body else {
        return Err(ApiError::bad_request(
            "请求内容必须是JSON对象",
            "The request body must be a JSON object",
        ));
    };
    let mut merged: Map<String, Json> = match serde_json::to_value(current) {
        Ok(Json::Object(m)) => m,
        _ => Map::new(),
    };
    for (k, v) in changes {
        // Only the setting's own fields; a console may post extra keys (ids, labels).
        if merged.contains_key(&k) && !v.is_null() {
            merged.insert(k, v);
        }
    }
    let next: T = serde_json::from_value(Json::Object(merged))
        .map_err(|e| ApiError::bad_request(format!("设置值有误：{e}"), format!("Invalid setting: {e}")))?;
    validate(&next).map_err(|e| ApiError::bad_request(e.zh, e.en))?;
    Ok(next)
}

/// Stores the tenant's setting under `key`.
pub async fn save<T: Serialize>(
    state: &Core,
    tenant: &str,
    key: &str,
    value: &T,
    user: i64,
) -> Result<(), ApiError> {
    let json = serde_json::to_string(value).map_err(|e| ApiError::Internal(format!("setting {key}: {e}")))?;
    let mut sql = Sql::default();
    // One statement on both back-ends: two editors saving at once cannot both insert.
    sql.push_bind(
        "INSERT INTO pv_alarm_rule (tenant_id, rule_key, value, update_user, update_time) VALUES (?, ?, ?, ?, ?) \
         ON CONFLICT (tenant_id, rule_key) DO UPDATE SET value = excluded.value, \
         update_user = excluded.update_user, update_time = excluded.update_time",
        [
            Value::from(tenant),
            Value::from(key),
            Value::from(json),
            Value::Int(user),
            Value::Int(time::now_ms()),
        ],
    );
    sql.execute(state.db.pool()).await?;
    Ok(())
}
