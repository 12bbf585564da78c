//! Logs kept by the hub. So far: the console's uploaded error logs.

pub mod api_log;
pub mod error_upload;
pub mod list;
pub mod records;
pub mod usual;

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// The log routes, mounted by `app` on the hub's state.
pub fn routes<S>() -> OpenApiRouter<S>
where
    S: Clone + Send + Sync + 'static,
    crate::kernel::Core: axum::extract::FromRef<S>,
{
    OpenApiRouter::new()
        .routes(routes!(error_upload::upload))
        .routes(routes!(list::api_list))
        .routes(routes!(list::api_detail))
        .routes(routes!(list::usual_list))
        .routes(routes!(list::usual_detail))
        .routes(routes!(list::error_list))
        .routes(routes!(list::error_detail))
}
