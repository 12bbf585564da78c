//! Inspection items in the database (`pv_inspect_item`): tenant-wide, their checks a JSON list.

use serde::Serialize;
use utoipa::ToSchema;

use super::common::{json_of, strings_of};
use crate::auth::Caller;
use crate::kernel::sql::{Sql, Value, like_contains};
use crate::kernel::time::{self, Timestamp};
use crate::kernel::{ApiError, Core, Id, Page};

/// A reusable inspection item: a title and its checks.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InspectItem {
    pub id: Id,
    pub title: String,
    pub check_items: Vec<String>,
    pub remark: String,
    pub create_time: Timestamp,
    pub update_time: Timestamp,
}

#[derive(Debug, sqlx::FromRow)]
struct Row {
    id: i64,
    title: String,
    check_items: String,
    remark: String,
    create_time: i64,
    update_time: i64,
}

impl From<Row> for InspectItem {
    fn from(r: Row) -> Self {
        InspectItem {
            id: Id(r.id),
            title: r.title,
            check_items: strings_of(&r.check_items),
            remark: r.remark,
            create_time: Timestamp(r.create_time),
            update_time: Timestamp(r.update_time),
        }
    }
}

/// A checked item: title, checks and remark.
#[derive(Debug, Clone)]
pub struct ItemDraft {
    pub title: String,
    pub check_items: Vec<String>,
    pub remark: String,
}

const COLUMNS: &str = "SELECT i.id, i.title, i.check_items, i.remark, i.create_time, i.update_time";

/// `FROM` and the live items of the caller's tenant.
fn visible(caller: &Caller) -> Sql {
    let mut sql = Sql::new(" FROM pv_inspect_item i WHERE i.is_deleted = 0 AND ");
    sql.append(&caller.tenant_filter("i.tenant_id"));
    sql
}

pub async fn page(
    core: &Core,
    caller: &Caller,
    title: Option<&str>,
    current: i64,
    size: i64,
) -> Result<Page<InspectItem>, ApiError> {
    let mut cond = visible(caller);
    if let Some(t) = title {
        cond.push_bind(
            " AND LOWER(i.title) LIKE LOWER(?) ESCAPE '\\'",
            [Value::from(like_contains(t))],
        );
    }
    let mut count = Sql::new("SELECT COUNT(*)");
    count.append(&cond);
    let total: i64 = count.scalar(core.db.pool()).await?;
    let mut sql = Sql::new(COLUMNS);
    sql.append(&cond);
    sql.push_bind(
        " ORDER BY i.create_time DESC, i.id DESC LIMIT ? OFFSET ?",
        [Value::Int(size), Value::Int((current - 1) * size)],
    );
    let rows: Vec<Row> = sql.fetch_all(core.db.pool()).await?;
    Ok(Page::new(
        rows.into_iter().map(InspectItem::from).collect(),
        total,
        size,
        current,
    ))
}

/// Every item of the tenant (at most 500), by title, for pickers.
pub async fn list(core: &Core, caller: &Caller) -> Result<Vec<InspectItem>, ApiError> {
    let mut sql = Sql::new(COLUMNS);
    sql.append(&visible(caller));
    sql.push(" ORDER BY i.title, i.id LIMIT 500");
    let rows: Vec<Row> = sql.fetch_all(core.db.pool()).await?;
    Ok(rows.into_iter().map(InspectItem::from).collect())
}

pub async fn find(core: &Core, caller: &Caller, id: Id) -> Result<Option<InspectItem>, ApiError> {
    let mut sql = Sql::new(COLUMNS);
    sql.append(&visible(caller));
    sql.push_bind(" AND i.id = ?", [Value::from(id)]);
    Ok(sql
        .fetch_optional::<Row, _>(core.db.pool())
        .await?
        .map(InspectItem::from))
}

/// The live items among `ids` of `tenant`, in the order of `ids`.
pub async fn of_ids(core: &Core, tenant: &str, ids: &[Id]) -> Result<Vec<InspectItem>, ApiError> {
    if ids.is_empty() {
        return Ok(vec![]);
    }
    let mut sql = Sql::new(COLUMNS);
    // By tenant: plans and the job read the items of a plan's tenant.
    sql.push_bind(
        " FROM pv_inspect_item i WHERE i.is_deleted = 0 AND i.tenant_id = ? AND i.id IN (",
        [Value::from(tenant)],
    );
    sql.push_ids(ids);
    sql.push(")");
    let rows: Vec<Row> = sql.fetch_all(core.db.pool()).await?;
    let mut items: Vec<InspectItem> = rows.into_iter().map(InspectItem::from).collect();
    items.sort_by_key(|i| ids.iter().position(|x| *x == i.id));
    Ok(items)
}

pub async fn insert(core: &Core, caller: &Caller, d: &ItemDraft) -> Result<Id, ApiError> {
    let id = core.ids.next();
    let now = time::now_ms();
    let mut sql = Sql::new(
        "INSERT INTO pv_inspect_item (id, tenant_id, title, check_items, remark, create_user, create_time, \
         update_time) VALUES ",
    );
    sql.push_bind(
        "(?, ?, ?, ?, ?, ?, ?, ?)",
        [
            Value::from(id),
            Value::from(caller.tenant_id.as_str()),
            Value::from(d.title.as_str()),
            Value::from(json_of(&d.check_items)?),
            Value::from(d.remark.as_str()),
            Value::from(caller.user_id),
            Value::Int(now),
            Value::Int(now),
        ],
    );
    sql.execute(core.db.pool()).await?;
    Ok(id)
}

/// Answers whether the item was there to change.
pub async fn update(core: &Core, caller: &Caller, id: Id, d: &ItemDraft) -> Result<bool, ApiError> {
    let mut sql = Sql::new("UPDATE pv_inspect_item SET ");
    sql.push_bind(
        "title = ?, check_items = ?, remark = ?, update_time = ? WHERE is_deleted = 0 AND id = ? AND ",
        [
            Value::from(d.title.as_str()),
            Value::from(json_of(&d.check_items)?),
            Value::from(d.remark.as_str()),
            Value::Int(time::now_ms()),
            Value::from(id),
        ],
    );
    sql.append(&caller.tenant_filter("tenant_id"));
    Ok(sql.execute(core.db.pool()).await? > 0)
}

/// How many of `ids` a live plan uses.
pub async fn used_by_plans(core: &Core, ids: &[Id]) -> Result<i64, ApiError> {
    let mut sql = Sql::new(
        "SELECT COUNT(*) FROM pv_inspect_plan_item pi JOIN pv_inspect_plan p ON p.id = pi.plan_id \
         WHERE p.is_deleted = 0 AND pi.item_id IN (",
    );
    sql.push_ids(ids);
    sql.push(")");
    sql.scalar::<i64, _>(core.db.pool()).await
}

/// Removes the caller's tenant's items among `ids`; answers how many.
pub async fn remove(core: &Core, caller: &Caller, ids: &[Id]) -> Result<u64, ApiError> {
    let mut find = Sql::new("SELECT id FROM pv_inspect_item WHERE is_deleted = 0 AND ");
    find.append(&caller.tenant_filter("tenant_id"));
    find.push(" AND id IN (");
    find.push_ids(ids);
    find.push(")");
    // All or nothing: one id out of reach refuses the whole selection (`删除失败`).
    let Ok(found) = crate::kernel::id::all_found(ids, find.scalars(core.db.pool()).await?) else {
        return Ok(0);
    };
    let mut sql = Sql::new("UPDATE pv_inspect_item SET is_deleted = 1 WHERE is_deleted = 0 AND id IN (");
    sql.push_ids(&found);
    sql.push(")");
    sql.execute(core.db.pool()).await
}
