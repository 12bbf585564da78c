//! The caller's menus: `menu/routes` (the sidebar tree), `menu/buttons` (button permissions)
//! and `menu/top-menu`. A menu reaches a caller when one of their roles is granted it (or a
//! descendant: ancestors come along so the tree stays connected) and the tenant's package
//! allows it.

use std::collections::{BTreeMap, HashMap, HashSet};

use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::auth::Caller;
use crate::kernel::Core;
use crate::kernel::extract::Query;
use crate::kernel::lang::Lang;
use crate::kernel::sql::Sql;
use crate::kernel::{ApiError, ApiResult, Data, Envelope, Id};
use crate::system::context::SystemCtx;

pub const CATEGORY_MENU: i64 = 1;
pub const CATEGORY_BUTTON: i64 = 2;

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct MenuRow {
    pub id: Id,
    pub parent_id: Id,
    pub code: String,
    pub name: String,
    pub name_en: Option<String>,
    pub alias: Option<String>,
    pub path: Option<String>,
    pub source: Option<String>,
    pub sort: i64,
    pub category: i64,
    pub action: i64,
    pub is_open: i64,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MenuNode {
    pub id: Id,
    pub parent_id: Id,
    pub code: String,
    /// In the request's language.
    pub name: String,
    pub alias: String,
    pub path: String,
    /// Icon name.
    pub source: String,
    pub sort: i64,
    /// 1 menu, 2 button.
    pub category: i64,
    pub action: i64,
    /// 1 open in the console, 2 open in a new window.
    pub is_open: i64,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[schema(no_recursion)]
    pub children: Vec<MenuNode>,
}

pub async fn all_menus(state: &Core) -> Result<Vec<MenuRow>, ApiError> {
    let rows = Sql::new(
        "SELECT id, parent_id, code, name, name_en, alias, path, source, sort, category, action, is_open \
         FROM blade_menu WHERE is_deleted = 0",
    )
    .fetch_all::<MenuRow, _>(state.db.pool())
    .await?;
    Ok(rows)
}

/// Menu ids granted (web set) to any of `roles`.
pub async fn granted(state: &Core, roles: &[Id]) -> Result<HashSet<Id>, ApiError> {
    if roles.is_empty() {
        return Ok(HashSet::new());
    }
    let mut sql = Sql::new("SELECT menu_id FROM blade_role_menu WHERE kind = 'web' AND role_id IN (");
    sql.push_ids(roles);
    sql.push(")");
    let ids: Vec<i64> = sql.scalars::<i64, _>(state.db.pool()).await?;
    Ok(ids.into_iter().map(Id).collect())
}

/// Adds every ancestor of the given ids.
pub fn with_ancestors(ids: &HashSet<Id>, by_id: &HashMap<Id, &MenuRow>) -> HashSet<Id> {
    let mut out = HashSet::new();
    for id in ids {
        let mut cur = Some(*id);
        while let Some(c) = cur {
            if !out.insert(c) {
                break;
            }
            cur = by_id.get(&c).map(|m| m.parent_id).filter(|p| p.0 != 0);
        }
    }
    out
}

/// Adds every descendant of the given ids.
pub fn with_descendants(ids: &HashSet<Id>, menus: &[MenuRow]) -> HashSet<Id> {
    let mut out = ids.clone();
    loop {
        let before = out.len();
        for m in menus {
            if out.contains(&m.parent_id) {
                out.insert(m.id);
            }
        }
        if out.len() == before {
            return out;
        }
    }
}

/// Builds the sorted forest of `menus` restricted to `keep`.
pub fn build_tree(menus: &[MenuRow], keep: &HashSet<Id>, lang: Lang) -> Vec<MenuNode> {
    let mut children: BTreeMap<Id, Vec<&MenuRow>> = BTreeMap::new();
    let kept: HashSet<Id> = menus
        .iter()
        .filter(|m| keep.contains(&m.id))
        .map(|m| m.id)
        .collect();
    for m in menus.iter().filter(|m| kept.contains(&m.id)) {
        // A kept menu whose parent is not kept becomes a root.
        let parent = if kept.contains(&m.parent_id) {
            m.parent_id
        } else {
            Id(0)
        };
        children.entry(parent).or_default().push(m);
    }
    fn build(parent: Id, children: &BTreeMap<Id, Vec<&MenuRow>>, lang: Lang) -> Vec<MenuNode> {
        let mut list: Vec<&MenuRow> = children.get(&parent).cloned().unwrap_or_default();
        list.sort_by_key(|m| (m.sort, m.id));
        list.into_iter()
            .map(|m| MenuNode {
                id: m.id,
                parent_id: m.parent_id,
                code: m.code.clone(),
                name: match lang {
                    Lang::En => m
                        .name_en
                        .clone()
                        .filter(|n| !n.is_empty())
                        .unwrap_or_else(|| m.name.clone()),
                    Lang::Zh => m.name.clone(),
                },
                alias: m.alias.clone().unwrap_or_default(),
                path: m.path.clone().unwrap_or_default(),
                source: m.source.clone().unwrap_or_default(),
                sort: m.sort,
                category: m.category,
                action: m.action,
                is_open: m.is_open,
                children: build(m.id, children, lang),
            })
            .collect()
    }
    build(Id(0), &children, lang)
}

/// The menu ids the caller may see: granted plus ancestors, within the tenant's package.
async fn visible(state: &Core, caller: &Caller, menus: &[MenuRow]) -> Result<HashSet<Id>, ApiError> {
    let by_id: HashMap<Id, &MenuRow> = menus.iter().map(|m| (m.id, m)).collect();
    let mut ids = granted(state, &caller.role_ids).await?;
    if let Some(package) = crate::auth::package::package_menus(state, &caller.tenant_id).await? {
        ids.retain(|id| package.contains(id));
    }
    Ok(with_ancestors(&ids, &by_id))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
pub struct RoutesParams {
    /// Limit the tree to the menus of one top menu.
    pub top_menu_id: Option<Id>,
}

#[utoipa::path(get, path = "/api/blade-system/menu/routes", tag = "system", params(RoutesParams),
    responses((status = 200, description = "The caller's menu tree", body = Envelope<Vec<MenuNode>>), (status = 401)))]
pub async fn routes(
    State(state): State<SystemCtx>,
    caller: Caller,
    Query(p): Query<RoutesParams>,
) -> ApiResult<Data<Vec<MenuNode>>> {
    let menus = all_menus(&state).await?;
    let mut keep = visible(&state, &caller, &menus).await?;
    keep.retain(|id| menus.iter().any(|m| m.id == *id && m.category == CATEGORY_MENU));
    if let Some(top) = p.top_menu_id {
        let by_id: HashMap<Id, &MenuRow> = menus.iter().map(|m| (m.id, m)).collect();
        let mut sql = Sql::default();
        sql.push_bind(
            "SELECT s.menu_id FROM blade_top_menu_setting s JOIN blade_top_menu t ON t.id = s.top_menu_id \
             WHERE t.is_deleted = 0 AND s.top_menu_id = ? AND ",
            [top.into()],
        );
        sql.append(&caller.tenant_filter("t.tenant_id"));
        let chosen: HashSet<Id> = sql
            .scalars::<i64, _>(state.db.pool())
            .await?
            .into_iter()
            .map(Id)
            .collect();
        let scope = with_ancestors(&with_descendants(&chosen, &menus), &by_id);
        keep.retain(|id| scope.contains(id));
    }
    Ok(Data(build_tree(&menus, &keep, Lang::current())))
}

#[utoipa::path(get, path = "/api/blade-system/menu/buttons", tag = "system",
    responses((status = 200, description = "Menus with the caller's button permissions as category-2 children", body = Envelope<Vec<MenuNode>>), (status = 401)))]
pub async fn buttons(State(state): State<SystemCtx>, caller: Caller) -> ApiResult<Data<Vec<MenuNode>>> {
    let menus = all_menus(&state).await?;
    let by_id: HashMap<Id, &MenuRow> = menus.iter().map(|m| (m.id, m)).collect();
    let mut granted_buttons = granted(&state, &caller.role_ids).await?;
    granted_buttons.retain(|id| by_id.get(id).is_some_and(|m| m.category == CATEGORY_BUTTON));
    if let Some(package) = crate::auth::package::package_menus(&state, &caller.tenant_id).await? {
        granted_buttons.retain(|id| package.contains(id));
    }
    let keep = with_ancestors(&granted_buttons, &by_id);
    Ok(Data(build_tree(&menus, &keep, Lang::current())))
}

#[derive(Debug, Serialize, ToSchema, sqlx::FromRow)]
#[serde(rename_all = "camelCase")]
pub struct TopMenu {
    pub id: Id,
    pub code: String,
    pub name: String,
    pub source: Option<String>,
    pub path: Option<String>,
    pub sort: i64,
}

#[utoipa::path(get, path = "/api/blade-system/menu/top-menu", tag = "system",
    responses((status = 200, description = "The tenant's top menus that lead to at least one menu the caller sees", body = Envelope<Vec<TopMenu>>), (status = 401)))]
pub async fn top_menu(State(state): State<SystemCtx>, caller: Caller) -> ApiResult<Data<Vec<TopMenu>>> {
    let mut sql = Sql::new("SELECT id, code, name, source, path, sort FROM blade_top_menu WHERE ");
    sql.append(&caller.tenant_filter("tenant_id"));
    sql.push(" AND is_deleted = 0 ORDER BY sort, id");
    let tops = sql.fetch_all::<TopMenu, _>(state.db.pool()).await?;
    if tops.is_empty() {
        return Ok(Data(tops));
    }
    // A top menu only shows when its settings lead to a menu the caller sees: picking it must
    // not leave an empty sidebar.
    let menus = all_menus(&state).await?;
    let mut keep = visible(&state, &caller, &menus).await?;
    keep.retain(|id| menus.iter().any(|m| m.id == *id && m.category == CATEGORY_MENU));
    let mut sql = Sql::new(
        "SELECT s.top_menu_id, s.menu_id FROM blade_top_menu_setting s JOIN blade_top_menu t ON t.id = s.top_menu_id \
         WHERE t.is_deleted = 0 AND ",
    );
    sql.append(&caller.tenant_filter("t.tenant_id"));
    let settings: Vec<(i64, i64)> = sql.fetch_all::<(i64, i64), _>(state.db.pool()).await?;
    let mut chosen: HashMap<Id, HashSet<Id>> = HashMap::new();
    for (top, menu) in settings {
        chosen.entry(Id(top)).or_default().insert(Id(menu));
    }
    Ok(Data(
        tops.into_iter()
            .filter(|t| {
                chosen
                    .get(&t.id)
                    .is_some_and(|c| with_descendants(c, &menus).iter().any(|id| keep.contains(id)))
            })
            .collect(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(id: i64, parent: i64, sort: i64, category: i64) -> MenuRow {
        MenuRow {
            id: Id(id),
            parent_id: Id(parent),
            code: format!("c{id}"),
            name: format!("菜单{id}"),
            name_en: Some(format!("Menu {id}")),
            alias: None,
            path: Some(format!("/p{id}")),
            source: None,
            sort,
            category,
            action: 0,
            is_open: 1,
        }
    }

    #[test]
    fn granted_leaves_bring_their_ancestors_sorted() {
        let menus = vec![
            m(1, 0, 2, 1),
            m(2, 0, 1, 1),
            m(3, 1, 2, 1),
            m(4, 1, 1, 1),
            m(5, 3, 1, 2),
            m(6, 2, 1, 1),
        ];
        let by_id: HashMap<Id, &MenuRow> = menus.iter().map(|x| (x.id, x)).collect();
        let keep = with_ancestors(&[Id(5), Id(4)].into_iter().collect(), &by_id);
        assert_eq!(keep, [1, 3, 4, 5].into_iter().map(Id).collect());
        let tree = build_tree(&menus, &keep, Lang::En);
        assert_eq!(tree.len(), 1, "menu 2 was not granted");
        assert_eq!(tree[0].name, "Menu 1");
        let kids: Vec<i64> = tree[0].children.iter().map(|c| c.id.0).collect();
        assert_eq!(kids, vec![4, 3], "sorted by sort");
        assert_eq!(tree[0].children[1].children[0].id, Id(5));
        assert_eq!(build_tree(&menus, &keep, Lang::Zh)[0].name, "菜单1");
    }

    #[test]
    fn descendants_of_a_top_menu_choice() {
        let menus = vec![m(1, 0, 1, 1), m(3, 1, 1, 1), m(5, 3, 1, 2), m(6, 0, 1, 1)];
        let d = with_descendants(&[Id(1)].into_iter().collect(), &menus);
        assert_eq!(d, [1, 3, 5].into_iter().map(Id).collect());
    }
}
