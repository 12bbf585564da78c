//! The tenant's report settings (`/api/report/setting`): read by every signed-in user (the
//! console shows the coefficients next to the figures they produce), changed by holders of the
//! electricity bill page who are not limited to assigned stations.

use axum::extract::State;
use serde_json::Value as Json;

use super::settings::{REPORT_KEY, ReportSetting};
use crate::analytics::settings as tenant_settings;
use crate::auth::Caller;
use crate::auth::scope::Scoped;
use crate::kernel::extract::Json as JsonBody;
use crate::kernel::lang::Text;
use crate::kernel::{ApiError, ApiResult, Core, Data, Envelope};

/// The menu whose holders may change the report settings.
pub const BILL_MENU: &str = "electricityBill";

const TENANT_WIDE: Text = Text::new(
    "该设置对整个租户生效，仅限不受电站分配限制的用户修改",
    "This setting applies to the whole tenant; only users not limited to assigned stations may change it",
);

/// The tenant's report settings (defaults when never saved).
#[utoipa::path(get, path = "/api/report/setting", tag = "report",
    responses((status = 200, body = Envelope<ReportSetting>)))]
pub async fn setting(State(core): State<Core>, caller: Caller) -> ApiResult<Data<ReportSetting>> {
    Ok(Data(
        tenant_settings::load(&core, &caller.tenant_id, REPORT_KEY).await?,
    ))
}

/// Changes the tenant's report settings (fields not sent keep their value).
#[utoipa::path(put, path = "/api/report/setting", tag = "report",
    request_body = ReportSetting,
    responses((status = 200, body = Envelope<ReportSetting>), (status = 400), (status = 403)))]
pub async fn update_setting(
    State(core): State<Core>,
    Scoped {
        caller,
        stations: scope,
    }: Scoped,
    JsonBody(body): JsonBody<Json>,
) -> ApiResult<Data<ReportSetting>> {
    caller.require(&core, BILL_MENU).await?;
    if scope.is_restricted() {
        return Err(ApiError::Forbidden(TENANT_WIDE));
    }
    let current: ReportSetting = tenant_settings::load(&core, &caller.tenant_id, REPORT_KEY).await?;
    let next = tenant_settings::merge(&current, body, ReportSetting::validate)?;
    tenant_settings::save(&core, &caller.tenant_id, REPORT_KEY, &next, caller.user_id.0).await?;
    Ok(Data(next))
}
