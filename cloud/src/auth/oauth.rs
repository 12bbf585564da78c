//! `/api/blade-auth/oauth/...`: token grants, captcha, logout, user-info, clear-cache.
//!
//! The token and captcha answers are flat JSON (the OAuth convention of the family), failures
//! `{"error_code": 400, "error_description": "..."}`; everything else uses the envelope.

use std::collections::HashMap;

use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use utoipa::ToSchema;

use super::caller::{self, Caller};
use super::client::{self, Client};
use super::throttle::{self, Verdict};
use super::token::{self, Claims, Kind};
use super::{captcha, password, session};
use crate::kernel::Core;
use crate::kernel::client_addr::ClientAddr;
use crate::kernel::lang::Text;
use crate::kernel::{ApiError, ApiResult, Data, Envelope, Id, time};
use crate::system::tenant::{self, DEFAULT_TENANT};
use crate::user::store::{self, STATUS_ACTIVE, STATUS_PENDING};

const BAD_CLIENT: Text = Text::new("客户端认证失败", "Client authentication failed");
const GRANT_NOT_ALLOWED: Text = Text::new(
    "客户端不支持该授权类型",
    "This client may not use this grant type",
);
const UNKNOWN_GRANT: Text = Text::new("不支持的授权类型", "Unsupported grant type");
const NO_PROVIDER: Text = Text::new(
    "未配置第三方登录服务，无法使用该登录方式",
    "No sign-in provider is configured for this grant type",
);
const BAD_TENANT: Text = Text::new("租户信息错误或已过期", "Unknown, disabled or expired tenant");
const BAD_CREDENTIALS: Text = Text::new("用户名或密码不正确", "Wrong account or password");
const MISSING_CREDENTIALS: Text = Text::new("请输入用户名和密码", "Please enter the account and password");
const PENDING: Text = Text::new(
    "账号待管理员审批",
    "This account is waiting for an administrator's approval",
);
const DISABLED: Text = Text::new("账号已停用", "This account is disabled");
const NO_ROLE: Text = Text::new("未获得用户的角色信息", "The user has no role");
const BAD_REFRESH: Text = Text::new(
    "登录已过期，请重新登录",
    "The session has expired, please sign in again",
);

/// Failure of a token call, written as `{error_code, error_description}`.
pub struct OAuthError(ApiError);

impl From<ApiError> for OAuthError {
    fn from(e: ApiError) -> Self {
        OAuthError(e)
    }
}

impl IntoResponse for OAuthError {
    fn into_response(self) -> Response {
        let status = self.0.status();
        let description = match &self.0 {
            ApiError::BadRequest(t)
            | ApiError::Unauthorized(t)
            | ApiError::Forbidden(t)
            | ApiError::NotFound(t)
            | ApiError::TooManyRequests { text: t, .. } => t.render(),
            other => {
                tracing::error!(error = %other, "token request failed");
                crate::kernel::error::SERVER_FAULT.render()
            }
        };
        let body = serde_json::json!({ "error_code": status.as_u16(), "error_description": description });
        let mut response = (status, axum::Json(body)).into_response();
        if let Some(seconds) = self.0.retry_after() {
            response.headers_mut().insert(header::RETRY_AFTER, seconds.into());
        }
        response
    }
}

/// The flat answer of a successful token call.
#[derive(Debug, Serialize, ToSchema)]
pub struct TokenResponse {
    pub access_token: String,
    pub refresh_token: String,
    pub token_type: &'static str,
    pub expires_in: i64,
    pub tenant_id: String,
    pub user_id: String,
    pub user_name: String,
    pub account: String,
    pub nick_name: String,
    pub real_name: String,
    pub role_id: String,
    pub role_name: String,
    pub dept_id: String,
    pub post_id: String,
    pub avatar: String,
    pub oauth_id: String,
    pub detail: serde_json::Value,
}

/// Parameters arrive in the query string (the console) or a form body (other OAuth clients).
fn params(query: Option<String>, headers: &HeaderMap, body: &Bytes) -> HashMap<String, String> {
    let mut map: HashMap<String, String> =
        serde_urlencoded::from_str(query.as_deref().unwrap_or("")).unwrap_or_default();
    let is_form = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/x-www-form-urlencoded"));
    if is_form && let Ok(form) = serde_urlencoded::from_bytes::<Vec<(String, String)>>(body) {
        for (k, v) in form {
            map.entry(k).or_insert(v);
        }
    }
    map
}

fn header_str<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|v| !v.is_empty())
}

/// The token call's parameters, for the document only: the handler reads them from the query
/// string or the form body (the query wins), see `params`.
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
pub struct TokenQuery {
    /// Tenant (default 000000; also the Tenant-Id header)
    #[param(rename = "tenantId")]
    tenant_id: Option<String>,
    /// Account (password and captcha grants)
    username: Option<String>,
    /// Lowercase hex MD5 of the password
    password: Option<String>,
    /// password | captcha | refresh_token | social | authorization_code
    grant_type: String,
    /// refresh_token grant
    refresh_token: Option<String>,
    /// all
    scope: Option<String>,
    /// account
    #[param(rename = "type")]
    kind: Option<String>,
}

/// The token call's headers, for the document only.
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Header)]
#[allow(dead_code)]
pub struct TokenHeaders {
    /// Basic base64(clientId:clientSecret)
    #[param(rename = "Authorization")]
    authorization: String,
    /// captcha grant
    #[param(rename = "Captcha-Key")]
    captcha_key: Option<String>,
    /// captcha grant
    #[param(rename = "Captcha-Code")]
    captcha_code: Option<String>,
    /// refresh_token grant: dept to switch to
    #[param(rename = "Dept-Id")]
    dept_id: Option<String>,
    /// refresh_token grant: role to switch to
    #[param(rename = "Role-Id")]
    role_id: Option<String>,
}

#[utoipa::path(
    post,
    path = "/api/blade-auth/oauth/token",
    tag = "auth",
    params(TokenQuery, TokenHeaders),
    request_body(content = String, content_type = "application/x-www-form-urlencoded",
        description = "Optional: the same parameters as a form body"),
    responses(
        (status = 200, description = "Flat token response (no envelope)", body = TokenResponse),
        (status = 400, description = "{error_code, error_description}"),
        (status = 401, description = "Bad client credentials"),
        (status = 429, description = "Too many failed sign-ins for this account from this address \
            ({error_code, error_description}, Retry-After), or too many calls from this address \
            (the envelope, Retry-After)")
    )
)]
pub async fn token(
    State(state): State<Core>,
    ClientAddr(addr): ClientAddr,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
    body: Bytes,
) -> Result<axum::Json<TokenResponse>, OAuthError> {
    let p = params(query, &headers, &body);
    let client = client::authenticate(&state.db, &headers)
        .await?
        .ok_or(ApiError::Unauthorized(BAD_CLIENT))?;
    let grant = p.get("grant_type").map(String::as_str).unwrap_or("password");
    match grant {
        "password" | "captcha" | "refresh_token" | "social" | "authorization_code" => {}
        _ => return Err(ApiError::BadRequest(UNKNOWN_GRANT).into()),
    }
    if !client.allows(grant) {
        return Err(ApiError::BadRequest(GRANT_NOT_ALLOWED).into());
    }
    let tenant_id = p
        .get("tenantId")
        .map(String::as_str)
        .filter(|t| !t.is_empty())
        .or_else(|| header_str(&headers, "tenant-id"))
        .unwrap_or(DEFAULT_TENANT)
        .to_owned();
    let issued = match grant {
        "password" | "captcha" => {
            if grant == "captcha" {
                captcha::check(
                    &state,
                    header_str(&headers, "captcha-key"),
                    header_str(&headers, "captcha-code"),
                )
                .await?;
            }
            let attempt = Attempt {
                client: &client,
                tenant_id: &tenant_id,
                addr,
                captcha: grant == "captcha",
            };
            let outcome = password_grant(&state, &attempt, &p).await;
            crate::log::usual::sign_in(
                &state,
                &tenant_id,
                p.get("username").map(String::as_str),
                &outcome,
            )
            .await;
            outcome?
        }
        "refresh_token" => refresh_grant(&state, &client, &headers, &p).await?,
        _ => return Err(ApiError::BadRequest(NO_PROVIDER).into()),
    };
    Ok(axum::Json(issued))
}

async fn usable_tenant(state: &Core, tenant_id: &str) -> Result<(), ApiError> {
    match tenant::find(state, tenant_id).await? {
        Some(t) if t.usable() => Ok(()),
        _ => Err(ApiError::BadRequest(BAD_TENANT)),
    }
}

/// Who tries to sign in, from where, and whether a captcha was checked.
struct Attempt<'a> {
    client: &'a Client,
    tenant_id: &'a str,
    addr: std::net::IpAddr,
    captcha: bool,
}

/// Checks the password of a known or unknown account with the same work and the same answers:
/// the throttle is keyed by the name as typed, and an unknown account still verifies a hash.
async fn password_grant(
    state: &Core,
    attempt: &Attempt<'_>,
    p: &HashMap<String, String>,
) -> Result<TokenResponse, ApiError> {
    let (client, tenant_id, addr) = (attempt.client, attempt.tenant_id, attempt.addr);
    let account = p.get("username").map(|s| s.trim()).unwrap_or("");
    let given = p.get("password").map(String::as_str).unwrap_or("");
    if account.is_empty() || given.is_empty() {
        return Err(ApiError::BadRequest(MISSING_CREDENTIALS));
    }
    usable_tenant(state, tenant_id).await?;
    let auth = &state.config.auth;
    match throttle::check(&state.db, auth, tenant_id, account, addr, attempt.captcha).await? {
        Verdict::Allowed => {}
        Verdict::Wait(seconds) => return Err(throttle::wait_error(seconds)),
        Verdict::NeedsCaptcha => return Err(ApiError::BadRequest(throttle::CAPTCHA_NEEDED)),
    }
    let user = store::find_by_account(&state.db, tenant_id, account).await?;
    let stored = match &user {
        Some(u) => u.password.clone(),
        None => password::dummy_hash().await?,
    };
    let matches = password::verify(given, &stored).await;
    let Some(user) = user.filter(|_| matches) else {
        let wait = throttle::record_failure(&state.db, auth, tenant_id, account, addr).await?;
        if wait > 0 {
            tracing::warn!(tenant = tenant_id, account, %addr, wait, "sign-in throttled after repeated failures");
        }
        return Err(ApiError::BadRequest(BAD_CREDENTIALS));
    };
    match user.status {
        STATUS_ACTIVE => {}
        STATUS_PENDING => return Err(ApiError::BadRequest(PENDING)),
        _ => return Err(ApiError::BadRequest(DISABLED)),
    }
    throttle::record_success(&state.db, tenant_id, account, addr).await?;
    let roles = store::roles(&state.db, user.id).await?;
    if roles.is_empty() {
        return Err(ApiError::BadRequest(NO_ROLE));
    }
    let depts = store::depts(&state.db, user.id).await?;
    let role_ids: Vec<Id> = roles.iter().map(|r| r.id).collect();
    let dept_id = depts.first().map(|d| d.id);
    let session_id = state.ids.next();
    let now = time::now_ms();
    session::create(
        &state.db,
        session::NewSession {
            id: session_id,
            tenant_id,
            user_id: user.id,
            client_id: &client.client_id,
            dept_id,
            role_ids: &role_ids,
            refresh_time: now,
            expire_time: now + client.refresh_token_validity * 1000,
        },
    )
    .await?;
    respond(state, client, &user, &roles, session_id, &role_ids, dept_id, now)
}

async fn refresh_grant(
    state: &Core,
    client: &Client,
    headers: &HeaderMap,
    p: &HashMap<String, String>,
) -> Result<TokenResponse, ApiError> {
    let presented = p.get("refresh_token").map(String::as_str).unwrap_or("");
    let claims = token::verify(&state.token_secret, presented, Kind::Refresh)
        .map_err(|_| ApiError::BadRequest(BAD_REFRESH))?;
    let session_id: Id = claims
        .sid
        .parse()
        .map_err(|_| ApiError::BadRequest(BAD_REFRESH))?;
    let session = session::find(&state.db, session_id)
        .await?
        .filter(|s| s.revoked == 0 && s.expire_time > time::now_ms() && s.client_id == client.client_id)
        .ok_or(ApiError::BadRequest(BAD_REFRESH))?;
    usable_tenant(state, &session.tenant_id).await?;
    let user = store::find(&state.db, &session.tenant_id, session.user_id)
        .await?
        .filter(|u| u.status == STATUS_ACTIVE)
        .ok_or(ApiError::BadRequest(BAD_REFRESH))?;
    let roles = store::roles(&state.db, user.id).await?;
    let depts = store::depts(&state.db, user.id).await?;
    // A requested dept or role is honoured only when the user holds it.
    let wanted = |name: &str| header_str(headers, name).and_then(|v| v.parse::<Id>().ok());
    let role_ids: Vec<Id> = match wanted("role-id") {
        Some(r) if roles.iter().any(|x| x.id == r) => vec![r],
        _ => roles.iter().map(|r| r.id).collect(),
    };
    if role_ids.is_empty() {
        return Err(ApiError::BadRequest(NO_ROLE));
    }
    let dept_id = match wanted("dept-id") {
        Some(d) if depts.iter().any(|x| x.id == d) => Some(d),
        _ => session
            .dept_id
            .filter(|d| depts.iter().any(|x| x.id == *d))
            .or(depts.first().map(|d| d.id)),
    };
    let now = time::now_ms().max(session.refresh_time + 1);
    if !session::rotate(&state.db, session.id, claims.ims, now, dept_id, &role_ids).await? {
        // The refresh token was already used: someone else holds a copy. End the session.
        session::revoke(&state.db, session.id).await?;
        tracing::warn!(session = %session.id, "refresh token reused: session revoked");
        return Err(ApiError::BadRequest(BAD_REFRESH));
    }
    respond(state, client, &user, &roles, session.id, &role_ids, dept_id, now)
}

/// Signs the tokens; `roles` are the user's roles already loaded by the grant.
#[allow(clippy::too_many_arguments)]
fn respond(
    state: &Core,
    client: &Client,
    user: &store::UserRow,
    roles: &[store::RoleRef],
    session_id: Id,
    role_ids: &[Id],
    dept_id: Option<Id>,
    issued_ms: i64,
) -> Result<TokenResponse, ApiError> {
    let role_names: Vec<&str> = roles
        .iter()
        .filter(|r| role_ids.contains(&r.id))
        .map(|r| r.role_alias.as_str())
        .collect();
    let iat = issued_ms / 1000;
    let base = Claims {
        sub: user.id.to_string(),
        tid: user.tenant_id.clone(),
        sid: session_id.to_string(),
        acc: user.account.clone(),
        rid: role_ids.iter().map(Id::to_string).collect(),
        did: dept_id.map(|d| d.to_string()),
        cid: client.client_id.clone(),
        typ: Kind::Access,
        iat,
        exp: iat + client.access_token_validity,
        ims: issued_ms,
    };
    let refresh = Claims {
        typ: Kind::Refresh,
        exp: iat + client.refresh_token_validity,
        ..base.clone()
    };
    let sign = |c: &Claims| {
        token::sign(&state.token_secret, c).map_err(|e| ApiError::Internal(format!("sign token: {e}")))
    };
    Ok(TokenResponse {
        access_token: sign(&base)?,
        refresh_token: sign(&refresh)?,
        token_type: "bearer",
        expires_in: client.access_token_validity,
        tenant_id: user.tenant_id.clone(),
        user_id: user.id.to_string(),
        user_name: user.account.clone(),
        account: user.account.clone(),
        nick_name: user.name.clone().unwrap_or_default(),
        real_name: user.real_name.clone().unwrap_or_default(),
        role_id: session::join_ids(role_ids),
        role_name: role_names.join(","),
        dept_id: dept_id.map(|d| d.to_string()).unwrap_or_default(),
        post_id: user.post_id.clone(),
        avatar: user.avatar.clone().unwrap_or_default(),
        oauth_id: user.oauth_id.clone().unwrap_or_default(),
        detail: serde_json::json!({ "type": "web" }),
    })
}

/// Same grants under the alternative path the specification also names.
#[utoipa::path(post, path = "/api/blade-auth/oauth/token/refresh", tag = "auth",
    params(TokenQuery, TokenHeaders),
    request_body(content = String, content_type = "application/x-www-form-urlencoded", description = "Optional form body"),
    responses((status = 200, description = "As /api/blade-auth/oauth/token", body = TokenResponse)))]
pub async fn token_refresh(
    state: State<Core>,
    addr: ClientAddr,
    headers: HeaderMap,
    query: RawQuery,
    body: Bytes,
) -> Result<axum::Json<TokenResponse>, OAuthError> {
    token(state, addr, headers, query, body).await
}

#[derive(Debug, Serialize, ToSchema)]
pub struct CaptchaResponse {
    pub key: String,
    /// `data:image/png;base64,...`
    pub image: String,
    /// Only when the server's test hook `auth.expose_captcha_answer` is on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
}

#[utoipa::path(get, path = "/api/blade-auth/oauth/captcha", tag = "auth",
    responses((status = 200, description = "Flat {key, image}", body = CaptchaResponse)))]
pub async fn captcha(State(state): State<Core>) -> Result<Response, OAuthError> {
    let issued = captcha::issue(&state).await?;
    let body = CaptchaResponse {
        key: issued.key,
        image: issued.image,
        answer: state.config.auth.expose_captcha_answer.then_some(issued.answer),
    };
    Ok(([(header::CACHE_CONTROL, "no-store")], axum::Json(body)).into_response())
}

/// Ends the caller's session: the tokens stop working at once. Without a live token there is
/// nothing to end, and the answer is the same.
#[utoipa::path(get, path = "/api/blade-auth/oauth/logout", tag = "auth",
    responses((status = 200, body = Envelope<bool>)))]
pub async fn logout(State(state): State<Core>, headers: HeaderMap) -> ApiResult<Data<bool>> {
    if let Some(token) = caller::bearer(&headers)
        && let Ok(c) = Caller::from_token(&state, token).await
    {
        session::revoke(&state.db, c.session_id).await?;
        crate::log::usual::sign_out(&state, &c.tenant_id, &c.account).await;
        return Ok(Data(true));
    }
    Ok(Data(false))
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UserInfo {
    pub tenant_id: String,
    pub user_id: Id,
    pub account: String,
    pub user_name: String,
    pub nick_name: String,
    pub real_name: String,
    pub avatar: String,
    pub role_id: String,
    pub role_name: String,
    pub dept_id: String,
    pub post_id: String,
}

#[utoipa::path(get, path = "/api/blade-auth/oauth/user-info", tag = "auth",
    responses((status = 200, body = Envelope<UserInfo>), (status = 401)))]
pub async fn user_info(State(state): State<Core>, caller: Caller) -> ApiResult<Data<UserInfo>> {
    let user = store::find(&state.db, &caller.tenant_id, caller.user_id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let roles = store::roles(&state.db, user.id).await?;
    let names: Vec<&str> = roles
        .iter()
        .filter(|r| caller.role_ids.contains(&r.id))
        .map(|r| r.role_alias.as_str())
        .collect();
    Ok(Data(UserInfo {
        tenant_id: user.tenant_id,
        user_id: user.id,
        user_name: user.account.clone(),
        account: user.account,
        nick_name: user.name.unwrap_or_default(),
        real_name: user.real_name.unwrap_or_default(),
        avatar: user.avatar.unwrap_or_default(),
        role_id: session::join_ids(&caller.role_ids),
        role_name: names.join(","),
        dept_id: caller.dept_id.map(|d| d.to_string()).unwrap_or_default(),
        post_id: user.post_id,
    }))
}

/// The hub keeps no per-user caches (every call reads the database), so there is nothing to
/// clear; the call exists because the console offers it.
#[utoipa::path(get, path = "/api/blade-auth/oauth/clear-cache", tag = "auth",
    responses((status = 200, body = Envelope<bool>)))]
pub async fn clear_cache(_caller: Caller) -> ApiResult<Data<bool>> {
    Ok(Data(true))
}
