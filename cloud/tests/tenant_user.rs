//! Tenant, package, client and user administration over a real server and database.

use crate::support;

use pv_cloud::kernel::sql::Value;
use reqwest::Method;
use serde_json::{Value as Json, json};
use support::{Reply, TestApp, assert_failure, codes_in, md5_hex};

async fn id_text(app: &TestApp, sql: &str, values: Vec<Value>) -> String {
    app.scalar_text(sql, values).await.expect("a row")
}

/// The menus of the "Sunny Farms package".
const SUNNY_FARMS_MENUS: [&str; 8] = [
    "basicFacts",
    "equipmentMap",
    "system",
    "user",
    "user_add",
    "user_edit",
    "user_view",
    "post",
];

#[tokio::test]
async fn package_and_tenant_forms_are_validated() {
    let app = TestApp::start().await;
    let admin = app.as_admin().await;

    // Package validation, in the spec's words.
    let Reply { status, body, .. } = admin
        .post_json("/api/blade-system/tenant-package/submit", json!({"menuId": "1"}))
        .await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "请输入产品包名称");
    let Reply { status, body, .. } = admin
        .post_json(
            "/api/blade-system/tenant-package/submit",
            json!({"packageName": "x"}),
        )
        .await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "请选择菜单");
    let Reply { status, body, .. } = admin
        .post_json(
            "/api/blade-system/tenant-package/submit",
            json!({"packageName": "x", "menuId": "123456789"}),
        )
        .await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "菜单不存在");
    let Reply { status, body, .. } = admin
        .post_json("/api/blade-system/tenant/submit", json!({"linkman": "x"}))
        .await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "请输入租户名称");

    app.stop().await;
}

#[tokio::test]
async fn a_new_tenant_gets_an_id_and_is_listed_by_name_with_its_package() {
    let app = TestApp::start().await;
    let admin = app.as_admin().await;

    let (package, tenant) = admin.tenant_on_package("Sunny Farms", &SUNNY_FARMS_MENUS).await;
    assert!(
        tenant.len() == 6 && tenant.chars().all(|c| c.is_ascii_digit()),
        "generated id {tenant}"
    );

    // The list shows the package by name and filters by name.
    let Reply { body: page, .. } = admin
        .get_query("/api/blade-system/tenant/list", &[("tenantName", "Sunny")])
        .await;
    assert_eq!(page["data"]["total"], 1, "{page}");
    assert_eq!(page["data"]["records"][0]["packageName"], "Sunny Farms package");
    let Reply { body: detail, .. } = admin
        .get_query(
            "/api/blade-system/tenant/package-detail",
            &[("tenantId", &tenant)],
        )
        .await;
    assert_eq!(detail["data"]["id"], package.as_str());

    app.stop().await;
}

#[tokio::test]
async fn a_new_tenants_administrator_sees_only_the_package_and_no_platform_administration() {
    let app = TestApp::start().await;
    let admin = app.token_of("000000", "admin", "admin").await;

    let (_package, tenant) = app
        .as_user(&admin)
        .tenant_on_package("Sunny Farms", &SUNNY_FARMS_MENUS)
        .await;

    // Its administrator signs in with the initial password and sees only the package's menus.
    let t_admin = app.as_user(&app.token_of(&tenant, "admin", "123456").await);
    let Reply { body: routes, .. } = t_admin.get_query("/api/blade-system/menu/routes", &[]).await;
    let mut seen = codes_in(&routes["data"]);
    seen.sort();
    assert_eq!(
        seen,
        ["basicFacts", "equipmentMap", "post", "system", "user"],
        "{routes}"
    );
    let Reply { body: buttons, .. } = t_admin.get_query("/api/blade-system/menu/buttons", &[]).await;
    let buttons = codes_in(&buttons["data"]);
    assert!(buttons.contains(&"user_add".to_owned()), "{buttons:?}");
    // A packaged page brings its buttons; pages outside the package bring none.
    assert!(buttons.contains(&"post_add".to_owned()), "{buttons:?}");
    assert!(
        !buttons
            .iter()
            .any(|b| b.starts_with("tenant") || b.starts_with("dept_")),
        "{buttons:?}"
    );
    // Tenant administration is the platform's, whatever a tenant's roles hold.
    let Reply { status, body, .. } = t_admin.get_query("/api/blade-system/tenant/list", &[]).await;
    assert_failure(status, &body, 403);
    let Reply { status, body, .. } = t_admin.get_query("/api/blade-system/param/list", &[]).await;
    assert_failure(status, &body, 403);
    // Its default roles exist, its root department carries its name.
    let roles = app
        .scalar_text(
            "SELECT role_alias FROM blade_role WHERE tenant_id = ? AND role_alias = 'owner'",
            vec![tenant.clone().into()],
        )
        .await;
    assert_eq!(roles.as_deref(), Some("owner"));
    let dept = app
        .scalar_text(
            "SELECT dept_name FROM blade_dept WHERE tenant_id = ?",
            vec![tenant.clone().into()],
        )
        .await;
    assert_eq!(dept.as_deref(), Some("Sunny Farms"));

    app.stop().await;
}

#[tokio::test]
async fn tenant_ids_stay_unique_and_unchanged_the_platform_tenant_and_used_packages_stay_and_creation_is_logged()
 {
    let app = TestApp::start().await;
    let admin = app.token_of("000000", "admin", "admin").await;

    let (package, tenant) = app
        .as_user(&admin)
        .tenant_on_package("Sunny Farms", &SUNNY_FARMS_MENUS)
        .await;

    // Keys stay unique; a tenant id never changes; the platform tenant stays.
    let Reply { status, body, .. } = app
        .as_user(&admin)
        .post_json(
            "/api/blade-system/tenant/submit",
            json!({"tenantName": "Copy", "tenantId": tenant}),
        )
        .await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "租户ID已存在");
    let row = id_text(
        &app,
        "SELECT CAST(id AS VARCHAR(20)) FROM blade_tenant WHERE tenant_id = ?",
        vec![tenant.clone().into()],
    )
    .await;
    let Reply { status, body, .. } = app
        .as_user(&admin)
        .post_json(
            "/api/blade-system/tenant/submit",
            json!({"id": row, "tenantId": "999999", "tenantName": "Sunny Farms Ltd"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let Reply { body: detail, .. } = app
        .as_user(&admin)
        .get_query("/api/blade-system/tenant/detail", &[("id", &row)])
        .await;
    assert_eq!(detail["data"]["tenantId"], tenant.as_str());
    assert_eq!(detail["data"]["tenantName"], "Sunny Farms Ltd");
    let platform_row = id_text(
        &app,
        "SELECT CAST(id AS VARCHAR(20)) FROM blade_tenant WHERE tenant_id = '000000'",
        vec![],
    )
    .await;
    let Reply { status, body, .. } = app
        .as_user(&admin)
        .post_query("/api/blade-system/tenant/remove", &[("ids", &platform_row)])
        .await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "平台租户不能删除或停用");
    let Reply { status, body, .. } = app
        .send(
            app.as_user(&admin)
                .request(Method::POST, "/api/blade-system/tenant-package/remove")
                .header("Accept-Language", "en")
                .query(&[("ids", &package)]),
        )
        .await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "This package is still used by tenants");

    // Creating it is on the usual log.
    let logged = app
        .scalar_text(
            "SELECT log_data FROM blade_log_usual WHERE log_id = 'tenant_create' AND create_by = 'admin'",
            vec![],
        )
        .await;
    assert_eq!(
        logged,
        Some(format!("tenant {tenant} created with account admin"))
    );

    app.stop().await;
}

#[tokio::test]
async fn removing_a_tenant_ends_its_sessions_at_once() {
    let app = TestApp::start().await;
    let admin = app.as_admin().await;

    let (_package, tenant) = admin.tenant_on_package("Sunny Farms", &SUNNY_FARMS_MENUS).await;
    let t_admin = app.token_of(&tenant, "admin", "123456").await;
    let row = id_text(
        &app,
        "SELECT CAST(id AS VARCHAR(20)) FROM blade_tenant WHERE tenant_id = ?",
        vec![tenant.clone().into()],
    )
    .await;

    // Removing the tenant ends its sessions at once.
    let Reply { status, body, .. } = admin
        .post_query("/api/blade-system/tenant/remove", &[("ids", &row)])
        .await;
    assert_eq!((status, &body["data"]), (200, &json!(1)), "{body}");
    let Reply { status, .. } = app.as_user(&t_admin).get_query("/api/blade-user/info", &[]).await;
    assert_eq!(status, 401);
    let Reply { status, .. } = app.sign_in(&tenant, "admin", "123456").await;
    assert_ne!(status, 200);
    app.stop().await;
}

#[tokio::test]
async fn tenant_settings_limit_accounts_expiry_and_package() {
    let app = TestApp::start().await;
    let admin = app.as_admin().await;
    let (_, tenant) = admin
        .tenant_on_package("Quota Co", &["system", "user", "user_add"])
        .await;
    let row = id_text(
        &app,
        "SELECT CAST(id AS VARCHAR(20)) FROM blade_tenant WHERE tenant_id = ?",
        vec![tenant.clone().into()],
    )
    .await;
    let Reply { body: select, .. } = admin.get_query("/api/blade-system/tenant/select", &[]).await;
    assert!(
        select["data"]
            .as_array()
            .expect("list")
            .iter()
            .any(|t| t["tenantId"] == tenant.as_str())
    );

    let Reply { status, body, .. } = admin
        .post_query(
            "/api/blade-system/tenant/setting",
            &[("ids", &row), ("accountNumber", "0")],
        )
        .await;
    assert_failure(status, &body, 400);
    // All or nothing: an id that is no live tenant refuses the whole selection.
    let Reply { status, body, .. } = admin
        .post_query(
            "/api/blade-system/tenant/setting",
            &[("ids", &format!("{row},1")), ("accountNumber", "2")],
        )
        .await;
    assert_failure(status, &body, 404);
    let Reply { status, body, .. } = admin
        .post_query(
            "/api/blade-system/tenant/setting",
            &[("ids", &row), ("accountNumber", "2")],
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let t_admin = app.as_user(&app.token_of(&tenant, "admin", "123456").await);
    let role = id_text(
        &app,
        "SELECT CAST(id AS VARCHAR(20)) FROM blade_role WHERE tenant_id = ? AND role_alias = 'user'",
        vec![tenant.clone().into()],
    )
    .await;
    let dept = id_text(
        &app,
        "SELECT CAST(id AS VARCHAR(20)) FROM blade_dept WHERE tenant_id = ?",
        vec![tenant.clone().into()],
    )
    .await;
    let new_user = |account: &str| {
        json!({"account": account, "password": "pass-1234", "password2": "pass-1234", "realName": account,
               "roleId": role, "deptId": dept})
    };
    let Reply { status, body, .. } = t_admin
        .post_json("/api/blade-user/submit", new_user("second"))
        .await;
    assert_eq!(status, 200, "{body}");
    let Reply { status, body, .. } = t_admin
        .post_json("/api/blade-user/submit", new_user("third"))
        .await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "当前租户已到最大账号额度");

    // An expired tenant cannot sign in.
    let Reply { status, .. } = admin
        .post_query(
            "/api/blade-system/tenant/setting",
            &[
                ("ids", &row),
                ("accountNumber", "-1"),
                ("expireTime", "2001-01-01 00:00:00"),
            ],
        )
        .await;
    assert_eq!(status, 200);
    let Reply { status, .. } = app.sign_in(&tenant, "second", "pass-1234").await;
    assert_ne!(status, 200);
    let Reply { status, .. } = admin
        .post_query(
            "/api/blade-system/tenant/setting",
            &[("ids", &row), ("accountNumber", "-1")],
        )
        .await;
    assert_eq!(status, 200);
    app.token_of(&tenant, "second", "pass-1234").await;

    // Taking the tenant off its package widens its menus; a package can be set again.
    let Reply { status, .. } = admin
        .post_query(
            "/api/blade-system/tenant/package-setting",
            &[("tenantId", &tenant)],
        )
        .await;
    assert_eq!(status, 200);
    let Reply { body: detail, .. } = admin
        .get_query(
            "/api/blade-system/tenant/package-detail",
            &[("tenantId", &tenant)],
        )
        .await;
    assert!(detail["data"].is_null(), "{detail}");
    let Reply { status, body, .. } = admin
        .post_query(
            "/api/blade-system/tenant/package-setting",
            &[("tenantId", &tenant), ("packageId", "42")],
        )
        .await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "产品包不存在");
    // Only a data source of the developer tools can be bound.
    let Reply { status, body, .. } = admin
        .post_query(
            "/api/blade-system/tenant/datasource",
            &[("tenantId", &tenant), ("datasourceId", "77")],
        )
        .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["msg"], "数据源不存在");
    let Reply { body, .. } = admin
        .post_json(
            "/api/blade-develop/datasource/submit",
            json!({"name": "tenant store", "category": 1, "url": "tenant.db"}),
        )
        .await;
    let made = body["data"].as_str().expect("data source id").to_owned();
    let Reply { status, body, .. } = admin
        .post_query(
            "/api/blade-system/tenant/datasource",
            &[("tenantId", &tenant), ("datasourceId", &made)],
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let ds = app
        .scalar_text(
            "SELECT CAST(datasource_id AS VARCHAR(20)) FROM blade_tenant WHERE tenant_id = ?",
            vec![tenant.clone().into()],
        )
        .await;
    assert_eq!(ds.as_deref(), Some(made.as_str()));
    app.stop().await;
}

#[tokio::test]
async fn client_secrets_are_write_only_and_work_for_sign_in() {
    let app = TestApp::start().await;
    let admin = app.as_admin().await;
    let base = "/api/blade-system/client";
    let Reply { status, body, .. } = admin.post_json(&format!("{base}/submit"), json!({"clientId": "mobile", "clientSecret": "s3cret", "authorizedGrantTypes": "password,teleport",
               "accessTokenValidity": 600, "refreshTokenValidity": 3600})).await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "不支持的授权类型：teleport");
    let Reply { status, body, .. } = admin.post_json(&format!("{base}/submit"), json!({"clientId": "mobile", "authorizedGrantTypes": "password", "accessTokenValidity": 600, "refreshTokenValidity": 3600})).await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "请输入客户端密钥");
    let Reply { status, body, .. } = admin.post_json(&format!("{base}/submit"), json!({"clientId": "mobile", "clientSecret": "s3cret", "authorizedGrantTypes": "password,refresh_token",
               "accessTokenValidity": 600, "refreshTokenValidity": 3600})).await;
    assert_eq!(status, 200, "{body}");
    let id = body["data"].as_str().expect("id").to_owned();
    let Reply { body: page, .. } = admin
        .get_query(&format!("{base}/list"), &[("clientId", "mobile")])
        .await;
    let row = &page["data"]["records"][0];
    assert_eq!(row["clientId"], "mobile");
    assert!(row.get("clientSecret").is_none(), "secret answered: {row}");
    assert!(!page.to_string().contains("s3cret"));

    // The new client signs in with its own secret; a wrong one is refused.
    use base64::Engine;
    let sign_in = |secret: &str| {
        let basic = base64::engine::general_purpose::STANDARD.encode(format!("mobile:{secret}"));
        app.client
            .post(app.url("/api/blade-auth/oauth/token"))
            .header("Authorization", format!("Basic {basic}"))
            .header("Tenant-Id", "000000")
            .query(&[
                ("tenantId", "000000"),
                ("username", "admin"),
                ("password", md5_hex("admin").as_str()),
                ("grant_type", "password"),
                ("scope", "all"),
            ])
    };
    let Reply { status, body, .. } = app.send(sign_in("s3cret")).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["expires_in"], 600);
    let Reply { status, .. } = app.send(sign_in("wrong")).await;
    assert_ne!(status, 200);
    // Editing without a new secret keeps the old one.
    let Reply { status, body, .. } = admin
        .post_json(
            &format!("{base}/submit"),
            json!({"id": id, "clientSecret": "", "accessTokenValidity": 900}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let Reply { status, body, .. } = app.send(sign_in("s3cret")).await;
    assert_eq!((status, &body["expires_in"]), (200, &json!(900)), "{body}");

    // The client the caller is signed in with cannot be removed.
    let saber = id_text(
        &app,
        "SELECT CAST(id AS VARCHAR(20)) FROM blade_client WHERE client_id = 'saber'",
        vec![],
    )
    .await;
    let Reply { status, body, .. } = admin
        .post_query(&format!("{base}/remove"), &[("ids", &saber)])
        .await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "不能删除当前正在使用的客户端");
    app.stop().await;
}

async fn platform_refs(app: &TestApp) -> (String, String) {
    let role = id_text(
        app,
        "SELECT CAST(id AS VARCHAR(20)) FROM blade_role WHERE tenant_id = '000000' AND role_alias = 'administrator'",
        vec![],
    )
    .await;
    let dept = id_text(
        app,
        "SELECT CAST(id AS VARCHAR(20)) FROM blade_dept WHERE tenant_id = '000000'",
        vec![],
    )
    .await;
    (role, dept)
}

#[tokio::test]
async fn users_are_created_validated_granted_reset_and_removed() {
    let app = TestApp::start().await;
    let admin = app.as_admin().await;
    let (role, dept) = platform_refs(&app).await;
    let submit = async |body: Json| admin.post_json("/api/blade-user/submit", body).await;
    let base = json!({"account": "zhang_san", "password": "pw-123456", "password2": "pw-123456",
                      "realName": "张三", "roleId": role, "deptId": dept, "phone": "13800138000"});
    let with = |key: &str, value: Json| {
        let mut b = base.clone();
        b[key] = value;
        b
    };
    for (body, msg) in [
        (with("account", json!("")), "请输入账号"),
        (with("account", json!("bad name!")), "请输入正确的用户名"),
        (with("password2", json!("other")), "两次密码输入不一致"),
        (with("realName", json!(" ")), "请输入用户姓名"),
        (with("roleId", json!("")), "请选择所属角色"),
        (with("deptId", json!(null)), "请选择所属部门"),
        (with("phone", json!("23800138000")), "请输入正确的11位手机号码"),
        (with("roleId", json!("987654321")), "角色不存在"),
    ] {
        let Reply {
            status, body: resp, ..
        } = submit(body).await;
        assert_failure(status, &resp, 400);
        assert_eq!(resp["msg"], msg);
    }
    let Reply { status, body, .. } = submit(base.clone()).await;
    assert_eq!(status, 200, "{body}");
    let id = body["data"].as_str().expect("id").to_owned();
    let Reply { status, body, .. } = submit(base.clone()).await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "当前用户已存在");

    // The new account signs in with what was typed; the list shows names of its links.
    let user_token = app.as_user(&app.token_of("000000", "zhang_san", "pw-123456").await);
    let Reply { body: page, .. } = admin
        .get_query("/api/blade-user/page", &[("account", "zhang")])
        .await;
    assert_eq!(page["data"]["total"], 1, "{page}");
    let row = &page["data"]["records"][0];
    assert_eq!(row["realName"], "张三");
    assert_eq!(row["roleName"], "超级管理员");
    assert_eq!(row["deptName"], "总部");
    assert_eq!(row["roleId"], role.as_str());
    let Reply { body: by_dept, .. } = admin
        .get_query("/api/blade-user/page", &[("deptId", &dept)])
        .await;
    assert_eq!(by_dept["data"]["total"], 2, "admin and zhang_san: {by_dept}");
    let Reply { body: by_other, .. } = admin
        .get_query("/api/blade-user/page", &[("deptId", "12345")])
        .await;
    assert_eq!(by_other["data"]["total"], 0);

    // Update keeps the password; a role grant applies at once (the old session ends).
    let Reply { status, body, .. } = admin
        .post_json(
            "/api/blade-user/update",
            json!({"id": id, "realName": "张三丰", "email": "zs@example.cn"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let Reply { body: detail, .. } = admin.get_query("/api/blade-user/detail", &[("id", &id)]).await;
    assert_eq!(detail["data"]["realName"], "张三丰");
    assert_eq!(detail["data"]["email"], "zs@example.cn");
    let Reply { status, .. } = user_token.get_query("/api/blade-user/info", &[]).await;
    assert_eq!(status, 200, "an edit without role changes keeps sessions");
    let other_role = app.state.ids.next().0;
    app.exec(
        "INSERT INTO blade_role (id, tenant_id, role_name, role_alias) VALUES (?, '000000', '访客', 'visitor')",
        vec![Value::Int(other_role)],
    )
    .await;
    let Reply { status, body, .. } = admin
        .post_query(
            "/api/blade-user/grant",
            &[("userIds", &id), ("roleIds", &other_role.to_string())],
        )
        .await;
    assert_eq!((status, &body["data"]), (200, &json!(1)), "{body}");
    let Reply { status, .. } = user_token.get_query("/api/blade-user/info", &[]).await;
    assert_eq!(status, 401);
    let Reply { body: detail, .. } = admin.get_query("/api/blade-user/detail", &[("id", &id)]).await;
    assert_eq!(detail["data"]["roleName"], "访客");

    // Reset restores the configured initial password (parameter first, then config).
    let Reply { status, .. } = admin
        .post_query("/api/blade-user/reset-password", &[("userIds", &id)])
        .await;
    assert_eq!(status, 200);
    assert_ne!(app.sign_in("000000", "zhang_san", "pw-123456").await.status, 200);
    app.token_of("000000", "zhang_san", "123456").await;
    let logged = app
        .scalar_text(
            "SELECT log_data FROM blade_log_usual WHERE log_id = 'password_reset'",
            vec![],
        )
        .await;
    assert_eq!(logged, Some(format!("users {id}")));
    app.exec(
        "INSERT INTO blade_param (id, param_name, param_key, param_value, create_time) VALUES (?, 'p', 'account.initPassword', 'Init-Pass-9', 0)",
        vec![Value::Int(app.state.ids.next().0)],
    )
    .await;
    let Reply { status, .. } = admin
        .post_query("/api/blade-user/reset-password", &[("userIds", &id)])
        .await;
    assert_eq!(status, 200);
    app.token_of("000000", "zhang_san", "Init-Pass-9").await;

    // Platform settings, then removal (never oneself).
    let Reply { status, body, .. } = admin
        .post_json(
            "/api/blade-user/update-platform",
            json!({"userId": id, "userType": 2, "userExt": "{\"imei\":\"x\"}"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let Reply { body: pd, .. } = admin
        .get_query("/api/blade-user/platform-detail", &[("id", &id)])
        .await;
    assert_eq!(pd["data"]["userType"], 2);
    assert_eq!(pd["data"]["userExt"], "{\"imei\":\"x\"}");
    let own = id_text(
        &app,
        "SELECT CAST(id AS VARCHAR(20)) FROM blade_user WHERE account = 'admin' AND tenant_id = '000000'",
        vec![],
    )
    .await;
    let Reply { status, body, .. } = admin.post_query("/api/blade-user/remove", &[("ids", &own)]).await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "不能删除当前登录用户");
    let Reply { status, body, .. } = admin.post_query("/api/blade-user/remove", &[("ids", &id)]).await;
    assert_eq!((status, &body["data"]), (200, &json!(1)), "{body}");
    assert_ne!(
        app.sign_in("000000", "zhang_san", "Init-Pass-9").await.status,
        200
    );
    app.stop().await;
}

#[tokio::test]
async fn owners_staff_and_guest_approval() {
    let app = TestApp::start().await;
    let admin = app.as_admin().await;
    let owner = json!({"companyName": "阳光投资", "account": "owner_1", "realName": "王总", "phone": "13900139000", "password": "123456"});
    let Reply { status, body, .. } = admin.post_json("/api/blade-user/saveOwner", owner.clone()).await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "密码长度必须大于6位");
    let Reply { status, body, .. } = app
        .send(
            admin
                .request(Method::POST, "/api/blade-user/saveOwner")
                .header("Accept-Language", "en")
                .json(&owner),
        )
        .await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "The password must be longer than 6 characters");
    let mut good = owner.clone();
    good["password"] = json!("1234567");
    let Reply { status, body, .. } = admin.post_json("/api/blade-user/saveOwner", good).await;
    assert_eq!(status, 200, "{body}");
    let owner_id = body["data"].as_str().expect("id").to_owned();
    app.token_of("000000", "owner_1", "1234567").await;
    let Reply { body: owners, .. } = admin.get_query("/api/blade-user/pageOwner", &[]).await;
    assert_eq!(owners["data"]["total"], 1, "{owners}");
    assert_eq!(owners["data"]["records"][0]["companyName"], "阳光投资");
    assert_eq!(owners["data"]["records"][0]["roleName"], "业主");
    let Reply { status, body, .. } = admin
        .post_json(
            "/api/blade-user/saveOwner",
            json!({"id": owner_id, "companyName": "阳光新能源", "password": "new-pass-1"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    app.token_of("000000", "owner_1", "new-pass-1").await;
    // The owner screen edits owners only.
    let own = id_text(
        &app,
        "SELECT CAST(id AS VARCHAR(20)) FROM blade_user WHERE account = 'admin' AND tenant_id = '000000'",
        vec![],
    )
    .await;
    let Reply { status, .. } = admin
        .post_json(
            "/api/blade-user/saveOwner",
            json!({"id": own, "companyName": "x"}),
        )
        .await;
    assert_eq!(status, 404);

    // Maintenance staff: users holding the maintenance role.
    let staff_role = app.state.ids.next().0;
    app.exec(
        "INSERT INTO blade_role (id, tenant_id, role_name, role_alias) VALUES (?, '000000', '运维人员', 'maintenance')",
        vec![Value::Int(staff_role)],
    )
    .await;
    let (_, dept) = platform_refs(&app).await;
    let Reply { status, body, .. } = admin
        .post_json(
            "/api/blade-user/submit",
            json!({"account": "tech_1", "password": "pw-1234", "password2": "pw-1234", "realName": "李工",
               "roleId": staff_role.to_string(), "deptId": dept}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let Reply { body: staff, .. } = admin.get_query("/api/blade-user/listMaintenance", &[]).await;
    let staff = staff["data"].as_array().expect("list").clone();
    assert_eq!(staff.len(), 1);
    assert_eq!(staff[0]["realName"], "李工");
    assert_eq!(staff[0]["roleName"], "运维人员");

    // Guests wait for approval; approving lets them in with the default role, refusing removes them.
    app.exec(
        "UPDATE blade_tenant SET self_register = 1 WHERE tenant_id = '000000'",
        vec![],
    )
    .await;
    for account in ["guest_a", "guest_b"] {
        let Reply { status, body, .. } = app
            .send(
                app.client
                    .post(app.url("/api/blade-user/register-guest"))
                    .query(&[
                        ("tenantId", "000000"),
                        ("name", "Guest"),
                        ("account", account),
                        ("password", &md5_hex("guest-pass")),
                    ]),
            )
            .await;
        assert_eq!(status, 200, "{body}");
    }
    let Reply { body: pending, .. } = admin.get_query("/api/blade-user/page", &[("status", "2")]).await;
    assert_eq!(pending["data"]["total"], 2, "{pending}");
    let id_of = async |account: &str| {
        id_text(
            &app,
            "SELECT CAST(id AS VARCHAR(20)) FROM blade_user WHERE account = ? AND is_deleted = 0",
            vec![account.into()],
        )
        .await
    };
    let (a, b) = (id_of("guest_a").await, id_of("guest_b").await);
    assert_ne!(app.sign_in("000000", "guest_a", "guest-pass").await.status, 200);
    let Reply { status, body, .. } = admin
        .post_query("/api/blade-user/audit-pass", &[("userIds", &a)])
        .await;
    assert_eq!((status, &body["data"]), (200, &json!(1)), "{body}");
    app.token_of("000000", "guest_a", "guest-pass").await;
    let Reply { body: detail, .. } = admin.get_query("/api/blade-user/detail", &[("id", &a)]).await;
    assert_eq!(detail["data"]["roleName"], "普通用户");
    let Reply { status, body, .. } = admin
        .post_query(
            "/api/blade-user/audit-refuse",
            &[("userIds", &format!("{a},{b}"))],
        )
        .await;
    assert_eq!(
        (status, &body["data"]),
        (200, &json!(1)),
        "only the pending one: {body}"
    );
    assert_ne!(app.sign_in("000000", "guest_b", "guest-pass").await.status, 200);
    app.token_of("000000", "guest_a", "guest-pass").await;
    app.stop().await;
}

#[tokio::test]
async fn a_tenant_never_reaches_another_tenants_users() {
    let app = TestApp::start().await;
    let admin = app.token_of("000000", "admin", "admin").await;
    let (_, tenant) = app
        .as_user(&admin)
        .tenant_on_package(
            "Other Co",
            &[
                "system",
                "user",
                "user_add",
                "user_edit",
                "user_delete",
                "user_role",
                "user_reset",
                "user_platform",
                "user_unlock",
            ],
        )
        .await;
    let other = app.as_user(&app.token_of(&tenant, "admin", "123456").await);
    let (role, dept) = platform_refs(&app).await;
    let victim = id_text(
        &app,
        "SELECT CAST(id AS VARCHAR(20)) FROM blade_user WHERE account = 'admin' AND tenant_id = '000000'",
        vec![],
    )
    .await;
    let Reply { status, .. } = other
        .get_query("/api/blade-user/detail", &[("id", &victim)])
        .await;
    assert_eq!(status, 404);
    let Reply { body: page, .. } = other
        .get_query("/api/blade-user/page", &[("account", "admin")])
        .await;
    assert_eq!(page["data"]["total"], 1, "only its own admin: {page}");
    assert_eq!(page["data"]["records"][0]["tenantId"], tenant.as_str());
    let Reply { status, .. } = other
        .post_json(
            "/api/blade-user/update",
            json!({"id": victim, "realName": "pwned"}),
        )
        .await;
    assert_eq!(status, 404);
    // Acting on selected users: one of another tenant's among them refuses the whole call with
    // 404, changes nothing and logs nothing (never a "success" that did nothing).
    let own_user = id_text(
        &app,
        "SELECT CAST(id AS VARCHAR(20)) FROM blade_user WHERE account = 'admin' AND tenant_id = ?",
        vec![tenant.clone().into()],
    )
    .await;
    let both = format!("{own_user},{victim}");
    let hashes = || async {
        app.scalar_text(
            "SELECT password FROM blade_user WHERE id = ?",
            vec![Value::Int(own_user.parse().expect("id"))],
        )
        .await
    };
    let own_hash = hashes().await;
    let logs = || async {
        app.scalar_i64(
            "SELECT COUNT(*) FROM blade_log_usual WHERE log_id IN ('password_reset', 'user_grant')",
            vec![],
        )
        .await
    };
    let logged = logs().await;
    for (path, query) in [
        ("/api/blade-user/remove", vec![("ids", victim.as_str())]),
        (
            "/api/blade-user/grant",
            vec![("userIds", victim.as_str()), ("roleIds", role.as_str())],
        ),
        ("/api/blade-user/reset-password", vec![("userIds", both.as_str())]),
        (
            "/api/blade-user/reset-password",
            vec![("userIds", victim.as_str())],
        ),
        ("/api/blade-user/unlock", vec![("userIds", victim.as_str())]),
        ("/api/blade-user/audit-pass", vec![("userIds", victim.as_str())]),
        ("/api/blade-user/audit-refuse", vec![("userIds", victim.as_str())]),
    ] {
        let Reply { status, body, .. } = other.post_query(path, &query).await;
        assert_failure(status, &body, 404);
        assert_eq!(body["msg"], "所选数据不存在或无权操作", "{path}: {body}");
    }
    let Reply { status, body, .. } = other
        .en()
        .post_query("/api/blade-user/reset-password", &[("userIds", &victim)])
        .await;
    assert_failure(status, &body, 404);
    assert_eq!(
        body["msg"],
        "Some of the selected records do not exist or are not yours"
    );
    assert_eq!(logs().await, logged, "nothing logged for refused calls");
    // Its own admin's password was not rewritten either (all or nothing).
    assert_eq!(hashes().await, own_hash);
    let Reply { status, .. } = other
        .post_json(
            "/api/blade-user/update-platform",
            json!({"userId": victim, "userType": 2}),
        )
        .await;
    assert_eq!(status, 404);
    // Creating a user with another tenant's role or department is refused.
    let own_role = id_text(
        &app,
        "SELECT CAST(id AS VARCHAR(20)) FROM blade_role WHERE tenant_id = ? AND role_alias = 'user'",
        vec![tenant.clone().into()],
    )
    .await;
    let Reply { status, body, .. } = other.post_json("/api/blade-user/submit", json!({"account": "x1", "password": "p-12345", "password2": "p-12345", "realName": "x", "roleId": own_role, "deptId": dept})).await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "部门不存在");
    // The platform admin is untouched.
    app.token_of("000000", "admin", "admin").await;
    let name = app
        .scalar_text(
            "SELECT real_name FROM blade_user WHERE id = ?",
            vec![Value::Int(victim.parse().expect("id"))],
        )
        .await;
    assert_eq!(name.as_deref(), Some("管理员"));
    app.stop().await;
}
