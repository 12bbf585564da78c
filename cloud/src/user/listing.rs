//! Which users an administrator sees and how the screens list them: live users of the caller's
//! tenant narrowed by the caller's data scopes, with the names of their roles, departments and
//! posts (three queries for a whole page).

use std::collections::HashMap;

use super::model::{ACCOUNT_COLUMNS, AccountRow, Memberships, StaffMember, StaffRow, UserRecord};
use super::store::STATUS_PENDING;
use crate::auth::caller::Caller;
use crate::auth::scope::MAINTENANCE_ROLE;
use crate::kernel::db::Db;
use crate::kernel::id::parse_id_list;
use crate::kernel::list::{Field, Kind, ListQuery, fetch_page};
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, Core, Id, Page};

const FIELDS: &[Field] = &[
    Field::new("account", "account", Kind::Text),
    Field::new("realName", "real_name", Kind::Text),
    Field::new("name", "name", Kind::Text),
    Field::new("phone", "phone", Kind::Text),
    Field::new("email", "email", Kind::Text),
    Field::new("companyName", "company_name", Kind::Text),
    Field::new("status", "status", Kind::Int),
    Field::new("userType", "user_type", Kind::Int),
    Field::new("createTime", "create_time", Kind::Time),
];

/// `FROM blade_user WHERE` live, in the caller's tenant, within the caller's data scopes.
pub async fn visible_users(core: &Core, caller: &Caller) -> Result<Sql, ApiError> {
    let mut sql = Sql::new(" FROM blade_user WHERE is_deleted = 0 AND ");
    sql.append(&caller.tenant_filter("tenant_id"));
    if let Some(narrow) = crate::system::data_scope::narrow(core, caller, "user").await? {
        sql.push(" AND (");
        sql.append(&narrow);
        sql.push(")");
    }
    Ok(sql)
}

/// Which of `ids` the caller may act on.
pub async fn visible_ids(core: &Core, caller: &Caller, ids: &[Id]) -> Result<Vec<Id>, ApiError> {
    let mut sql = Sql::new("SELECT id");
    sql.append(&visible_users(core, caller).await?);
    sql.push(" AND id IN (");
    sql.push_ids(ids);
    sql.push(")");
    crate::kernel::id::all_found(ids, sql.scalars(core.db.pool()).await?)
}

/// Which of `ids` the caller may act on and still await approval.
pub async fn pending(core: &Core, caller: &Caller, ids: &[Id]) -> Result<Vec<Id>, ApiError> {
    let mut sql = Sql::new("SELECT id");
    sql.append(&visible_users(core, caller).await?);
    sql.push_bind(" AND status = ? AND id IN (", [Value::Int(STATUS_PENDING)]);
    sql.push_ids(ids);
    sql.push(")");
    sql.scalars(core.db.pool()).await
}

/// Whether the caller may see user `id` and it holds the role `alias`.
pub async fn visible_with_role(core: &Core, caller: &Caller, id: Id, alias: &str) -> Result<bool, ApiError> {
    let mut sql = Sql::new("SELECT id");
    sql.append(&visible_users(core, caller).await?);
    sql.push_bind(" AND id = ?", [id.into()]);
    sql.append(&has_role_alias(alias));
    Ok(!sql.scalars::<Id, _>(core.db.pool()).await?.is_empty())
}

fn has_role_alias(alias: &str) -> Sql {
    let mut sql = Sql::default();
    sql.push_bind(
        " AND EXISTS (SELECT 1 FROM blade_user_role ur JOIN blade_role r ON r.id = ur.role_id \
         WHERE ur.user_id = blade_user.id AND r.is_deleted = 0 AND r.role_alias = ?)",
        [alias.into()],
    );
    sql
}

/// The visible users matching the list's filters; `alias` narrows to holders of a role unless
/// the request names one itself (`roleAlias`). `deptId` includes sub-departments.
pub async fn page(
    core: &Core,
    caller: &Caller,
    mut query: ListQuery,
    alias: Option<&str>,
) -> Result<Page<UserRecord>, ApiError> {
    let mut from = visible_users(core, caller).await?;
    if let Some(dept) = query.take("deptId").filter(|d| !d.trim().is_empty()) {
        let dept: i64 = dept
            .trim()
            .parse()
            .map_err(|_| ApiError::bad_request("无效的部门ID", "invalid deptId"))?;
        // A department filter includes its sub-departments, as an organisation tree reads.
        from.push_bind(
            " AND EXISTS (SELECT 1 FROM blade_user_dept ud JOIN blade_dept d ON d.id = ud.dept_id \
             WHERE ud.user_id = blade_user.id AND d.is_deleted = 0 AND (d.id = ? OR ',' || d.ancestors || ',' LIKE ?))",
            [Value::Int(dept), Value::Text(format!("%,{dept},%"))],
        );
    }
    if let Some(role) = query.take("roleId").filter(|r| !r.trim().is_empty()) {
        let role: i64 = role
            .trim()
            .parse()
            .map_err(|_| ApiError::bad_request("无效的角色ID", "invalid roleId"))?;
        from.push_bind(
            " AND EXISTS (SELECT 1 FROM blade_user_role ur WHERE ur.user_id = blade_user.id AND ur.role_id = ?)",
            [Value::Int(role)],
        );
    }
    let alias = query
        .take("roleAlias")
        .filter(|a| !a.trim().is_empty())
        .or(alias.map(str::to_owned));
    if let Some(alias) = alias {
        from.append(&has_role_alias(alias.trim()));
    }
    let rows: Page<AccountRow> = fetch_page(
        &core.db,
        ACCOUNT_COLUMNS,
        from,
        &query,
        FIELDS,
        "create_time DESC, id DESC",
    )
    .await?;
    let records = with_names(&core.db, rows.records).await?;
    Ok(Page::new(records, rows.total, rows.size, rows.current))
}

/// One visible user with role, department and post names.
pub async fn find(core: &Core, caller: &Caller, id: Id) -> Result<Option<UserRecord>, ApiError> {
    let mut sql = Sql::new(&format!("SELECT {ACCOUNT_COLUMNS}"));
    sql.append(&visible_users(core, caller).await?);
    sql.push_bind(" AND id = ?", [id.into()]);
    let Some(row) = sql.fetch_optional::<AccountRow, _>(core.db.pool()).await? else {
        return Ok(None);
    };
    Ok(with_names(&core.db, vec![row]).await?.pop())
}

/// Active maintenance staff of the caller's tenant with their role names.
pub async fn maintenance_staff(db: &Db, caller: &Caller) -> Result<Vec<StaffMember>, ApiError> {
    let mut sql = Sql::new(
        "SELECT id, account, real_name, phone FROM blade_user WHERE is_deleted = 0 AND status = 1 AND ",
    );
    sql.append(&caller.tenant_filter("tenant_id"));
    sql.append(&has_role_alias(MAINTENANCE_ROLE));
    sql.push(" ORDER BY real_name, id");
    let rows: Vec<StaffRow> = sql.fetch_all(db.pool()).await?;
    let ids: Vec<Id> = rows.iter().map(|r| r.id).collect();
    let roles = shown_roles(linked(db, &ids, ROLE_NAMES).await?);
    Ok(rows
        .into_iter()
        .map(|r| StaffMember {
            role_name: names_of(roles.get(&r.id)).1,
            id: r.id,
            account: r.account,
            real_name: r.real_name,
            phone: r.phone,
        })
        .collect())
}

type Links = HashMap<Id, Vec<(Id, String)>>;

const ROLE_NAMES: (&str, &str) = (
    "SELECT ur.user_id, r.id, r.role_name FROM blade_user_role ur JOIN blade_role r ON r.id = ur.role_id \
     WHERE r.is_deleted = 0 AND ur.user_id IN (",
    ") ORDER BY r.sort, r.id",
);
const DEPT_NAMES: (&str, &str) = (
    "SELECT ud.user_id, d.id, d.dept_name FROM blade_user_dept ud JOIN blade_dept d ON d.id = ud.dept_id \
     WHERE d.is_deleted = 0 AND ud.user_id IN (",
    ") ORDER BY d.sort, d.id",
);

/// `(user, id, name)` rows of a link query, grouped by user in query order.
async fn linked(db: &Db, users: &[Id], (head, tail): (&str, &str)) -> Result<Links, ApiError> {
    let mut out = Links::new();
    if users.is_empty() {
        return Ok(out);
    }
    let mut sql = Sql::new(head);
    sql.push_ids(users);
    sql.push(tail);
    for (user, id, name) in sql.fetch_all::<(Id, Id, String), _>(db.pool()).await? {
        out.entry(user).or_default().push((id, name));
    }
    Ok(out)
}

/// Comma-joined ids and names of one user's links.
/// Role names in the request's language (the default roles' English on an English console).
fn shown_roles(mut links: Links) -> Links {
    for items in links.values_mut() {
        for (_, name) in items.iter_mut() {
            *name = crate::system::role::shown_role_name(std::mem::take(name));
        }
    }
    links
}

fn names_of(items: Option<&Vec<(Id, String)>>) -> (String, String) {
    let items = items.map(Vec::as_slice).unwrap_or_default();
    let ids = items.iter().map(|(id, _)| id.to_string()).collect::<Vec<_>>();
    let names = items.iter().map(|(_, name)| name.clone()).collect::<Vec<_>>();
    (ids.join(","), names.join(","))
}

/// The names of the posts in a stored `post_id` list, in list order; unknown ones are skipped.
fn post_names(post_id: Option<&str>, posts: &HashMap<Id, String>) -> String {
    post_id
        .map(|s| {
            parse_id_list(s)
                .unwrap_or_default()
                .iter()
                .filter_map(|p| posts.get(p).cloned())
                .collect::<Vec<_>>()
                .join(",")
        })
        .unwrap_or_default()
}

async fn with_names(db: &Db, rows: Vec<AccountRow>) -> Result<Vec<UserRecord>, ApiError> {
    let ids: Vec<Id> = rows.iter().map(|r| r.id).collect();
    let roles = shown_roles(linked(db, &ids, ROLE_NAMES).await?);
    let depts = linked(db, &ids, DEPT_NAMES).await?;
    let wanted: Vec<Id> = rows
        .iter()
        .filter_map(|r| r.post_id.as_deref())
        .flat_map(|s| parse_id_list(s).unwrap_or_default())
        .collect();
    let posts: HashMap<Id, String> = if wanted.is_empty() {
        HashMap::new()
    } else {
        let mut sql = Sql::new("SELECT id, post_name FROM blade_post WHERE is_deleted = 0 AND id IN (");
        sql.push_ids(&wanted);
        sql.push(")");
        sql.fetch_all::<(Id, String), _>(db.pool())
            .await?
            .into_iter()
            .collect()
    };
    Ok(rows
        .into_iter()
        .map(|row| {
            let (role_id, role_name) = names_of(roles.get(&row.id));
            let (dept_id, dept_name) = names_of(depts.get(&row.id));
            let post_name = post_names(row.post_id.as_deref(), &posts);
            UserRecord::of(
                row,
                Memberships {
                    role_id,
                    role_name,
                    dept_id,
                    dept_name,
                    post_name,
                },
            )
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_join_ids_and_names_in_their_order() {
        let items = vec![(Id(9), "运维".to_owned()), (Id(2), "admin".to_owned())];
        assert_eq!(
            names_of(Some(&items)),
            ("9,2".to_owned(), "运维,admin".to_owned())
        );
        assert_eq!(names_of(None), (String::new(), String::new()));
    }

    #[test]
    fn post_names_follow_the_stored_list_and_skip_unknown_posts() {
        let posts = HashMap::from([(Id(1), "CEO".to_owned()), (Id(3), "CTO".to_owned())]);
        assert_eq!(post_names(Some("3,2,1"), &posts), "CTO,CEO");
        assert_eq!(post_names(Some("x"), &posts), "");
        assert_eq!(post_names(None, &posts), "");
    }
}
