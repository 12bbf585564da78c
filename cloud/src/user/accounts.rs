//! Tenant users as the user and personnel screens manage them: the list, one user, creating and
//! editing an account with its roles and departments, removal.
//!
//! Every call works inside the caller's tenant and data scopes: an id of a user the caller may
//! not see is "not found", never acted on. A change of roles ends the user's sessions, because a
//! token carries the roles it was issued with.

use axum::extract::State;
use serde_json::{Map, Value as Json};

use super::listing::{self, visible_ids};
use super::model::{ACCOUNT_EMPTY, ACCOUNT_TAKEN, IdParam, IdsParam, UserBody, UserFilter, UserRecord};
use super::permit::require_any;
use super::store::{self, STATUS_ACTIVE};
use super::validate::{body_id, body_object, changed_user, new_user, read_form};
use crate::auth::caller::Caller;
use crate::auth::session;
use crate::kernel::extract::{Json as JsonBody, Query};
use crate::kernel::id::ids_param;
use crate::kernel::lang::Text;
use crate::kernel::list::ListQuery;
use crate::kernel::{ApiError, ApiResult, Core, Data, Envelope, Id, Page};
use crate::system::tenant_admin::password_hash_of;

const NOT_SELF: Text = Text::new("不能删除当前登录用户", "You cannot remove your own account");

/// Users of the caller's tenant, narrowed by data scopes (filters: account, realName, phone,
/// status, deptId incl. sub-departments, roleId, roleAlias).
#[utoipa::path(get, path = "/api/blade-user/page", tag = "user", params(UserFilter),
    responses((status = 200, body = Envelope<Page<UserRecord>>), (status = 400), (status = 403)))]
pub async fn page(
    State(core): State<Core>,
    caller: Caller,
    query: ListQuery,
) -> ApiResult<Data<Page<UserRecord>>> {
    require_any(&core, &caller, &["user", "personnel"]).await?;
    Ok(Data(listing::page(&core, &caller, query, None).await?))
}

/// One user with role, department and post names.
#[utoipa::path(get, path = "/api/blade-user/detail", tag = "user", params(IdParam),
    responses((status = 200, body = Envelope<UserRecord>), (status = 404)))]
pub async fn detail(
    State(core): State<Core>,
    caller: Caller,
    Query(p): Query<IdParam>,
) -> ApiResult<Data<UserRecord>> {
    require_any(&core, &caller, &["user", "personnel", "owner"]).await?;
    listing::find(&core, &caller, p.id)
        .await?
        .map(Data)
        .ok_or_else(ApiError::not_found)
}

/// Creates a user (no `id`; password and password2 in plain text) or updates one (with `id`;
/// the password is not changed here). Answers the user's id.
#[utoipa::path(post, path = "/api/blade-user/submit", tag = "user", request_body = UserBody,
    responses((status = 200, body = Envelope<String>), (status = 400), (status = 403)))]
pub async fn submit(
    State(core): State<Core>,
    caller: Caller,
    JsonBody(body): JsonBody<Json>,
) -> ApiResult<Data<String>> {
    let body = body_object(body)?;
    if let Some(id) = body_id(&body)? {
        require_any(&core, &caller, &["user_edit", "personnel_edit"]).await?;
        return save_update(&core, &caller, id, &body).await;
    }
    require_any(&core, &caller, &["user_add", "personnel_add"]).await?;
    let form = read_form(&body)?;
    let (account, pw) = new_user(&body, &form)?;
    store::check_refs(&core.db, &caller, &form).await?;
    if store::account_taken(&core.db, &caller, &account, None).await? {
        return Err(ApiError::BadRequest(ACCOUNT_TAKEN));
    }
    store::check_quota(&core.db, &caller).await?;
    let phc = password_hash_of(&pw).await?;
    let id = store::insert_user(&core, &caller, &form, phc, STATUS_ACTIVE).await?;
    Ok(Data(id.to_string()))
}

/// Edits a visible user with the fields the body carries; shared by the user and owner screens.
pub async fn save_update(
    core: &Core,
    caller: &Caller,
    id: Id,
    body: &Map<String, Json>,
) -> ApiResult<Data<String>> {
    if visible_ids(core, caller, &[id]).await?.is_empty() {
        return Err(ApiError::not_found());
    }
    let form = read_form(body)?;
    if body.contains_key("account") {
        let account = form
            .account
            .as_deref()
            .ok_or(ApiError::BadRequest(ACCOUNT_EMPTY))?;
        if store::account_taken(&core.db, caller, account, Some(id)).await? {
            return Err(ApiError::BadRequest(ACCOUNT_TAKEN));
        }
    }
    changed_user(body, &form)?;
    store::check_refs(&core.db, caller, &form).await?;
    store::update_user(&core.db, caller, id, body, &form).await?;
    Ok(Data(id.to_string()))
}

/// Updates a user (the password is not changed here).
#[utoipa::path(post, path = "/api/blade-user/update", tag = "user", request_body = UserBody,
    responses((status = 200, body = Envelope<String>), (status = 400), (status = 404)))]
pub async fn update(
    State(core): State<Core>,
    caller: Caller,
    JsonBody(body): JsonBody<Json>,
) -> ApiResult<Data<String>> {
    require_any(&core, &caller, &["user_edit", "personnel_edit"]).await?;
    let body = body_object(body)?;
    let id = body_id(&body)?.ok_or_else(ApiError::not_found)?;
    save_update(&core, &caller, id, &body).await
}

/// Removes users (never the caller); their sessions end at once.
#[utoipa::path(post, path = "/api/blade-user/remove", tag = "user", params(IdsParam),
    responses((status = 200, body = Envelope<u64>), (status = 400, description = "No id, or an id that is not a number"), (status = 403),
        (status = 404, description = "An id is not a row the caller may act on: nothing is changed")))]
pub async fn remove(
    State(core): State<Core>,
    caller: Caller,
    Query(p): Query<IdsParam>,
) -> ApiResult<Data<u64>> {
    require_any(
        &core,
        &caller,
        &["user_delete", "personnel_delete", "owner_delete"],
    )
    .await?;
    let ids = ids_param(&p.ids)?;
    if ids.contains(&caller.user_id) {
        return Err(ApiError::BadRequest(NOT_SELF));
    }
    let ids = visible_ids(&core, &caller, &ids).await?;
    if ids.is_empty() {
        return Ok(Data(0));
    }
    let n = store::remove(&core.db, &caller, &ids).await?;
    for id in ids {
        session::revoke_user(&core.db, id, None).await?;
    }
    Ok(Data(n))
}
