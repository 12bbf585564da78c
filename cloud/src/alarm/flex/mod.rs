//! Flexible-bracket (solar tracker) alarms: the rules a tenant sets on tracker variables
//! (`setting`, table `pv_alarm_setting_flex`), the evaluator the alarm engine calls for each
//! tracker sample (`eval`, re-exported as [`conditions`]), and the alarms those rules raised
//! (`data`, the `pv_alarm` rows of category `flex`). What a rule is and how it judges a value
//! lives in `rule`, free of the database.

pub mod data;
pub mod eval;
pub mod rule;
pub mod setting;

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub use eval::conditions;

use crate::state::AppState;

/// The device a sample came from, as evaluators need it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceRef {
    pub device_id: i64,
    pub tenant_id: String,
    pub station_id: i64,
    /// One of `telemetry::realtime::KIND_*`; bracket rules watch `flex` devices only.
    pub kind: &'static str,
    pub name: String,
}

/// `/api/alarmSettingFlex` and `/api/alarmDataFlex`.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(setting::list_variable))
        .routes(routes!(setting::page))
        .routes(routes!(setting::create, setting::update))
        .routes(routes!(setting::detail, setting::remove))
        .routes(routes!(data::page))
        .routes(routes!(data::detail, data::remove))
}
