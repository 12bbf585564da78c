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
        .routes(routes!(setting::list_variable))
        .routes(routes!(setting::page))
        .routes(routes!(setting::create, setting::update))
        .routes(routes!(setting::detail, setting::remove))
        .routes(routes!(data::page))
        .routes(routes!(data::detail, data::remove))
}
