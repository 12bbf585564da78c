//! The station domain: stations (with images, location and lifecycle), who may see which
//! station, the device registries hanging off a station, and prices.
//!
//! Every call is tenant-scoped, and every read and write of a station or of something hanging
//! off one goes through [`crate::auth::scope::visible_stations`], so owners and maintenance staff see only
//! their stations everywhere.

pub mod area;
pub mod assignment;
pub mod broker_accounts;
pub mod context;
pub mod device;
pub mod electric_price;
pub mod excel;
pub mod excel_labels;
pub mod fields;
pub mod flex;
pub mod gateway;
pub mod listing;
pub mod price_history;
pub mod services;
pub mod station_api;
pub mod station_checks;
pub mod station_fields;
pub mod station_record;
pub mod station_store;

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub use context::StationCtx;
pub use services::{MapModel, StationServices, open, seal};

/// The station (stations, gateways, imports, brackets, prices, devices) routes, mounted by `app` on the hub's state.
pub fn routes<S>() -> OpenApiRouter<S>
where
    S: Clone + Send + Sync + 'static,
    crate::kernel::Core: axum::extract::FromRef<S>,
    StationCtx: axum::extract::FromRef<S>,
    crate::telemetry::context::TelemetryCtx: axum::extract::FromRef<S>,
{
    let mut router = OpenApiRouter::new()
        .routes(routes!(station_api::page))
        .routes(routes!(station_api::list))
        .routes(routes!(station_api::list_name_and_id))
        .routes(routes!(area::list_by_area))
        .routes(routes!(area::get_statistics_by_province))
        .routes(routes!(listing::list_station_state))
        .routes(routes!(listing::list_station_type))
        .routes(routes!(listing::list_manufacturer_inverter))
        .routes(routes!(listing::list_contribution_way))
        .routes(routes!(listing::list_connected_type))
        .routes(routes!(listing::list_map_model))
        .routes(routes!(station_api::create, station_api::update))
        .routes(routes!(station_api::detail, station_api::remove))
        .routes(routes!(station_api::switch_station))
        .routes(routes!(gateway::info))
        .routes(routes!(gateway::issue_credentials))
        .routes(routes!(gateway::download_config))
        .routes(routes!(excel::station_template))
        .routes(routes!(excel::export_stations))
        .routes(routes!(excel::inverter_template))
        // imports stream under `files.max_upload_bytes`, like uploads
        .merge(
            OpenApiRouter::new()
                .routes(routes!(excel::import_stations))
                .routes(routes!(excel::import_inverters))
                .layer(axum::extract::DefaultBodyLimit::disable()),
        )
        .routes(routes!(excel::export_inverters))
        .routes(routes!(flex::list))
        .routes(routes!(flex::get_edit_data))
        .routes(routes!(flex::list_station_name))
        .routes(routes!(flex::sensor_list))
        .routes(routes!(flex::create, flex::update))
        .routes(routes!(flex::remove))
        .routes(routes!(assignment::page_assignment))
        .routes(routes!(assignment::update_user_station))
        .routes(routes!(electric_price::save))
        .routes(routes!(electric_price::get_by_station_id))
        .merge(price_history::routes())
        .merge(device::routes());
    // Bodies checked against the declared field tables are documented from the declarations.
    station_api::document(router.get_openapi_mut());
    flex::document(router.get_openapi_mut());
    router
}
