//! Departments of a tenant (`/api/blade-system/dept`): the list/detail/submit/remove family plus
//! the tree shapes the console needs. `ancestors` (comma-joined ids from `0` down to the parent)
//! is kept by the server: computed from the parent on every save and rewritten for the whole
//! subtree when a department moves, so "this department and below" is one prefix match.

use std::collections::{HashMap, HashSet};

use axum::extract::State;
use serde::Deserialize;
use serde_json::{Map, Value as Json};
use sqlx::Row;
use utoipa::IntoParams;

use super::entities::{self, Col, EntityDef, HookFuture, Hooks, PLATFORM_TENANT, Ty};
use super::records::{Dept, typed};
use super::tree::{self as tree, HAS_CHILDREN, Node};
use crate::auth::Caller;
use crate::kernel::Core;
use crate::kernel::extract::Query;
use crate::kernel::lang::Text;
use crate::kernel::list::{Field, Kind, ListQuery};
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, ApiResult, Data, Envelope, Id};
use crate::system::context::SystemCtx;

pub const BASE: &str = "/api/blade-system/dept";

const PARENT_MISSING: Text = Text::new("上级机构不存在", "The parent department does not exist");
const CYCLE: Text = Text::new(
    "上级机构不能是自己或下级机构",
    "A department cannot be placed under itself or one of its sub-departments",
);
const HAS_USERS: Text = Text::new("该机构下存在用户，无法删除", "This department still has users");

pub static DEPT: EntityDef = EntityDef {
    base: BASE,
    table: "blade_dept",
    tenant_scoped: true,
    menu_code: "dept",
    tag: "system",
    fields: &[
        Col::of("id", "id", Ty::Id).read_only(),
        Col::of("tenantId", "tenant_id", Ty::TEXT).read_only(),
        Col::of("parentId", "parent_id", Ty::Id).filter(),
        Col::of("ancestors", "ancestors", Ty::TEXT).read_only(),
        Col::of("deptName", "dept_name", Ty::TEXT)
            .required_as("请输入机构名称", "Please enter the department name")
            .max(45)
            .filter(),
        Col::of("fullName", "full_name", Ty::TEXT)
            .required_as("请输入机构全称", "Please enter the department's full name")
            .max(45)
            .filter(),
        Col::of("deptCategory", "dept_category", Ty::INT)
            .required_as("请选择机构类型", "Please select the organisation category")
            .filter(),
        Col::of("sort", "sort", Ty::INT).required_as("请输入排序", "Please enter the sort order"),
        Col::of("remark", "remark", Ty::TEXT).max(255),
        Col::of("createTime", "create_time", Ty::Time).read_only(),
    ],
    default_order: "sort ASC, id ASC",
    data_scoped: true,
    create_dept: true,
    own_list: true,
    hooks: &DeptHooks,
    ..EntityDef::DEFAULT
};

/// Filters of the tree list and the lazy list.
const FILTERS: &[Field] = &[
    Field::new("deptName", "dept_name", Kind::Text),
    Field::new("fullName", "full_name", Kind::Text),
    Field::new("deptCategory", "dept_category", Kind::Int),
];

struct DeptHooks;

/// The ancestors of a live department of the caller's tenant.
async fn find_in_tenant(state: &Core, caller: &Caller, id: i64) -> Result<Option<String>, ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT ancestors FROM blade_dept WHERE is_deleted = 0 AND id = ? AND ",
        [Value::Int(id)],
    );
    sql.append(&caller.tenant_filter("tenant_id"));
    sql.scalar_optional::<String, _>(state.db.pool()).await
}

/// A submitted `parentId`: blank or null means a top-level department.
fn parent_of(raw: &Json) -> Result<i64, ApiError> {
    let bad = || ApiError::bad_request("上级机构无效", "invalid parentId");
    match raw {
        Json::Null => Ok(0),
        Json::String(s) if s.trim().is_empty() => Ok(0),
        Json::String(s) => s.trim().parse().map_err(|_| bad()),
        Json::Number(n) => n.as_i64().ok_or_else(bad),
        _ => Err(bad()),
    }
}

impl Hooks<SystemCtx, Caller> for DeptHooks {
    fn before_save<'a>(
        &'a self,
        state: &'a SystemCtx,
        caller: &'a Caller,
        id: Option<Id>,
        body: &'a mut Map<String, Json>,
    ) -> HookFuture<'a, ()> {
        Box::pin(async move {
            let parent = match body.get("parentId") {
                Some(raw) => parent_of(raw)?,
                // An update that does not name the parent keeps it; an insert starts at the top.
                None if id.is_some() => return Ok(()),
                None => 0,
            };
            body.insert("parentId".into(), Json::String(parent.to_string()));
            if parent == 0 {
                return Ok(());
            }
            if id.is_some_and(|own| own.0 == parent) {
                return Err(ApiError::BadRequest(CYCLE));
            }
            let ancestors = find_in_tenant(state, caller, parent)
                .await?
                .ok_or(ApiError::BadRequest(PARENT_MISSING))?;
            if let Some(own) = id
                && ancestors.split(',').any(|a| a.trim() == own.0.to_string())
            {
                return Err(ApiError::BadRequest(CYCLE));
            }
            Ok(())
        })
    }

    fn after_save<'a>(
        &'a self,
        state: &'a SystemCtx,
        caller: &'a Caller,
        id: Id,
        _created: bool,
        _body: &'a Map<String, Json>,
    ) -> HookFuture<'a, ()> {
        Box::pin(async move {
            let mut sql = Sql::default();
            sql.push_bind(
                "SELECT parent_id, ancestors FROM blade_dept WHERE id = ? AND ",
                [id.into()],
            );
            sql.append(&caller.tenant_filter("tenant_id"));
            let Some(row) = sql.row(state.db.pool()).await? else {
                return Ok(());
            };
            let parent: i64 = row.try_get("parent_id")?;
            let stored: String = row.try_get("ancestors")?;
            let wanted = if parent == 0 {
                "0".to_owned()
            } else {
                let above = find_in_tenant(state, caller, parent)
                    .await?
                    .ok_or(ApiError::BadRequest(PARENT_MISSING))?;
                format!("{above},{parent}")
            };
            if wanted == stored {
                return Ok(());
            }
            let mut own = Sql::default();
            own.push_bind(
                "UPDATE blade_dept SET ancestors = ? WHERE id = ?",
                [wanted.clone().into(), id.into()],
            );
            own.execute(state.db.pool()).await?;
            // The subtree keeps its shape: each descendant's ancestors start with the moved
            // department's old path, which is swapped for the new one.
            let old_prefix = format!("{stored},{id}");
            let new_prefix = format!("{wanted},{id}");
            let mut subtree = Sql::default();
            subtree.push_bind(
                "UPDATE blade_dept SET ancestors = ? || SUBSTR(ancestors, CAST(? AS INTEGER)) WHERE ",
                [new_prefix.into(), Value::Int(old_prefix.len() as i64 + 1)],
            );
            subtree.append(&caller.tenant_filter("tenant_id"));
            subtree.push_bind(
                " AND (ancestors = ? OR ancestors LIKE ?)",
                [old_prefix.clone().into(), format!("{old_prefix},%").into()],
            );
            subtree.execute(state.db.pool()).await?;
            Ok(())
        })
    }

    fn before_remove<'a>(
        &'a self,
        state: &'a SystemCtx,
        _caller: &'a Caller,
        ids: &'a [Id],
    ) -> HookFuture<'a, ()> {
        Box::pin(async move {
            let mut children =
                Sql::new("SELECT COUNT(*) FROM blade_dept WHERE is_deleted = 0 AND parent_id IN (");
            children.push_ids(ids);
            children.push(") AND id NOT IN (");
            children.push_ids(ids);
            children.push(")");
            if children.scalar::<i64, _>(state.db.pool()).await? > 0 {
                return Err(ApiError::BadRequest(HAS_CHILDREN));
            }
            let mut users = Sql::new(
                "SELECT COUNT(*) FROM blade_user_dept ud JOIN blade_user u ON u.id = ud.user_id \
                 WHERE u.is_deleted = 0 AND ud.dept_id IN (",
            );
            users.push_ids(ids);
            users.push(")");
            if users.scalar::<i64, _>(state.db.pool()).await? > 0 {
                return Err(ApiError::BadRequest(HAS_USERS));
            }
            Ok(())
        })
    }

    fn decorate<'a>(
        &'a self,
        state: &'a SystemCtx,
        _caller: &'a Caller,
        rows: &'a mut [Json],
    ) -> HookFuture<'a, ()> {
        Box::pin(async move {
            let parents: Vec<Id> = rows
                .iter()
                .filter_map(|r| r.get("parentId").and_then(Json::as_str)?.parse().ok())
                .filter(|p: &Id| p.0 != 0)
                .collect::<HashSet<_>>()
                .into_iter()
                .collect();
            let mut names: HashMap<String, String> = HashMap::new();
            if !parents.is_empty() {
                let mut sql = Sql::new("SELECT id, dept_name FROM blade_dept WHERE id IN (");
                sql.push_ids(&parents);
                sql.push(")");
                for (id, name) in sql.fetch_all::<(i64, String), _>(state.db.pool()).await? {
                    names.insert(id.to_string(), name);
                }
            }
            for r in rows.iter_mut() {
                let name = r
                    .get("parentId")
                    .and_then(Json::as_str)
                    .and_then(|p| names.get(p))
                    .map(|n| Json::String(n.clone()))
                    .unwrap_or(Json::Null);
                if let Json::Object(map) = r {
                    map.insert("parentName".into(), name);
                }
            }
            Ok(())
        })
    }
}

/// Ids among the live departments of `tenant` that have live children.
async fn parents_in(state: &Core, tenant: &str) -> Result<HashSet<i64>, ApiError> {
    let mut sql = Sql::default();
    // The tenant as a value: a platform administrator's tree may be of a tenant they name.
    sql.push_bind(
        "SELECT DISTINCT parent_id FROM blade_dept WHERE is_deleted = 0 AND tenant_id = ?",
        [tenant.into()],
    );
    Ok(sql
        .scalars::<i64, _>(state.db.pool())
        .await?
        .into_iter()
        .collect())
}

/// The request's filters (declared in [`FILTERS`]) as a condition, plus `parent_id = ?` when given.
fn conditions(query: &ListQuery, parent: Option<i64>) -> Result<Sql, ApiError> {
    let mut sql = Sql::new("1 = 1");
    sql.append(&query.compile(FILTERS)?.filter);
    if let Some(p) = parent {
        sql.push_bind(" AND parent_id = ?", [Value::Int(p)]);
    }
    Ok(sql)
}

/// `GET dept/list`: the tenant's departments as a tree list (filters: deptName, fullName,
/// deptCategory; a match whose parent does not match becomes a root).
#[utoipa::path(get, path = "/api/blade-system/dept/list", tag = "system",
    params(("deptName" = Option<String>, Query), ("fullName" = Option<String>, Query), ("deptCategory" = Option<i64>, Query)),
    responses((status = 200, description = "Tree list: departments with children and hasChildren", body = Envelope<Vec<Dept>>), (status = 401), (status = 403)))]
pub async fn list(
    State(state): State<SystemCtx>,
    caller: Caller,
    mut query: ListQuery,
) -> ApiResult<Data<Vec<Dept>>> {
    caller.require(&state, DEPT.menu_code).await?;
    query.take("tenantId");
    let rows = entities::rows(&DEPT, &state, &caller, Some(conditions(&query, None)?)).await?;
    Ok(Data(typed(tree::nest_rows(rows))?))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
pub struct ParentParams {
    /// Parent department id; empty or `0` for the top level.
    pub parent_id: Option<String>,
    /// Platform administrators may name another tenant.
    pub tenant_id: Option<String>,
}

/// The tenant a tree is for: platform callers may name any, others always get their own.
fn tree_tenant(caller: &Caller, asked: Option<&str>) -> String {
    match asked.map(str::trim).filter(|t| !t.is_empty()) {
        Some(t) if caller.tenant_id == PLATFORM_TENANT => t.to_owned(),
        _ => caller.tenant_id.clone(),
    }
}

/// `GET dept/lazy-list?parentId=`: the departments directly under a parent, with `hasChildren`.
#[utoipa::path(get, path = "/api/blade-system/dept/lazy-list", tag = "system",
    params(("parentId" = Option<String>, Query), ("deptName" = Option<String>, Query)),
    responses((status = 200, description = "Departments of that parent with hasChildren", body = Envelope<Vec<Dept>>), (status = 401), (status = 403)))]
pub async fn lazy_list(
    State(state): State<SystemCtx>,
    caller: Caller,
    mut query: ListQuery,
) -> ApiResult<Data<Vec<Dept>>> {
    caller.require(&state, DEPT.menu_code).await?;
    let parent = tree::optional_id("parentId", query.take("parentId").as_deref())?.unwrap_or(0);
    query.take("tenantId");
    let mut rows = entities::rows(&DEPT, &state, &caller, Some(conditions(&query, Some(parent))?)).await?;
    tree::mark_has_children(&mut rows, &parents_in(&state, &caller.tenant_id).await?);
    Ok(Data(typed(rows)?))
}

/// `GET dept/child-list?parentId=`: the direct children of a department (entities).
#[utoipa::path(get, path = "/api/blade-system/dept/child-list", tag = "system",
    params(("parentId" = Option<String>, Query)),
    responses((status = 200, description = "Departments of that parent with hasChildren", body = Envelope<Vec<Dept>>), (status = 401), (status = 403)))]
pub async fn child_list(
    State(state): State<SystemCtx>,
    caller: Caller,
    mut query: ListQuery,
) -> ApiResult<Data<Vec<Dept>>> {
    caller.require(&state, DEPT.menu_code).await?;
    let parent = tree::optional_id("parentId", query.take("parentId").as_deref())?.unwrap_or(0);
    let mut rows = entities::rows(&DEPT, &state, &caller, Some(conditions(&query, Some(parent))?)).await?;
    tree::mark_has_children(&mut rows, &parents_in(&state, &caller.tenant_id).await?);
    Ok(Data(typed(rows)?))
}

async fn nodes(state: &Core, tenant: &str, parent: Option<i64>) -> Result<Vec<Node>, ApiError> {
    let mut sql = Sql::default();
    // The tenant as a value: a platform administrator's tree may be of a tenant they name.
    sql.push_bind(
        "SELECT id, parent_id, dept_name FROM blade_dept WHERE is_deleted = 0 AND tenant_id = ?",
        [tenant.into()],
    );
    if let Some(p) = parent {
        sql.push_bind(" AND parent_id = ?", [Value::Int(p)]);
    }
    sql.push(" ORDER BY sort, id");
    Ok(sql
        .fetch_all::<(i64, i64, String), _>(state.db.pool())
        .await?
        .into_iter()
        .map(|(id, parent, name)| Node::new(id.to_string(), parent.to_string(), name))
        .collect())
}

/// `GET dept/tree?tenantId=`: every department of the tenant as selector nodes. Any signed-in
/// caller may read their own tenant's (department pickers); platform callers may name another.
#[utoipa::path(get, path = "/api/blade-system/dept/tree", tag = "system", params(ParentParams),
    responses((status = 200, body = Envelope<Vec<Node>>), (status = 401)))]
pub async fn tree(
    State(state): State<SystemCtx>,
    caller: Caller,
    Query(p): Query<ParentParams>,
) -> ApiResult<Data<Vec<Node>>> {
    let tenant = tree_tenant(&caller, p.tenant_id.as_deref());
    Ok(Data(tree::nest_nodes(nodes(&state, &tenant, None).await?)))
}

/// `GET dept/lazy-tree?parentId=`: the nodes directly under a parent, with `hasChildren`.
#[utoipa::path(get, path = "/api/blade-system/dept/lazy-tree", tag = "system", params(ParentParams),
    responses((status = 200, body = Envelope<Vec<Node>>), (status = 401)))]
pub async fn lazy_tree(
    State(state): State<SystemCtx>,
    caller: Caller,
    Query(p): Query<ParentParams>,
) -> ApiResult<Data<Vec<Node>>> {
    let tenant = tree_tenant(&caller, p.tenant_id.as_deref());
    let parent = tree::optional_id("parentId", p.parent_id.as_deref())?.unwrap_or(0);
    let parents = parents_in(&state, &tenant).await?;
    let mut out = nodes(&state, &tenant, Some(parent)).await?;
    for n in &mut out {
        n.has_children = n.id.parse::<i64>().is_ok_and(|id| parents.contains(&id));
    }
    Ok(Data(out))
}
