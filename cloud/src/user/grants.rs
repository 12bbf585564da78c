//! Acting on the access of selected users: granting roles, resetting passwords, lifting
//! lock-outs. Each ends or clears what a user's old access left behind (sessions, lock-outs)
//! and the grants and resets are written to the usual log.

use axum::extract::State;

use super::listing::visible_ids;
use super::model::{GrantParams, NO_SUCH_ROLE, ROLE_EMPTY, UserIdsParam};
use super::permit::require_any;
use super::store;
use super::validate::joined;
use crate::auth::caller::Caller;
use crate::auth::session;
use crate::kernel::extract::Query;
use crate::kernel::id::{ids_param, parse_id_list};
use crate::kernel::lang::Text;
use crate::kernel::{ApiError, ApiResult, Core, Data, Envelope};
use crate::system::tenant_admin::{initial_password, password_hash_of};

const RESET_DONE: Text = Text::new("重置密码成功", "Password reset");
const UNLOCKED: Text = Text::new("解锁成功", "Unlocked");

/// Resets passwords to the initial password (parameter `account.initPassword`, else the
/// configured one), clears lock-outs and ends the users' sessions.
#[utoipa::path(post, path = "/api/blade-user/reset-password", tag = "user", params(UserIdsParam),
    responses((status = 200, body = Envelope<String>), (status = 400, description = "No id, or an id that is not a number"), (status = 403),
        (status = 404, description = "An id is not a row the caller may act on: nothing is changed")))]
pub async fn reset_password(
    State(core): State<Core>,
    caller: Caller,
    Query(p): Query<UserIdsParam>,
) -> ApiResult<Data<String>> {
    require_any(&core, &caller, &["user_reset", "personnel_reset"]).await?;
    let ids = visible_ids(&core, &caller, &ids_param(&p.user_ids)?).await?;
    let phc = password_hash_of(&initial_password(&core).await?).await?;
    for id in &ids {
        store::set_password(&core.db, &caller, *id, &phc).await?;
        session::revoke_user(&core.db, *id, Some(caller.session_id)).await?;
    }
    store::unlock(&core.db, &caller, &ids).await?;
    log(
        &core,
        &caller,
        "password_reset",
        &format!("users {}", joined(&ids)),
    )
    .await;
    Ok(Data(RESET_DONE.render()))
}

/// Replaces the roles of users; their sessions end so the new roles apply at once.
#[utoipa::path(post, path = "/api/blade-user/grant", tag = "user", params(GrantParams),
    responses((status = 200, body = Envelope<u64>), (status = 400, description = "No id, or an id that is not a number"), (status = 403),
        (status = 404, description = "An id is not a row the caller may act on: nothing is changed")))]
pub async fn grant(
    State(core): State<Core>,
    caller: Caller,
    Query(p): Query<GrantParams>,
) -> ApiResult<Data<u64>> {
    require_any(&core, &caller, &["user_role", "personnel_role"]).await?;
    let users = visible_ids(&core, &caller, &ids_param(&p.user_ids)?).await?;
    // No role at all is refused with its own message, not "select at least one record".
    let roles = parse_id_list(&p.role_ids)
        .map_err(|e| ApiError::bad_request(format!("无效的ID：{}", e.0), e.to_string()))?;
    if roles.is_empty() {
        return Err(ApiError::BadRequest(ROLE_EMPTY));
    }
    store::check_owned(&core.db, &caller, "blade_role", &roles, NO_SUCH_ROLE).await?;
    let mut tx = core.db.begin_write().await?;
    for user in &users {
        store::link(&mut tx, *user, Some(&roles), None).await?;
    }
    tx.commit().await?;
    for user in &users {
        session::revoke_user(&core.db, *user, Some(caller.session_id)).await?;
    }
    let what = format!("users {} now hold roles {}", joined(&users), joined(&roles));
    log(&core, &caller, "user_grant", &what).await;
    Ok(Data(users.len() as u64))
}

/// Clears the lock-out of users of the caller's tenant (permission `user_unlock`).
#[utoipa::path(post, path = "/api/blade-user/unlock", tag = "user", params(UserIdsParam),
    responses((status = 200, body = Envelope<String>), (status = 400, description = "No id, or an id that is not a number"), (status = 403),
        (status = 404, description = "An id is not a row the caller may act on: nothing is changed")))]
pub async fn unlock(
    State(core): State<Core>,
    caller: Caller,
    Query(p): Query<UserIdsParam>,
) -> ApiResult<Data<String>> {
    caller.require(&core, "user_unlock").await?;
    // An empty selection unlocks nobody and still succeeds, as it always has.
    let ids = parse_id_list(&p.user_ids)
        .map_err(|e| ApiError::bad_request(format!("无效的ID：{}", e.0), e.to_string()))?;
    if !ids.is_empty() {
        visible_ids(&core, &caller, &ids).await?;
    }
    store::unlock(&core.db, &caller, &ids).await?;
    Ok(Data(UNLOCKED.render()))
}

/// A usual-log line for an administrative act on accounts.
async fn log(core: &Core, caller: &Caller, id: &str, data: &str) {
    crate::log::usual::record_event(
        core,
        crate::log::usual::Event {
            tenant: &caller.tenant_id,
            account: Some(&caller.account),
            level: crate::log::usual::INFO,
            id,
            data,
            request_uri: None,
        },
    )
    .await;
}
