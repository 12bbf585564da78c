//! Repair orders (维修工单): a fault turned into work. An order is opened by hand, from an alarm
//! or from an inspection result, dispatched to a maintenance user, accepted, repaired on site,
//! verified (by the alarm's condition ending, or a dispatcher) and evaluated by the station's
//! owner. The pure state machine (`machine`) says which action is allowed in which status and
//! to whom; `store` keeps orders and their timeline, every change one conditional UPDATE;
//! `people` resolves who the caller is to an order; `link` keeps an alarm open while its order
//! is; `notify` messages the people concerned; `deadline` is the overdue job; `settings` and
//! `stats` hold the deadlines and the figures (MTTR). Calls: `order_api`, `action_api`,
//! `setting_api`, `stats_api`. The whole is described in `docs/repair.md`.

pub mod action_api;
pub mod approval;
pub mod deadline;
pub mod link;
pub mod machine;
pub mod notify;
pub mod order_api;
pub mod people;
pub mod photos;
pub mod record;
pub mod setting_api;
pub mod settings;
pub mod source;
pub mod stats;
pub mod stats_api;
pub mod store;
pub mod view;

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::alarm::context::AlarmCtx;
use crate::kernel::Core;

/// The repair routes (`/api/repair/...`).
pub fn routes<S>() -> OpenApiRouter<S>
where
    S: Clone + Send + Sync + 'static,
    Core: axum::extract::FromRef<S>,
    AlarmCtx: axum::extract::FromRef<S>,
{
    OpenApiRouter::new()
        .routes(routes!(order_api::page))
        .routes(routes!(order_api::status_list))
        .routes(routes!(stats_api::stats))
        .routes(routes!(setting_api::setting, setting_api::update_setting))
        .routes(routes!(action_api::assign_get, action_api::assign_post))
        .routes(routes!(action_api::accept))
        .routes(routes!(action_api::transfer))
        .routes(routes!(action_api::start))
        .routes(routes!(action_api::finish))
        .routes(routes!(action_api::verify))
        .routes(routes!(action_api::evaluate))
        .routes(routes!(action_api::cancel))
        .routes(routes!(order_api::create))
        .routes(routes!(order_api::detail))
}
