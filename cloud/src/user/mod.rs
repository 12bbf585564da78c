//! People: accounts, their roles and departments, self-service profile and password, guest
//! registration (`/api/blade-user`).
//!
//! Handlers by screen: `accounts` (tenant users), `owners`, `maintenance`, `grants` (roles,
//! password resets, unlocking), `audit` (approving guests), `platform`, `profile` (the caller's
//! own account), `registration` (guests). Rules live in `validate`, records in `model`, the
//! administrators' view of users in `listing`, SQL in `store`.

pub mod accounts;
pub mod audit;
pub mod grants;
pub mod listing;
pub mod maintenance;
pub mod model;
pub mod owners;
pub mod permit;
pub mod phone;
pub mod platform;
pub mod profile;
pub mod registration;
pub mod store;
pub mod validate;

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// The user routes, mounted by `app` on the hub's state.
pub fn routes<S>() -> OpenApiRouter<S>
where
    S: Clone + Send + Sync + 'static,
    crate::kernel::Core: axum::extract::FromRef<S>,
{
    OpenApiRouter::new()
        .routes(routes!(registration::register_guest))
        .routes(routes!(profile::info))
        .routes(routes!(profile::update_info))
        .routes(routes!(profile::update_password))
        .routes(routes!(phone::update_password))
        .routes(routes!(grants::unlock))
        .routes(routes!(accounts::page))
        .routes(routes!(owners::page_owner))
        .routes(routes!(maintenance::list_maintenance))
        .routes(routes!(accounts::detail))
        .routes(routes!(platform::platform_detail))
        .routes(routes!(platform::update_platform))
        .routes(routes!(accounts::submit))
        .routes(routes!(accounts::update))
        .routes(routes!(owners::save_owner))
        .routes(routes!(accounts::remove))
        .routes(routes!(grants::reset_password))
        .routes(routes!(grants::grant))
        .routes(routes!(audit::audit_pass))
        .routes(routes!(audit::audit_refuse))
}
