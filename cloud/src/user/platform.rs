//! A user's per-platform settings: which client type (web, app, other) the user is, and free
//! extension data for it.

use axum::extract::State;

use super::listing::{self, visible_ids};
use super::model::{IdParam, PlatformDetail};
use super::permit::require_any;
use super::store;
use crate::auth::caller::Caller;
use crate::kernel::extract::{Json, Query};
use crate::kernel::{ApiError, ApiResult, Core, Data, Envelope};

/// A user's per-platform settings (type and extension data); without any, the user's own type.
#[utoipa::path(get, path = "/api/blade-user/platform-detail", tag = "user", params(IdParam),
    responses((status = 200, body = Envelope<PlatformDetail>), (status = 404)))]
pub async fn platform_detail(
    State(core): State<Core>,
    caller: Caller,
    Query(p): Query<IdParam>,
) -> ApiResult<Data<PlatformDetail>> {
    require_any(&core, &caller, &["user_platform", "user"]).await?;
    let user = listing::find(&core, &caller, p.id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let (user_type, user_ext) = store::platform(&core.db, p.id)
        .await?
        .unwrap_or((user.user_type, None));
    Ok(Data(PlatformDetail {
        user_id: p.id,
        user_type,
        user_ext,
    }))
}

/// Sets a user's per-platform settings (permission `user_platform`).
#[utoipa::path(post, path = "/api/blade-user/update-platform", tag = "user", request_body = PlatformDetail,
    responses((status = 200, body = Envelope<bool>), (status = 400), (status = 404)))]
pub async fn update_platform(
    State(core): State<Core>,
    caller: Caller,
    Json(p): Json<PlatformDetail>,
) -> ApiResult<Data<bool>> {
    caller.require(&core, "user_platform").await?;
    if !(1..=3).contains(&p.user_type) {
        return Err(ApiError::bad_request(
            "用户平台只能是 1 (web)、2 (app) 或 3 (其他)",
            "userType is 1 (web), 2 (app) or 3 (other)",
        ));
    }
    if visible_ids(&core, &caller, &[p.user_id]).await?.is_empty() {
        return Err(ApiError::not_found());
    }
    store::set_platform(&core.db, &caller, &p).await?;
    Ok(Data(true))
}
