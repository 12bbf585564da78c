//! Inspection items (`/api/inspectItem`): a title and its checks, reusable across plans.
//! Every signed-in user of the tenant reads them (plan forms pick them); writes need the
//! buttons `inspectionItem_add` / `_edit` / `_delete`. An item a live plan uses stays.

use axum::extract::State;
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};

use super::common::{Deleted, InspectIdPath, check_len, given, paging};
use super::item_store::{self, InspectItem, ItemDraft};
use crate::auth::Caller;
use crate::kernel::extract::{Json, Path, Query};
use crate::kernel::id::ids_param;
use crate::kernel::lang::Text;
use crate::kernel::{ApiError, ApiResult, Core, Data, Envelope, Id, Page};

pub const NO_TITLE: Text = Text::new("请输入巡检项标题", "Please enter the item title");
pub const NO_CHECK: Text = Text::new("请至少添加一个检查项", "Please add at least one check item");
pub const IN_USE: Text = Text::new(
    "该巡检项正被巡检计划使用",
    "This item is used by an inspection plan",
);
const DUPLICATE_CHECK: Text = Text::new("检查项不能重复", "Check items must not repeat");
const MAX_CHECKS: usize = 50;

/// An item as submitted (`id` only when changing one).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InspectItemForm {
    /// Required to change an item; absent to add one.
    pub id: Option<Id>,
    /// At most 100 characters.
    pub title: Option<String>,
    /// 1 to 50 checks, each at most 200 characters; blanks are dropped.
    pub check_items: Option<Vec<String>>,
    /// At most 500 characters.
    pub remark: Option<String>,
}

/// Checks a submitted item (messages of the contract).
pub fn draft(form: &InspectItemForm) -> Result<ItemDraft, ApiError> {
    let title = given(&form.title).ok_or(ApiError::BadRequest(NO_TITLE))?;
    check_len(title, 100, "巡检项标题", "item title")?;
    let checks: Vec<String> = form
        .check_items
        .iter()
        .flatten()
        .map(|c| c.trim().to_owned())
        .filter(|c| !c.is_empty())
        .collect();
    if checks.is_empty() {
        return Err(ApiError::BadRequest(NO_CHECK));
    }
    if checks.len() > MAX_CHECKS {
        return Err(ApiError::bad_request(
            format!("检查项最多{MAX_CHECKS}个"),
            format!("At most {MAX_CHECKS} check items"),
        ));
    }
    for c in &checks {
        check_len(c, 200, "检查项", "check item")?;
    }
    let mut unique = checks.clone();
    unique.sort();
    unique.dedup();
    if unique.len() != checks.len() {
        // A record answers each check once, by its text.
        return Err(ApiError::BadRequest(DUPLICATE_CHECK));
    }
    let remark = given(&form.remark).unwrap_or("");
    check_len(remark, 500, "备注", "remark")?;
    Ok(ItemDraft {
        title: title.to_owned(),
        check_items: checks,
        remark: remark.to_owned(),
    })
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct ItemQuery {
    /// Page number, from 1.
    pub current: Option<i64>,
    /// Page size (default 10).
    pub size: Option<i64>,
    /// Part of the title.
    pub title: Option<String>,
}

/// A page of the tenant's items, newest first.
#[utoipa::path(get, path = "/api/inspectItem/page", tag = "inspection", params(ItemQuery),
    responses((status = 200, body = Envelope<Page<InspectItem>>), (status = 400), (status = 401)))]
pub async fn page(
    State(core): State<Core>,
    caller: Caller,
    Query(q): Query<ItemQuery>,
) -> ApiResult<Data<Page<InspectItem>>> {
    let (current, size) = paging(q.current, q.size);
    Ok(Data(
        item_store::page(&core, &caller, given(&q.title), current, size).await?,
    ))
}

/// Every item of the tenant (at most 500), by title: for pickers.
#[utoipa::path(get, path = "/api/inspectItem/list", tag = "inspection",
    responses((status = 200, body = Envelope<Vec<InspectItem>>), (status = 401)))]
pub async fn list(State(core): State<Core>, caller: Caller) -> ApiResult<Data<Vec<InspectItem>>> {
    Ok(Data(item_store::list(&core, &caller).await?))
}

/// One item.
#[utoipa::path(get, path = "/api/inspectItem/{id}", tag = "inspection", params(InspectIdPath),
    responses((status = 200, body = Envelope<InspectItem>), (status = 400), (status = 404)))]
pub async fn detail(
    State(core): State<Core>,
    caller: Caller,
    Path(p): Path<InspectIdPath>,
) -> ApiResult<Data<InspectItem>> {
    Ok(Data(
        item_store::find(&core, &caller, p.one()?)
            .await?
            .ok_or_else(ApiError::not_found)?,
    ))
}

/// Creates an item from `form` and answers it.
pub async fn create_item(
    core: &Core,
    caller: &Caller,
    form: &InspectItemForm,
) -> Result<InspectItem, ApiError> {
    let d = draft(form)?;
    let id = item_store::insert(core, caller, &d).await?;
    item_store::find(core, caller, id)
        .await?
        .ok_or_else(|| ApiError::Internal("item not stored".into()))
}

/// Adds an item; answers it.
#[utoipa::path(post, path = "/api/inspectItem", tag = "inspection", request_body = InspectItemForm,
    responses((status = 200, body = Envelope<InspectItem>), (status = 400), (status = 403)))]
pub async fn create(
    State(core): State<Core>,
    caller: Caller,
    Json(form): Json<InspectItemForm>,
) -> ApiResult<Data<InspectItem>> {
    caller.require(&core, "inspectionItem_add").await?;
    Ok(Data(create_item(&core, &caller, &form).await?))
}

/// Changes an item (`id` required); plans using it see the change in tasks generated later
/// (a generated task keeps the checks it was given).
#[utoipa::path(put, path = "/api/inspectItem", tag = "inspection", request_body = InspectItemForm,
    responses((status = 200, body = Envelope<InspectItem>), (status = 400), (status = 403), (status = 404)))]
pub async fn update(
    State(core): State<Core>,
    caller: Caller,
    Json(form): Json<InspectItemForm>,
) -> ApiResult<Data<InspectItem>> {
    caller.require(&core, "inspectionItem_edit").await?;
    let id = form
        .id
        .ok_or(ApiError::BadRequest(crate::kernel::id::SELECT_ONE))?;
    let d = draft(&form)?;
    if !item_store::update(&core, &caller, id, &d).await? {
        return Err(ApiError::not_found());
    }
    Ok(Data(
        item_store::find(&core, &caller, id)
            .await?
            .ok_or_else(ApiError::not_found)?,
    ))
}

/// Removes the listed items of the tenant (comma-joined ids); none removed → 400 `删除失败`;
/// one used by a live plan → 400 and nothing removed.
#[utoipa::path(delete, path = "/api/inspectItem/{id}", tag = "inspection", params(InspectIdPath),
    responses((status = 200, body = Envelope<bool>), (status = 400), (status = 403)))]
pub async fn remove(
    State(core): State<Core>,
    caller: Caller,
    Path(p): Path<InspectIdPath>,
) -> Result<Deleted, ApiError> {
    caller.require(&core, "inspectionItem_delete").await?;
    let ids = ids_param(&p.id)?;
    if item_store::used_by_plans(&core, &ids).await? > 0 {
        return Err(ApiError::BadRequest(IN_USE));
    }
    Deleted::of(item_store::remove(&core, &caller, &ids).await?)
}
