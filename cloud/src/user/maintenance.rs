//! Maintenance staff (role `maintenance`), listed for assigning work orders and alarms.

use axum::extract::State;

use super::listing;
use super::model::StaffMember;
use crate::auth::caller::Caller;
use crate::kernel::{ApiResult, Core, Data, Envelope};

/// Active maintenance staff of the tenant (role `maintenance`), for assigning work.
#[utoipa::path(get, path = "/api/blade-user/listMaintenance", tag = "user",
    responses((status = 200, body = Envelope<Vec<StaffMember>>), (status = 401)))]
pub async fn list_maintenance(State(core): State<Core>, caller: Caller) -> ApiResult<Data<Vec<StaffMember>>> {
    Ok(Data(listing::maintenance_staff(&core.db, &caller).await?))
}
