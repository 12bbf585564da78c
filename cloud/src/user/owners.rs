//! Plant owners: users holding the role `owner`, who see only the stations assigned to them.
//! The owner screen lists them and creates or edits them without picking roles or departments.

use axum::extract::State;
use serde_json::Value as Json;

use super::accounts::save_update;
use super::listing;
use super::model::{ACCOUNT_TAKEN, OwnerBody, PHONE_EMPTY, UserFilter, UserRecord};
use super::permit::require_any;
use super::store::{self, STATUS_ACTIVE};
use super::validate::{body_id, body_object, new_owner, owner_password, read_form};
use crate::auth::caller::Caller;
use crate::auth::scope::OWNER_ROLE;
use crate::auth::session;
use crate::kernel::extract::Json as JsonBody;
use crate::kernel::list::ListQuery;
use crate::kernel::{ApiError, ApiResult, Core, Data, Envelope, Page};
use crate::system::tenant_admin::password_hash_of;

/// Owners (users holding role `owner`).
#[utoipa::path(get, path = "/api/blade-user/pageOwner", tag = "user", params(UserFilter),
    responses((status = 200, body = Envelope<Page<UserRecord>>), (status = 400), (status = 403)))]
pub async fn page_owner(
    State(core): State<Core>,
    caller: Caller,
    query: ListQuery,
) -> ApiResult<Data<Page<UserRecord>>> {
    require_any(&core, &caller, &["owner", "user"]).await?;
    Ok(Data(
        listing::page(&core, &caller, query, Some(OWNER_ROLE)).await?,
    ))
}

/// Creates (no `id`) or updates an owner: company, account, name, phone, avatar and a plain
/// password longer than 6 characters (required on create, optional on update). Answers the
/// owner's id.
#[utoipa::path(post, path = "/api/blade-user/saveOwner", tag = "user", request_body = OwnerBody,
    responses((status = 200, body = Envelope<String>), (status = 400), (status = 403)))]
pub async fn save_owner(
    State(core): State<Core>,
    caller: Caller,
    JsonBody(body): JsonBody<Json>,
) -> ApiResult<Data<String>> {
    let body = body_object(body)?;
    let id = body_id(&body)?;
    let action = if id.is_some() { "edit" } else { "add" };
    require_any(
        &core,
        &caller,
        &[&format!("owner_{action}"), &format!("user_{action}")],
    )
    .await?;
    let mut form = read_form(&body)?;
    // Owners get the owner role and a department here; the form does not pick them.
    form.roles = None;
    form.depts = None;
    let password = owner_password(&body)?;
    let Some(id) = id else {
        let (account, pw) = new_owner(&form, password)?;
        if store::account_taken(&core.db, &caller, &account, None).await? {
            return Err(ApiError::BadRequest(ACCOUNT_TAKEN));
        }
        store::check_quota(&core.db, &caller).await?;
        let role = store::ensure_role(&core, &caller, OWNER_ROLE, "业主").await?;
        form.roles = Some(vec![role]);
        form.depts = store::default_dept(&core.db, &caller).await?.map(|d| vec![d]);
        if form.real_name.is_none() {
            form.real_name = form.company_name.clone().or(form.account.clone());
        }
        let phc = password_hash_of(&pw).await?;
        let id = store::insert_user(&core, &caller, &form, phc, STATUS_ACTIVE).await?;
        return Ok(Data(id.to_string()));
    };
    // Only owners are edited through the owner screen.
    if !listing::visible_with_role(&core, &caller, id, OWNER_ROLE).await? {
        return Err(ApiError::not_found());
    }
    if body.contains_key("phone") && form.phone.is_none() {
        return Err(ApiError::BadRequest(PHONE_EMPTY));
    }
    save_update(&core, &caller, id, &body).await?;
    if let Some(pw) = password {
        let phc = password_hash_of(&pw).await?;
        store::set_password(&core.db, &caller, id, &phc).await?;
        session::revoke_user(&core.db, id, Some(caller.session_id)).await?;
    }
    Ok(Data(id.to_string()))
}
