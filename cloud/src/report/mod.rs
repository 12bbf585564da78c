//! Reports: what each station and inverter produced and earned, and whether it produced what it
//! should have. The pure arithmetic — the time axis in the station's clock ([`period`]), the bill
//! ([`settlement`]), performance ratio and availability ([`performance`]), meter counters
//! ([`meter_readings`]) and savings ([`conservation`]) — is unit-tested against hand-computed
//! figures; [`store`] reads the rollups; `*_api` files are the calls. Formulas, sources and
//! choices: `docs/reports.md`.

pub mod bill_api;
pub mod common;
pub mod conservation;
pub mod export_api;
pub mod file_api;
pub mod generation_api;
pub mod irradiance_api;
pub mod meter_api;
pub mod meter_readings;
pub mod monthly;
pub mod performance;
pub mod performance_api;
pub mod period;
pub mod revenue;
pub mod setting_api;
pub mod settings;
pub mod settlement;
pub mod store;
pub mod tariff_store;
pub mod workbook;

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::kernel::Core;

/// The report routes (`/api/report/...`, `/api/meterReport/...`, `/api/stationMeterReport/...`).
pub fn routes<S>() -> OpenApiRouter<S>
where
    S: Clone + Send + Sync + 'static,
    Core: axum::extract::FromRef<S>,
{
    OpenApiRouter::new()
        .routes(routes!(generation_api::station_electricity))
        .routes(routes!(generation_api::station_multiple_electricity))
        .routes(routes!(generation_api::inverter_electricity))
        .routes(routes!(generation_api::inverter_multiple_electricity))
        .routes(routes!(performance_api::station_performance))
        .routes(routes!(irradiance_api::irradiance_list))
        .routes(routes!(irradiance_api::irradiance_multiple_list))
        .routes(routes!(meter_api::report_daily))
        .routes(routes!(meter_api::report_monthly))
        .routes(routes!(meter_api::report_yearly))
        .routes(routes!(meter_api::report_of_years))
        .routes(routes!(meter_api::history_meter))
        .routes(routes!(bill_api::electricity_bill_settlement))
        .routes(routes!(bill_api::rate))
        .routes(routes!(bill_api::energy_conservation))
        .routes(routes!(setting_api::setting, setting_api::update_setting))
        .routes(routes!(file_api::list))
        .routes(routes!(file_api::detail))
        .routes(routes!(file_api::download))
        .routes(routes!(file_api::generate))
        .routes(routes!(file_api::remove))
        .routes(routes!(export_api::station_electricity))
        .routes(routes!(export_api::station_multiple_electricity))
        .routes(routes!(export_api::station_performance))
        .routes(routes!(export_api::inverter_electricity))
        .routes(routes!(export_api::inverter_multiple_electricity))
        .routes(routes!(export_api::irradiance))
        .routes(routes!(export_api::irradiance_multiple))
        .routes(routes!(export_api::meter_report))
        .routes(routes!(export_api::history_meter))
        .routes(routes!(export_api::electricity_bill))
        .routes(routes!(export_api::rate))
        .routes(routes!(export_api::energy_conservation))
}
