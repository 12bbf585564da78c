//! `dept/select?userId` and `role/select?userId`: the departments and roles a user holds, for
//! the console's department/role switch. A user may ask about themselves; asking about someone
//! else needs the `user_view` permission and stays within the tenant.

use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::role::RoleOption;
use crate::auth::Caller;
use crate::kernel::Core;
use crate::kernel::extract::Query;
use crate::kernel::{ApiError, ApiResult, Data, Envelope, Id};
use crate::system::context::SystemCtx;
use crate::user::store;

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
pub struct SelectParams {
    pub user_id: Option<Id>,
}

async fn subject(state: &Core, caller: &Caller, p: &SelectParams) -> Result<Id, ApiError> {
    let user = p.user_id.unwrap_or(caller.user_id);
    if user != caller.user_id {
        caller.require(state, "user_view").await?;
    }
    store::find(&state.db, &caller.tenant_id, user)
        .await?
        .ok_or_else(ApiError::not_found)?;
    Ok(user)
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DeptOption {
    pub id: Id,
    pub dept_name: String,
}

#[utoipa::path(get, path = "/api/blade-system/dept/select", tag = "system", params(SelectParams),
    responses((status = 200, body = Envelope<Vec<DeptOption>>), (status = 401), (status = 403)))]
pub async fn dept_select(
    State(state): State<SystemCtx>,
    caller: Caller,
    Query(p): Query<SelectParams>,
) -> ApiResult<Data<Vec<DeptOption>>> {
    let user = subject(&state, &caller, &p).await?;
    let depts = store::depts(&state.db, user).await?;
    Ok(Data(
        depts
            .into_iter()
            .map(|d| DeptOption {
                id: d.id,
                dept_name: d.dept_name,
            })
            .collect(),
    ))
}

#[utoipa::path(get, path = "/api/blade-system/role/select", tag = "system", params(SelectParams),
    responses((status = 200, body = Envelope<Vec<RoleOption>>), (status = 401), (status = 403)))]
pub async fn role_select(
    State(state): State<SystemCtx>,
    caller: Caller,
    Query(p): Query<SelectParams>,
) -> ApiResult<Data<Vec<RoleOption>>> {
    let user = subject(&state, &caller, &p).await?;
    let roles = store::roles(&state.db, user).await?;
    Ok(Data(
        roles
            .into_iter()
            .map(|r| RoleOption {
                id: r.id,
                role_name: r.role_name,
                role_alias: r.role_alias,
            })
            .collect(),
    ))
}
