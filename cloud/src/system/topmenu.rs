//! Top menus of a tenant (`/api/blade-system/topmenu`): header entries that each open a part of
//! the menu tree. `topmenu/grant` sets which menus belong to them; `menu/top-menu` and
//! `menu/routes?topMenuId=` follow those settings.

use std::collections::HashSet;

use axum::extract::State;
use serde::Deserialize;
use serde_json::{Map, Value as Json};
use utoipa::ToSchema;

use super::access::{self, OUTSIDE_PACKAGE};
use super::entities::{Col, EntityDef, HookFuture, Hooks, Ty};
use super::tree::IdList;
use crate::auth::Caller;
use crate::kernel::extract::Json as JsonBody;
use crate::kernel::lang::Text;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, ApiResult, Data, Envelope, Id};
use crate::system::context::SystemCtx;

const NO_TOP_MENU: Text = Text::new("请选择顶部菜单", "Please select a top menu");

pub static TOPMENU: EntityDef = EntityDef {
    base: "/api/blade-system/topmenu",
    table: "blade_top_menu",
    tenant_scoped: true,
    menu_code: "topmenu",
    tag: "system",
    fields: &[
        Col::of("id", "id", Ty::Id).read_only(),
        Col::of("code", "code", Ty::TEXT)
            .required_as("请输入顶部菜单编号", "Please enter the top menu code")
            .max(255)
            .unique("顶部菜单编号已存在", "This top menu code already exists")
            .filter(),
        Col::of("name", "name", Ty::TEXT)
            .required_as("请输入顶部菜单名称", "Please enter the top menu name")
            .max(255)
            .filter(),
        Col::of("source", "source", Ty::TEXT).max(255),
        Col::of("path", "path", Ty::TEXT).max(255),
        Col::of("sort", "sort", Ty::INT),
        Col::of("createTime", "create_time", Ty::Time).read_only(),
    ],
    default_order: "sort ASC, id ASC",
    audit: false,
    hooks: &TopMenuHooks,
    ..EntityDef::DEFAULT
};

struct TopMenuHooks;

impl Hooks<SystemCtx, Caller> for TopMenuHooks {
    fn before_save<'a>(
        &'a self,
        _state: &'a SystemCtx,
        _caller: &'a Caller,
        _id: Option<Id>,
        body: &'a mut Map<String, Json>,
    ) -> HookFuture<'a, ()> {
        Box::pin(async move {
            // sort is optional with a column default; blank must not become NULL.
            access::drop_blank(body, "sort");
            Ok(())
        })
    }
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TopMenuGrant {
    #[serde(default)]
    pub top_menu_ids: IdList,
    #[serde(default)]
    pub menu_ids: IdList,
}

/// Replaces the menus of the given top menus (all of the caller's tenant, or nothing changes).
#[utoipa::path(post, path = "/api/blade-system/topmenu/grant", tag = "system", request_body = TopMenuGrant,
    responses((status = 200, body = Envelope<bool>), (status = 400), (status = 403), (status = 404)))]
pub async fn grant(
    State(state): State<SystemCtx>,
    caller: Caller,
    JsonBody(body): JsonBody<TopMenuGrant>,
) -> ApiResult<Data<bool>> {
    caller.require(&state, "topmenu_setting").await?;
    let tops = body.top_menu_ids.0;
    if tops.is_empty() {
        return Err(ApiError::BadRequest(NO_TOP_MENU));
    }
    let mut sql = Sql::new("SELECT id FROM blade_top_menu WHERE is_deleted = 0 AND ");
    sql.append(&caller.tenant_filter("tenant_id"));
    sql.push(" AND id IN (");
    sql.push_ids(&tops);
    sql.push(")");
    if sql.scalars::<Id, _>(state.db.pool()).await?.len() != tops.len() {
        return Err(ApiError::not_found());
    }
    let menus = super::menu::all_menus(&state).await?;
    let allowed: HashSet<Id> = access::tenant_menus(&state, &caller.tenant_id, &menus).await?;
    if body.menu_ids.0.iter().any(|m| !allowed.contains(m)) {
        return Err(ApiError::BadRequest(OUTSIDE_PACKAGE));
    }
    let mut tx = state.db.begin_write().await?;
    for top in &tops {
        let mut sql = Sql::default();
        sql.push_bind(
            "DELETE FROM blade_top_menu_setting WHERE top_menu_id = ?",
            [Value::from(*top)],
        );
        sql.execute(&mut *tx).await?;
        for menu in &body.menu_ids.0 {
            let mut sql = Sql::default();
            sql.push_bind(
                "INSERT INTO blade_top_menu_setting (top_menu_id, menu_id) VALUES (?, ?)",
                [Value::from(*top), Value::from(*menu)],
            );
            sql.execute(&mut *tx).await?;
        }
    }
    tx.commit().await?;
    Ok(Data(true))
}
