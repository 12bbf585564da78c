//! People: accounts, their roles and departments, self-service profile and password, guest
//! registration (`/api/blade-user`).

pub mod admin;
pub mod routes;
pub mod store;

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// The user routes, mounted by `app` on the hub's state.
pub fn routes<S>() -> OpenApiRouter<S>
where
    S: Clone + Send + Sync + 'static,
    crate::kernel::Core: axum::extract::FromRef<S>,
{
    OpenApiRouter::new()
        .routes(routes!(routes::register_guest))
        .routes(routes!(routes::info))
        .routes(routes!(routes::update_info))
        .routes(routes!(routes::update_password))
        .routes(routes!(routes::unlock))
        .routes(routes!(admin::page))
        .routes(routes!(admin::page_owner))
        .routes(routes!(admin::list_maintenance))
        .routes(routes!(admin::detail))
        .routes(routes!(admin::platform_detail))
        .routes(routes!(admin::update_platform))
        .routes(routes!(admin::submit))
        .routes(routes!(admin::update))
        .routes(routes!(admin::save_owner))
        .routes(routes!(admin::remove))
        .routes(routes!(admin::reset_password))
        .routes(routes!(admin::grant))
        .routes(routes!(admin::audit_pass))
        .routes(routes!(admin::audit_refuse))
}
