//! Operating the hub itself: health, the API description, backup and restore.

pub mod backup;
pub mod health;
pub mod openapi;

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// The operations routes, mounted by `app` on the hub's state.
pub fn routes<S>() -> OpenApiRouter<S>
where
    S: Clone + Send + Sync + 'static,
    crate::kernel::Core: axum::extract::FromRef<S>,
{
    OpenApiRouter::new().routes(routes!(health::health))
}
