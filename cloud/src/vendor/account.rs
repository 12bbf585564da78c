//! A vendor account (`pv_inverter_third`) as the poller and the plant calls need it: its
//! platform and its credentials opened with the credential key.

use sqlx::Row;

use super::connector::{Credentials, Platform};
use super::context::VendorCtx;
use crate::kernel::ApiError;
use crate::kernel::lang::Text;
use crate::kernel::sql::{Sql, Value};

/// The platform of an account's dictionary key: `Platform::from_code` (which reads the seeded
/// keys 1 Huawei, 2 Sungrow, 3 Growatt), and key 8, SolarEdge, added to the dictionary with the
/// vendor clouds.
pub fn platform_of(code: &str) -> Option<Platform> {
    match code.trim() {
        "8" => Some(Platform::SolarEdge),
        other => Platform::from_code(other),
    }
}

pub const NOT_A_VENDOR_CLOUD: Text = Text::new(
    "该平台没有可对接的厂商云接口",
    "This platform has no vendor cloud API the hub can poll",
);

#[derive(Debug, Clone, PartialEq)]
pub struct Account {
    pub id: i64,
    pub tenant_id: String,
    /// The dictionary key stored on the account (also the devices' `manufacturer`).
    pub platform_code: String,
    pub platform: Platform,
    pub account: String,
    pub base_url: String,
    pub secret: String,
    pub app_key: Option<String>,
    pub access_key: Option<String>,
}

impl Account {
    /// What a session signs in with.
    pub fn credentials(&self) -> Credentials {
        Credentials {
            base_url: self.base_url.clone(),
            account: self.account.clone(),
            secret: self.secret.clone(),
            app_key: self.app_key.clone(),
            access_key: self.access_key.clone(),
        }
    }

    /// How the account is named in alarms and logs.
    pub fn label(&self) -> String {
        format!("{} {}", self.platform.as_str(), self.account)
    }

    /// Where its samples come from, in place of a gateway id.
    pub fn source(&self) -> String {
        format!("vendor:{}", self.id)
    }
}

/// The live account `id` (of `tenant` when given). `Ok(None)` when there is no such account;
/// an error when its platform is not a vendor cloud or its secret cannot be opened.
pub async fn load(state: &VendorCtx, tenant: Option<&str>, id: i64) -> Result<Option<Account>, ApiError> {
    let mut sql = Sql::new(
        "SELECT id, tenant_id, platform, account, password_enc, api_url, app_key, access_key_enc \
         FROM pv_inverter_third WHERE is_deleted = 0",
    );
    sql.push_bind(" AND id = ?", [Value::Int(id)]);
    if let Some(t) = tenant {
        sql.push_bind(" AND tenant_id = ?", [Value::from(t)]);
    }
    let Some(row) = sql.row(state.db.pool()).await? else {
        return Ok(None);
    };
    let code: String = row.try_get("platform")?;
    let platform = platform_of(&code).ok_or(ApiError::BadRequest(NOT_A_VENDOR_CLOUD))?;
    let services = &state.station.services;
    let open = |column: &str| -> Result<Option<String>, ApiError> {
        let sealed: Option<String> = row.try_get(column)?;
        sealed
            .filter(|s| !s.is_empty())
            .map(|s| {
                services.open(&s).ok_or_else(|| {
                    ApiError::Internal(format!("account {id}: {column} cannot be opened with this key"))
                })
            })
            .transpose()
    };
    let secret = open("password_enc")?.unwrap_or_default();
    let access_key = open("access_key_enc")?;
    let base_url = row
        .try_get::<Option<String>, _>("api_url")?
        .map(|u| u.trim().trim_end_matches('/').to_owned())
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| platform.default_base_url().to_owned());
    let account: String = row.try_get("account")?;
    Ok(Some(Account {
        id,
        tenant_id: row.try_get("tenant_id")?,
        platform_code: code,
        platform,
        account,
        base_url,
        secret,
        app_key: row
            .try_get::<Option<String>, _>("app_key")?
            .filter(|k| !k.trim().is_empty()),
        access_key,
    }))
}

/// Accounts with at least one plant mapped to a live station: the ones to poll.
pub async fn pollable(state: &VendorCtx) -> Result<Vec<i64>, ApiError> {
    let sql = Sql::new(
        "SELECT DISTINCT a.id FROM pv_inverter_third a \
         JOIN pv_vendor_plant p ON p.account_id = a.id AND p.tenant_id = a.tenant_id \
         JOIN pv_station s ON s.id = p.station_id AND s.tenant_id = a.tenant_id AND s.is_deleted = 0 \
         WHERE a.is_deleted = 0 ORDER BY a.id",
    );
    sql.scalars::<i64, _>(state.db.pool()).await
}
