//! Alarms and smart warnings: where they are kept (`store`), what evaluators report
//! (`condition`), the evaluators (`faults` tables, threshold `rules` with per-tenant
//! `settings`), the `engine` that debounces conditions into alarms and raises communication
//! loss, bracket (tracker) rules (`flex`, S-flex), the calls (`api`, `message`, `settings`), and the live feed that the console's bell
//! listens to (`feed`).

pub mod api;
pub mod codes;
pub mod condition;
pub mod context;
pub mod engine;
pub mod faults;
pub mod feed;
pub mod flex;
pub mod message;
pub mod rules;
pub mod settings;
pub mod store;

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub use context::{AlarmCtx, AlarmServices};

/// The alarm (feed, alarm data, smart warnings, rules, messages, bracket rules) routes, mounted by `app` on the hub's state.
pub fn routes<S>() -> OpenApiRouter<S>
where
    S: Clone + Send + Sync + 'static,
    crate::kernel::Core: axum::extract::FromRef<S>,
    AlarmCtx: axum::extract::FromRef<S>,
{
    OpenApiRouter::new()
        .routes(routes!(feed::connect))
        .routes(routes!(api::alarm_page))
        .routes(routes!(api::list_alarm_status))
        .routes(routes!(api::detail))
        .routes(routes!(api::handle))
        .routes(routes!(api::warn_page))
        .routes(routes!(api::get_rule, api::put_rule))
        .routes(routes!(message::list))
        .routes(routes!(message::read))
        .merge(flex::routes())
}
