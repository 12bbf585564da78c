//! The station domain's side of declared fields: the entity engine's field types, and the
//! answers only this domain can give them (dictionary keys, register maps, the credential key).
//! Stations, devices, the price history, the flex bracket and the Excel import parse through
//! [`parse`] here, so every one checks the same way.

use pv_shared::regmap::DeviceKind;
use serde_json::{Map, Value as Json};

use crate::kernel::ApiError;
use crate::kernel::entity::field::{self, CheckFuture, Validate};
pub use crate::kernel::entity::field::{Col, Parsed, Ty, format_day, parse_day, value_of};
pub use crate::kernel::entity::read::{exact_filters, list_fields, row_json, select_list};
use crate::station::context::StationCtx;

impl Validate for StationCtx {
    fn dict_keys<'a>(&'a self, code: &'static str) -> CheckFuture<'a, Vec<String>> {
        Box::pin(async move {
            Ok(crate::system::dict::system_entries(self, code)
                .await?
                .into_iter()
                .map(|e| e.dict_key)
                .collect())
        })
    }

    fn map_model_fits(&self, id: &str, kind: DeviceKind) -> bool {
        self.services.map_model(id).is_some_and(|m| m.kind == kind)
    }

    fn seal(&self, plain: &str) -> Result<String, ApiError> {
        self.services
            .seal(plain)
            .map_err(|e| ApiError::Internal(format!("seal: {e}")))
    }
}

/// Checks the submitted `body` against `cols` with this domain's answers (see
/// [`field::parse`]).
pub async fn parse(
    state: &StationCtx,
    cols: &'static [Col],
    body: &Map<String, Json>,
) -> Result<Vec<Parsed>, ApiError> {
    field::parse(state, cols, body).await
}
