//! Administrative regions (`/api/blade-system/region`): platform data keyed by GB/T 2260 code,
//! read by every signed-in user (address pickers), changed only by the platform tenant. The
//! provinces, cities and districts of China ship in `seed/regions.tsv` and are loaded on the
//! first start.

use std::collections::HashSet;

use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::entities::PLATFORM_TENANT;
use super::tree::{HAS_CHILDREN, Node};
use crate::auth::Caller;
use crate::kernel::Core;
use crate::kernel::db::Db;
use crate::kernel::extract::{Json, Query};
use crate::kernel::lang::Text;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, ApiResult, Data, Envelope};
use crate::system::context::SystemCtx;

/// The parent code of provinces.
pub const ROOT: &str = "00";
const MENU: &str = "region";

const PLATFORM_ONLY: Text = Text::new("缺少操作权限", "You do not have permission for this operation");
const CODE_REQUIRED: Text = Text::new("请输入区划编号", "Please enter the region code");
const BAD_CODE: Text = Text::new(
    "区划编号只能包含数字，最长12位",
    "The region code must be digits only, at most 12",
);
const NAME_REQUIRED: Text = Text::new("请输入区划名称", "Please enter the region name");
const NAME_TOO_LONG: Text = Text::new("输入内容过长", "The text is too long");
const PARENT_MISSING: Text = Text::new("上级区划不存在", "The parent region does not exist");
const PARENT_SELF: Text = Text::new("上级区划不能是自己", "A region cannot be its own parent");
const PARENT_FIXED: Text = Text::new(
    "存在下级区划，不能修改上级区划",
    "A region that has sub-regions cannot change its parent",
);

#[derive(Debug, Clone, Serialize, ToSchema, sqlx::FromRow)]
#[serde(rename_all = "camelCase")]
pub struct Region {
    /// The code again, for consoles that key rows by `id`.
    pub id: String,
    pub code: String,
    pub parent_code: String,
    pub name: String,
    /// 1 province, 2 city, 3 district (deeper levels are allowed for added rows).
    pub level: i64,
    pub sort: i64,
    pub remark: Option<String>,
    #[sqlx(skip)]
    pub has_children: bool,
}

const COLUMNS: &str = "code AS id, code, parent_code, name, level, sort, remark";

async fn find(db: &Db, code: &str) -> Result<Option<Region>, ApiError> {
    let mut sql = Sql::new(&format!("SELECT {COLUMNS} FROM blade_region"));
    sql.push_bind(" WHERE code = ?", [code.into()]);
    sql.fetch_optional::<Region, _>(db.pool()).await
}

/// The regions directly under `parent`, in order, each knowing whether it has children.
async fn children(db: &Db, parent: &str) -> Result<Vec<Region>, ApiError> {
    let mut sql = Sql::new(&format!("SELECT {COLUMNS} FROM blade_region"));
    sql.push_bind(" WHERE parent_code = ? ORDER BY sort, code", [parent.into()]);
    let mut rows = sql.fetch_all::<Region, _>(db.pool()).await?;
    if rows.is_empty() {
        return Ok(rows);
    }
    let mut parents = Sql::new("SELECT DISTINCT parent_code FROM blade_region WHERE parent_code IN (");
    parents.push_bind(
        &vec!["?"; rows.len()].join(", "),
        rows.iter().map(|r| Value::Text(r.code.clone())),
    );
    parents.push(")");
    let with_children: HashSet<String> = parents
        .scalars::<String, _>(db.pool())
        .await?
        .into_iter()
        .collect();
    for r in &mut rows {
        r.has_children = with_children.contains(&r.code);
    }
    Ok(rows)
}

fn parent_param(raw: Option<&str>) -> &str {
    match raw.map(str::trim) {
        None | Some("") => ROOT,
        Some(p) => p,
    }
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
pub struct ParentParams {
    /// Parent code; empty or `00` for the provinces.
    pub parent_code: Option<String>,
}

/// `GET region/lazy-tree?parentCode=`: nodes (id/key/value = code, title = name) with
/// `hasChildren`.
#[utoipa::path(get, path = "/api/blade-system/region/lazy-tree", tag = "system", params(ParentParams),
    responses((status = 200, body = Envelope<Vec<Node>>), (status = 401)))]
pub async fn lazy_tree(
    State(state): State<SystemCtx>,
    _caller: Caller,
    Query(p): Query<ParentParams>,
) -> ApiResult<Data<Vec<Node>>> {
    let rows = children(&state.db, parent_param(p.parent_code.as_deref())).await?;
    Ok(Data(
        rows.into_iter()
            .map(|r| {
                let mut n = Node::new(r.code, r.parent_code, r.name);
                n.has_children = r.has_children;
                n
            })
            .collect(),
    ))
}

/// `GET region/lazy-list?parentCode=`: the regions under a parent with `hasChildren`.
#[utoipa::path(get, path = "/api/blade-system/region/lazy-list", tag = "system", params(ParentParams),
    responses((status = 200, body = Envelope<Vec<Region>>), (status = 401)))]
pub async fn lazy_list(
    State(state): State<SystemCtx>,
    _caller: Caller,
    Query(p): Query<ParentParams>,
) -> ApiResult<Data<Vec<Region>>> {
    Ok(Data(
        children(&state.db, parent_param(p.parent_code.as_deref())).await?,
    ))
}

#[derive(Debug, Deserialize, IntoParams)]
pub struct CodeParams {
    pub code: String,
}

/// `GET region/detail?code=`
#[utoipa::path(get, path = "/api/blade-system/region/detail", tag = "system", params(CodeParams),
    responses((status = 200, body = Envelope<Region>), (status = 401), (status = 404)))]
pub async fn detail(
    State(state): State<SystemCtx>,
    _caller: Caller,
    Query(p): Query<CodeParams>,
) -> ApiResult<Data<Region>> {
    find(&state.db, p.code.trim())
        .await?
        .map(Data)
        .ok_or_else(ApiError::not_found)
}

async fn require_change(state: &Core, caller: &Caller) -> Result<(), ApiError> {
    if caller.tenant_id != PLATFORM_TENANT {
        return Err(ApiError::Forbidden(PLATFORM_ONLY));
    }
    caller.require(state, MENU).await
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RegionForm {
    pub code: Option<String>,
    pub parent_code: Option<String>,
    pub name: Option<String>,
    pub sort: Option<i64>,
    pub remark: Option<String>,
}

/// `POST region/submit`: inserts the region when its code is new, else updates it. The level
/// follows from the parent.
#[utoipa::path(post, path = "/api/blade-system/region/submit", tag = "system", request_body = RegionForm,
    responses((status = 200, description = "The code", body = Envelope<String>), (status = 400), (status = 401), (status = 403)))]
pub async fn submit(
    State(state): State<SystemCtx>,
    caller: Caller,
    Json(form): Json<RegionForm>,
) -> ApiResult<Data<String>> {
    require_change(&state, &caller).await?;
    let code = form
        .code
        .as_deref()
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .ok_or(ApiError::BadRequest(CODE_REQUIRED))?
        .to_owned();
    if code.len() > 12 || !code.bytes().all(|b| b.is_ascii_digit()) {
        return Err(ApiError::BadRequest(BAD_CODE));
    }
    let name = form
        .name
        .as_deref()
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .ok_or(ApiError::BadRequest(NAME_REQUIRED))?
        .to_owned();
    if name.chars().count() > 64 || form.remark.as_ref().is_some_and(|r| r.chars().count() > 255) {
        return Err(ApiError::BadRequest(NAME_TOO_LONG));
    }
    let existing = find(&state.db, &code).await?;
    let parent = parent_param(form.parent_code.as_deref()).to_owned();
    if parent == code {
        return Err(ApiError::BadRequest(PARENT_SELF));
    }
    let level = if parent == ROOT {
        1
    } else {
        find(&state.db, &parent)
            .await?
            .ok_or(ApiError::BadRequest(PARENT_MISSING))?
            .level
            + 1
    };
    let sort = form.sort.unwrap_or(1);
    let remark = Value::from(form.remark.clone());
    let mut sql = Sql::default();
    match existing {
        None => {
            sql.push_bind(
                "INSERT INTO blade_region (code, parent_code, name, level, sort, remark) VALUES (?, ?, ?, ?, ?, ?)",
                [
                    code.clone().into(),
                    parent.into(),
                    name.into(),
                    Value::Int(level),
                    Value::Int(sort),
                    remark,
                ],
            );
        }
        Some(old) => {
            // Moving a region with sub-regions would leave their levels wrong.
            if old.parent_code != parent && !children(&state.db, &code).await?.is_empty() {
                return Err(ApiError::BadRequest(PARENT_FIXED));
            }
            sql.push_bind(
                "UPDATE blade_region SET parent_code = ?, name = ?, level = ?, sort = ?, remark = ? WHERE code = ?",
                [
                    parent.into(),
                    name.into(),
                    Value::Int(level),
                    Value::Int(sort),
                    remark,
                    code.clone().into(),
                ],
            );
        }
    }
    sql.execute(state.db.pool()).await?;
    Ok(Data(code))
}

#[derive(Debug, Deserialize, IntoParams)]
pub struct RemoveParams {
    /// The region code.
    pub id: String,
}

/// `POST region/remove?id=`: deletes a region without sub-regions (physically: the code is the
/// key, so a logically deleted row would block adding the code again).
#[utoipa::path(post, path = "/api/blade-system/region/remove", tag = "system", params(RemoveParams),
    responses((status = 200, description = "Rows removed", body = Envelope<u64>), (status = 400), (status = 401), (status = 403)))]
pub async fn remove(
    State(state): State<SystemCtx>,
    caller: Caller,
    Query(p): Query<RemoveParams>,
) -> ApiResult<Data<u64>> {
    require_change(&state, &caller).await?;
    let code = p.id.trim();
    if !children(&state.db, code).await?.is_empty() {
        return Err(ApiError::BadRequest(HAS_CHILDREN));
    }
    let mut sql = Sql::default();
    sql.push_bind("DELETE FROM blade_region WHERE code = ?", [code.into()]);
    Ok(Data(sql.execute(state.db.pool()).await?))
}
