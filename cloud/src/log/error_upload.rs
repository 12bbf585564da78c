//! `POST /api/blade-auth/oauth/logout` with a JSON array: the console's "upload local logs to
//! server" (the path is the console family's convention). Entries land in the error log.

use axum::extract::State;
use axum::http::HeaderMap;
use serde::Deserialize;
use utoipa::ToSchema;

use crate::auth::Caller;
use crate::kernel::Core;
use crate::kernel::extract::Json;
use crate::kernel::lang::Text;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, ApiResult, Data, Envelope, time};

const MAX_ENTRIES: usize = 200;
const TOO_MANY: Text = Text::new("一次最多上传200条日志", "At most 200 log entries per upload");

#[derive(Debug, Deserialize, ToSchema)]
pub struct ConsoleError {
    #[serde(default)]
    pub r#type: Option<String>,
    #[serde(default)]
    pub url: Option<String>,
    #[serde(default)]
    pub message: Option<String>,
    #[serde(default)]
    pub stack: Option<String>,
    #[serde(default)]
    pub info: Option<String>,
    #[serde(default)]
    pub time: Option<String>,
}

fn clip(s: Option<String>, max: usize) -> Option<String> {
    s.map(|s| s.chars().take(max).collect())
}

#[utoipa::path(post, path = "/api/blade-auth/oauth/logout", tag = "log", request_body = Vec<ConsoleError>,
    responses((status = 200, description = "Number of entries stored", body = Envelope<usize>), (status = 400), (status = 401)))]
pub async fn upload(
    State(state): State<Core>,
    caller: Caller,
    headers: HeaderMap,
    Json(entries): Json<Vec<ConsoleError>>,
) -> ApiResult<Data<usize>> {
    if entries.len() > MAX_ENTRIES {
        return Err(ApiError::BadRequest(TOO_MANY));
    }
    let agent = headers
        .get(axum::http::header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let mut tx = state.db.begin_write().await?;
    for e in &entries {
        let params = serde_json::json!({ "type": e.r#type, "info": e.info, "time": e.time }).to_string();
        let mut sql = Sql::default();
        sql.push_bind(
            "INSERT INTO blade_log_error (id, tenant_id, service_id, env, method, request_uri, user_agent, \
             stack_trace, exception_name, message, params, create_by, create_time) \
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                state.ids.next().into(),
                caller.tenant_id.clone().into(),
                "console".into(),
                "browser".into(),
                "".into(),
                clip(e.url.clone(), 1000).into(),
                clip(agent.clone(), 1000).into(),
                clip(e.stack.clone(), 20_000).into(),
                clip(e.r#type.clone(), 255).into(),
                clip(e.message.clone(), 20_000).into(),
                Value::Text(params),
                caller.account.clone().into(),
                Value::Int(time::now_ms()),
            ],
        );
        sql.execute(&mut *tx).await?;
    }
    tx.commit().await?;
    Ok(Data(entries.len()))
}
