//! Access administration over a real server and database: roles and their grants, menus, top
//! menus, data scopes (list narrowing) and API scopes (the request guard).

use crate::support;

use reqwest::Method;
use serde_json::{Value as Json, json};
use support::{Client, Reply, TestApp, assert_failure, codes_in, find_in, ids_in};

const ROLE: &str = "/api/blade-system/role";
const MENU: &str = "/api/blade-system/menu";
const TOPMENU: &str = "/api/blade-system/topmenu";
const DATA_SCOPE: &str = "/api/blade-system/data-scope";
const API_SCOPE: &str = "/api/blade-system/api-scope";
const POST: &str = "/api/blade-system/post";

/// Submits and expects a 400 with `zh`, then the same in English with `en`.
async fn refused(caller: &Client<'_>, base: &str, body: Json, zh: &str, en: &str) {
    let path = format!("{base}/submit");
    let Reply {
        status, body: res, ..
    } = caller.post_json(&path, body.clone()).await;
    assert_failure(status, &res, 400);
    assert_eq!(res["msg"], zh, "{body}");
    let Reply {
        status, body: res, ..
    } = caller.lang("en").post_json(&path, body.clone()).await;
    assert_failure(status, &res, 400);
    assert_eq!(res["msg"], en, "{body}");
}

async fn created(caller: &Client<'_>, base: &str, body: Json) -> String {
    let Reply {
        status, body: res, ..
    } = caller.submit(base, body.clone()).await;
    assert_eq!(status, 200, "{body}: {res}");
    res["data"].as_str().expect("new id").to_owned()
}

async fn button_codes(caller: &Client<'_>) -> Vec<String> {
    codes_in(&caller.get_data("/api/blade-system/menu/buttons").await)
}

async fn menu_ids(app: &TestApp, codes: &[&str]) -> Vec<String> {
    app.menu_ids(codes).await.iter().map(i64::to_string).collect()
}

/// Role "运维主管" (`ops_lead`) with child "运维" (`ops`) on the platform, and a role of tenant
/// 510001 with the alias `ops_lead` too; returns (app, admin token, lead id, ops id).
async fn role_tree() -> (TestApp, String, String, String) {
    let app = TestApp::start().await;
    let admin = app.token_of("000000", "admin", "admin").await;
    let lead = created(
        &app.as_user(&admin),
        ROLE,
        json!({"roleName": "运维主管", "roleAlias": "ops_lead", "sort": 2}),
    )
    .await;
    let ops = created(
        &app.as_user(&admin),
        ROLE,
        json!({"roleName": "运维", "roleAlias": "ops", "sort": 1, "parentId": lead}),
    )
    .await;
    // The same alias is free in another tenant.
    app.create_tenant_user("510001", "t_adm", "t-pass", &["role", "role_add"], None)
        .await;
    let other = app.token_of("510001", "t_adm", "t-pass").await;
    created(
        &app.as_user(&other),
        ROLE,
        json!({"roleName": "x", "roleAlias": "ops_lead", "sort": 1}),
    )
    .await;

    (app, admin, lead, ops)
}

#[tokio::test]
async fn role_forms_are_validated_and_aliases_are_unique_within_a_tenant() {
    let app = TestApp::start().await;
    let admin = app.as_admin().await;
    refused(
        &admin,
        ROLE,
        json!({"roleAlias": "x", "sort": 1}),
        "请输入角色名称",
        "Please enter the role name",
    )
    .await;
    refused(
        &admin,
        ROLE,
        json!({"roleName": "x", "sort": 1}),
        "请输入角色别名",
        "Please enter the role alias",
    )
    .await;
    refused(
        &admin,
        ROLE,
        json!({"roleName": "x", "roleAlias": "x"}),
        "请输入角色排序",
        "Please enter the sort order",
    )
    .await;
    let lead = created(
        &admin,
        ROLE,
        json!({"roleName": "运维主管", "roleAlias": "ops_lead", "sort": 2}),
    )
    .await;
    refused(
        &admin,
        ROLE,
        json!({"roleName": "again", "roleAlias": "ops_lead", "sort": 3}),
        "角色别名已存在",
        "This role alias already exists",
    )
    .await;
    refused(
        &admin,
        ROLE,
        json!({"roleName": "orphan", "roleAlias": "orphan", "sort": 3, "parentId": "12345"}),
        "上级角色不存在",
        "The parent role does not exist",
    )
    .await;
    created(
        &admin,
        ROLE,
        json!({"roleName": "运维", "roleAlias": "ops", "sort": 1, "parentId": lead}),
    )
    .await;
    // The same alias is free in another tenant.
    app.create_tenant_user("510001", "t_adm", "t-pass", &["role", "role_add"], None)
        .await;
    let other = app.token_of("510001", "t_adm", "t-pass").await;
    created(
        &app.as_user(&other),
        ROLE,
        json!({"roleName": "x", "roleAlias": "ops_lead", "sort": 1}),
    )
    .await;

    app.stop().await;
}

#[tokio::test]
async fn roles_form_a_tree_in_lists_selectors_and_details() {
    let (app, admin, lead, ops) = role_tree().await;

    // Tree list: the child under its parent, with parentName and hasChildren.
    let list = app
        .as_user(&admin)
        .get_data(&format!("{ROLE}/list?roleAlias=ops"))
        .await;
    let parent = find_in(&list, &lead).expect("parent listed");
    assert_eq!(parent["hasChildren"], true, "{list}");
    assert_eq!(parent["tenantId"], "000000");
    assert_eq!(parent["children"][0]["id"], ops.as_str());
    assert_eq!(parent["children"][0]["parentName"], "运维主管");
    assert!(
        list.as_array().unwrap().iter().any(|r| r["tenantId"] == "510001"),
        "the platform lists every tenant's roles: {list}"
    );
    let only = app
        .as_user(&admin)
        .get_data(&format!("{ROLE}/list?roleAlias=ops_lead&tenantId=000000"))
        .await;
    assert_eq!(only.as_array().unwrap().len(), 1, "{only}");
    assert_eq!(only[0]["hasChildren"], false);
    let by_name = app
        .as_user(&admin)
        .get_data(&format!("{ROLE}/list?roleName=运维"))
        .await;
    assert_eq!(ids_in(&by_name).len(), 2, "{by_name}");

    // Selector trees and the flat list.
    let tree = app.as_user(&admin).get_data(&format!("{ROLE}/tree")).await;
    let node = find_in(&tree, &lead).expect("node");
    assert_eq!(node["title"], "运维主管");
    assert_eq!(node["key"], lead.as_str());
    assert_eq!(node["value"], lead.as_str());
    assert_eq!(node["parentId"], "0");
    assert_eq!(node["children"][0]["id"], ops.as_str());
    let sub = app
        .as_user(&admin)
        .get_data(&format!("{ROLE}/tree-by-id?roleId={lead}"))
        .await;
    assert_eq!(ids_in(&sub), vec![lead.clone(), ops.clone()]);
    let sub = app
        .as_user(&admin)
        .get_data(&format!("{ROLE}/tree-by-id?roleId={ops}"))
        .await;
    assert_eq!(ids_in(&sub), vec![ops.clone()]);
    let flat = app.as_user(&admin).get_data(&format!("{ROLE}/rolelist")).await;
    let aliases: Vec<&str> = flat
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["roleAlias"].as_str().unwrap())
        .collect();
    assert!(
        aliases.contains(&"administrator") && aliases.contains(&"ops"),
        "{flat}"
    );
    assert!(flat[0].get("children").is_none());

    let detail = app
        .as_user(&admin)
        .get_data(&format!("{ROLE}/detail?id={ops}"))
        .await;
    assert_eq!(detail["parentName"], "运维主管");
    assert_eq!(detail["roleAlias"], "ops");
    refused(
        &app.as_user(&admin),
        ROLE,
        json!({"id": lead, "parentId": ops}),
        "上级角色不能是自己或下级角色",
        "A role cannot be placed under itself or one of its descendants",
    )
    .await;
    // Keeping its own alias is not a duplicate.
    let Reply { status, body, .. } = app
        .as_user(&admin)
        .submit(ROLE, json!({"id": lead, "roleAlias": "ops_lead", "sort": 5}))
        .await;
    assert_eq!(status, 200, "{body}");

    app.stop().await;
}

#[tokio::test]
async fn a_role_with_children_or_holders_is_kept_and_its_alias_is_free_once_it_is_gone() {
    let (app, admin, lead, ops) = role_tree().await;

    let Reply { status, body, .. } = app.as_user(&admin).remove(ROLE, &lead).await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "请先删除子节点");
    let Reply { body, .. } = app.as_user(&admin).lang("en").remove(ROLE, &lead).await;
    assert_eq!(body["msg"], "Delete the child items first");

    let holder = app
        .create_role_holder("000000", "ops1", "ops-pass", ops.parse().unwrap())
        .await;
    let Reply { status, body, .. } = app.as_user(&admin).remove(ROLE, &ops).await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "该角色已分配给用户，无法删除");
    let Reply { body, .. } = app.as_user(&admin).lang("en").remove(ROLE, &ops).await;
    assert_eq!(body["msg"], "This role is still assigned to users");
    app.exec(
        "UPDATE blade_user SET is_deleted = 1 WHERE id = ?",
        vec![pv_cloud::kernel::sql::Value::Int(holder)],
    )
    .await;
    let Reply { status, body, .. } = app.as_user(&admin).remove(ROLE, &ops).await;
    assert_eq!((status, &body["data"]), (200, &json!(1)), "{body}");
    let Reply { status, body, .. } = app.as_user(&admin).remove(ROLE, &lead).await;
    assert_eq!((status, &body["data"]), (200, &json!(1)), "{body}");
    // The alias is free again once its role is gone.
    created(
        &app.as_user(&admin),
        ROLE,
        json!({"roleName": "n", "roleAlias": "ops_lead", "sort": 1}),
    )
    .await;

    app.stop().await;
}

#[tokio::test]
async fn reading_the_role_list_needs_the_role_menu() {
    let app = TestApp::start().await;
    // Reading the role list needs the role menu.
    app.create_tenant_user("510001", "nobody", "nobody-pass", &["post"], None)
        .await;
    let nobody = app.token_of("510001", "nobody", "nobody-pass").await;
    let Reply { status, body, .. } = app
        .send(app.as_user(&nobody).request(Method::GET, &format!("{ROLE}/list")))
        .await;
    assert_failure(status, &body, 403);
    app.stop().await;
}

#[tokio::test]
async fn tenants_cannot_reach_each_others_roles_or_top_menus() {
    let app = TestApp::start().await;
    let admin = app.as_admin().await;
    let perms = [
        "role",
        "role_add",
        "role_edit",
        "role_delete",
        "role_grant",
        "topmenu",
        "topmenu_add",
        "topmenu_edit",
        "topmenu_delete",
        "topmenu_setting",
        "post",
    ];
    app.create_tenant_user("520001", "adm_a", "a-pass", &perms, None)
        .await;
    app.create_tenant_user("520002", "adm_b", "b-pass", &perms, None)
        .await;
    let a = app.as_user(&app.token_of("520001", "adm_a", "a-pass").await);
    let b = app.as_user(&app.token_of("520002", "adm_b", "b-pass").await);

    // The platform creates a role inside tenant A; an unknown tenant is refused.
    let role_a = created(
        &admin,
        ROLE,
        json!({"tenantId": "520001", "roleName": "A 的角色", "roleAlias": "a_role", "sort": 1}),
    )
    .await;
    let detail = admin.get_data(&format!("{ROLE}/detail?id={role_a}")).await;
    assert_eq!(detail["tenantId"], "520001");
    refused(
        &admin,
        ROLE,
        json!({"tenantId": "999999", "roleName": "x", "roleAlias": "x", "sort": 1}),
        "租户不存在",
        "The tenant does not exist",
    )
    .await;
    let post = app.menu_id("post").await;
    let Reply { status, body, .. } = a
        .post_json(
            &format!("{ROLE}/grant"),
            json!({"roleIds": [role_a], "menuIds": [post], "dataScopeIds": [], "apiScopeIds": []}),
        )
        .await;
    assert_eq!(status, 200, "A grants its own role: {body}");
    let top_a = created(&a, TOPMENU, json!({"code": "a_top", "name": "A 顶部", "sort": 1})).await;
    let Reply { status, body, .. } = a
        .post_json(
            &format!("{TOPMENU}/grant"),
            json!({"topMenuIds": [top_a], "menuIds": [post]}),
        )
        .await;
    assert_eq!(status, 200, "{body}");

    // Tenant B names A's ids: it gets nothing and changes nothing.
    let Reply { status, body, .. } = app
        .send(b.request(Method::GET, &format!("{ROLE}/detail?id={role_a}")))
        .await;
    assert_failure(status, &body, 404);
    let Reply { status, body, .. } = b
        .submit(ROLE, json!({"id": role_a, "roleName": "hijacked"}))
        .await;
    assert_failure(status, &body, 404);
    let Reply { status, body, .. } = b.remove(ROLE, &role_a).await;
    assert_failure(status, &body, 404);
    let Reply { status, body, .. } = b
        .post_json(
            &format!("{ROLE}/grant"),
            json!({"roleIds": [role_a], "menuIds": [], "dataScopeIds": [], "apiScopeIds": []}),
        )
        .await;
    assert_failure(status, &body, 404);
    let Reply { status, body, .. } = b
        .post_json(
            &format!("{ROLE}/grant-app"),
            json!({"roleIds": [role_a], "menuIds": []}),
        )
        .await;
    assert_failure(status, &body, 404);
    let keys = b
        .get_data(&format!("{MENU}/role-tree-keys?roleIds={role_a}"))
        .await;
    assert_eq!(keys["menu"], json!([]), "{keys}");
    let sub = b.get_data(&format!("{ROLE}/tree-by-id?roleId={role_a}")).await;
    assert_eq!(sub, json!([]));
    for path in [
        format!("{ROLE}/list"),
        format!("{ROLE}/tree?tenantId=520001"),
        format!("{ROLE}/rolelist?tenantId=520001"),
    ] {
        let data = b.get_data(&path).await;
        assert!(!data.to_string().contains(&role_a), "{path}: {data}");
        assert!(!data.to_string().contains("a_role"), "{path}: {data}");
    }
    // B cannot plant a role in A either: tenantId is the platform's to choose.
    let planted = created(
        &b,
        ROLE,
        json!({"tenantId": "520001", "roleName": "p", "roleAlias": "p", "sort": 1}),
    )
    .await;
    assert_eq!(
        b.get_data(&format!("{ROLE}/detail?id={planted}")).await["tenantId"],
        "520002"
    );
    let Reply { status, body, .. } = app
        .send(b.request(Method::GET, &format!("{TOPMENU}/detail?id={top_a}")))
        .await;
    assert_failure(status, &body, 404);
    let Reply { status, body, .. } = b
        .post_json(
            &format!("{TOPMENU}/grant"),
            json!({"topMenuIds": [top_a], "menuIds": []}),
        )
        .await;
    assert_failure(status, &body, 404);
    let keys = b
        .get_data(&format!("{MENU}/top-tree-keys?topMenuIds={top_a}"))
        .await;
    assert_eq!(keys, json!([]));
    let Reply { status, body, .. } = b.remove(TOPMENU, &top_a).await;
    assert_failure(status, &body, 404);

    // A's data is untouched.
    let role = a.get_data(&format!("{ROLE}/detail?id={role_a}")).await;
    assert_eq!(role["roleName"], "A 的角色");
    let keys = a
        .get_data(&format!("{MENU}/role-tree-keys?roleIds={role_a}"))
        .await;
    assert_eq!(keys["menu"], json!([post]));
    let keys = a
        .get_data(&format!("{MENU}/top-tree-keys?topMenuIds={top_a}"))
        .await;
    assert_eq!(keys, json!([post]));
    app.stop().await;
}

#[tokio::test]
async fn grants_replace_and_app_grants_are_a_separate_set() {
    let app = TestApp::start().await;
    let admin = app.as_admin().await;
    let role = created(
        &admin,
        ROLE,
        json!({"roleName": "查看", "roleAlias": "viewer", "sort": 3}),
    )
    .await;
    app.create_role_holder("000000", "viewer", "viewer-pass", role.parse().unwrap())
        .await;
    let viewer = app.as_user(&app.token_of("000000", "viewer", "viewer-pass").await);
    assert!(button_codes(&viewer).await.is_empty());

    let web = format!("{ROLE}/grant");
    let app_grant = format!("{ROLE}/grant-app");
    let Reply { status, body, .. } = admin.post_json(&web, json!({"roleIds": [role], "menuIds": menu_ids(&app, &["post", "post_add"]).await, "dataScopeIds": [], "apiScopeIds": []})).await;
    assert_eq!((status, &body["data"]), (200, &json!(true)), "{body}");
    let buttons = button_codes(&viewer).await;
    assert!(buttons.contains(&"post_add".to_owned()), "{buttons:?}");

    // A second grant replaces the first.
    let Reply { status, .. } = admin
        .post_json(
            &web,
            json!({"roleIds": [role], "menuIds": menu_ids(&app, &["post", "post_delete"]).await}),
        )
        .await;
    assert_eq!(status, 200);
    let buttons = button_codes(&viewer).await;
    assert!(buttons.contains(&"post_delete".to_owned()), "{buttons:?}");
    assert!(
        !buttons.contains(&"post_add".to_owned()),
        "replaced, not appended: {buttons:?}"
    );

    // The app set is separate: it changes neither the buttons nor the web set.
    let Reply { status, body, .. } = admin.post_json(&app_grant, json!({"roleIds": [role], "menuIds": menu_ids(&app, &["post", "post_edit"]).await, "dataScopeIds": [], "apiScopeIds": []})).await;
    assert_eq!(status, 200, "{body}");
    let buttons = button_codes(&viewer).await;
    assert!(!buttons.contains(&"post_edit".to_owned()), "{buttons:?}");
    assert!(buttons.contains(&"post_delete".to_owned()), "{buttons:?}");
    let mut want = menu_ids(&app, &["post", "post_delete"]).await;
    want.sort();
    let keys = admin
        .get_data(&format!("{MENU}/role-tree-keys?roleIds={role}"))
        .await;
    let mut got: Vec<String> = serde_json::from_value(keys["menu"].clone()).unwrap();
    got.sort();
    assert_eq!(got, want);
    assert_eq!(keys["dataScope"], json!([]));
    assert_eq!(keys["apiScope"], json!([]));
    let keys = admin
        .get_data(&format!("{MENU}/role-tree-keys-app?roleIds={role}"))
        .await;
    let mut got: Vec<String> = serde_json::from_value(keys["menu"].clone()).unwrap();
    got.sort();
    let mut want_app = menu_ids(&app, &["post", "post_edit"]).await;
    want_app.sort();
    assert_eq!(got, want_app);
    assert!(keys.get("dataScope").is_none());

    // A web grant leaves the app set alone.
    admin
        .post_json(
            &web,
            json!({"roleIds": [role], "menuIds": menu_ids(&app, &["post"]).await}),
        )
        .await;
    let keys = admin
        .get_data(&format!("{MENU}/role-tree-keys-app?roleIds={role}"))
        .await;
    assert_eq!(keys["menu"].as_array().unwrap().len(), 2);
    let tree = admin.get_data(&format!("{MENU}/grant-tree-app")).await;
    assert!(tree["menu"].as_array().is_some_and(|m| !m.is_empty()));
    assert!(tree.get("dataScope").is_none());

    // No role named; a caller without the grant button.
    let Reply { status, body, .. } = admin.post_json(&web, json!({"roleIds": [], "menuIds": []})).await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "请选择角色");
    let Reply { status, body, .. } = viewer
        .post_json(&web, json!({"roleIds": [role], "menuIds": []}))
        .await;
    assert_failure(status, &body, 403);
    let Reply { status, body, .. } = admin.post_json(&web, json!({"roleIds": ["x"]})).await;
    assert_failure(status, &body, 400);
    app.stop().await;
}

#[tokio::test]
async fn packages_limit_grant_trees_and_grants() {
    let app = TestApp::start().await;
    let admin = app.as_admin().await;
    let package = [
        "role",
        "role_add",
        "role_grant",
        "topmenu",
        "post",
        "post_add",
        "post_edit",
    ];
    // The tenant admin holds all of the package but post_edit.
    let held = ["role", "role_add", "role_grant", "topmenu", "post", "post_add"];
    app.create_tenant_user("530001", "pkg_adm", "pkg-pass", &held, Some(&package))
        .await;
    let tadm = app.as_user(&app.token_of("530001", "pkg_adm", "pkg-pass").await);

    let tree = tadm.get_data(&format!("{MENU}/grant-tree")).await;
    let ids = ids_in(&tree["menu"]);
    for code in ["system", "authority", "role", "role_grant", "post", "post_add"] {
        assert!(ids.contains(&app.menu_id(code).await), "{code} in {tree}");
    }
    // A packaged page brings its buttons (post_edit, post_delete); unpackaged pages bring none.
    for code in ["user", "user_add", "stationMonitor"] {
        assert!(
            !ids.contains(&app.menu_id(code).await),
            "{code} not in the grant tree"
        );
    }
    let full = admin.get_data(&format!("{MENU}/grant-tree")).await;
    assert!(ids_in(&full["menu"]).contains(&app.menu_id("user").await));

    let role = created(
        &tadm,
        ROLE,
        json!({"roleName": "子角色", "roleAlias": "sub", "sort": 1}),
    )
    .await;
    let web = format!("{ROLE}/grant");
    let Reply { status, body, .. } = tadm
        .post_json(
            &web,
            json!({"roleIds": [role], "menuIds": menu_ids(&app, &["user_add"]).await}),
        )
        .await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "所选菜单超出租户产品包范围");
    let Reply { status, body, .. } = tadm
        .post_json(
            &web,
            json!({"roleIds": [role], "menuIds": menu_ids(&app, &["post_edit"]).await}),
        )
        .await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "不能授予自己没有的权限");
    let Reply { body, .. } = tadm
        .lang("en")
        .post_json(
            &web,
            json!({"roleIds": [role], "menuIds": menu_ids(&app, &["post_edit"]).await}),
        )
        .await;
    assert_eq!(body["msg"], "You cannot grant permissions you do not hold");
    let Reply { status, body, .. } = tadm.post_json(&web, json!({"roleIds": [role], "menuIds": menu_ids(&app, &["system", "authority", "post", "post_add"]).await})).await;
    assert_eq!(status, 200, "held menus and their ancestors: {body}");
    // The app grant obeys the same limits.
    let Reply { status, .. } = tadm
        .post_json(
            &format!("{ROLE}/grant-app"),
            json!({"roleIds": [role], "menuIds": menu_ids(&app, &["user"]).await}),
        )
        .await;
    assert_eq!(status, 400);

    // The platform is bound by the tenant's package, not by its own holdings.
    let Reply { status, body, .. } = admin
        .post_json(
            &web,
            json!({"roleIds": [role], "menuIds": menu_ids(&app, &["user_add"]).await}),
        )
        .await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "所选菜单超出租户产品包范围");
    let Reply { status, body, .. } = admin
        .post_json(
            &web,
            json!({"roleIds": [role], "menuIds": menu_ids(&app, &["post", "post_edit"]).await}),
        )
        .await;
    assert_eq!(status, 200, "{body}");

    // Top-menu choices: the package's menus, no buttons.
    let top = tadm.get_data(&format!("{MENU}/grant-top-tree")).await;
    let ids = ids_in(&top);
    assert!(ids.contains(&app.menu_id("post").await), "{top}");
    assert!(!ids.contains(&app.menu_id("post_add").await), "no buttons");
    assert!(!ids.contains(&app.menu_id("user").await), "outside the package");
    app.stop().await;
}

#[tokio::test]
async fn menu_lists_trees_and_lazy_lists_show_the_platform_menus() {
    let app = TestApp::start().await;
    let admin = app.as_admin().await;
    let post = app.menu_id("post").await;
    let system = app.menu_id("system").await;

    let list = admin.get_data(&format!("{MENU}/list")).await;
    let sys = find_in(&list, &system).expect("system menu");
    assert_eq!(sys["hasChildren"], true);
    let p = find_in(&list, &post).expect("post menu");
    assert_eq!(p["parentName"], "系统管理");
    assert_eq!(p["code"], "post");
    assert_eq!(p["category"], 1);
    assert!(
        p["children"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["code"] == "post_add")
    );
    let menus_only = admin.get_data(&format!("{MENU}/menu-list")).await;
    assert!(!menus_only.to_string().contains("\"category\":2"), "no buttons");
    assert!(find_in(&menus_only, &post).is_some());
    let filtered = admin.get_data(&format!("{MENU}/list?code=post_")).await;
    assert!(
        filtered
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["code"].as_str().unwrap().starts_with("post_")),
        "{filtered}"
    );
    let en = app
        .send(
            admin
                .request(Method::GET, &format!("{MENU}/tree"))
                .header("Accept-Language", "en"),
        )
        .await
        .body;
    assert_eq!(find_in(&en["data"], &post).unwrap()["title"], "Posts");
    assert!(
        find_in(&en["data"], &app.menu_id("post_add").await).is_none(),
        "tree has menus only"
    );

    let roots = admin.get_data(&format!("{MENU}/lazy-list")).await;
    assert_eq!(roots.as_array().unwrap().len(), 8, "{roots}");
    assert!(
        roots
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r.get("children").is_none())
    );
    assert_eq!(roots[0]["code"], "basicFacts");
    assert_eq!(roots[0]["hasChildren"], true);
    let buttons = admin.get_data(&format!("{MENU}/lazy-list?parentId={post}")).await;
    assert!(
        buttons
            .as_array()
            .unwrap()
            .iter()
            .all(|b| b["category"] == 2 && b["hasChildren"] == false)
    );
    assert_eq!(buttons.as_array().unwrap().len(), 4);
    let none = admin
        .get_data(&format!("{MENU}/lazy-menu-list?parentId={post}"))
        .await;
    assert_eq!(none, json!([]));
    let sys_children = admin
        .get_data(&format!("{MENU}/lazy-menu-list?parentId={system}"))
        .await;
    assert!(
        sys_children
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["code"] == "post" && m["hasChildren"] == false)
    );

    app.stop().await;
}

#[tokio::test]
async fn menu_forms_are_validated_in_both_languages() {
    let app = TestApp::start().await;
    let admin = app.as_admin().await;

    refused(
        &admin,
        MENU,
        json!({"name": "x", "sort": 1, "category": 1}),
        "请输入菜单编号",
        "Please enter the menu code",
    )
    .await;
    refused(
        &admin,
        MENU,
        json!({"code": "demo", "sort": 1, "category": 1}),
        "请输入菜单名称",
        "Please enter the menu name",
    )
    .await;
    refused(
        &admin,
        MENU,
        json!({"code": "demo", "name": "演示", "category": 1}),
        "请输入菜单排序",
        "Please enter the sort order",
    )
    .await;
    refused(
        &admin,
        MENU,
        json!({"code": "demo", "name": "演示", "sort": 1}),
        "请选择菜单类型",
        "Please select the menu type",
    )
    .await;
    refused(
        &admin,
        MENU,
        json!({"code": "demo", "name": "演示", "sort": 1, "category": 3}),
        "菜单类型无效",
        "Invalid menu type",
    )
    .await;
    refused(
        &admin,
        MENU,
        json!({"code": "post", "name": "重复", "sort": 1, "category": 1}),
        "菜单编号已存在",
        "This menu code already exists",
    )
    .await;
    refused(
        &admin,
        MENU,
        json!({"code": "demo", "name": "演示", "sort": 1, "category": 1, "parentId": "42"}),
        "上级菜单不存在",
        "The parent menu does not exist",
    )
    .await;

    app.stop().await;
}

#[tokio::test]
async fn new_menus_nest_reach_the_platform_administrators_and_leave_as_a_whole_subtree() {
    let app = TestApp::start().await;
    let admin = app.as_admin().await;
    let post = app.menu_id("post").await;

    let demo = created(&admin, MENU, json!({"code": "demo", "name": "演示", "nameEn": "Demo", "path": "/demo", "sort": 99, "category": 1, "isOpen": ""}))
    .await;
    let run = created(
        &admin,
        MENU,
        json!({"code": "demo_run", "name": "运行", "sort": 1, "category": 2, "parentId": demo}),
    )
    .await;
    let detail = admin.get_data(&format!("{MENU}/detail?id={run}")).await;
    assert_eq!(detail["parentName"], "演示");
    assert_eq!(detail["parentId"], demo.as_str());
    let detail = admin.get_data(&format!("{MENU}/detail?id={demo}")).await;
    assert_eq!(
        (&detail["isOpen"], &detail["nameEn"]),
        (&json!(1), &json!("Demo"))
    );
    // New menus reach the platform's administrators, as the start-up sync does.
    assert!(button_codes(&admin).await.contains(&"demo_run".to_owned()));
    refused(
        &admin,
        MENU,
        json!({"id": demo, "parentId": run}),
        "上级菜单不能是自己或下级菜单",
        "A menu cannot be placed under itself or one of its descendants",
    )
    .await;
    refused(
        &admin,
        MENU,
        json!({"id": post, "code": "post2"}),
        "系统内置菜单的编号不可修改",
        "The code of a built-in menu cannot be changed",
    )
    .await;
    let Reply { status, body, .. } = admin
        .submit(MENU, json!({"id": post, "sort": 3, "remark": "岗位"}))
        .await;
    assert_eq!(status, 200, "other fields of built-in menus may change: {body}");

    let Reply { status, body, .. } = admin.remove(MENU, &demo).await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "请先删除子节点");
    let Reply { status, body, .. } = admin.lang("en").remove(MENU, &post).await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "Built-in menus cannot be deleted");

    let Reply { status, body, .. } = admin.remove(MENU, &format!("{run},{demo}")).await;
    assert_eq!(
        (status, &body["data"]),
        (200, &json!(2)),
        "a whole subtree at once: {body}"
    );
    app.stop().await;
}

#[tokio::test]
async fn other_tenants_read_their_packages_menus_but_never_change_them() {
    let app = TestApp::start().await;
    let admin = app.as_admin().await;
    let post = app.menu_id("post").await;
    let system = app.menu_id("system").await;

    let demo = created(&admin, MENU, json!({"code": "demo", "name": "演示", "nameEn": "Demo", "path": "/demo", "sort": 99, "category": 1, "isOpen": ""}))
    .await;
    let _run = created(
        &admin,
        MENU,
        json!({"code": "demo_run", "name": "运行", "sort": 1, "category": 2, "parentId": demo}),
    )
    .await;
    // Other tenants read (their package's) menus but never change them.
    let perms = ["menu", "menu_add", "menu_edit", "menu_delete", "post", "role"];
    app.create_tenant_user("540001", "m_adm", "m-pass", &perms, Some(&perms))
        .await;
    let tenant = app.as_user(&app.token_of("540001", "m_adm", "m-pass").await);
    let Reply { status, body, .. } = tenant
        .submit(MENU, json!({"code": "t", "name": "t", "sort": 1, "category": 1}))
        .await;
    assert_failure(status, &body, 403);
    let Reply { status, body, .. } = tenant.submit(MENU, json!({"id": demo, "name": "changed"})).await;
    assert_eq!(status, 404, "outside the package: {body}");
    let Reply { status, body, .. } = tenant.submit(MENU, json!({"id": post, "name": "changed"})).await;
    assert_failure(status, &body, 403);
    let Reply { status, body, .. } = tenant.remove(MENU, &post).await;
    assert_failure(status, &body, 403);
    let theirs = tenant.get_data(&format!("{MENU}/list")).await;
    let ids = ids_in(&theirs);
    assert!(ids.contains(&post) && ids.contains(&system), "{theirs}");
    assert!(!ids.contains(&demo) && !ids.contains(&app.menu_id("user").await));

    app.stop().await;
}

#[tokio::test]
async fn top_menus_hold_menu_settings_that_routes_follow() {
    let app = TestApp::start().await;
    let admin = app.as_admin().await;
    refused(
        &admin,
        TOPMENU,
        json!({"name": "运维"}),
        "请输入顶部菜单编号",
        "Please enter the top menu code",
    )
    .await;
    refused(
        &admin,
        TOPMENU,
        json!({"code": "ops"}),
        "请输入顶部菜单名称",
        "Please enter the top menu name",
    )
    .await;
    let top = created(
        &admin,
        TOPMENU,
        json!({"code": "ops", "name": "运维", "source": "ToolOutlined", "sort": ""}),
    )
    .await;
    refused(
        &admin,
        TOPMENU,
        json!({"code": "ops", "name": "again"}),
        "顶部菜单编号已存在",
        "This top menu code already exists",
    )
    .await;
    let page = admin.get_data(&format!("{TOPMENU}/list")).await;
    assert_eq!(page["total"], 1, "{page}");
    assert_eq!(page["records"][0]["sort"], 1);

    // Without settings the top menu would open an empty sidebar, so it is not offered.
    let offered = admin.get_data("/api/blade-system/menu/top-menu").await;
    assert_eq!(offered, json!([]));
    let system = app.menu_id("system").await;
    let station = app.menu_id("stationMonitor").await;
    let Reply { status, body, .. } = admin
        .post_json(
            &format!("{TOPMENU}/grant"),
            json!({"topMenuIds": [top], "menuIds": [system]}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        admin
            .get_data(&format!("{MENU}/top-tree-keys?topMenuIds={top}"))
            .await,
        json!([system])
    );
    let offered = admin.get_data("/api/blade-system/menu/top-menu").await;
    assert_eq!(offered[0]["id"], top.as_str(), "{offered}");
    let routes = admin
        .get_data(&format!("/api/blade-system/menu/routes?topMenuId={top}"))
        .await;
    assert_eq!(routes.as_array().unwrap().len(), 1, "{routes}");
    assert_eq!(routes[0]["code"], "system");
    // Replaced, not appended.
    admin
        .post_json(
            &format!("{TOPMENU}/grant"),
            json!({"topMenuIds": [top], "menuIds": [station]}),
        )
        .await;
    assert_eq!(
        admin
            .get_data(&format!("{MENU}/top-tree-keys?topMenuIds={top}"))
            .await,
        json!([station])
    );
    let routes = admin
        .get_data(&format!("/api/blade-system/menu/routes?topMenuId={top}"))
        .await;
    assert_eq!(codes_in(&routes)[0], "stationMonitor");
    assert!(!codes_in(&routes).contains(&"post".to_owned()));
    let Reply { status, body, .. } = admin
        .post_json(
            &format!("{TOPMENU}/grant"),
            json!({"topMenuIds": [], "menuIds": [station]}),
        )
        .await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "请选择顶部菜单");

    // A tenant's top menus offer only its package, and only what the user sees.
    let perms = ["topmenu", "topmenu_add", "topmenu_setting", "post"];
    app.create_tenant_user("550001", "top_adm", "top-pass", &perms, Some(&perms))
        .await;
    let tenant = app.as_user(&app.token_of("550001", "top_adm", "top-pass").await);
    let theirs = created(&tenant, TOPMENU, json!({"code": "ops", "name": "运维"})).await;
    let Reply { status, body, .. } = tenant
        .post_json(
            &format!("{TOPMENU}/grant"),
            json!({"topMenuIds": [theirs], "menuIds": [station]}),
        )
        .await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "所选菜单超出租户产品包范围");
    let post = app.menu_id("post").await;
    let Reply { status, .. } = tenant
        .post_json(
            &format!("{TOPMENU}/grant"),
            json!({"topMenuIds": [theirs], "menuIds": [post]}),
        )
        .await;
    assert_eq!(status, 200);
    let offered = tenant.get_data("/api/blade-system/menu/top-menu").await;
    assert_eq!(offered.as_array().unwrap().len(), 1, "{offered}");
    assert_eq!(offered[0]["id"], theirs.as_str());

    let Reply { status, body, .. } = admin.remove(TOPMENU, &top).await;
    assert_eq!((status, &body["data"]), (200, &json!(1)));
    assert_eq!(admin.get_data("/api/blade-system/menu/top-menu").await, json!([]));
    app.stop().await;
}

#[tokio::test]
async fn data_scope_forms_are_validated_in_both_languages_and_updates_against_the_stored_row() {
    let app = TestApp::start().await;
    let admin = app.as_admin().await;
    let post = app.menu_id("post").await;
    let user_menu = app.menu_id("user").await;
    let ok = json!({"menuId": post, "resourceCode": "post", "scopeName": "本人", "scopeColumn": "create_user", "scopeType": 2});
    let with = |patch: Json| {
        let mut b = ok.clone();
        for (k, v) in patch.as_object().unwrap() {
            b[k] = v.clone();
        }
        b
    };
    refused(
        &admin,
        DATA_SCOPE,
        json!({}),
        "请选择菜单",
        "Please select a menu",
    )
    .await;
    refused(
        &admin,
        DATA_SCOPE,
        json!({"menuId": post}),
        "请输入资源编号",
        "Please enter the resource code",
    )
    .await;
    refused(
        &admin,
        DATA_SCOPE,
        with(json!({"scopeName": ""})),
        "请输入数据权限名称",
        "Please enter the data scope name",
    )
    .await;
    refused(
        &admin,
        DATA_SCOPE,
        with(json!({"scopeType": null})),
        "请选择数据权限类型",
        "Please select the data scope type",
    )
    .await;
    refused(
        &admin,
        DATA_SCOPE,
        with(json!({"menuId": "77"})),
        "菜单不存在",
        "The menu does not exist",
    )
    .await;
    refused(
        &admin,
        DATA_SCOPE,
        with(json!({"scopeColumn": "password"})),
        "数据权限字段只能是 create_user 或 create_dept",
        "The scope column must be create_user or create_dept",
    )
    .await;
    refused(
        &admin,
        DATA_SCOPE,
        with(json!({"scopeType": 6})),
        "数据权限类型无效",
        "Invalid data scope type",
    )
    .await;
    refused(
        &admin,
        DATA_SCOPE,
        with(json!({"scopeColumn": "create_dept"})),
        "本人可见须使用 create_user 字段，部门类权限须使用 create_dept 字段",
        "Own-rows scopes use create_user; department scopes use create_dept",
    )
    .await;
    refused(
        &admin,
        DATA_SCOPE,
        with(json!({"scopeColumn": "create_dept", "scopeType": 5, "scopeValue": ""})),
        "自定义数据权限请填写部门ID",
        "A custom data scope needs the department ids",
    )
    .await;
    let own = created(&admin, DATA_SCOPE, ok.clone()).await;
    created(
        &admin,
        DATA_SCOPE,
        with(json!({"menuId": user_menu, "resourceCode": "user"})),
    )
    .await;
    // An update is checked against the stored row it changes.
    refused(
        &admin,
        DATA_SCOPE,
        json!({"id": own, "scopeType": 3}),
        "本人可见须使用 create_user 字段，部门类权限须使用 create_dept 字段",
        "Own-rows scopes use create_user; department scopes use create_dept",
    )
    .await;
    let page = admin.get_data(&format!("{DATA_SCOPE}/list?menuId={post}")).await;
    assert_eq!(page["total"], 1, "{page}");
    assert_eq!(page["records"][0]["scopeColumn"], "create_user");

    app.stop().await;
}

#[tokio::test]
async fn api_scope_forms_are_validated_and_listed_by_menu() {
    let app = TestApp::start().await;
    let admin = app.as_admin().await;
    let post = app.menu_id("post").await;
    let user_menu = app.menu_id("user").await;
    let api = json!({"menuId": post, "resourceCode": "post", "scopeName": "岗位列表", "scopePath": "/api/blade-system/post/list", "scopeType": 2});
    let api_with = |patch: Json| {
        let mut b = api.clone();
        for (k, v) in patch.as_object().unwrap() {
            b[k] = v.clone();
        }
        b
    };
    refused(
        &admin,
        API_SCOPE,
        json!({"menuId": post}),
        "请输入资源编号",
        "Please enter the resource code",
    )
    .await;
    refused(
        &admin,
        API_SCOPE,
        api_with(json!({"scopePath": ""})),
        "请输入接口权限路径",
        "Please enter the API path",
    )
    .await;
    refused(
        &admin,
        API_SCOPE,
        api_with(json!({"scopeType": ""})),
        "请选择接口权限类型",
        "Please select the API scope type",
    )
    .await;
    refused(
        &admin,
        API_SCOPE,
        api_with(json!({"scopePath": "blade-system/post/list"})),
        "接口路径必须以 /api/ 开头",
        "The API path must start with /api/",
    )
    .await;
    refused(
        &admin,
        API_SCOPE,
        api_with(json!({"scopePath": "/api/*/list"})),
        "接口路径只能以 /** 结尾表示前缀匹配",
        "An API path may only end in /** (prefix match); no other wildcards",
    )
    .await;
    refused(
        &admin,
        API_SCOPE,
        api_with(json!({"scopeType": 9})),
        "接口权限类型无效",
        "Invalid API scope type",
    )
    .await;
    created(
        &admin,
        API_SCOPE,
        api_with(json!({"scopePath": "/api/blade-system/post/**", "scopeType": 1})),
    )
    .await;
    let page = admin.get_data(&format!("{API_SCOPE}/list?menuId={post}")).await;
    assert_eq!(page["total"], 1);
    assert_eq!(page["records"][0]["scopePath"], "/api/blade-system/post/**");
    let page = admin
        .get_data(&format!("{API_SCOPE}/list?menuId={user_menu}"))
        .await;
    assert_eq!(page["total"], 0);

    app.stop().await;
}

#[tokio::test]
async fn the_grant_tree_shows_the_scopes_as_leaves_under_their_menus() {
    let app = TestApp::start().await;
    let admin = app.as_admin().await;
    let post = app.menu_id("post").await;
    let user_menu = app.menu_id("user").await;
    let ok = json!({"menuId": post, "resourceCode": "post", "scopeName": "本人", "scopeColumn": "create_user", "scopeType": 2});
    let with = |patch: Json| {
        let mut b = ok.clone();
        for (k, v) in patch.as_object().unwrap() {
            b[k] = v.clone();
        }
        b
    };
    let own = created(&admin, DATA_SCOPE, ok.clone()).await;
    created(
        &admin,
        DATA_SCOPE,
        with(json!({"menuId": user_menu, "resourceCode": "user"})),
    )
    .await;
    let api_id = created(
        &admin,
        API_SCOPE,
        json!({"menuId": post, "resourceCode": "post", "scopeName": "岗位列表",
            "scopePath": "/api/blade-system/post/**", "scopeType": 1}),
    )
    .await;
    // The grant tree shows the scopes as leaves under their menus.
    let tree = admin.get_data(&format!("{MENU}/grant-tree")).await;
    let node = find_in(&tree["dataScope"], &post).expect("post holds data scopes");
    assert!(
        node["children"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["id"] == own.as_str())
    );
    let node = find_in(&tree["apiScope"], &post).expect("post holds API scopes");
    assert_eq!(node["children"][0]["id"], api_id.as_str());
    assert!(
        find_in(&tree["apiScope"], &app.menu_id("stationMonitor").await).is_none(),
        "only menus with scopes"
    );

    app.stop().await;
}

#[tokio::test]
async fn other_tenants_read_the_scopes_but_never_change_them() {
    let app = TestApp::start().await;
    let admin = app.as_admin().await;
    let post = app.menu_id("post").await;
    let user_menu = app.menu_id("user").await;
    let ok = json!({"menuId": post, "resourceCode": "post", "scopeName": "本人", "scopeColumn": "create_user", "scopeType": 2});
    let with = |patch: Json| {
        let mut b = ok.clone();
        for (k, v) in patch.as_object().unwrap() {
            b[k] = v.clone();
        }
        b
    };
    let own = created(&admin, DATA_SCOPE, ok.clone()).await;
    created(
        &admin,
        DATA_SCOPE,
        with(json!({"menuId": user_menu, "resourceCode": "user"})),
    )
    .await;
    let api = json!({"menuId": post, "resourceCode": "post", "scopeName": "岗位列表", "scopePath": "/api/blade-system/post/list", "scopeType": 2});
    // Others may read the scopes but not change them.
    let perms = [
        "datascope",
        "datascope_add",
        "datascope_edit",
        "datascope_delete",
        "apiscope",
        "apiscope_add",
    ];
    app.create_tenant_user("560001", "s_adm", "s-pass", &perms, None)
        .await;
    let tenant = app.as_user(&app.token_of("560001", "s_adm", "s-pass").await);
    let Reply { status, body, .. } = tenant.submit(DATA_SCOPE, ok.clone()).await;
    assert_failure(status, &body, 403);
    let Reply { status, body, .. } = tenant
        .submit(DATA_SCOPE, json!({"id": own, "scopeName": "x"}))
        .await;
    assert_failure(status, &body, 403);
    let Reply { status, body, .. } = tenant.remove(DATA_SCOPE, &own).await;
    assert_failure(status, &body, 403);
    let Reply { status, body, .. } = tenant.submit(API_SCOPE, api.clone()).await;
    assert_failure(status, &body, 403);
    assert_eq!(tenant.get_data(&format!("{DATA_SCOPE}/list")).await["total"], 2);
    let Reply { status, body, .. } = admin.remove(DATA_SCOPE, &own).await;
    assert_eq!((status, &body["data"]), (200, &json!(1)));
    app.stop().await;
}

/// Creates a post as `token`, returning its id.
async fn new_post(caller: &Client<'_>, code: &str) -> String {
    created(
        caller,
        POST,
        json!({"category": 1, "postCode": code, "postName": code, "sort": 1}),
    )
    .await
}

async fn visible_posts(caller: &Client<'_>) -> Vec<String> {
    let page = caller.get_data(&format!("{POST}/list?size=100")).await;
    let mut codes: Vec<String> = page["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["postCode"].as_str().unwrap().to_owned())
        .collect();
    codes.sort();
    codes
}

#[tokio::test]
async fn data_scopes_narrow_post_lists_by_their_union() {
    let app = TestApp::start().await;
    let admin = app.token_of("000000", "admin", "admin").await;
    let tenant = "570001";
    // root
    //  ├─ east (u_east, viewer)
    //  │   └─ east_team (u_team)
    //  └─ west (u_west)
    let root = app.create_dept(tenant, 0, "总部").await;
    let east = app.create_dept(tenant, root, "东区").await;
    let team = app.create_dept(tenant, east, "东区一组").await;
    let west = app.create_dept(tenant, root, "西区").await;
    let perms = ["post", "post_add", "post_edit", "post_delete"];
    for (account, dept) in [
        ("u_east", east),
        ("u_team", team),
        ("u_west", west),
        ("viewer", east),
    ] {
        let (_, user) = app
            .create_tenant_user(tenant, account, "pass-1234", &perms, None)
            .await;
        app.put_in_dept(user, dept).await;
    }
    let (no_dept_role, _) = app
        .create_tenant_user(tenant, "no_dept", "pass-1234", &perms, None)
        .await;
    let no_dept = app.as_user(&app.token_of(tenant, "no_dept", "pass-1234").await);
    let viewer_role: i64 = app
        .scalar_int(
            "SELECT r.id FROM blade_role r WHERE r.tenant_id = ? AND r.role_alias = ?",
            vec![tenant.into(), "r_viewer".into()],
        )
        .await
        .expect("viewer role");
    for account in ["u_east", "u_team", "u_west", "viewer"] {
        let token = app.token_of(tenant, account, "pass-1234").await;
        new_post(&app.as_user(&token), &format!("p_{account}")).await;
    }
    let viewer = app.as_user(&app.token_of(tenant, "viewer", "pass-1234").await);
    let everything = vec!["p_u_east", "p_u_team", "p_u_west", "p_viewer"];
    assert_eq!(
        visible_posts(&viewer).await,
        everything,
        "no scope granted: no narrowing"
    );

    let post = app.menu_id("post").await;
    let scope = |name: &str, column: &str, scope_type: i64, value: Option<String>| json!({"menuId": post, "resourceCode": "post", "scopeName": name, "scopeColumn": column, "scopeType": scope_type, "scopeValue": value});
    let all = created(
        &app.as_user(&admin),
        DATA_SCOPE,
        scope("全部", "create_user", 1, None),
    )
    .await;
    let own = created(
        &app.as_user(&admin),
        DATA_SCOPE,
        scope("本人", "create_user", 2, None),
    )
    .await;
    let own_dept = created(
        &app.as_user(&admin),
        DATA_SCOPE,
        scope("本部门", "create_dept", 3, None),
    )
    .await;
    let below = created(
        &app.as_user(&admin),
        DATA_SCOPE,
        scope("本部门及以下", "create_dept", 4, None),
    )
    .await;
    let custom = created(
        &app.as_user(&admin),
        DATA_SCOPE,
        scope("西区", "create_dept", 5, Some(west.to_string())),
    )
    .await;
    // Role grants replace the web menus too: the post menus are sent each time.
    let perm_ids: Vec<String> = app.menu_ids(&perms).await.iter().map(i64::to_string).collect();
    let apply = |scopes: Vec<String>, role: i64| {
        let body = json!({"roleIds": [role.to_string()], "menuIds": perm_ids, "dataScopeIds": scopes, "apiScopeIds": []});
        let (app, admin) = (&app, admin.clone());
        async move {
            let Reply {
                status, body: res, ..
            } = app
                .as_user(&admin)
                .post_json(&format!("{ROLE}/grant"), body)
                .await;
            assert_eq!(status, 200, "{res}");
        }
    };

    apply(vec![own.clone()], viewer_role).await;
    assert_eq!(visible_posts(&viewer).await, vec!["p_viewer"], "own rows");
    // Details and changes follow the same narrowing.
    let west_post = app
        .scalar_int(
            "SELECT id FROM blade_post WHERE post_code = ?",
            vec!["p_u_west".into()],
        )
        .await
        .unwrap();
    let Reply { status, body, .. } = app
        .send(viewer.request(Method::GET, &format!("{POST}/detail?id={west_post}")))
        .await;
    assert_failure(status, &body, 404);
    let Reply { status, body, .. } = viewer.remove(POST, &west_post.to_string()).await;
    assert_failure(status, &body, 404);

    apply(vec![own_dept.clone()], viewer_role).await;
    assert_eq!(
        visible_posts(&viewer).await,
        vec!["p_u_east", "p_viewer"],
        "own dept"
    );
    apply(vec![below.clone()], viewer_role).await;
    assert_eq!(
        visible_posts(&viewer).await,
        vec!["p_u_east", "p_u_team", "p_viewer"],
        "own dept and below"
    );
    apply(vec![custom.clone()], viewer_role).await;
    assert_eq!(visible_posts(&viewer).await, vec!["p_u_west"], "custom depts");
    apply(vec![own.clone(), custom.clone()], viewer_role).await;
    assert_eq!(
        visible_posts(&viewer).await,
        vec!["p_u_west", "p_viewer"],
        "union"
    );
    apply(vec![own.clone(), all.clone()], viewer_role).await;
    assert_eq!(
        visible_posts(&viewer).await,
        everything,
        "all lifts the narrowing"
    );
    apply(vec![], viewer_role).await;
    assert_eq!(visible_posts(&viewer).await, everything);

    // A caller whose dept is unknown sees nothing through dept scopes, never everything.
    apply(vec![own_dept.clone()], no_dept_role).await;
    assert_eq!(visible_posts(&no_dept).await, Vec::<String>::new());
    apply(vec![below.clone()], no_dept_role).await;
    assert_eq!(visible_posts(&no_dept).await, Vec::<String>::new());
    // A removed scope no longer narrows.
    app.as_user(&admin).remove(DATA_SCOPE, &below).await;
    assert_eq!(visible_posts(&no_dept).await, everything);

    let keys = app
        .as_user(&admin)
        .get_data(&format!("{MENU}/role-tree-keys?roleIds={viewer_role}"))
        .await;
    assert_eq!(keys["dataScope"], json!([]));
    app.stop().await;
}

#[tokio::test]
async fn an_api_scope_blocks_calls_until_its_role_is_granted_it() {
    let app = TestApp::start().await;
    let admin = app.as_admin().await;
    let perms = ["post", "post_add"];
    let (role, _) = app
        .create_tenant_user("580001", "clerk", "clerk-pass", &perms, None)
        .await;
    let clerk = app.as_user(&app.token_of("580001", "clerk", "clerk-pass").await);
    let list = format!("{POST}/list");
    assert_eq!(app.send(clerk.request(Method::GET, &list)).await.status, 200);

    let post = app.menu_id("post").await;
    let scope = created(&admin, API_SCOPE, json!({"menuId": post, "resourceCode": "post", "scopeName": "岗位列表", "scopePath": "/api/blade-system/post/list", "scopeType": 2}))
    .await;
    let Reply { status, body, .. } = app.send(clerk.request(Method::GET, &list)).await;
    assert_failure(status, &body, 403);
    assert_eq!(body["msg"], "缺少接口权限");
    let Reply { body, .. } = app
        .send(clerk.request(Method::GET, &list).header("Accept-Language", "en"))
        .await;
    assert_eq!(body["msg"], "You do not have permission for this API");
    // Other methods and paths are not covered by this scope; administrators pass.
    let Reply { status, body, .. } = clerk
        .submit(
            POST,
            json!({"category": 1, "postCode": "c1", "postName": "c1", "sort": 1}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(app.send(admin.request(Method::GET, &list)).await.status, 200);
    // Without a valid token the route answers for itself.
    let Reply { status, .. } = app.get(&list).await;
    assert_eq!(status, 401);

    let menus: Vec<String> = app.menu_ids(&perms).await.iter().map(i64::to_string).collect();
    let Reply { status, body, .. } = admin.post_json(&format!("{ROLE}/grant"), json!({"roleIds": [role.to_string()], "menuIds": menus, "dataScopeIds": [], "apiScopeIds": [scope]})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        app.send(clerk.request(Method::GET, &list)).await.status,
        200,
        "granted"
    );
    let keys = admin
        .get_data(&format!("{MENU}/role-tree-keys?roleIds={role}"))
        .await;
    assert_eq!(keys["apiScope"], json!([scope]));

    // A prefix scope on any method now guards submit too.
    let prefix = created(&admin, API_SCOPE, json!({"menuId": post, "resourceCode": "post", "scopeName": "岗位全部", "scopePath": "/api/blade-system/post/**", "scopeType": 1}))
    .await;
    let Reply { status, body, .. } = clerk
        .submit(
            POST,
            json!({"category": 1, "postCode": "c2", "postName": "c2", "sort": 1}),
        )
        .await;
    assert_failure(status, &body, 403);
    assert_eq!(
        app.send(clerk.request(Method::GET, &list)).await.status,
        200,
        "the list scope still matches"
    );
    // Removing the scope lifts the guard at once on this replica.
    let Reply { status, .. } = admin.remove(API_SCOPE, &prefix).await;
    assert_eq!(status, 200);
    let Reply { status, body, .. } = clerk
        .submit(
            POST,
            json!({"category": 1, "postCode": "c3", "postName": "c3", "sort": 1}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    // A tenant admin without the scope cannot hand it out.
    let (sub_role, _) = app
        .create_tenant_user("580001", "clerk2", "clerk-pass", &["post"], None)
        .await;
    app.create_tenant_user(
        "580001",
        "lead",
        "lead-pass",
        &["role", "role_grant", "post", "post_add"],
        None,
    )
    .await;
    let lead = app.token_of("580001", "lead", "lead-pass").await;
    let Reply { status, body, .. } = app
        .as_user(&lead)
        .post_json(
            &format!("{ROLE}/grant"),
            json!({"roleIds": [sub_role.to_string()], "menuIds": [post], "apiScopeIds": [scope]}),
        )
        .await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "不能授予自己没有的权限");
    app.stop().await;
}

#[tokio::test]
async fn the_access_routes_are_in_the_openapi_document() {
    let app = TestApp::start().await;
    let Reply { body: doc, .. } = app.get("/api/openapi.json").await;
    let mut paths = Vec::new();
    for p in [
        "list",
        "detail",
        "submit",
        "remove",
        "tree",
        "tree-by-id",
        "rolelist",
        "grant",
        "grant-app",
    ] {
        paths.push(format!("{ROLE}/{p}"));
    }
    for p in [
        "list",
        "lazy-list",
        "lazy-menu-list",
        "menu-list",
        "tree",
        "detail",
        "submit",
        "remove",
        "grant-tree",
        "role-tree-keys",
        "grant-tree-app",
        "role-tree-keys-app",
        "grant-top-tree",
        "top-tree-keys",
    ] {
        paths.push(format!("{MENU}/{p}"));
    }
    for base in [TOPMENU, DATA_SCOPE, API_SCOPE] {
        for p in ["list", "detail", "submit", "remove"] {
            paths.push(format!("{base}/{p}"));
        }
    }
    paths.push(format!("{TOPMENU}/grant"));
    for p in &paths {
        assert!(doc["paths"].get(p).is_some(), "{p}");
    }
    app.stop().await;
}
