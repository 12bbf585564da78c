//! `POST /api/blade-user/phone/update-password`: a new password for the accounts of a phone,
//! proven by the SMS code sent to it (`blade-resource/sms/endpoint/send-validate`). Form
//! encoded (query parameters work too), for the signed-out `/forget` page. Whether the phone
//! has an account is never told: a code only ever reaches phones that have one, and every
//! failure answers the same.

use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::HeaderMap;
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};

use crate::auth::{password, session};
use crate::kernel::lang::Text;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, ApiResult, Core, Data, Envelope, Id, time};
use crate::resource::sms_code::{consume, form_or_query};

const PASSWORD_EMPTY: Text = Text::new("请输入新密码", "Please enter the new password");
const PASSWORDS_DIFFER: Text = Text::new("两次输入的密码不一致", "The two passwords differ");

#[derive(Debug, Deserialize, IntoParams, ToSchema)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct PhonePasswordParams {
    /// The tenant (default `Tenant-Id` header, else 000000).
    pub tenant_id: Option<String>,
    pub phone: String,
    /// The id `send-validate` answered.
    pub id: Id,
    /// The code from the SMS.
    pub value: String,
    /// MD5 hex of the new password.
    pub new_password: String,
    /// MD5 hex of the new password again.
    pub new_password1: String,
}

/// Sets a new password on every account of the tenant with this phone, once the code checks
/// out; their sessions end and sign-in locks are lifted.
#[utoipa::path(post, path = "/api/blade-user/phone/update-password", tag = "user", params(PhonePasswordParams),
    request_body(content = PhonePasswordParams, content_type = "application/x-www-form-urlencoded"),
    responses((status = 200, body = Envelope<bool>), (status = 400)))]
pub async fn update_password(
    State(core): State<Core>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
    body: Bytes,
) -> ApiResult<Data<bool>> {
    let p: PhonePasswordParams = form_or_query(query, &body)?;
    if p.new_password.trim().is_empty() {
        return Err(ApiError::BadRequest(PASSWORD_EMPTY));
    }
    if p.new_password != p.new_password1 {
        return Err(ApiError::BadRequest(PASSWORDS_DIFFER));
    }
    let tenant = p
        .tenant_id
        .as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
        .or_else(|| {
            headers
                .get("tenant-id")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        })
        .unwrap_or_else(|| "000000".into());
    consume(&core, &tenant, &p.phone, p.id, &p.value).await?;
    let phc = password::hash(p.new_password.trim()).await?;
    let mut users = Sql::default();
    users.push_bind(
        "SELECT id FROM blade_user WHERE tenant_id = ? AND phone = ? AND is_deleted = 0",
        [tenant.clone().into(), p.phone.trim().into()],
    );
    for id in users.scalars::<i64, _>(core.db.pool()).await? {
        let mut sql = Sql::default();
        sql.push_bind(
            "UPDATE blade_user SET password = ?, fail_count = 0, locked_until = NULL, update_time = ? WHERE id = ?",
            [phc.clone().into(), Value::Int(time::now_ms()), Value::Int(id)],
        );
        sql.execute(core.db.pool()).await?;
        let mut throttle = Sql::default();
        throttle.push_bind(
            "DELETE FROM auth_throttle WHERE tenant_id = ? AND account = (SELECT account FROM blade_user WHERE id = ?)",
            [tenant.clone().into(), Value::Int(id)],
        );
        throttle.execute(core.db.pool()).await?;
        session::revoke_user(&core.db, Id(id), None).await?;
    }
    Ok(Data(true))
}
