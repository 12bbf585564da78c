//! Solar tracker ("flex", the legacy word for the flexible PV bracket, kept in the URLs)
//! alarms: the rules a tenant sets on tracker variables (table `pv_alarm_setting_flex`: what a
//! rule is and how it judges a value in `bracket_rule`, free of the database; a submitted rule
//! checked in `rule_input`; kept in `rule_store`; called through `rule_api`), the evaluator the
//! alarm engine calls for each tracker sample (`eval`, re-exported as [`conditions`]), and the
//! alarms those rules raised (`alarm_api`, `/api/alarmDataFlex`: the `pv_alarm` rows of category
//! `flex`).

pub mod alarm_api;
pub mod bracket_rule;
pub mod eval;
pub mod rule_api;
pub mod rule_input;
pub mod rule_store;

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub use eval::{DeviceRef, conditions};

use crate::kernel::Core;

/// `/api/alarmSettingFlex` and `/api/alarmDataFlex`.
pub fn routes<S>() -> OpenApiRouter<S>
where
    S: Clone + Send + Sync + 'static,
    Core: axum::extract::FromRef<S>,
    crate::alarm::context::AlarmCtx: axum::extract::FromRef<S>,
{
    OpenApiRouter::new()
        .routes(routes!(rule_api::list_variable))
        .routes(routes!(rule_api::page))
        .routes(routes!(rule_api::create, rule_api::update))
        .routes(routes!(rule_api::detail, rule_api::remove))
        .routes(routes!(alarm_api::page))
        .routes(routes!(alarm_api::detail, alarm_api::remove))
}
