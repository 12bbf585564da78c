//! Permission checks shared by the user administration screens, which several menus reach
//! (users, personnel, owners), each with its own button codes.

use crate::auth::caller::{Caller, NO_PERMISSION};
use crate::kernel::{ApiError, Core};

/// Fails with 403 unless the caller holds one of `codes`.
pub async fn require_any(core: &Core, caller: &Caller, codes: &[&str]) -> Result<(), ApiError> {
    for code in codes {
        if caller.has_permission(core, code).await? {
            return Ok(());
        }
    }
    Err(ApiError::Forbidden(NO_PERMISSION))
}
