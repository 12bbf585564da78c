//! `/ws/{userId}?token=...`: the console's alarm bell. On connect, and whenever the user's
//! alarms change, the server sends `{"data": [alarm, ...], "count": N}`; each message replaces
//! what the console shows. The client's `{}` messages are keep-alives. The connection closes
//! when the sign-in session ends.
//!
//! Alarm evaluation arrives with the alarm domain; until then every user's list is empty, and
//! the `changed` channel has no sender that fires.

use std::time::Duration;

use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, RawQuery, State};
use axum::response::Response;
use serde::Serialize;
use utoipa::ToSchema;

use crate::auth::Caller;
use crate::kernel::lang::Text;
use crate::kernel::{ApiError, Id};
use crate::state::AppState;

/// How often a connection re-checks that its session is still live.
const SESSION_CHECK: Duration = Duration::from_secs(30);

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AlarmItem {
    pub id: Id,
    pub station_name: String,
    pub inverter: String,
    pub warning_name: String,
    /// ISO date-time with `T`.
    pub date: String,
    /// 1 station fault, otherwise a smart warning.
    pub r#type: i64,
}

#[derive(Debug, Serialize)]
pub struct FeedMessage {
    pub data: Vec<AlarmItem>,
    pub count: i64,
}

/// The user's current active alarms, newest first, as the bell shows them.
pub async fn current(_state: &AppState, _caller: &Caller) -> Result<FeedMessage, ApiError> {
    Ok(FeedMessage {
        data: Vec::new(),
        count: 0,
    })
}

const WRONG_USER: Text = Text::new("无权订阅该用户的告警", "You may not follow this user's alarms");

#[utoipa::path(get, path = "/ws/{userId}", tag = "alarm",
    params(("userId" = String, Path), ("token" = String, Query, description = "The access token (browsers cannot set headers on a websocket)")),
    responses((status = 101, description = "Websocket: server sends {data: [alarm], count}"), (status = 401), (status = 403)))]
pub async fn connect(
    State(state): State<AppState>,
    Path(user_id): Path<String>,
    RawQuery(query): RawQuery,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Result<Response, ApiError> {
    let pairs: Vec<(String, String)> =
        serde_urlencoded::from_str(query.as_deref().unwrap_or("")).unwrap_or_default();
    let token = pairs
        .iter()
        .find(|(k, _)| k == "token")
        .map(|(_, v)| v.as_str())
        .unwrap_or("");
    let token = token.strip_prefix("bearer ").unwrap_or(token);
    let caller = Caller::from_token(&state, token).await?;
    if caller.user_id.to_string() != user_id {
        return Err(ApiError::Forbidden(WRONG_USER));
    }
    let upgrade = upgrade.map_err(|e| {
        ApiError::bad_request(
            format!("需要 websocket 连接：{}", e.body_text()),
            format!("websocket expected: {}", e.body_text()),
        )
    })?;
    Ok(upgrade.on_upgrade(move |socket| serve(state, caller, socket)))
}

async fn send(socket: &mut WebSocket, state: &AppState, caller: &Caller) -> bool {
    let Ok(message) = current(state, caller).await else {
        return false;
    };
    let Ok(text) = serde_json::to_string(&message) else {
        return false;
    };
    socket.send(Message::Text(text.into())).await.is_ok()
}

async fn serve(state: AppState, caller: Caller, mut socket: WebSocket) {
    if !send(&mut socket, &state, &caller).await {
        return;
    }
    let mut changed = state.alarm_changes.subscribe();
    let mut check = tokio::time::interval(SESSION_CHECK);
    check.tick().await;
    loop {
        tokio::select! {
            incoming = socket.recv() => match incoming {
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => break,
                // Keep-alives and anything else the client says need no answer.
                Some(Ok(_)) => {}
            },
            change = changed.recv() => match change {
                Ok(tenant) if tenant != caller.tenant_id => {}
                Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {
                    if !send(&mut socket, &state, &caller).await { break; }
                }
                Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
            },
            _ = check.tick() => {
                let live = crate::auth::session::find(&state.db, caller.session_id).await
                    .ok().flatten().is_some_and(|s| s.revoked == 0);
                if !live { break; }
            }
        }
    }
    let _ = socket.send(Message::Close(None)).await;
}
