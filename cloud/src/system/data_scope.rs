//! Data scopes: which rows of a resource's lists a caller's roles let them see.

use crate::auth::Caller;
use crate::kernel::ApiError;
use crate::kernel::sql::Sql;
use crate::state::AppState;

/// The condition (no leading `AND`) narrowing rows of `resource` (a menu code) for the caller, or
/// `None` when no data scope granted to the caller's roles covers that resource.
pub async fn narrow(_state: &AppState, _caller: &Caller, _resource: &str) -> Result<Option<Sql>, ApiError> {
    // Data scope rows and grants arrive with the role admin; until then nothing narrows.
    Ok(None)
}
