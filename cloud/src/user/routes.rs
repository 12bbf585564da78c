//! `/api/blade-user/...`: guest registration, the caller's own profile and password, unlocking.

use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::store::{self, NewUser, Profile, STATUS_PENDING};
use crate::auth::{Caller, password, session};
use crate::kernel::Core;
use crate::kernel::extract::{Json, Query};
use crate::kernel::lang::Text;
use crate::kernel::{ApiError, ApiResult, Data, Envelope, Id, id::parse_id_list};
use crate::resource::oss;
use crate::system::tenant;

pub const PASSWORDS_DIFFER: Text = Text::new("两次输入的密码不一致", "The two passwords do not match");
const OLD_PASSWORD_WRONG: Text = Text::new("原密码不正确", "The current password is wrong");
const PASSWORD_EMPTY: Text = Text::new("请输入密码", "Please enter the password");
const ACCOUNT_BAD: Text = Text::new("请输入正确的用户名", "Please enter a valid user name");
const ACCOUNT_TAKEN: Text = Text::new("该账号已存在", "This account already exists");
const NAME_EMPTY: Text = Text::new("请输入姓名", "Please enter the name");
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
const REGISTERED: Text = Text::new(
    "注册申请已提交，请耐心等待管理员审核",
    "Registration submitted, please wait for an administrator's approval",
);
const UNLOCKED: Text = Text::new("解锁成功", "Unlocked");

/// User names: 1-16 letters, digits, underscores or hyphens (spec section 5).
pub fn valid_account(s: &str) -> bool {
    (1..=16).contains(&s.chars().count())
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// Mobile numbers: 11 digits starting with 1 (spec section 5).
pub fn valid_phone(s: &str) -> bool {
    s.len() == 11 && s.starts_with('1') && s.bytes().all(|b| b.is_ascii_digit())
}

pub fn valid_email(s: &str) -> bool {
    let Some((local, domain)) = s.split_once('@') else {
        return false;
    };
    !local.is_empty()
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !s.contains(' ')
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
pub struct RegisterParams {
    pub tenant_id: Option<String>,
    pub name: Option<String>,
    pub account: Option<String>,
    /// Lowercase hex MD5 of the password.
    pub password: Option<String>,
    pub oauth_id: Option<String>,
}

/// Creates an account that an administrator must approve before it can sign in.
#[utoipa::path(post, path = "/api/blade-user/register-guest", tag = "user", params(RegisterParams),
    responses((status = 200, body = Envelope<String>), (status = 400)))]
pub async fn register_guest(
    State(state): State<Core>,
    Query(p): Query<RegisterParams>,
) -> ApiResult<Data<String>> {
    let tenant_id = p
        .tenant_id
        .as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .unwrap_or(tenant::DEFAULT_TENANT);
    if !tenant::find(&state, tenant_id).await?.is_some_and(|t| t.usable()) {
        return Err(ApiError::BadRequest(Text::new(
            "租户信息错误或已过期",
            "Unknown, disabled or expired tenant",
        )));
    }
    let account = p.account.as_deref().map(str::trim).unwrap_or("");
    if !valid_account(account) {
        return Err(ApiError::BadRequest(ACCOUNT_BAD));
    }
    let name = p.name.as_deref().map(str::trim).unwrap_or("");
    if name.is_empty() {
        return Err(ApiError::BadRequest(NAME_EMPTY));
    }
    if name.chars().count() > 20 {
        return Err(ApiError::BadRequest(TOO_LONG));
    }
    let pw = p.password.as_deref().unwrap_or("");
    if pw.is_empty() {
        return Err(ApiError::BadRequest(PASSWORD_EMPTY));
    }
    if store::find_by_account(&state.db, tenant_id, account)
        .await?
        .is_some()
    {
        return Err(ApiError::BadRequest(ACCOUNT_TAKEN));
    }
    let phc = password::hash(pw).await?;
    let inserted = store::insert(
        &state.db,
        NewUser {
            id: state.ids.next(),
            tenant_id,
            account,
            password_phc: &phc,
            name,
            real_name: name,
            oauth_id: p.oauth_id.filter(|o| !o.is_empty()),
            status: STATUS_PENDING,
        },
    )
    .await;
    match inserted {
        // Two registrations racing for one account: the unique index decides.
        Err(ApiError::Database(e)) if e.as_database_error().is_some_and(|d| d.is_unique_violation()) => {
            Err(ApiError::BadRequest(ACCOUNT_TAKEN))
        }
        other => other.map(|_| Data(REGISTERED.render())),
    }
}

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
pub async fn info(State(state): State<Core>, caller: Caller) -> ApiResult<Data<UserDetail>> {
    let u = store::find(&state.db, &caller.tenant_id, caller.user_id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let roles = store::roles(&state.db, u.id).await?;
    let depts = store::depts(&state.db, u.id).await?;
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
    State(state): State<Core>,
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
        let ok = oss::find_by_link(&state, &caller.tenant_id, &avatar)
            .await?
            .is_some_and(|a| {
                matches!(a.extension.as_str(), "jpg" | "jpeg" | "png") && a.attach_size <= 500 * 1024
            });
        if !ok {
            return Err(ApiError::BadRequest(AVATAR_BAD));
        }
    }
    store::update_profile(
        &state.db,
        &caller.tenant_id,
        caller.user_id,
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
    State(state): State<Core>,
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
    let user = store::find(&state.db, &caller.tenant_id, caller.user_id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    if !password::verify(&old, &user.password).await {
        return Err(ApiError::BadRequest(OLD_PASSWORD_WRONG));
    }
    let phc = password::hash(&new).await?;
    store::set_password(&state.db, &caller.tenant_id, caller.user_id, &phc, caller.user_id).await?;
    session::revoke_user(&state.db, caller.user_id, Some(caller.session_id)).await?;
    Ok(Data(true))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
pub struct UnlockParams {
    /// Comma-joined user ids.
    pub user_ids: String,
}

/// Clears the lock-out of users of the caller's tenant (permission `user_unlock`).
#[utoipa::path(post, path = "/api/blade-user/unlock", tag = "user", params(UnlockParams),
    responses((status = 200, body = Envelope<String>), (status = 400), (status = 403)))]
pub async fn unlock(
    State(state): State<Core>,
    caller: Caller,
    Query(p): Query<UnlockParams>,
) -> ApiResult<Data<String>> {
    caller.require(&state, "user_unlock").await?;
    let ids = parse_id_list(&p.user_ids)
        .map_err(|e| ApiError::bad_request(format!("无效的ID：{}", e.0), e.to_string()))?;
    store::unlock(&state.db, &caller.tenant_id, &ids).await?;
    Ok(Data(UNLOCKED.render()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn account_phone_and_email_rules() {
        assert!(valid_account("admin") && valid_account("a_b-1") && valid_account(&"x".repeat(16)));
        assert!(
            !valid_account("")
                && !valid_account(&"x".repeat(17))
                && !valid_account("a b")
                && !valid_account("管理")
        );
        assert!(valid_phone("13800138000"));
        assert!(!valid_phone("23800138000") && !valid_phone("1380013800") && !valid_phone("1380013800a"));
        assert!(
            valid_email("a@b.cn") && !valid_email("a@b") && !valid_email("@b.cn") && !valid_email("a b@c.d")
        );
    }
}
