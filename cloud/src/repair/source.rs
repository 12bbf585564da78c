//! Where a repair order comes from when it is opened from an abnormal inspection result.
//!
//! The inspection tables (`pv_inspect_record`, `pv_inspect_record_item`) are built on another
//! branch; until they are merged, [`source_from_inspection`] finds nothing and the order takes
//! its title, description and station from the request, keeping the record id and result index.

use crate::auth::scope::Scoped;
use crate::kernel::{ApiError, Core, Id};

/// What an inspection result gives a new order.
#[derive(Debug, Clone)]
pub struct InspectionSource {
    pub station_id: i64,
    pub title: String,
    pub description: String,
}

/// The station, title and description of result `index` of inspection record `record`, when the
/// caller may see the record. Wired to the inspection tables after both branches merge.
pub async fn source_from_inspection(
    _core: &Core,
    _scope: &Scoped,
    _record: Id,
    _index: i64,
) -> Result<Option<InspectionSource>, ApiError> {
    Ok(None)
}
