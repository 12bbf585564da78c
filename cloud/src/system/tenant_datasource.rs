//! The tenant dialog's data source (`/api/blade-system/tenant/datasource`): which data source of
//! the developer tools (`blade-develop/datasource`) a tenant is bound to.

use axum::extract::State;
use serde::Deserialize;
use utoipa::IntoParams;

use super::tenant_admin::{NO_SUCH_TENANT, TENANT};
use crate::auth::Caller;
use crate::kernel::extract::Query;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, ApiResult, Data, Envelope, time};
use crate::system::context::SystemCtx;

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
pub struct DatasourceParams {
    pub tenant_id: String,
    /// Empty clears the binding.
    pub datasource_id: Option<String>,
}

/// Records the data source a tenant is bound to (permission `tenant_datasource`).
#[utoipa::path(post, path = "/api/blade-system/tenant/datasource", tag = "system", params(DatasourceParams),
    responses((status = 200, body = Envelope<u64>), (status = 400), (status = 403)))]
pub async fn datasource(
    State(state): State<SystemCtx>,
    caller: Caller,
    Query(p): Query<DatasourceParams>,
) -> ApiResult<Data<u64>> {
    TENANT.check_platform(&caller)?;
    caller.require(&state, "tenant_datasource").await?;
    let ds = match p
        .datasource_id
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        None => Value::Null,
        Some(s) => Value::Int(
            s.parse()
                .map_err(|_| ApiError::bad_request("无效的数据源ID", "invalid datasourceId"))?,
        ),
    };
    // Only a data source of the developer tools (`blade-develop/datasource`) can be bound.
    if ds != Value::Null {
        let mut known = Sql::new("SELECT COUNT(*) FROM blade_datasource WHERE is_deleted = 0");
        known.push_bind(" AND id = ?", [ds.clone()]);
        if known.scalar::<i64, _>(state.db.pool()).await? == 0 {
            return Err(ApiError::bad_request("数据源不存在", "No such data source"));
        }
    }
    let mut sql = Sql::default();
    // The tenant as a value: a platform administrator acts on the tenant they name.
    sql.push_bind(
        "UPDATE blade_tenant SET datasource_id = ?, update_user = ?, update_time = ? WHERE is_deleted = 0 AND tenant_id = ?",
        [ds, caller.user_id.into(), Value::Int(time::now_ms()), Value::Text(p.tenant_id.trim().to_owned())],
    );
    match sql.execute(state.db.pool()).await? {
        0 => Err(ApiError::BadRequest(NO_SUCH_TENANT)),
        n => Ok(Data(n)),
    }
}
