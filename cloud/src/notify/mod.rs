//! Notifications that reach people: per-user subscriptions (which events go to the bell, SMS,
//! e-mail), quiet hours and a daily digest (`settings`), the outbox every SMS and e-mail goes
//! through, written in the transaction of the event's bell message (`outbox`), and the
//! deliverer that sends each row once across replicas with retries (`deliver`). The rules are
//! in `docs/notifications.md`.

pub mod api;
pub mod deliver;
pub mod events;
pub mod outbox;
pub mod settings;

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// The event name of a digest row.
pub const DIGEST: &str = "digest";

/// The notification routes, mounted by `app` on the hub's state.
pub fn routes<S>() -> OpenApiRouter<S>
where
    S: Clone + Send + Sync + 'static,
    crate::kernel::Core: axum::extract::FromRef<S>,
{
    OpenApiRouter::new()
        .routes(routes!(api::get_setting, api::save_setting))
        .routes(routes!(api::log_list))
}
