//! Data scopes (`/api/blade-system/data-scope`) and API scopes (`/api/blade-system/api-scope`):
//! platform data hanging on menus, granted to roles through `role/grant`. What they do lives in
//! `system::data_scope` (list narrowing) and `auth::api_scope` (the request guard).

use serde_json::{Map, Value as Json};

use super::access::{self, require_platform};
use super::data_scope::{ALL, COLUMNS, CUSTOM, OWN};
use super::entities::{self, Col, EntityDef, HookFuture, Hooks, Ty};
use crate::auth::Caller;
use crate::kernel::Core;
use crate::kernel::id::parse_id_list;
use crate::kernel::lang::Text;
use crate::kernel::sql::Sql;
use crate::kernel::{ApiError, Id};
use crate::system::context::SystemCtx;

const MENU_MISSING: Text = Text::new("菜单不存在", "The menu does not exist");
const BAD_COLUMN: Text = Text::new(
    "数据权限字段只能是 create_user 或 create_dept",
    "The scope column must be create_user or create_dept",
);
const BAD_DATA_TYPE: Text = Text::new("数据权限类型无效", "Invalid data scope type");
const TYPE_COLUMN: Text = Text::new(
    "本人可见须使用 create_user 字段，部门类权限须使用 create_dept 字段",
    "Own-rows scopes use create_user; department scopes use create_dept",
);
const CUSTOM_DEPTS: Text = Text::new(
    "自定义数据权限请填写部门ID",
    "A custom data scope needs the department ids",
);
const BAD_PATH: Text = Text::new("接口路径必须以 /api/ 开头", "The API path must start with /api/");
const BAD_PATTERN: Text = Text::new(
    "接口路径只能以 /** 结尾表示前缀匹配",
    "An API path may only end in /** (prefix match); no other wildcards",
);
const BAD_API_TYPE: Text = Text::new("接口权限类型无效", "Invalid API scope type");

pub static DATA_SCOPE: EntityDef = EntityDef {
    base: "/api/blade-system/data-scope",
    table: "blade_scope_data",
    tenant_scoped: false,
    menu_code: "datascope",
    tag: "system",
    fields: &[
        Col::of("id", "id", Ty::Id).read_only(),
        Col::of("menuId", "menu_id", Ty::Id)
            .required_as("请选择菜单", "Please select a menu")
            .filter(),
        Col::of("resourceCode", "resource_code", Ty::TEXT)
            .required_as("请输入资源编号", "Please enter the resource code")
            .max(255)
            .filter(),
        Col::of("scopeName", "scope_name", Ty::TEXT)
            .required_as("请输入数据权限名称", "Please enter the data scope name")
            .max(255)
            .filter(),
        Col::of("scopeColumn", "scope_column", Ty::TEXT)
            .required_as("请输入数据权限字段", "Please enter the scope column")
            .max(255),
        Col::of("scopeType", "scope_type", Ty::INT)
            .required_as("请选择数据权限类型", "Please select the data scope type")
            .filter(),
        Col::of("scopeValue", "scope_value", Ty::TEXT).max(2000),
        Col::of("remark", "remark", Ty::TEXT).max(255),
        Col::of("createTime", "create_time", Ty::Time).read_only(),
    ],
    default_order: "menu_id ASC, id ASC",
    hooks: &DataScopeHooks,
    ..EntityDef::DEFAULT
};

pub static API_SCOPE: EntityDef = EntityDef {
    base: "/api/blade-system/api-scope",
    table: "blade_scope_api",
    tenant_scoped: false,
    menu_code: "apiscope",
    tag: "system",
    fields: &[
        Col::of("id", "id", Ty::Id).read_only(),
        Col::of("menuId", "menu_id", Ty::Id)
            .required_as("请选择菜单", "Please select a menu")
            .filter(),
        Col::of("resourceCode", "resource_code", Ty::TEXT)
            .required_as("请输入资源编号", "Please enter the resource code")
            .max(255)
            .filter(),
        Col::of("scopeName", "scope_name", Ty::TEXT)
            .required_as("请输入接口权限名称", "Please enter the API scope name")
            .max(255)
            .filter(),
        Col::of("scopePath", "scope_path", Ty::TEXT)
            .required_as("请输入接口权限路径", "Please enter the API path")
            .max(255)
            .filter(),
        Col::of("scopeType", "scope_type", Ty::INT)
            .required_as("请选择接口权限类型", "Please select the API scope type")
            .filter(),
        Col::of("remark", "remark", Ty::TEXT).max(255),
        Col::of("createTime", "create_time", Ty::Time).read_only(),
    ],
    default_order: "menu_id ASC, id ASC",
    hooks: &ApiScopeHooks,
    ..EntityDef::DEFAULT
};

/// The submitted body laid over the stored row (updates may send only what changes), so the
/// checks below see the values the row will have.
async fn merged(
    def: &EntityDef,
    state: &SystemCtx,
    caller: &Caller,
    id: Option<Id>,
    body: &Map<String, Json>,
) -> Result<Map<String, Json>, ApiError> {
    let mut out = match id {
        Some(id) => match entities::find(def, state, caller, id).await? {
            Some(Json::Object(stored)) => stored,
            _ => return Err(ApiError::not_found()),
        },
        None => Map::new(),
    };
    for (k, v) in body {
        out.insert(k.clone(), v.clone());
    }
    Ok(out)
}

async fn check_menu(state: &Core, body: &Map<String, Json>) -> Result<(), ApiError> {
    let Some(menu) = access::int(body, "menuId")? else {
        // Missing: the generic validation reports it as required.
        return Ok(());
    };
    let mut sql = Sql::new("SELECT id FROM blade_menu WHERE is_deleted = 0");
    sql.push_bind(" AND id = ?", [Id(menu).into()]);
    if sql.scalars::<Id, _>(state.db.pool()).await?.is_empty() {
        return Err(ApiError::BadRequest(MENU_MISSING));
    }
    Ok(())
}

struct DataScopeHooks;

impl Hooks<SystemCtx, Caller> for DataScopeHooks {
    fn before_save<'a>(
        &'a self,
        state: &'a SystemCtx,
        caller: &'a Caller,
        id: Option<Id>,
        body: &'a mut Map<String, Json>,
    ) -> HookFuture<'a, ()> {
        Box::pin(async move {
            require_platform(caller)?;
            let row = merged(&DATA_SCOPE, state, caller, id, body).await?;
            check_menu(state, &row).await?;
            let column = access::text(&row, "scopeColumn");
            if let Some(c) = &column
                && !COLUMNS.contains(&c.as_str())
            {
                return Err(ApiError::BadRequest(BAD_COLUMN));
            }
            let Some(scope_type) = access::int(&row, "scopeType")? else {
                return Ok(());
            };
            if !(ALL..=CUSTOM).contains(&scope_type) {
                return Err(ApiError::BadRequest(BAD_DATA_TYPE));
            }
            if let Some(c) = &column {
                let fits = match scope_type {
                    ALL => true,
                    OWN => c == "create_user",
                    _ => c == "create_dept",
                };
                if !fits {
                    return Err(ApiError::BadRequest(TYPE_COLUMN));
                }
            }
            if scope_type == CUSTOM {
                let ids = access::text(&row, "scopeValue")
                    .map(|v| parse_id_list(&v))
                    .transpose()
                    .map_err(|_| ApiError::BadRequest(CUSTOM_DEPTS))?
                    .unwrap_or_default();
                if ids.is_empty() {
                    return Err(ApiError::BadRequest(CUSTOM_DEPTS));
                }
            }
            Ok(())
        })
    }

    fn before_remove<'a>(
        &'a self,
        _state: &'a SystemCtx,
        caller: &'a Caller,
        _ids: &'a [Id],
    ) -> HookFuture<'a, ()> {
        Box::pin(async move { require_platform(caller) })
    }
}

struct ApiScopeHooks;

impl Hooks<SystemCtx, Caller> for ApiScopeHooks {
    fn before_save<'a>(
        &'a self,
        state: &'a SystemCtx,
        caller: &'a Caller,
        id: Option<Id>,
        body: &'a mut Map<String, Json>,
    ) -> HookFuture<'a, ()> {
        Box::pin(async move {
            require_platform(caller)?;
            let row = merged(&API_SCOPE, state, caller, id, body).await?;
            check_menu(state, &row).await?;
            if let Some(path) = access::text(&row, "scopePath") {
                if !path.starts_with("/api/") {
                    return Err(ApiError::BadRequest(BAD_PATH));
                }
                if path.strip_suffix("/**").unwrap_or(&path).contains('*') {
                    return Err(ApiError::BadRequest(BAD_PATTERN));
                }
            }
            if let Some(t) = access::int(&row, "scopeType")?
                && !(1..=5).contains(&t)
            {
                return Err(ApiError::BadRequest(BAD_API_TYPE));
            }
            Ok(())
        })
    }

    fn after_save<'a>(
        &'a self,
        state: &'a SystemCtx,
        _caller: &'a Caller,
        _id: Id,
        _created: bool,
        _body: &'a Map<String, Json>,
    ) -> HookFuture<'a, ()> {
        Box::pin(async move {
            state.api_scopes.changed(state);
            Ok(())
        })
    }

    fn before_remove<'a>(
        &'a self,
        state: &'a SystemCtx,
        caller: &'a Caller,
        _ids: &'a [Id],
    ) -> HookFuture<'a, ()> {
        Box::pin(async move {
            require_platform(caller)?;
            // There is no hook after the removal: forgetting the copy now means a request
            // racing the removal may reload the old table (here or on another replica), which the TTL
            // then bounds.
            state.api_scopes.changed(state);
            Ok(())
        })
    }
}
