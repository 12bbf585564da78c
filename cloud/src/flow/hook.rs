//! Where an ended instance hands back to the business record it was started for, in the same
//! transaction as the completion (or timer, or deletion) that ended it. The record is named by
//! the instance's `business_table` and `business_id`; an instance of no record needs nothing.

use super::runtime::Ended;
use super::store::Tx;
use crate::kernel::{ApiError, Core};

pub async fn finished(tx: &mut Tx, core: &Core, ended: &Ended, now: i64) -> Result<(), ApiError> {
    let Some(id) = ended.business_id else {
        return Ok(());
    };
    match ended.business_table.as_str() {
        super::leave::TABLE => super::leave::finished(tx, ended, id).await,
        crate::repair::approval::TABLE => crate::repair::approval::finished(tx, core, ended, id, now).await,
        crate::inspection::approval::TABLE => crate::inspection::approval::finished(tx, ended, id, now).await,
        _ => Ok(()),
    }
}
