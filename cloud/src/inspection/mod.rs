//! Inspections (issue 16): reusable items (`item_*`), plans over stations, items and
//! maintenance staff on a cycle (`plan_api`, `store`, the pure due-date arithmetic in `cycle`),
//! the tasks the job generates from plans exactly once per plan, station and due date, with
//! reminders and overdue notices as messages (`job`, `task_*`), the records that fill them
//! (`record_*`) and their workbooks (`export`). Rules and permissions: `docs/inspection.md`.

pub mod approval;
pub mod common;
pub mod cycle;
pub mod export;
pub mod item_api;
pub mod item_store;
pub mod job;
pub mod plan_api;
pub mod record_api;
pub mod record_store;
pub mod store;
pub mod task_api;
pub mod task_store;

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::kernel::Core;

/// `/api/inspectItem`, `/api/inspectPlan`, `/api/inspectTask`, `/api/inspectRecord`.
pub fn routes<S>() -> OpenApiRouter<S>
where
    S: Clone + Send + Sync + 'static,
    Core: axum::extract::FromRef<S>,
    crate::alarm::context::AlarmCtx: axum::extract::FromRef<S>,
{
    OpenApiRouter::new()
        .routes(routes!(item_api::page))
        .routes(routes!(item_api::list))
        .routes(routes!(item_api::create, item_api::update))
        .routes(routes!(item_api::detail, item_api::remove))
        .routes(routes!(plan_api::page))
        .routes(routes!(plan_api::copy))
        .routes(routes!(plan_api::cycle_period_list))
        .routes(routes!(plan_api::alarm_day_list))
        .routes(routes!(plan_api::maintenance_list))
        .routes(routes!(plan_api::save_item_and_return))
        .routes(routes!(plan_api::create, plan_api::update))
        .routes(routes!(plan_api::detail, plan_api::remove))
        .routes(routes!(export::plans))
        .routes(routes!(task_api::page))
        .routes(routes!(task_api::generate))
        .routes(routes!(task_api::detail, task_api::remove))
        .routes(routes!(export::tasks))
        .routes(routes!(record_api::create))
        .routes(routes!(record_api::page))
        .routes(routes!(record_api::detail, record_api::remove))
        .routes(routes!(export::records))
}
