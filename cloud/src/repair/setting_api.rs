//! The tenant's repair deadlines (`/api/repair/setting`): read by every signed-in user (the
//! console shows them next to the deadlines), changed by holders of `repair_setting` who are not
//! limited to assigned stations (the setting applies to every station of the tenant).

use axum::extract::State;
use serde_json::Value as Json;

use super::settings::{REPAIR_KEY, RepairSetting};
use crate::analytics::settings as tenant_settings;
use crate::auth::Caller;
use crate::auth::scope::Scoped;
use crate::kernel::extract::Json as JsonBody;
use crate::kernel::lang::Text;
use crate::kernel::{ApiError, ApiResult, Core, Data, Envelope};

pub const SETTING_BUTTON: &str = "repair_setting";

const TENANT_WIDE: Text = Text::new(
    "该设置对整个租户生效，仅限不受电站分配限制的用户修改",
    "This setting applies to the whole tenant; only users not limited to assigned stations may change it",
);

/// The tenant's response and repair hours per level (defaults when never saved).
#[utoipa::path(get, path = "/api/repair/setting", tag = "repair",
    responses((status = 200, body = Envelope<RepairSetting>), (status = 401)))]
pub async fn setting(State(core): State<Core>, caller: Caller) -> ApiResult<Data<RepairSetting>> {
    Ok(Data(
        tenant_settings::load(&core, &caller.tenant_id, REPAIR_KEY).await?,
    ))
}

/// Changes the tenant's deadlines (button `repair_setting`; fields not sent keep their value).
/// New deadlines apply to orders created afterwards.
#[utoipa::path(put, path = "/api/repair/setting", tag = "repair", request_body = RepairSetting,
    responses((status = 200, body = Envelope<RepairSetting>), (status = 400), (status = 401), (status = 403)))]
pub async fn update_setting(
    State(core): State<Core>,
    Scoped { caller, stations }: Scoped,
    JsonBody(body): JsonBody<Json>,
) -> ApiResult<Data<RepairSetting>> {
    caller.require(&core, SETTING_BUTTON).await?;
    if stations.is_restricted() {
        return Err(ApiError::Forbidden(TENANT_WIDE));
    }
    let current: RepairSetting = tenant_settings::load(&core, &caller.tenant_id, REPAIR_KEY).await?;
    let next = tenant_settings::merge(&current, body, RepairSetting::validate)?;
    tenant_settings::save(&core, &caller.tenant_id, REPAIR_KEY, &next, caller.user_id.0).await?;
    Ok(Data(next))
}
