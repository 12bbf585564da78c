//! The multi-tenant admin base: tenants and packages, menus and permissions, departments,
//! roles, and the data every installation starts with.

pub mod access;
pub mod client_admin;
pub mod context;
pub mod data_scope;
pub mod dept;
pub mod dict;
pub mod entities;
pub mod menu;
pub mod menu_admin;
pub mod param;
pub mod post;
pub mod records;
pub mod region;
pub mod role;
pub mod scope;
pub mod seed;
pub mod seed_reference;
pub mod select;
pub mod tenant;
pub mod tenant_admin;
pub mod tenant_datasource;
pub mod topmenu;
pub mod tree;

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub use context::SystemCtx;

/// The system administration routes, mounted by `app` on the hub's state.
pub fn routes<S>() -> OpenApiRouter<S>
where
    S: Clone + Send + Sync + 'static,
    crate::kernel::Core: axum::extract::FromRef<S>,
    SystemCtx: axum::extract::FromRef<S>,
{
    OpenApiRouter::new()
        .routes(routes!(menu::routes))
        .routes(routes!(menu::buttons))
        .routes(routes!(menu::top_menu))
        .routes(routes!(tenant::info))
        .routes(routes!(tenant_admin::select))
        .routes(routes!(tenant_admin::setting))
        .routes(routes!(tenant_datasource::datasource))
        .routes(routes!(tenant_admin::package_detail))
        .routes(routes!(tenant_admin::package_setting))
        .routes(routes!(select::dept_select))
        .routes(routes!(select::role_select))
        // access: roles, menus admin, top menus (their detail/submit/remove are generic, below)
        .routes(routes!(role::list))
        .routes(routes!(role::tree))
        .routes(routes!(role::tree_by_id))
        .routes(routes!(role::rolelist))
        .routes(routes!(role::grant))
        .routes(routes!(role::grant_app))
        .routes(routes!(menu_admin::list))
        .routes(routes!(menu_admin::menu_list))
        .routes(routes!(menu_admin::lazy_list_all))
        .routes(routes!(menu_admin::lazy_menu_list))
        .routes(routes!(menu_admin::tree))
        .routes(routes!(menu_admin::grant_tree))
        .routes(routes!(menu_admin::grant_tree_app))
        .routes(routes!(menu_admin::role_tree_keys))
        .routes(routes!(menu_admin::role_tree_keys_app))
        .routes(routes!(menu_admin::grant_top_tree))
        .routes(routes!(menu_admin::top_tree_keys))
        .routes(routes!(topmenu::grant))
        // reference data: departments, dictionaries, regions
        .routes(routes!(dept::list))
        .routes(routes!(dept::lazy_list))
        .routes(routes!(dept::child_list))
        .routes(routes!(dept::tree))
        .routes(routes!(dept::lazy_tree))
        .routes(routes!(dict::dict_list))
        .routes(routes!(dict::dict_child_list))
        .routes(routes!(dict::dict_tree))
        .routes(routes!(dict::dict_dictionary))
        .routes(routes!(dict::dict_list_dict))
        .routes(routes!(dict::biz_list))
        .routes(routes!(dict::biz_child_list))
        .routes(routes!(dict::biz_tree))
        .routes(routes!(dict::biz_dictionary))
        .routes(routes!(dict::biz_list_dict))
        .routes(routes!(region::lazy_tree))
        .routes(routes!(region::lazy_list))
        .routes(routes!(region::detail))
        .routes(routes!(region::submit))
        .routes(routes!(region::remove))
        .merge(entity_routes())
}

/// The list/detail/submit/remove routes of every system family.
fn entity_routes<S>() -> OpenApiRouter<S>
where
    S: Clone + Send + Sync + 'static,
    crate::kernel::Core: axum::extract::FromRef<S>,
    SystemCtx: axum::extract::FromRef<S>,
{
    [
        &param::PARAM,
        &post::POST,
        &tenant_admin::TENANT,
        &tenant_admin::TENANT_PACKAGE,
        &client_admin::CLIENT,
        &role::ROLE,
        &menu_admin::MENU,
        &topmenu::TOPMENU,
        &scope::DATA_SCOPE,
        &scope::API_SCOPE,
        &dept::DEPT,
        &dict::DICT,
        &dict::DICT_BIZ,
    ]
    .into_iter()
    .fold(OpenApiRouter::new(), crate::kernel::entity::blade::mount)
}
