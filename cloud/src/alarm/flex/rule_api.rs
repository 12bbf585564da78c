//! The bracket rule calls (`/api/alarmSettingFlex`): a tracker variable compared with a
//! threshold (or a range) for a duration raises an alarm of the rule's level on the station's
//! bracket.
//!
//! Station-domain rules apply: reads and writes only touch rules of stations the caller may see,
//! writes need the buttons `alarmSettingFlex_add` / `_edit` / `_delete`, and a rule's station
//! must have a flexible bracket (there is nothing else to watch).

use axum::extract::State;
use serde::Serialize;
use serde_json::{Map, Value as Json};
use utoipa::ToSchema;

use super::rule_store::{self, Setting};
use super::{bracket_rule, eval, rule_input};
use crate::alarm::context::AlarmCtx;
use crate::auth::Caller;
use crate::auth::scope::Scoped;
use crate::kernel::extract::{Json as JsonBody, Path};
use crate::kernel::id::ids_param;
use crate::kernel::lang::Text;
use crate::kernel::list::ListQuery;
use crate::kernel::sql::Value;
use crate::kernel::{ApiError, ApiResult, Data, Envelope, Id, Page};
use crate::station::device::{IdPath, body_id};

pub const MENU: &str = "alarmSettingFlex";

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VariableItem {
    pub key: String,
    /// In the request's language.
    pub name: String,
    pub unit: Option<String>,
}

/// The tracker variables a rule may watch (names in the request's language; values compare in
/// the unit shown).
#[utoipa::path(get, path = "/api/alarmSettingFlex/listVariable", tag = "alarm",
    responses((status = 200, body = Envelope<Vec<VariableItem>>), (status = 401)))]
pub async fn list_variable(_caller: Caller) -> ApiResult<Data<Vec<VariableItem>>> {
    Ok(Data(
        bracket_rule::VARIABLES
            .iter()
            .map(|v| VariableItem {
                key: v.key.to_owned(),
                name: Text::new(v.zh, v.en).render(),
                unit: v.unit.map(str::to_owned),
            })
            .collect(),
    ))
}

/// A page of the rules of the caller's stations (filters `stationId`, `variable`, `level`,
/// `enabled` 1/0), newest first.
#[utoipa::path(get, path = "/api/alarmSettingFlex/page", tag = "alarm",
    params(("current" = Option<i64>, Query), ("size" = Option<i64>, Query), ("stationId" = Option<String>, Query),
        ("variable" = Option<String>, Query), ("comparison" = Option<String>, Query),
        ("level" = Option<i64>, Query), ("enabled" = Option<bool>, Query)),
    responses((status = 200, body = Envelope<Page<Setting>>), (status = 400), (status = 401)))]
pub async fn page(
    State(state): State<AlarmCtx>,
    Scoped { stations, .. }: Scoped,
    mut query: ListQuery,
) -> ApiResult<Data<Page<Setting>>> {
    let mut from_where = rule_store::scoped(&stations);
    // The console's switch sends true/false; the column holds 1/0.
    if let Some(v) = query.take("enabled") {
        let flag = match v.trim() {
            "" => None,
            "true" | "1" => Some(1),
            "false" | "0" => Some(0),
            other => {
                return Err(ApiError::bad_request(
                    format!("查询条件 enabled 的值无效：{other}"),
                    format!("invalid value for filter enabled: {other}"),
                ));
            }
        };
        if let Some(f) = flag {
            from_where.push_bind(" AND a.enabled = ?", [Value::Int(f)]);
        }
    }
    Ok(Data(rule_store::page(&state, from_where, &query).await?))
}

/// One rule.
#[utoipa::path(get, path = "/api/alarmSettingFlex/{id}", tag = "alarm", params(IdPath),
    responses((status = 200, body = Envelope<Setting>), (status = 404)))]
pub async fn detail(
    State(state): State<AlarmCtx>,
    Scoped { stations, .. }: Scoped,
    Path(p): Path<IdPath>,
) -> ApiResult<Data<Setting>> {
    Ok(Data(
        rule_store::find(&state, &stations, p.one()?)
            .await?
            .ok_or_else(ApiError::not_found)?,
    ))
}

/// Adds a rule; answers its id.
#[utoipa::path(post, path = "/api/alarmSettingFlex", tag = "alarm", request_body = rule_input::RuleForm,
    responses((status = 200, body = Envelope<Id>), (status = 400), (status = 403)))]
pub async fn create(
    State(state): State<AlarmCtx>,
    Scoped { caller, stations }: Scoped,
    JsonBody(body): JsonBody<Map<String, Json>>,
) -> ApiResult<Data<Id>> {
    caller.require(&state, &format!("{MENU}_add")).await?;
    let d = rule_input::parse_draft(&body)?;
    rule_store::check_station(&state, &stations, d.station_id, None).await?;
    let id = state.ids.next();
    rule_store::insert(&state, &caller, id, &d).await?;
    eval::invalidate(&state);
    Ok(Data(id))
}

/// The stored rule as a body, for an update to merge the submitted fields over.
fn as_body(s: &Setting) -> Map<String, Json> {
    let mut m = Map::new();
    m.insert("stationId".into(), Json::String(s.station_id.to_string()));
    m.insert("variable".into(), Json::String(s.variable.clone()));
    m.insert("comparison".into(), Json::String(s.comparison.clone()));
    m.insert("threshold".into(), Json::from(s.threshold));
    m.insert(
        "thresholdHigh".into(),
        s.threshold_high.map_or(Json::Null, Json::from),
    );
    m.insert("durationSeconds".into(), Json::from(s.duration_seconds));
    m.insert("level".into(), Json::from(s.level));
    m.insert("enabled".into(), Json::Bool(s.enabled));
    m.insert("remark".into(), s.remark.clone().map_or(Json::Null, Json::String));
    m
}

/// Changes a rule (`id` required); fields left out keep their values. Disabling a rule clears
/// its open alarms at once (no sample will ever report it again).
#[utoipa::path(put, path = "/api/alarmSettingFlex", tag = "alarm", request_body = rule_input::RuleChange,
    responses((status = 200, body = Envelope<bool>), (status = 400), (status = 403), (status = 404)))]
pub async fn update(
    State(state): State<AlarmCtx>,
    Scoped { caller, stations }: Scoped,
    JsonBody(body): JsonBody<Map<String, Json>>,
) -> ApiResult<Data<bool>> {
    caller.require(&state, &format!("{MENU}_edit")).await?;
    let id = body_id(&body)?;
    let stored = rule_store::find(&state, &stations, id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let mut merged = as_body(&stored);
    for (k, v) in body {
        if k != "id" {
            merged.insert(k, v);
        }
    }
    let d = rule_input::parse_draft(&merged)?;
    rule_store::check_station(&state, &stations, d.station_id, Some(id)).await?;
    rule_store::update(&state, &caller, id, &d).await?;
    eval::invalidate(&state);
    // A rule moved to another station no longer watches the old one's bracket either.
    if !d.enabled || d.station_id != stored.station_id.0 {
        rule_store::clear_open(&state, &caller.tenant_id, &[id]).await?;
    }
    Ok(Data(true))
}

/// Removes the listed rules (comma-joined ids) of the caller's stations and clears their open
/// alarms; none found → 404.
#[utoipa::path(delete, path = "/api/alarmSettingFlex/{id}", tag = "alarm", params(IdPath),
    responses((status = 200, body = Envelope<bool>), (status = 403), (status = 404)))]
pub async fn remove(
    State(state): State<AlarmCtx>,
    Scoped { caller, stations }: Scoped,
    Path(p): Path<IdPath>,
) -> ApiResult<Data<bool>> {
    caller.require(&state, &format!("{MENU}_delete")).await?;
    let ids = ids_param(&p.id)?;
    // The ids the caller may remove, so only their alarms are cleared.
    let found = rule_store::visible_ids(&state, &stations, &ids).await?;
    if found.is_empty() {
        return Err(ApiError::not_found());
    }
    let found = crate::kernel::id::all_found(&ids, found)?;
    rule_store::remove(&state, &caller, &found).await?;
    eval::invalidate(&state);
    rule_store::clear_open(&state, &caller.tenant_id, &found).await?;
    Ok(Data(true))
}
