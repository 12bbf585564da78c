//! What an installation starts with: on first start the platform tenant `000000` with its
//! administrator (`admin` / `admin`, role `administrator`) and the console's OAuth client
//! `saber`; on every start, the product's menu tree (`seed/menus.toml`) is brought in, adding
//! menus and buttons a new version introduced (and granting them to administrator roles) while
//! leaving menus an administrator edited alone.

use std::collections::HashMap;

use serde::Deserialize;

use crate::auth::client::secret_hash;
use crate::auth::password;
use crate::kernel::db::Db;
use crate::kernel::id::IdGenerator;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, Id, time};
use crate::system::tenant::DEFAULT_TENANT;

/// MD5 of "admin": the console sends MD5 hex, and the stored hash is of that.
const ADMIN_PASSWORD_MD5: &str = "21232f297a57a5a743894a0e4a801fc3";
pub const ADMIN_ROLE_ALIAS: &str = "administrator";

const MENUS: &str = include_str!("seed/menus.toml");
// `BUSINESS_MENUS`: the menu files of the code generator's modules in `business/` (build.rs).
include!(concat!(env!("OUT_DIR"), "/business_menus.rs"));

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MenuFile {
    menu: Vec<SeedMenu>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SeedMenu {
    code: String,
    name: String,
    en: String,
    path: String,
    icon: Option<String>,
    sort: i64,
    #[serde(default)]
    open: Option<i64>,
    #[serde(default)]
    buttons: Vec<String>,
    #[serde(default)]
    children: Vec<SeedMenu>,
}

/// Labels of the button kinds the menu file uses.
fn button_label(kind: &str) -> Option<(&'static str, &'static str)> {
    Some(match kind {
        "add" => ("新增", "Add"),
        "edit" => ("修改", "Edit"),
        "delete" => ("删除", "Delete"),
        "view" => ("查看", "View"),
        "switch" => ("转运行", "Switch to running"),
        "import" => ("导入", "Import"),
        "export" => ("导出", "Export"),
        "gateway" => ("网关配置", "Gateway"),
        "handle" => ("处理", "Handle"),
        "setting" => ("设置", "Settings"),
        "copy" => ("复制", "Copy"),
        "fill" => ("填写", "Fill in"),
        "assign" => ("派单", "Assign"),
        "accept" => ("受理", "Accept"),
        "transfer" => ("转派", "Transfer"),
        "start" => ("开始维修", "Start repair"),
        "finish" => ("完成维修", "Finish repair"),
        "verify" => ("确认修复", "Verify"),
        "evaluate" => ("评价", "Evaluate"),
        "cancel" => ("取消", "Cancel"),
        "correct" => ("修正", "Correct"),
        "role" => ("角色配置", "Roles"),
        "reset" => ("密码重置", "Reset password"),
        "unlock" => ("账号解锁", "Unlock"),
        "platform" => ("平台配置", "Platform settings"),
        "datasource" => ("数据源", "Data source"),
        "package" => ("产品包", "Package"),
        "grant" => ("权限设置", "Grant"),
        "enable" => ("启用", "Enable"),
        "upload" => ("上传", "Upload"),
        "download" => ("下载", "Download"),
        "deploy" => ("部署", "Deploy"),
        "state" => ("变更状态", "Change state"),
        "gen" => ("代码生成", "Generate code"),
        _ => return None,
    })
}

/// One menu or button to insert, flattened from the file in parent-first order.
#[derive(Debug, Clone, PartialEq)]
pub struct FlatMenu {
    pub code: String,
    pub parent_code: Option<String>,
    pub name: String,
    pub name_en: String,
    pub path: Option<String>,
    pub icon: Option<String>,
    pub sort: i64,
    pub category: i64,
    pub is_open: i64,
}

fn flatten(items: &[SeedMenu], parent: Option<&str>, out: &mut Vec<FlatMenu>) -> Result<(), String> {
    for m in items {
        out.push(FlatMenu {
            code: m.code.clone(),
            parent_code: parent.map(str::to_owned),
            name: m.name.clone(),
            name_en: m.en.clone(),
            path: Some(m.path.clone()),
            icon: m.icon.clone(),
            sort: m.sort,
            category: super::menu::CATEGORY_MENU,
            is_open: if m.open == Some(1) { 2 } else { 1 },
        });
        for (i, b) in m.buttons.iter().enumerate() {
            let (zh, en) =
                button_label(b).ok_or_else(|| format!("menu {}: unknown button kind {b:?}", m.code))?;
            out.push(FlatMenu {
                code: format!("{}_{b}", m.code),
                parent_code: Some(m.code.clone()),
                name: zh.to_owned(),
                name_en: en.to_owned(),
                path: None,
                icon: None,
                sort: i as i64 + 1,
                category: super::menu::CATEGORY_BUTTON,
                is_open: 1,
            });
        }
        flatten(&m.children, Some(&m.code), out)?;
    }
    Ok(())
}

/// The product's menus and buttons, parent first.
pub fn product_menus() -> Result<Vec<FlatMenu>, String> {
    let mut file: MenuFile = toml::from_str(MENUS).map_err(|e| format!("seed/menus.toml: {e}"))?;
    file.menu.extend(business_group(BUSINESS_MENUS)?);
    let mut out = Vec::new();
    flatten(&file.menu, None, &mut out)?;
    Ok(out)
}

/// 业务扩展 (Business): the group of the code generator's modules, made once one exists.
fn business_group(menus: &[(&str, &str)]) -> Result<Option<SeedMenu>, String> {
    if menus.is_empty() {
        return Ok(None);
    }
    let mut children = Vec::new();
    for (module, text) in menus {
        let menu: SeedMenu = toml::from_str(text).map_err(|e| format!("business/{module}.menu.toml: {e}"))?;
        children.push(menu);
    }
    Ok(Some(SeedMenu {
        code: "business".into(),
        name: "业务扩展".into(),
        en: "Business".into(),
        path: "/business".into(),
        icon: Some("AppstoreOutlined".into()),
        sort: 18,
        open: None,
        buttons: Vec::new(),
        children,
    }))
}

fn insert(table_and_columns: &str, values: Vec<Value>) -> Sql {
    let marks = vec!["?"; values.len()].join(", ");
    let mut sql = Sql::default();
    sql.push_bind(
        &format!("INSERT INTO {table_and_columns} VALUES ({marks})"),
        values,
    );
    sql
}

/// Seeds what is missing. Safe to run at every start and from several replicas at once (the
/// unique indexes turn a lost race into an error the loser logs and ignores).
pub async fn run(db: &Db, ids: &IdGenerator) -> Result<(), ApiError> {
    if let Err(e) = seed_platform_tenant(db, ids).await {
        // Losing a race to another replica is fine; any other failure leaves no tenant behind.
        if !platform_tenant_exists(db).await? {
            return Err(e);
        }
        tracing::info!("the platform tenant was seeded by another replica");
    }
    sync_menus(db, ids).await?;
    super::seed_reference::run(db, ids).await
}

async fn platform_tenant_exists(db: &Db) -> Result<bool, ApiError> {
    let exists: Option<i64> =
        Sql::new("SELECT id FROM blade_tenant WHERE tenant_id = '000000' AND is_deleted = 0")
            .scalar_optional::<i64, _>(db.pool())
            .await?;
    Ok(exists.is_some())
}

async fn seed_platform_tenant(db: &Db, ids: &IdGenerator) -> Result<(), ApiError> {
    if platform_tenant_exists(db).await? {
        return Ok(());
    }
    let now = Value::Int(time::now_ms());
    let t = || Value::from(DEFAULT_TENANT);
    let (dept, post, role, user) = (ids.next(), ids.next(), ids.next(), ids.next());
    let admin_hash = password::hash(ADMIN_PASSWORD_MD5).await?;
    let mut tx = db.begin_write().await?;
    insert(
        "blade_tenant (id, tenant_id, tenant_name, linkman, create_time)",
        vec![
            ids.next().into(),
            t(),
            "管理组".into(),
            "admin".into(),
            now.clone(),
        ],
    )
    .execute(&mut *tx)
    .await?;
    insert(
        "blade_dept (id, tenant_id, parent_id, ancestors, dept_name, full_name, sort)",
        vec![
            dept.into(),
            t(),
            Value::Int(0),
            "0".into(),
            "总部".into(),
            "总部".into(),
            Value::Int(1),
        ],
    )
    .execute(&mut *tx)
    .await?;
    insert(
        "blade_post (id, tenant_id, category, post_code, post_name, sort, create_time)",
        vec![
            post.into(),
            t(),
            Value::Int(1),
            "ceo".into(),
            "首席执行官".into(),
            Value::Int(1),
            now.clone(),
        ],
    )
    .execute(&mut *tx)
    .await?;
    insert(
        "blade_role (id, tenant_id, parent_id, role_name, role_alias, sort)",
        vec![
            role.into(),
            t(),
            Value::Int(0),
            "超级管理员".into(),
            ADMIN_ROLE_ALIAS.into(),
            Value::Int(1),
        ],
    )
    .execute(&mut *tx)
    .await?;
    insert(
        "blade_user (id, tenant_id, account, password, name, real_name, post_id, create_time, status)",
        vec![
            user.into(),
            t(),
            "admin".into(),
            admin_hash.into(),
            "管理员".into(),
            "管理员".into(),
            post.to_string().into(),
            now.clone(),
            Value::Int(1),
        ],
    )
    .execute(&mut *tx)
    .await?;
    insert(
        "blade_user_role (user_id, role_id)",
        vec![user.into(), role.into()],
    )
    .execute(&mut *tx)
    .await?;
    insert(
        "blade_user_dept (user_id, dept_id)",
        vec![user.into(), dept.into()],
    )
    .execute(&mut *tx)
    .await?;
    let client_exists: Option<i64> =
        Sql::new("SELECT id FROM blade_client WHERE client_id = 'saber' AND is_deleted = 0")
            .scalar_optional::<i64, _>(&mut *tx)
            .await?;
    if client_exists.is_none() {
        insert(
            "blade_client (id, client_id, client_secret_hash, scope, authorized_grant_types, \
                 access_token_validity, refresh_token_validity, create_time)",
            vec![
                ids.next().into(),
                "saber".into(),
                secret_hash("saber_secret").into(),
                "all".into(),
                "refresh_token,password,captcha,social,authorization_code".into(),
                Value::Int(3600),
                Value::Int(604_800),
                now,
            ],
        )
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    tracing::info!("seeded tenant 000000 with account admin (change its password)");
    Ok(())
}

async fn sync_menus(db: &Db, ids: &IdGenerator) -> Result<(), ApiError> {
    let wanted = product_menus().map_err(ApiError::Internal)?;
    let existing: Vec<(i64, String)> = Sql::new("SELECT id, code FROM blade_menu WHERE is_deleted = 0")
        .fetch_all::<(i64, String), _>(db.pool())
        .await?;
    let mut by_code: HashMap<String, Id> = existing.into_iter().map(|(id, code)| (code, Id(id))).collect();
    let admin_roles: Vec<i64> =
        Sql::new("SELECT id FROM blade_role WHERE role_alias = 'administrator' AND is_deleted = 0")
            .scalars::<i64, _>(db.pool())
            .await?;
    let mut added = 0;
    let mut tx = db.begin_write().await?;
    for m in &wanted {
        if by_code.contains_key(&m.code) {
            continue;
        }
        let id = ids.next();
        let parent = m
            .parent_code
            .as_ref()
            .and_then(|p| by_code.get(p))
            .copied()
            .unwrap_or(Id(0));
        insert(
                "blade_menu (id, parent_id, code, name, name_en, alias, path, source, sort, category, action, is_open)",
                vec![
                    id.into(),
                    parent.into(),
                    m.code.clone().into(),
                    m.name.clone().into(),
                    m.name_en.clone().into(),
                    m.code.clone().into(),
                    m.path.clone().into(),
                    m.icon.clone().into(),
                    Value::Int(m.sort),
                    Value::Int(m.category),
                    Value::Int(0),
                    Value::Int(m.is_open),
                ],
            ).execute(&mut *tx)
        .await?;
        for role in &admin_roles {
            insert(
                "blade_role_menu (role_id, menu_id, kind)",
                vec![Value::Int(*role), id.into(), "web".into()],
            )
            .execute(&mut *tx)
            .await?;
        }
        by_code.insert(m.code.clone(), id);
        added += 1;
    }
    tx.commit().await?;
    if added > 0 {
        tracing::info!(added, "menus added from the product's menu tree");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn business_menu_files_join_one_group_and_a_bad_one_is_named() {
        assert!(business_group(&[]).unwrap().is_none());
        let file = "code = \"biz_spare_part\"\nname = \"备品备件\"\nen = \"Spare parts\"\n\
                    path = \"/business/sparePart\"\nsort = 1\nbuttons = [\"add\", \"view\"]\n";
        let group = business_group(&[("spare_part", file)]).unwrap().unwrap();
        let mut flat = Vec::new();
        flatten(&[group], None, &mut flat).unwrap();
        let codes: Vec<&str> = flat.iter().map(|m| m.code.as_str()).collect();
        assert_eq!(
            codes,
            [
                "business",
                "biz_spare_part",
                "biz_spare_part_add",
                "biz_spare_part_view"
            ]
        );
        assert_eq!(flat[1].parent_code.as_deref(), Some("business"));
        let err = business_group(&[("broken", "code = 1")]).unwrap_err();
        assert!(err.contains("business/broken.menu.toml"), "{err}");
    }

    #[test]
    fn the_menu_file_covers_every_group_of_the_spec_with_unique_codes() {
        let menus = product_menus().unwrap();
        let roots: Vec<&str> = menus
            .iter()
            .filter(|m| m.parent_code.is_none())
            .map(|m| m.code.as_str())
            .collect();
        assert_eq!(
            roots,
            [
                "basicFacts",
                "report",
                "stationMonitor",
                "intelligentOperation",
                "integratedManagement",
                "bigScreen",
                "flexSystem",
                "system"
            ]
        );
        let mut codes: Vec<&str> = menus.iter().map(|m| m.code.as_str()).collect();
        codes.sort_unstable();
        let before = codes.len();
        codes.dedup();
        assert_eq!(codes.len(), before, "menu codes are unique");
        assert!(menus.iter().any(|m| m.code == "station_add"
            && m.category == 2
            && m.parent_code.as_deref() == Some("station")));
        // Parents come before children, so a single pass can link them.
        for (i, m) in menus.iter().enumerate() {
            if let Some(p) = &m.parent_code {
                assert!(
                    menus[..i].iter().any(|x| &x.code == p),
                    "{} before its parent",
                    m.code
                );
            }
        }
        assert!(menus.iter().all(|m| !m.name.is_empty() && !m.name_en.is_empty()));
    }
}
