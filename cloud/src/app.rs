//! Assembles the HTTP application: the domains' API routes, the OpenAPI document, the fallbacks
//! that keep `/api` answering in the envelope, panic safety and the embedded console.

use std::any::Any;

use axum::Router;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get};
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::trace::TraceLayer;
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::kernel::ApiError;
use crate::kernel::lang::{self, Text};
use crate::ops::{self, openapi::ApiDoc};
use crate::state::AppState;

/// Every API route of the product. Each domain adds its routes here.
pub fn api_routes() -> OpenApiRouter<AppState> {
    use crate::{alarm, auth, home, log, resource, station, system, telemetry, user};
    let router = OpenApiRouter::with_openapi(ApiDoc::openapi())
        .routes(routes!(ops::health::health))
        // auth
        .routes(routes!(auth::oauth::token))
        .routes(routes!(auth::oauth::token_refresh))
        .routes(routes!(auth::oauth::captcha))
        .routes(routes!(auth::oauth::logout, log::error_upload::upload))
        .routes(routes!(auth::oauth::user_info))
        .routes(routes!(auth::oauth::clear_cache))
        // system
        .routes(routes!(system::menu::routes))
        .routes(routes!(system::menu::buttons))
        .routes(routes!(system::menu::top_menu))
        .routes(routes!(system::tenant::info))
        .routes(routes!(system::tenant_admin::select))
        .routes(routes!(system::tenant_admin::setting))
        .routes(routes!(system::tenant_admin::datasource))
        .routes(routes!(system::tenant_admin::package_detail))
        .routes(routes!(system::tenant_admin::package_setting))
        .routes(routes!(system::select::dept_select))
        .routes(routes!(system::select::role_select))
        // access: roles, menus admin, top menus (their detail/submit/remove are generic, below)
        .routes(routes!(system::role::list))
        .routes(routes!(system::role::tree))
        .routes(routes!(system::role::tree_by_id))
        .routes(routes!(system::role::rolelist))
        .routes(routes!(system::role::grant))
        .routes(routes!(system::role::grant_app))
        .routes(routes!(system::menu_admin::list))
        .routes(routes!(system::menu_admin::menu_list))
        .routes(routes!(system::menu_admin::lazy_list_all))
        .routes(routes!(system::menu_admin::lazy_menu_list))
        .routes(routes!(system::menu_admin::tree))
        .routes(routes!(system::menu_admin::grant_tree))
        .routes(routes!(system::menu_admin::grant_tree_app))
        .routes(routes!(system::menu_admin::role_tree_keys))
        .routes(routes!(system::menu_admin::role_tree_keys_app))
        .routes(routes!(system::menu_admin::grant_top_tree))
        .routes(routes!(system::menu_admin::top_tree_keys))
        .routes(routes!(system::topmenu::grant))
        // user
        .routes(routes!(user::routes::register_guest))
        .routes(routes!(user::routes::info))
        .routes(routes!(user::routes::update_info))
        .routes(routes!(user::routes::update_password))
        .routes(routes!(user::routes::unlock))
        .routes(routes!(user::admin::page))
        .routes(routes!(user::admin::page_owner))
        .routes(routes!(user::admin::list_maintenance))
        .routes(routes!(user::admin::detail))
        .routes(routes!(user::admin::platform_detail))
        .routes(routes!(user::admin::update_platform))
        .routes(routes!(user::admin::submit))
        .routes(routes!(user::admin::update))
        .routes(routes!(user::admin::save_owner))
        .routes(routes!(user::admin::remove))
        .routes(routes!(user::admin::reset_password))
        .routes(routes!(user::admin::grant))
        .routes(routes!(user::admin::audit_pass))
        .routes(routes!(user::admin::audit_refuse))
        // resource: uploads stream to disk under their own size limit
        .merge(
            OpenApiRouter::new()
                .routes(routes!(resource::oss::put_file))
                .layer(axum::extract::DefaultBodyLimit::disable()),
        )
        .routes(routes!(resource::oss::remove_file))
        .routes(routes!(resource::oss::serve_file))
        // alarms: the feed, alarm data, smart warnings, rules, messages (issue 8)
        .routes(routes!(alarm::feed::connect))
        .routes(routes!(alarm::api::alarm_page))
        .routes(routes!(alarm::api::list_alarm_status))
        .routes(routes!(alarm::api::detail))
        .routes(routes!(alarm::api::handle))
        .routes(routes!(alarm::api::warn_page))
        .routes(routes!(alarm::settings::get_rule, alarm::settings::put_rule))
        .routes(routes!(alarm::message::list))
        .routes(routes!(alarm::message::read))
        // reference data: departments, dictionaries, regions
        .routes(routes!(system::dept::list))
        .routes(routes!(system::dept::lazy_list))
        .routes(routes!(system::dept::child_list))
        .routes(routes!(system::dept::tree))
        .routes(routes!(system::dept::lazy_tree))
        .routes(routes!(system::dict::dict_list))
        .routes(routes!(system::dict::dict_child_list))
        .routes(routes!(system::dict::dict_tree))
        .routes(routes!(system::dict::dict_dictionary))
        .routes(routes!(system::dict::dict_list_dict))
        .routes(routes!(system::dict::biz_list))
        .routes(routes!(system::dict::biz_child_list))
        .routes(routes!(system::dict::biz_tree))
        .routes(routes!(system::dict::biz_dictionary))
        .routes(routes!(system::dict::biz_list_dict))
        .routes(routes!(system::region::lazy_tree))
        .routes(routes!(system::region::lazy_list))
        .routes(routes!(system::region::detail))
        .routes(routes!(system::region::submit))
        .routes(routes!(system::region::remove))
        // logs
        .routes(routes!(log::list::api_list))
        .routes(routes!(log::list::api_detail))
        .routes(routes!(log::list::usual_list))
        .routes(routes!(log::list::usual_detail))
        .routes(routes!(log::list::error_list))
        .routes(routes!(log::list::error_detail))
        // telemetry: the operator's view of ingest
        .routes(routes!(crate::telemetry::admin::gateways))
        // station domain
        .routes(routes!(station::station::page))
        .routes(routes!(station::station::list))
        .routes(routes!(station::station::list_name_and_id))
        .routes(routes!(station::area::list_by_area))
        .routes(routes!(station::area::get_statistics_by_province))
        .routes(routes!(station::listing::list_station_state))
        .routes(routes!(station::listing::list_station_type))
        .routes(routes!(station::listing::list_manufacturer_inverter))
        .routes(routes!(station::listing::list_contribution_way))
        .routes(routes!(station::listing::list_connected_type))
        .routes(routes!(station::listing::list_map_model))
        .routes(routes!(station::station::create, station::station::update))
        .routes(routes!(station::station::detail, station::station::remove))
        .routes(routes!(station::station::switch_station))
        .routes(routes!(station::gateway::info))
        .routes(routes!(station::gateway::issue_credentials))
        .routes(routes!(station::gateway::download_config))
        .routes(routes!(station::excel::station_template))
        .routes(routes!(station::excel::export_stations))
        .routes(routes!(station::excel::inverter_template))
        // imports stream under `files.max_upload_bytes`, like uploads
        .merge(
            OpenApiRouter::new()
                .routes(routes!(station::excel::import_stations))
                .routes(routes!(station::excel::import_inverters))
                .layer(axum::extract::DefaultBodyLimit::disable()),
        )
        .routes(routes!(station::excel::export_inverters))
        .routes(routes!(station::flex::list))
        .routes(routes!(station::flex::get_edit_data))
        .routes(routes!(station::flex::list_station_name))
        .routes(routes!(station::flex::sensor_list))
        .routes(routes!(station::flex::create, station::flex::update))
        .routes(routes!(station::flex::remove))
        .routes(routes!(station::assignment::page_assignment))
        .routes(routes!(station::assignment::update_user_station))
        .routes(routes!(station::electric_price::save))
        .routes(routes!(station::electric_price::get_by_station_id))
        .routes(routes!(station::price::page))
        .routes(routes!(station::price::get_last_price))
        .routes(routes!(station::price::create, station::price::update))
        .routes(routes!(station::price::detail, station::price::remove))
        .routes(routes!(station::device::inverter::page))
        .routes(routes!(station::device::inverter::list_device_type))
        .routes(routes!(station::device::inverter::list_manufacturer))
        .routes(routes!(
            station::device::inverter::create,
            station::device::inverter::update
        ))
        .routes(routes!(
            station::device::inverter::detail,
            station::device::inverter::remove
        ))
        .routes(routes!(station::device::inverter_third::page))
        .routes(routes!(station::device::inverter_third::list_third_account))
        .routes(routes!(
            station::device::inverter_third::create,
            station::device::inverter_third::update
        ))
        .routes(routes!(station::device::inverter_third::remove))
        .routes(routes!(station::device::camera::page))
        .routes(routes!(station::device::camera::list_camera_type))
        .routes(routes!(station::device::camera::list_camera))
        .routes(routes!(station::device::camera::live_web_url))
        .routes(routes!(
            station::device::camera::create,
            station::device::camera::update
        ))
        .routes(routes!(station::device::camera::remove))
        .routes(routes!(station::device::weather::page))
        .routes(routes!(station::device::weather::list))
        .routes(routes!(
            station::device::weather::create,
            station::device::weather::update
        ))
        .routes(routes!(station::device::weather::remove))
        .routes(routes!(station::device::meter::page))
        .routes(routes!(
            station::device::meter::create,
            station::device::meter::update
        ))
        .routes(routes!(
            station::device::meter::detail,
            station::device::meter::remove
        ))
        // telemetry reads: home page, realtime pages (issue 7)
        .routes(routes!(home::data))
        .routes(routes!(home::map))
        .routes(routes!(telemetry::api::inverter_real::list))
        .routes(routes!(telemetry::api::inverter_real::list_wave_name))
        .routes(routes!(telemetry::api::inverter_real::list_wave_tag))
        .routes(routes!(telemetry::api::flex_real::real_time_data))
        .routes(routes!(telemetry::api::flex_real::data_by_sensor))
        .merge(crate::analytics::routes())
        .merge(alarm::flex::routes());
    // The list/detail/submit/remove family, declared per entity.
    [
        &system::param::PARAM,
        &system::post::POST,
        &system::tenant_admin::TENANT,
        &system::tenant_admin::TENANT_PACKAGE,
        &system::client_admin::CLIENT,
        &system::role::ROLE,
        &system::menu_admin::MENU,
        &system::topmenu::TOPMENU,
        &system::scope::DATA_SCOPE,
        &system::scope::API_SCOPE,
        &system::dept::DEPT,
        &system::dict::DICT,
        &system::dict::DICT_BIZ,
    ]
    .into_iter()
    .fold(router, system::crud::mount)
}

/// The whole application around `api` (normally [`api_routes`]; tests may add to it).
pub fn assemble(state: AppState, api: OpenApiRouter<AppState>) -> Router {
    let (api, mut doc) = api.split_for_parts();
    document_openapi_route(&mut doc);
    let doc_json = serde_json::to_string(&doc).unwrap_or_else(|_| "{}".into());
    api.route(
        ops::openapi::PATH,
        get(move || async move { ([(axum::http::header::CONTENT_TYPE, "application/json")], doc_json) }),
    )
    .route("/api", any(api_not_found))
    .route("/api/{*rest}", any(api_not_found))
    .route("/ws", any(api_not_found))
    .method_not_allowed_fallback(method_not_allowed)
    .fallback(crate::console::serve)
    .layer(axum::middleware::from_fn_with_state(
        state.clone(),
        crate::auth::api_scope::enforce,
    ))
    .with_state(state.clone())
    // Order matters: the panic guard sits inside the language scope so its answer is localised.
    .layer(CatchPanicLayer::custom(panic_response))
    // Outside the panic guard so a panic's 500 reaches the error log.
    .layer(axum::middleware::from_fn_with_state(
        state,
        crate::log::api_log::layer,
    ))
    .layer(axum::middleware::from_fn(lang::scope))
    .layer(TraceLayer::new_for_http())
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

/// The document describes itself too, so a client can find it from the index of paths.
fn document_openapi_route(doc: &mut utoipa::openapi::OpenApi) {
    use utoipa::openapi::path::{HttpMethod, OperationBuilder, PathItem};
    use utoipa::openapi::response::ResponseBuilder;
    let op = OperationBuilder::new()
        .tag("ops")
        .summary(Some("This OpenAPI document"))
        .response(
            "200",
            ResponseBuilder::new().description("OpenAPI 3.1 JSON (not enveloped)"),
        )
        .build();
    doc.paths
        .paths
        .insert(ops::openapi::PATH.to_owned(), PathItem::new(HttpMethod::Get, op));
}
