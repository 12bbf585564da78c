//! Tenants: whether one may sign in, which menus its package allows, and finding a tenant by the
//! site address it is served under.

use std::collections::HashSet;

use axum::extract::State;
use serde::{Deserialize, Serialize};
use sqlx::Any;
use utoipa::{IntoParams, ToSchema};

use crate::kernel::extract::Query;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, ApiResult, Data, Envelope, Id, time};
use crate::state::AppState;

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
}

impl TenantRow {
    /// Enabled and not past its expiry.
    pub fn usable(&self) -> bool {
        self.status == 1 && self.expire_time.is_none_or(|t| t > time::now_ms())
    }
}

const COLUMNS: &str = "tenant_id, tenant_name, domain, background_url, expire_time, package_id, status";

pub async fn find(state: &AppState, tenant_id: &str) -> Result<Option<TenantRow>, ApiError> {
    let mut sql = Sql::new(&format!("SELECT {COLUMNS} FROM blade_tenant"));
    sql.push_bind(" WHERE tenant_id = ? AND is_deleted = 0", [tenant_id.into()]);
    let (text, args) = sql.build()?;
    Ok(
        sqlx::query_as_with::<Any, TenantRow, _>(sqlx::AssertSqlSafe(text), args)
            .fetch_optional(state.db.pool())
            .await?,
    )
}

/// The menu ids a tenant's package lists, or `None` when the tenant has no package.
async fn package_list(state: &AppState, tenant_id: &str) -> Result<Option<HashSet<Id>>, ApiError> {
    let mut sql = Sql::new(
        "SELECT p.menu_id FROM blade_tenant t JOIN blade_tenant_package p ON p.id = t.package_id AND p.is_deleted = 0",
    );
    sql.push_bind(" WHERE t.tenant_id = ? AND t.is_deleted = 0", [tenant_id.into()]);
    let (text, args) = sql.build()?;
    let ids: Option<String> = sqlx::query_scalar_with::<Any, String, _>(sqlx::AssertSqlSafe(text), args)
        .fetch_optional(state.db.pool())
        .await?;
    Ok(ids.map(|ids| ids.split(',').filter_map(|p| p.trim().parse().ok()).collect()))
}

/// The menu ids a tenant's package allows, or `None` when the tenant has no package (all menus).
/// A package lists pages; the buttons of a page it includes come with it.
pub async fn package_menus(state: &AppState, tenant_id: &str) -> Result<Option<HashSet<Id>>, ApiError> {
    let Some(mut set) = package_list(state, tenant_id).await? else {
        return Ok(None);
    };
    let buttons: Vec<(i64, i64)> = sqlx::query_as::<Any, (i64, i64)>(
        "SELECT id, parent_id FROM blade_menu WHERE is_deleted = 0 AND category = 2",
    )
    .fetch_all(state.db.pool())
    .await?;
    let extra: Vec<Id> = buttons
        .into_iter()
        .filter(|(_, parent)| set.contains(&Id(*parent)))
        .map(|(id, _)| Id(id))
        .collect();
    set.extend(extra);
    Ok(Some(set))
}

/// Whether a tenant's package allows one menu or button. Runs on every permission check, so it
/// looks up only that menu's parent instead of expanding every button of the package.
pub async fn package_allows(state: &AppState, tenant_id: &str, menu: Id) -> Result<bool, ApiError> {
    let Some(set) = package_list(state, tenant_id).await? else {
        return Ok(true);
    };
    if set.contains(&menu) {
        return Ok(true);
    }
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT parent_id FROM blade_menu WHERE is_deleted = 0 AND category = 2 AND id = ?",
        [menu.into()],
    );
    let (text, args) = sql.build()?;
    let parent: Option<i64> = sqlx::query_scalar_with::<Any, i64, _>(sqlx::AssertSqlSafe(text), args)
        .fetch_optional(state.db.pool())
        .await?;
    Ok(parent.is_some_and(|p| set.contains(&Id(p))))
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
    responses((status = 200, description = "The tenant, or data null when the address names none", body = Envelope<TenantInfo>))
)]
pub async fn info(
    State(state): State<AppState>,
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
    let (text, args) = sql.build()?;
    let row: Option<TenantRow> = sqlx::query_as_with::<Any, TenantRow, _>(sqlx::AssertSqlSafe(text), args)
        .fetch_optional(state.db.pool())
        .await?;
    Ok(Data(row.filter(TenantRow::usable).map(|t| TenantInfo {
        tenant_id: t.tenant_id,
        domain: t.domain.unwrap_or_default(),
        background_url: t.background_url,
    })))
}
