//! Where a repair order comes from when it is opened from an abnormal inspection result: the
//! record's station, and a title and description taken from the check and the note the
//! maintenance user wrote. The result then points at its order (`pv_inspect_record_item.repair_id`),
//! so the record shows the order and a second tap does not open another one.

use sqlx::Any;
use sqlx::Transaction;

use crate::auth::scope::Scoped;
use crate::kernel::lang::Text;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, Core, Id};

const NO_SUCH_RESULT: Text = Text::new("巡检结果不存在", "No such inspection result");
const RESULT_NORMAL: Text = Text::new(
    "该检查项正常，无需维修工单",
    "This check is normal: it needs no repair order",
);

/// What an inspection result gives a new order.
#[derive(Debug, Clone)]
pub struct InspectionSource {
    pub station_id: i64,
    pub title: String,
    pub description: String,
    /// The order already opened from this result, if any.
    pub repair_id: Option<Id>,
}

#[derive(sqlx::FromRow)]
struct ResultRow {
    station_id: i64,
    item_title: String,
    check_text: String,
    result: String,
    note: String,
    repair_id: Option<i64>,
}

/// The station, title and description of result `index` of inspection record `record`. A
/// record the caller cannot see answers 404; a missing index, or a result that is normal, 400.
pub async fn source_from_inspection(
    core: &Core,
    scope: &Scoped,
    record: Id,
    index: i64,
) -> Result<InspectionSource, ApiError> {
    let mut sql = Sql::new(
        "SELECT r.station_id, i.item_title, i.check_text, i.result, i.note, i.repair_id \
         FROM pv_inspect_record r JOIN pv_inspect_record_item i ON i.record_id = r.id WHERE ",
    );
    sql.append(&scope.stations.rows("r", "station_id"));
    sql.push_bind(" AND r.id = ?", [Value::from(record)]);
    sql.push_bind(" AND i.seq = ?", [Value::Int(index)]);
    match sql.fetch_optional::<ResultRow, _>(core.db.pool()).await? {
        Some(r) if r.result != "2" => Err(ApiError::BadRequest(RESULT_NORMAL)),
        Some(r) => Ok(InspectionSource {
            station_id: r.station_id,
            title: format!("巡检异常：{} - {}", r.item_title, r.check_text),
            description: if r.note.trim().is_empty() {
                r.check_text
            } else {
                r.note
            },
            repair_id: r.repair_id.map(Id),
        }),
        None => {
            let mut seen = Sql::new("SELECT COUNT(*) FROM pv_inspect_record r WHERE ");
            seen.append(&scope.stations.rows("r", "station_id"));
            seen.push_bind(" AND r.id = ?", [Value::from(record)]);
            if seen.scalar::<i64, _>(core.db.pool()).await? == 0 {
                Err(ApiError::not_found())
            } else {
                Err(ApiError::BadRequest(NO_SUCH_RESULT))
            }
        }
    }
}

/// Points result `index` of `record` at `order`, in the order's transaction.
pub async fn link_result(
    tx: &mut Transaction<'_, Any>,
    record: i64,
    index: i64,
    order: Id,
) -> Result<(), ApiError> {
    let mut sql = Sql::new("UPDATE pv_inspect_record_item SET ");
    sql.push_bind(
        "repair_id = ? WHERE record_id = ? AND seq = ?",
        [Value::from(order), Value::Int(record), Value::Int(index)],
    );
    sql.execute(&mut **tx).await?;
    Ok(())
}
