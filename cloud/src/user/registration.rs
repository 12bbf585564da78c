//! Guest registration (`/api/blade-user/register-guest`): anyone may ask for an account of a
//! usable tenant; it waits in status "pending" until an administrator approves it.

use axum::extract::State;
use serde::Deserialize;
use utoipa::IntoParams;

use super::store::{self, NewUser, STATUS_PENDING};
use super::validate::valid_account;
use crate::auth::password;
use crate::kernel::extract::Query;
use crate::kernel::lang::Text;
use crate::kernel::sql::UniqueAs;
use crate::kernel::{ApiError, ApiResult, Core, Data, Envelope};
use crate::system::tenant;

const PASSWORD_EMPTY: Text = Text::new("请输入密码", "Please enter the password");
const ACCOUNT_BAD: Text = Text::new("请输入正确的用户名", "Please enter a valid user name");
const ACCOUNT_TAKEN: Text = Text::new("该账号已存在", "This account already exists");
const NAME_EMPTY: Text = Text::new("请输入姓名", "Please enter the name");
const TOO_LONG: Text = Text::new("输入内容过长", "The text is too long");
const REGISTERED: Text = Text::new(
    "注册申请已提交，请耐心等待管理员审核",
    "Registration submitted, please wait for an administrator's approval",
);

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
    State(core): State<Core>,
    Query(p): Query<RegisterParams>,
) -> ApiResult<Data<String>> {
    let tenant_id = p
        .tenant_id
        .as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .unwrap_or(tenant::DEFAULT_TENANT);
    if !tenant::find(&core, tenant_id).await?.is_some_and(|t| t.usable()) {
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
    // A guest has no caller yet: the tenant comes from the request.
    if store::find_by_account(&core.db, tenant_id, account)
        .await?
        .is_some()
    {
        return Err(ApiError::BadRequest(ACCOUNT_TAKEN));
    }
    let phc = password::hash(pw).await?;
    store::insert(
        &core.db,
        NewUser {
            id: core.ids.next(),
            tenant_id,
            account,
            password_phc: &phc,
            name,
            real_name: name,
            oauth_id: p.oauth_id.filter(|o| !o.is_empty()),
            status: STATUS_PENDING,
        },
    )
    .await
    // Two registrations racing for one account: the unique index decides.
    .unique_as(ACCOUNT_TAKEN)?;
    Ok(Data(REGISTERED.render()))
}
