//! Sending SMS and verification codes: `sms/endpoint/send-message?code&phones&params` (an
//! administrator sends a template), `send-validate` (a code to a phone) and `validate-message`
//! (checks and uses it up). Both code calls are form encoded (query parameters work too).
//!
//! A code is six digits, kept only as an HMAC under the server secret, valid 5 minutes, used at
//! most once and tried at most 5 times. Sends are limited per phone (one a minute, ten a day)
//! and per address (twenty an hour), counted in the database so every replica sees them.
//!
//! Without a signed-in caller, a code goes out only to a phone that belongs to an account of the
//! tenant, and the answer is the same either way (same shape, the send happens after the
//! answer): nobody learns whether a phone has an account.

use std::collections::BTreeMap;

use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;
use utoipa::{IntoParams, ToSchema};

use super::context::ResourceCtx;
use super::sms_admin;
use crate::auth::Caller;
use crate::auth::caller::bearer;
use crate::kernel::client_addr::ClientAddr;
use crate::kernel::extract::Query;
use crate::kernel::lang::Text;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, ApiResult, Data, Envelope, Id, time};

const CODE_TTL_MS: i64 = 5 * 60 * 1000;
const MAX_ATTEMPTS: i64 = 5;
const PHONE_GAP_MS: i64 = 60 * 1000;
const PHONE_PER_DAY: i64 = 10;
const ADDR_PER_HOUR: i64 = 20;

const BAD_PHONE: Text = Text::new("请输入正确的手机号码", "Please enter a valid mobile number");
const NO_SMS: Text = Text::new(
    "短信服务未配置，请联系管理员",
    "SMS is not configured; contact the administrator",
);
const CODE_WRONG: Text = Text::new("验证码错误或已失效", "The code is wrong or no longer valid");
const TOO_SOON: Text = Text::new(
    "发送过于频繁，请稍后再试",
    "Codes were sent too often; try again later",
);
const NO_CONFIG: Text = Text::new("短信配置不存在", "No such SMS configuration");
const BAD_PARAMS: Text = Text::new(
    "短信参数须为 JSON 对象",
    "The SMS parameters must be a JSON object",
);

/// Parameters from the form body, else from the query.
pub fn form_or_query<T: serde::de::DeserializeOwned>(
    query: Option<String>,
    body: &Bytes,
) -> Result<T, ApiError> {
    let text = if body.is_empty() {
        query.unwrap_or_default()
    } else {
        String::from_utf8_lossy(body).into_owned()
    };
    serde_urlencoded::from_str(&text)
        .map_err(|e| ApiError::bad_request(format!("参数有误：{e}"), format!("bad parameters: {e}")))
}

/// `phone` if it looks like a mobile number (digits, optionally `+` and a country code).
pub fn clean_phone(phone: &str) -> Option<String> {
    let p = phone.trim();
    let digits = p.strip_prefix('+').unwrap_or(p);
    ((6..=15).contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_digit())).then(|| p.to_owned())
}

fn code_hash(secret: &str, id: Id, code: &str) -> String {
    let mut mac =
        <Hmac<Sha256> as Mac>::new_from_slice(secret.as_bytes()).expect("HMAC takes keys of any length");
    mac.update(format!("sms:{}:{code}", id.0).as_bytes());
    hex::encode(mac.finalize().into_bytes())
}

#[derive(Debug, Deserialize, IntoParams, ToSchema)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct SendValidateParams {
    /// The mobile number.
    pub phone: String,
    /// The tenant (default `Tenant-Id` header, else 000000).
    pub tenant_id: Option<String>,
}

/// What `send-validate` answers: the id to send back with the code.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SmsCode {
    pub id: Id,
    pub phone: String,
}

fn tenant_of(given: Option<&str>, headers: &HeaderMap) -> String {
    given
        .filter(|t| !t.trim().is_empty())
        .map(|t| t.trim().to_owned())
        .or_else(|| {
            headers
                .get("tenant-id")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        })
        .unwrap_or_else(|| "000000".into())
}

/// Sends a verification code to `phone` (see the module's notes on who gets one).
#[utoipa::path(post, path = "/api/blade-resource/sms/endpoint/send-validate", tag = "resource", params(SendValidateParams),
    request_body(content = SendValidateParams, content_type = "application/x-www-form-urlencoded"),
    responses((status = 200, body = Envelope<SmsCode>), (status = 400), (status = 429)))]
pub async fn send_validate(
    State(ctx): State<ResourceCtx>,
    ClientAddr(addr): ClientAddr,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
    body: Bytes,
) -> ApiResult<Data<SmsCode>> {
    let p: SendValidateParams = form_or_query(query, &body)?;
    let phone = clean_phone(&p.phone).ok_or(ApiError::BadRequest(BAD_PHONE))?;
    let tenant = tenant_of(p.tenant_id.as_deref(), &headers);
    let signed_in = match bearer(&headers) {
        Some(token) => Caller::from_token(&ctx, token).await.ok(),
        None => None,
    };
    let Some((_, provider)) = sms_admin::enabled(&ctx, &tenant).await? else {
        return Err(ApiError::BadRequest(NO_SMS));
    };
    let now = time::now_ms();
    let addr = addr.to_string();
    let mut recent = Sql::default();
    recent.push_bind(
        "SELECT create_time FROM blade_sms_code WHERE phone = ? AND create_time > ?",
        [phone.clone().into(), Value::Int(now - 24 * 3600 * 1000)],
    );
    let sent: Vec<i64> = recent.scalars::<i64, _>(ctx.db.pool()).await?;
    let mut by_addr = Sql::default();
    by_addr.push_bind(
        "SELECT COUNT(*) FROM blade_sms_code WHERE client_addr = ? AND create_time > ?",
        [addr.clone().into(), Value::Int(now - 3600 * 1000)],
    );
    if sent.iter().any(|t| *t > now - PHONE_GAP_MS)
        || sent.len() as i64 >= PHONE_PER_DAY
        || by_addr.scalar::<i64, _>(ctx.db.pool()).await? >= ADDR_PER_HOUR
    {
        return Err(ApiError::TooManyRequests {
            text: TOO_SOON,
            retry_after: 60,
        });
    }
    let id = ctx.ids.next();
    let mut digits = [0u8; 4];
    getrandom::fill(&mut digits).map_err(|e| ApiError::Internal(format!("random: {e}")))?;
    let code = format!("{:06}", u32::from_le_bytes(digits) % 1_000_000);
    let mut insert = Sql::default();
    insert.push_bind(
        "INSERT INTO blade_sms_code (id, tenant_id, phone, code_hash, client_addr, expire_time, create_time) \
         VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            id.into(),
            tenant.clone().into(),
            phone.clone().into(),
            code_hash(&ctx.token_secret, id, &code).into(),
            addr.into(),
            Value::Int(now + CODE_TTL_MS),
            Value::Int(now),
        ],
    );
    insert.execute(ctx.db.pool()).await?;
    let deliver = signed_in.is_some() || phone_has_account(&ctx, &tenant, &phone).await?;
    if deliver {
        // After the answer, so a known phone and an unknown one take the same time.
        tokio::spawn(async move {
            let mut params = BTreeMap::new();
            params.insert("code".to_owned(), code);
            if let Err(e) = provider.send(std::slice::from_ref(&phone), &params).await {
                tracing::warn!(error = %e, "verification SMS not sent");
            }
        });
    }
    Ok(Data(SmsCode { id, phone: p.phone }))
}

async fn phone_has_account(ctx: &ResourceCtx, tenant: &str, phone: &str) -> Result<bool, ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT COUNT(*) FROM blade_user WHERE tenant_id = ? AND phone = ? AND is_deleted = 0",
        [tenant.into(), phone.into()],
    );
    Ok(sql.scalar::<i64, _>(ctx.db.pool()).await? > 0)
}

/// Checks the code `value` sent as `id` to `phone` of `tenant` and uses it up; a wrong value
/// counts as an attempt. Every failure answers the same.
pub async fn consume(
    ctx: &crate::kernel::Core,
    tenant: &str,
    phone: &str,
    id: Id,
    value: &str,
) -> Result<(), ApiError> {
    let mut tx = ctx.db.begin_write().await?;
    let mut find = Sql::default();
    find.push_bind(
        "SELECT code_hash, expire_time, attempts, used FROM blade_sms_code WHERE id = ? AND tenant_id = ? AND phone = ?",
        [id.into(), tenant.into(), phone.trim().into()],
    );
    let Some((hash, expires, attempts, used)) = find
        .fetch_optional::<(String, i64, i64, i64), _>(&mut *tx)
        .await?
    else {
        return Err(ApiError::BadRequest(CODE_WRONG));
    };
    if used != 0 || expires < time::now_ms() || attempts >= MAX_ATTEMPTS {
        return Err(ApiError::BadRequest(CODE_WRONG));
    }
    let expected = code_hash(&ctx.token_secret, id, value.trim());
    let same = expected.len() == hash.len()
        && expected
            .bytes()
            .zip(hash.bytes())
            .fold(0u8, |a, (x, y)| a | (x ^ y))
            == 0;
    let mut update = Sql::default();
    if same {
        update.push_bind("UPDATE blade_sms_code SET used = 1 WHERE id = ?", [id.into()]);
    } else {
        update.push_bind(
            "UPDATE blade_sms_code SET attempts = attempts + 1 WHERE id = ?",
            [id.into()],
        );
    }
    update.execute(&mut *tx).await?;
    tx.commit().await?;
    if same {
        Ok(())
    } else {
        Err(ApiError::BadRequest(CODE_WRONG))
    }
}

#[derive(Debug, Deserialize, IntoParams, ToSchema)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct ValidateParams {
    /// The id `send-validate` answered.
    pub id: Id,
    /// The code from the SMS.
    pub value: String,
    pub phone: String,
    pub tenant_id: Option<String>,
}

/// Checks a code and uses it up.
#[utoipa::path(post, path = "/api/blade-resource/sms/endpoint/validate-message", tag = "resource", params(ValidateParams),
    request_body(content = ValidateParams, content_type = "application/x-www-form-urlencoded"),
    responses((status = 200, body = Envelope<bool>), (status = 400)))]
pub async fn validate_message(
    State(ctx): State<ResourceCtx>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
    body: Bytes,
) -> ApiResult<Data<bool>> {
    let p: ValidateParams = form_or_query(query, &body)?;
    let tenant = tenant_of(p.tenant_id.as_deref(), &headers);
    consume(&ctx, &tenant, &p.phone, p.id, &p.value).await?;
    Ok(Data(true))
}

#[derive(Debug, Deserialize, IntoParams)]
pub struct SendMessageParams {
    /// The configuration's code (`smsCode`; blank: the enabled one).
    pub code: Option<String>,
    /// Comma-joined mobile numbers.
    pub phones: String,
    /// The template's variables as a JSON object.
    pub params: Option<String>,
}

/// Sends the configuration's template to `phones` now and answers whether the provider took it.
#[utoipa::path(post, path = "/api/blade-resource/sms/endpoint/send-message", tag = "resource", params(SendMessageParams),
    responses((status = 200, body = Envelope<bool>), (status = 400), (status = 401), (status = 403)))]
pub async fn send_message(
    State(ctx): State<ResourceCtx>,
    caller: Caller,
    Query(p): Query<SendMessageParams>,
) -> ApiResult<Data<bool>> {
    caller.require(&ctx, "sms").await?;
    let phones: Vec<String> = p
        .phones
        .split(',')
        .filter(|s| !s.trim().is_empty())
        .map(|s| clean_phone(s).ok_or(ApiError::BadRequest(BAD_PHONE)))
        .collect::<Result<_, _>>()?;
    if phones.is_empty() || phones.len() > 100 {
        return Err(ApiError::BadRequest(BAD_PHONE));
    }
    let params: BTreeMap<String, String> = match p.params.as_deref().map(str::trim).filter(|s| !s.is_empty())
    {
        None => BTreeMap::new(),
        Some(text) => {
            let json: serde_json::Map<String, serde_json::Value> =
                serde_json::from_str(text).map_err(|_| ApiError::BadRequest(BAD_PARAMS))?;
            json.into_iter()
                .map(|(k, v)| (k, v.as_str().map(str::to_owned).unwrap_or_else(|| v.to_string())))
                .collect()
        }
    };
    let config = match p.code.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        Some(code) => sms_admin::by_code(&ctx, &caller.tenant_id, code)
            .await?
            .ok_or(ApiError::BadRequest(NO_CONFIG))?,
        None => sms_admin::enabled(&ctx, &caller.tenant_id)
            .await?
            .ok_or(ApiError::BadRequest(NO_SMS))?,
    };
    config.1.send(&phones, &params).await.map_err(|e| {
        ApiError::bad_request(format!("短信发送失败：{e}"), format!("The SMS was not sent: {e}"))
    })?;
    Ok(Data(true))
}
