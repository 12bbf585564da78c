//! Orders as a given caller sees them: the record plus the actions they may take now (and, for
//! one order, its timeline).

use super::people::{Viewer, owned_stations};
use super::record::{RepairOrder, Row};
use super::store;
use crate::auth::scope::Scoped;
use crate::kernel::lang::Lang;
use crate::kernel::{ApiError, Core, Id, time};

/// `rows` as `viewer` sees them (no timeline).
pub async fn orders(
    core: &Core,
    tenant: &str,
    viewer: &Viewer,
    rows: Vec<Row>,
) -> Result<Vec<RepairOrder>, ApiError> {
    let mut stations: Vec<i64> = rows.iter().map(|r| r.station_id).collect();
    stations.sort_unstable();
    stations.dedup();
    let owned = owned_stations(core, tenant, &stations).await?;
    let (now, lang) = (time::now_ms(), Lang::current());
    Ok(rows
        .into_iter()
        .map(|r| {
            let actions = viewer.actions(&r, owned.contains(&r.station_id));
            RepairOrder::of(r, actions, now, lang)
        })
        .collect())
}

/// Order `id` with its timeline, or 404 outside the caller's scope.
pub async fn detail(core: &Core, scope: &Scoped, viewer: &Viewer, id: Id) -> Result<RepairOrder, ApiError> {
    let row = store::find(core, scope, id)
        .await?
        .ok_or_else(ApiError::not_found)?;
    let mut out = orders(core, &scope.caller.tenant_id, viewer, vec![row]).await?;
    let mut order = out.pop().ok_or_else(ApiError::not_found)?;
    order.logs = Some(store::logs(core, id).await?);
    Ok(order)
}
