//! The caller's own account (`/api/blade-user/info`, `update-info`, `update-password`): reading
//! the profile, editing it, changing the password.

use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::store::{self, Profile};
use super::validate::{valid_email, valid_phone};
use crate::auth::caller::Caller;
use crate::auth::{password, session};
use crate::kernel::extract::{Json, Query};
use crate::kernel::lang::Text;
use crate::kernel::{ApiError, ApiResult, Core, Data, Envelope, Id};
use crate::resource::oss;

const PASSWORDS_DIFFER: Text = Text::new("两次输入的密码不一致", "The two passwords do not match");
const OLD_PASSWORD_WRONG: Text = Text::new("原密码不正确", "The current password is wrong");
const PASSWORD_EMPTY: Text = Text::new("请输入密码", "Please enter the password");
const PHONE_BAD: Text = Text::new(
    "请输入正确的11位手机号码",
    "Please enter a valid 11-digit mobile number",
);
const EMAIL_BAD: Text = Text::new("请输入正确的邮箱地址", "Please enter a valid email address");
const TOO_LONG: Text = Text::new("输入内容过长", "The text is too long");
const AVATAR_BAD: Text = Text::new(
    "头像只能是jpg/png格式，且不超过500kb",
    "The avatar must be a jpg or png image of at most 500 kB",
);

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UserDetail {
    pub id: Id,
    pub tenant_id: String,
    pub account: String,
    pub name: String,
    pub real_name: String,
    pub avatar: String,
    pub email: String,
    pub phone: String,
    pub role_id: String,
    pub role_name: String,
    pub dept_id: String,
    pub dept_name: String,
    pub post_id: String,
}

#[utoipa::path(get, path = "/api/blade-user/info", tag = "user",
    responses((status = 200, description = "The caller's own profile", body = Envelope<UserDetail>), (status = 401)))]
pub async fn info(State(core): State<Core>, caller: Caller) -> ApiResult<Data<UserDetail>> {
    let u = store::find(&core.db, &caller.tenant_id, caller.user_id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let roles = store::roles(&core.db, u.id).await?;
    let depts = store::depts(&core.db, u.id).await?;
    let join = |v: Vec<String>| v.join(",");
    Ok(Data(UserDetail {
        id: u.id,
        tenant_id: u.tenant_id,
        account: u.account,
        name: u.name.unwrap_or_default(),
        real_name: u.real_name.unwrap_or_default(),
        avatar: u.avatar.unwrap_or_default(),
        email: u.email.unwrap_or_default(),
        phone: u.phone.unwrap_or_default(),
        role_id: join(roles.iter().map(|r| r.id.to_string()).collect()),
        role_name: join(roles.iter().map(|r| r.role_name.clone()).collect()),
        dept_id: join(depts.iter().map(|d| d.id.to_string()).collect()),
        dept_name: join(depts.iter().map(|d| d.dept_name.clone()).collect()),
        post_id: u.post_id,
    }))
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProfileForm {
    pub avatar: Option<String>,
    pub real_name: Option<String>,
    pub name: Option<String>,
    pub phone: Option<String>,
    pub email: Option<String>,
}

#[utoipa::path(post, path = "/api/blade-user/update-info", tag = "user", request_body = ProfileForm,
    responses((status = 200, body = Envelope<bool>), (status = 400), (status = 401)))]
pub async fn update_info(
    State(core): State<Core>,
    caller: Caller,
    Json(f): Json<ProfileForm>,
) -> ApiResult<Data<bool>> {
    let text = |v: &Option<String>| v.as_deref().map(str::trim).unwrap_or("").to_owned();
    let (real_name, name, phone, email) = (text(&f.real_name), text(&f.name), text(&f.phone), text(&f.email));
    if real_name.chars().count() > 20 || name.chars().count() > 20 || email.len() > 45 {
        return Err(ApiError::BadRequest(TOO_LONG));
    }
    if !phone.is_empty() && !valid_phone(&phone) {
        return Err(ApiError::BadRequest(PHONE_BAD));
    }
    if !email.is_empty() && !valid_email(&email) {
        return Err(ApiError::BadRequest(EMAIL_BAD));
    }
    let avatar = text(&f.avatar);
    if !avatar.is_empty() {
        // The avatar must be an image this tenant uploaded: jpg/png, at most 500 kB.
        let ok = oss::find_by_link(&core, &caller.tenant_id, &avatar)
            .await?
            .is_some_and(|a| {
                matches!(a.extension.as_str(), "jpg" | "jpeg" | "png") && a.attach_size <= 500 * 1024
            });
        if !ok {
            return Err(ApiError::BadRequest(AVATAR_BAD));
        }
    }
    store::update_profile(
        &core.db,
        &caller,
        Profile {
            avatar: (!avatar.is_empty()).then_some(avatar.as_str()),
            real_name: &real_name,
            name: &name,
            phone: &phone,
            email: &email,
        },
    )
    .await?;
    Ok(Data(true))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
pub struct PasswordParams {
    /// MD5 hex of the current password.
    pub old_password: Option<String>,
    /// MD5 hex of the new password.
    pub new_password: Option<String>,
    /// MD5 hex of the new password again.
    pub new_password1: Option<String>,
}

/// Changes the caller's password; their other sessions end, this one goes on.
#[utoipa::path(post, path = "/api/blade-user/update-password", tag = "user", params(PasswordParams),
    responses((status = 200, body = Envelope<bool>), (status = 400), (status = 401)))]
pub async fn update_password(
    State(core): State<Core>,
    caller: Caller,
    Query(p): Query<PasswordParams>,
) -> ApiResult<Data<bool>> {
    let (old, new, again) = (
        p.old_password.unwrap_or_default(),
        p.new_password.unwrap_or_default(),
        p.new_password1.unwrap_or_default(),
    );
    if old.is_empty() || new.is_empty() || again.is_empty() {
        return Err(ApiError::BadRequest(PASSWORD_EMPTY));
    }
    if new != again {
        return Err(ApiError::BadRequest(PASSWORDS_DIFFER));
    }
    let user = store::find(&core.db, &caller.tenant_id, caller.user_id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    if !password::verify(&old, &user.password).await {
        return Err(ApiError::BadRequest(OLD_PASSWORD_WRONG));
    }
    let phc = password::hash(&new).await?;
    store::set_password(&core.db, &caller, caller.user_id, &phc).await?;
    session::revoke_user(&core.db, caller.user_id, Some(caller.session_id)).await?;
    Ok(Data(true))
}
