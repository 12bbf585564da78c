//! Guest registration (`/api/blade-user/register-guest`): anyone may ask for an account of a
//! usable tenant that allows self-registration (`selfRegister` of the tenant, off unless its
//! administrator turns it on); it waits in status "pending" until an administrator approves it.
//!
//! A well-formed request gets one answer whatever happened — created, the account already taken,
//! the tenant unknown, disabled or closed to registration — so the call cannot be used to find
//! out which tenants or accounts exist. The answer says only what is true in every case: a valid
//! request goes to the tenant's administrator for approval. Malformed input is still named.

use axum::extract::State;
use serde::Deserialize;
use utoipa::IntoParams;

use super::store::{self, NewUser, STATUS_PENDING};
use super::validate::valid_account;
use crate::auth::password;
use crate::kernel::extract::Query;
use crate::kernel::lang::Text;
use crate::kernel::sql::is_unique_violation;
use crate::kernel::{ApiError, ApiResult, Core, Data, Envelope};
use crate::system::tenant;

const PASSWORD_EMPTY: Text = Text::new("请输入密码", "Please enter the password");
const ACCOUNT_BAD: Text = Text::new("请输入正确的用户名", "Please enter a valid user name");
const NAME_EMPTY: Text = Text::new("请输入姓名", "Please enter the name");
const TOO_LONG: Text = Text::new("输入内容过长", "The text is too long");
const RECEIVED: Text = Text::new(
    "申请已收到：有效的注册申请将交由租户管理员审核，审核通过后方可登录",
    "Request received: a valid registration goes to the tenant's administrator for approval; you can sign in once it is approved",
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

/// Asks for an account that an administrator must approve before it can sign in.
#[utoipa::path(post, path = "/api/blade-user/register-guest", tag = "user", params(RegisterParams),
    responses((status = 200, description = "The same answer whether or not an account was created",
        body = Envelope<String>), (status = 400), (status = 429, description = "Too many requests from this address")))]
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
    // Hashed before anything is looked up, so every outcome costs the same time.
    let phc = password::hash(pw).await?;
    let open = tenant::find(&core, tenant_id)
        .await?
        .is_some_and(|t| t.usable() && t.self_register == Some(1));
    // A guest has no caller yet: the tenant comes from the request.
    if open
        && store::find_by_account(&core.db, tenant_id, account)
            .await?
            .is_none()
    {
        let created = store::insert(
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
        .await;
        // Two registrations racing for one account: the unique index decides, and the loser
        // gets the same answer as everyone else.
        match created {
            Ok(_) => {}
            Err(e) if is_unique_violation(&e) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(Data(RECEIVED.render()))
}
