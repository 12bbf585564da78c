//! The HTTP application: the domains' routes, the OpenAPI document, envelope fallbacks, panic safety, console.

use std::any::Any;

use axum::Router;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get};
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::trace::TraceLayer;
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;

use crate::kernel::ApiError;
use crate::kernel::lang::{self, Text};
use crate::ops::{self, openapi::ApiDoc};
use crate::state::AppState;

/// Every API route of the product: each domain owns its routes; this only merges them.
pub fn api_routes() -> OpenApiRouter<AppState> {
    use crate::{
        alarm, analytics, auth, business, commission, develop, energy, equipment, flow, home, inspection,
        log, notify, ops, repair, report, resource, station, system, telemetry, user, vendor,
    };
    OpenApiRouter::with_openapi(ApiDoc::openapi())
        .merge(ops::routes())
        .merge(auth::routes())
        .merge(system::routes())
        .merge(user::routes())
        .merge(resource::routes())
        .merge(notify::routes())
        .merge(log::routes())
        .merge(station::routes())
        .merge(telemetry::routes())
        .merge(commission::routes())
        .merge(home::routes())
        .merge(alarm::routes())
        .merge(analytics::routes())
        .merge(report::routes())
        .merge(energy::routes())
        .merge(equipment::routes())
        .merge(repair::routes())
        .merge(inspection::routes())
        .merge(flow::routes())
        .merge(develop::routes())
        .merge(business::routes())
        .merge(vendor::api::routes())
}

/// The whole application around `api` (normally [`api_routes`]; tests may add to it).
pub fn assemble(state: AppState, api: OpenApiRouter<AppState>) -> Router {
    let (api, mut doc) = api.split_for_parts();
    let api = crate::headers::api(api);
    let config = state.config.clone();
    ops::openapi::describe_itself(&mut doc);
    let doc_json = serde_json::to_string(&doc).unwrap_or_else(|_| "{}".into());
    let app = api
        .route(
            ops::openapi::PATH,
            get(move || async move { ([(axum::http::header::CONTENT_TYPE, "application/json")], doc_json) }),
        )
        .route("/api", any(api_not_found))
        .route("/api/{*rest}", any(api_not_found))
        .route("/ws", any(api_not_found))
        .route(crate::scrape::PATH, get(crate::scrape::public))
        .method_not_allowed_fallback(method_not_allowed)
        .fallback(crate::console::serve)
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            crate::auth::api_scope::enforce,
        ))
        .with_state(state.clone())
        // Per route (the template is known here), outermost of the per-route layers.
        .layer(axum::middleware::from_fn_with_state(
            state.core.clone(),
            crate::scrape::count_requests,
        ))
        // Before every extractor: text with U+0000 (or, in writes, bidi controls) is refused.
        .layer(axum::middleware::from_fn(
            crate::kernel::extract::refuse_control_chars,
        ))
        // Whatever the framework itself refuses (413, malformed bodies...) answers in the envelope.
        .layer(axum::middleware::from_fn(
            crate::kernel::extract::envelope_rejections,
        ))
        // Order matters: the panic guard sits inside the language scope so its answer is localised.
        .layer(CatchPanicLayer::custom(panic_response));
    // Inside the language scope (localised 429s) and the api log (refusals are logged).
    let app = crate::kernel::rate_limit::wrap(app, &state.core)
        // Outside the panic guard so a panic's 500 reaches the error log.
        .layer(axum::middleware::from_fn_with_state(
            state,
            crate::log::api_log::layer,
        ))
        .layer(axum::middleware::from_fn(lang::scope))
        .layer(TraceLayer::new_for_http());
    crate::headers::everywhere(app, &config)
}

async fn api_not_found() -> ApiError {
    ApiError::NotFound(Text::new("接口不存在", "No such API"))
}
async fn method_not_allowed() -> ApiError {
    ApiError::MethodNotAllowed
}

fn panic_response(panic: Box<dyn Any + Send + 'static>) -> Response {
    let detail = panic
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| panic.downcast_ref::<&str>().copied())
        .unwrap_or("(non-text panic payload)");
    tracing::error!(panic = detail, "handler panicked");
    let mut response = ApiError::Internal(format!("panic: {detail}")).into_response();
    *response.status_mut() = StatusCode::INTERNAL_SERVER_ERROR;
    response
        .extensions_mut()
        .insert(crate::log::api_log::ErrorDetail(format!("panic: {detail}")));
    response
}
