//! Tenants: whether one may sign in and finding a tenant by the site address it is served
//! under. Which menus a tenant's package allows is `auth::package` (every permission check asks).

use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::kernel::Core;
use crate::kernel::extract::Query;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, ApiResult, Data, Envelope, Id, time};
use crate::system::context::SystemCtx;

pub const DEFAULT_TENANT: &str = "000000";

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct TenantRow {
    pub tenant_id: String,
    pub tenant_name: String,
    pub domain: Option<String>,
    pub background_url: Option<String>,
    pub expire_time: Option<i64>,
    pub package_id: Option<Id>,
    pub status: i64,
    /// 1 when anyone may ask for an account through register-guest.
    pub self_register: Option<i64>,
}

impl TenantRow {
    /// Enabled and not past its expiry.
    pub fn usable(&self) -> bool {
        self.status == 1 && self.expire_time.is_none_or(|t| t > time::now_ms())
    }
}

const COLUMNS: &str =
    "tenant_id, tenant_name, domain, background_url, expire_time, package_id, status, self_register";

pub async fn find(state: &Core, tenant_id: &str) -> Result<Option<TenantRow>, ApiError> {
    let mut sql = Sql::new(&format!("SELECT {COLUMNS} FROM blade_tenant"));
    // The tenant's own row by its key (sign-in and checks of a named tenant have no caller).
    sql.push_bind(" WHERE tenant_id = ? AND is_deleted = 0", [tenant_id.into()]);
    sql.fetch_optional::<TenantRow, _>(state.db.pool()).await
}

#[derive(Debug, Deserialize, IntoParams)]
pub struct InfoParams {
    /// Host name the console is served under.
    pub domain: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TenantInfo {
    pub tenant_id: String,
    pub domain: String,
    pub background_url: Option<String>,
}

/// The tenant served under a site address, so the login page need not ask for a tenant id.
#[utoipa::path(
    get,
    path = "/api/blade-system/tenant/info",
    tag = "system",
    params(InfoParams),
    responses((status = 200, description = "The tenant, or data null when the address names none", body = Envelope<Option<TenantInfo>>))
)]
pub async fn info(
    State(state): State<SystemCtx>,
    Query(p): Query<InfoParams>,
) -> ApiResult<Data<Option<TenantInfo>>> {
    let Some(domain) = p
        .domain
        .map(|d| d.trim().to_ascii_lowercase())
        .filter(|d| !d.is_empty())
    else {
        return Ok(Data(None));
    };
    let mut sql = Sql::new(&format!("SELECT {COLUMNS} FROM blade_tenant"));
    sql.push_bind(
        " WHERE LOWER(domain) = ? AND is_deleted = 0 AND status = 1",
        [Value::Text(domain)],
    );
    let row: Option<TenantRow> = sql.fetch_optional::<TenantRow, _>(state.db.pool()).await?;
    Ok(Data(row.filter(TenantRow::usable).map(|t| TenantInfo {
        tenant_id: t.tenant_id,
        domain: t.domain.unwrap_or_default(),
        background_url: t.background_url,
    })))
}
