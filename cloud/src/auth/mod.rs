//! Sign-in and the authenticated caller: OAuth token grants, captcha, sessions, password hashing,
//! and the one place where every route learns who calls it and what they may do.

pub mod api_scope;
pub mod caller;
pub mod captcha;
pub mod client;
pub mod oauth;
pub mod package;
pub mod password;
pub mod scope;
pub mod session;
pub mod throttle;
pub mod token;

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub use caller::Caller;

/// The sign-in and session routes, mounted by `app` on the hub's state.
pub fn routes<S>() -> OpenApiRouter<S>
where
    S: Clone + Send + Sync + 'static,
    crate::kernel::Core: axum::extract::FromRef<S>,
{
    OpenApiRouter::new()
        .routes(routes!(oauth::token))
        .routes(routes!(oauth::token_refresh))
        .routes(routes!(oauth::captcha))
        .routes(routes!(oauth::logout))
        .routes(routes!(oauth::user_info))
        .routes(routes!(oauth::clear_cache))
}
