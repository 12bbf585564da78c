//! Approving or refusing self-registered (guest) accounts, which wait in status "pending" and
//! cannot sign in until approved.

use axum::extract::State;

use super::listing::{pending, visible_ids};
use super::model::UserIdsParam;
use super::permit::require_any;
use super::store;
use crate::auth::caller::Caller;
use crate::kernel::extract::Query;
use crate::kernel::id::ids_param;
use crate::kernel::{ApiResult, Core, Data, Envelope};

/// The tenant's ordinary role, which approved guests get when they hold none.
const DEFAULT_ROLE: &str = "user";

/// Approves pending guest registrations: they become active and, when they hold no role, get
/// the tenant's `user` role.
#[utoipa::path(post, path = "/api/blade-user/audit-pass", tag = "user", params(UserIdsParam),
    responses((status = 200, body = Envelope<u64>), (status = 400, description = "No id, or an id that is not a number"), (status = 403),
        (status = 404, description = "An id is not a row the caller may act on: nothing is changed")))]
pub async fn audit_pass(
    State(core): State<Core>,
    caller: Caller,
    Query(p): Query<UserIdsParam>,
) -> ApiResult<Data<u64>> {
    require_any(&core, &caller, &["user_edit", "personnel_edit"]).await?;
    let ids = pending(
        &core,
        &caller,
        &visible_ids(&core, &caller, &ids_param(&p.user_ids)?).await?,
    )
    .await?;
    if ids.is_empty() {
        return Ok(Data(0));
    }
    let role = store::ensure_role(&core, &caller, DEFAULT_ROLE, "普通用户").await?;
    let dept = store::default_dept(&core.db, &caller).await?;
    store::activate(&core.db, &caller, &ids, role, dept).await?;
    Ok(Data(ids.len() as u64))
}

/// Refuses pending guest registrations (they are removed; active users are left alone).
#[utoipa::path(post, path = "/api/blade-user/audit-refuse", tag = "user", params(UserIdsParam),
    responses((status = 200, body = Envelope<u64>), (status = 400, description = "No id, or an id that is not a number"), (status = 403),
        (status = 404, description = "An id is not a row the caller may act on: nothing is changed")))]
pub async fn audit_refuse(
    State(core): State<Core>,
    caller: Caller,
    Query(p): Query<UserIdsParam>,
) -> ApiResult<Data<u64>> {
    require_any(&core, &caller, &["user_edit", "personnel_edit"]).await?;
    let ids = pending(
        &core,
        &caller,
        &visible_ids(&core, &caller, &ids_param(&p.user_ids)?).await?,
    )
    .await?;
    if ids.is_empty() {
        return Ok(Data(0));
    }
    Ok(Data(store::remove(&core.db, &caller, &ids).await?))
}
