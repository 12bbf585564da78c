//! Sign-in, sessions, permissions and tenant isolation over a real server and database.

use crate::support;

use futures_util::{SinkExt, StreamExt};
use pv_cloud::kernel::sql::Value;
use reqwest::Method;
use serde_json::Value as Json;
use support::{BASIC_SABER, Reply, TestApp, assert_failure, codes_in, md5_hex};

fn oauth_error(status: u16, body: &Json, code: u16, description: &str) {
    assert_eq!(status, code, "{body}");
    assert_eq!(body["error_code"], code, "{body}");
    assert_eq!(body["error_description"], description, "{body}");
    assert!(body.get("access_token").is_none());
}

#[tokio::test]
async fn admin_signs_in_with_the_password_grant() {
    let app = TestApp::start().await;
    let Reply { status, body, .. } = app.sign_in("000000", "admin", "admin").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["token_type"], "bearer");
    assert_eq!(body["expires_in"], 3600);
    assert_eq!(body["tenant_id"], "000000");
    assert_eq!(body["account"], "admin");
    assert_eq!(body["role_name"], "administrator");
    assert!(body["user_id"].is_string() && body["refresh_token"].is_string());
    let token = body["access_token"].as_str().unwrap();
    let Reply {
        status, body: info, ..
    } = app
        .send(
            app.as_user(token)
                .request(Method::GET, "/api/blade-auth/oauth/user-info"),
        )
        .await;
    assert_eq!(status, 200, "{info}");
    assert_eq!(info["data"]["account"], "admin");
    assert_eq!(info["data"]["userId"], body["user_id"]);
    // The password is stored as a slow salted hash, not as what the client sent.
    let stored = app
        .scalar_text("SELECT password FROM blade_user WHERE account = 'admin'", vec![])
        .await
        .unwrap();
    assert!(stored.starts_with("$argon2id$") && !stored.contains(&md5_hex("admin")));
    app.stop().await;
}

#[tokio::test]
async fn bad_clients_credentials_and_tenants_are_refused() {
    let app = TestApp::start().await;
    let pw = md5_hex("admin");
    let params = [
        ("tenantId", "000000"),
        ("username", "admin"),
        ("password", pw.as_str()),
        ("grant_type", "password"),
    ];
    let Reply { status, body, .. } = app
        .send(
            app.client
                .post(app.url("/api/blade-auth/oauth/token"))
                .query(&params)
                .header("Authorization", "Basic c2FiZXI6d3Jvbmc="),
        )
        .await;
    oauth_error(status, &body, 401, "客户端认证失败");
    let Reply { status, body, .. } = app.sign_in("000000", "admin", "wrong").await;
    oauth_error(status, &body, 400, "用户名或密码不正确");
    let Reply { status, body, .. } = app.sign_in("000000", "nobody", "admin").await;
    oauth_error(status, &body, 400, "用户名或密码不正确");
    let Reply { status, body, .. } = app.sign_in("123456", "admin", "admin").await;
    oauth_error(status, &body, 400, "租户信息错误或已过期");
    let Reply { status, body, .. } = app
        .send(
            app.client
                .post(app.url("/api/blade-auth/oauth/token"))
                .query(&params)
                .header("Authorization", BASIC_SABER)
                .header("Accept-Language", "en"),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    for grant in ["social", "authorization_code"] {
        let Reply { status, body, .. } = app
            .token_call(&[("grant_type", grant), ("source", "github"), ("code", "x")], &[])
            .await;
        oauth_error(status, &body, 400, "未配置第三方登录服务，无法使用该登录方式");
    }
    let Reply { status, body, .. } = app.token_call(&[("grant_type", "magic")], &[]).await;
    oauth_error(status, &body, 400, "不支持的授权类型");
    app.stop().await;
}

/// Wrong passwords never lock an account for everyone (see `sign_in_limits.rs` for the
/// throttle by account and address); the administrator's unlock stays, behind its permission.
#[tokio::test]
async fn wrong_passwords_do_not_lock_the_owner_out_and_only_an_administrator_unlocks() {
    let app = TestApp::start().await;
    app.create_tenant_user("000000", "bob", "bob-pass", &["equipmentMap"], None)
        .await;
    for _ in 0..3 {
        let Reply { status, body, .. } = app.sign_in("000000", "bob", "nope").await;
        oauth_error(status, &body, 400, "用户名或密码不正确");
    }
    let bob_id = app
        .scalar_text(
            "SELECT CAST(id AS VARCHAR(30)) FROM blade_user WHERE account = 'bob'",
            vec![],
        )
        .await
        .unwrap();
    let admin = app.token_of("000000", "admin", "admin").await;
    let Reply { status, body, .. } = app
        .send(
            app.as_user(&admin)
                .request(Method::POST, &format!("/api/blade-user/unlock?userIds={bob_id}")),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let Reply { status, body, .. } = app.sign_in("000000", "bob", "bob-pass").await;
    assert_eq!(status, 200, "{body}");
    let bob = body["access_token"].as_str().unwrap().to_owned();
    let Reply { status, body, .. } = app
        .send(
            app.as_user(&bob)
                .request(Method::POST, &format!("/api/blade-user/unlock?userIds={bob_id}")),
        )
        .await;
    assert_failure(status, &body, 403);
    app.stop().await;
}

#[tokio::test]
async fn captcha_grant_checks_a_one_use_expiring_answer() {
    let app = TestApp::start().await;
    let captcha = || async {
        let Reply { status, body: c, .. } = app.get("/api/blade-auth/oauth/captcha").await;
        assert_eq!(status, 200);
        assert!(c["image"].as_str().unwrap().starts_with("data:image/png;base64,"));
        assert!(c.get("answer").is_none(), "the test hook is off by default");
        let key = c["key"].as_str().unwrap().to_owned();
        let answer = app
            .scalar_text(
                "SELECT answer FROM blade_captcha WHERE captcha_key = ?",
                vec![key.clone().into()],
            )
            .await
            .unwrap();
        (key, answer)
    };
    let pw = md5_hex("admin");
    let params = [
        ("tenantId", "000000"),
        ("username", "admin"),
        ("password", pw.as_str()),
        ("grant_type", "captcha"),
    ];
    let Reply { status, body, .. } = app.token_call(&params, &[]).await;
    oauth_error(status, &body, 400, "请输入验证码");

    let (key, answer) = captcha().await;
    let wrong = if answer == "0000" { "1111" } else { "0000" };
    let Reply { status, body, .. } = app
        .token_call(&params, &[("Captcha-Key", &key), ("Captcha-Code", wrong)])
        .await;
    oauth_error(status, &body, 400, "验证码不正确");
    // The key was used up by the wrong try.
    let Reply { status, body, .. } = app
        .token_call(&params, &[("Captcha-Key", &key), ("Captcha-Code", &answer)])
        .await;
    oauth_error(status, &body, 400, "验证码已过期，请刷新后重试");

    let (key, answer) = captcha().await;
    app.exec(
        "UPDATE blade_captcha SET expire_time = 1 WHERE captcha_key = ?",
        vec![key.clone().into()],
    )
    .await;
    let Reply { status, body, .. } = app
        .token_call(&params, &[("Captcha-Key", &key), ("Captcha-Code", &answer)])
        .await;
    oauth_error(status, &body, 400, "验证码已过期，请刷新后重试");

    let (key, answer) = captcha().await;
    let Reply { status, body, .. } = app
        .token_call(&params, &[("Captcha-Key", &key), ("Captcha-Code", &answer)])
        .await;
    assert_eq!(status, 200, "{body}");
    app.stop().await;
}

#[tokio::test]
async fn refresh_rotates_honours_held_roles_and_detects_reuse() {
    let app = TestApp::start().await;
    let (role_a, user) = app
        .create_tenant_user("000000", "carol", "carol-pass", &["equipmentMap"], None)
        .await;
    // A second role and a dept for carol.
    let role_b = app.state.ids.next().0;
    app.exec(
        "INSERT INTO blade_role (id, tenant_id, role_name, role_alias) VALUES (?, '000000', 'B', 'role_b')",
        vec![Value::Int(role_b)],
    )
    .await;
    app.exec(
        "INSERT INTO blade_user_role (user_id, role_id) VALUES (?, ?)",
        vec![Value::Int(user), Value::Int(role_b)],
    )
    .await;
    let Reply { body, .. } = app.sign_in("000000", "carol", "carol-pass").await;
    let refresh = body["refresh_token"].as_str().unwrap().to_owned();
    let mut ids: Vec<String> = body["role_id"]
        .as_str()
        .unwrap()
        .split(',')
        .map(str::to_owned)
        .collect();
    ids.sort();
    let mut want = vec![role_a.to_string(), role_b.to_string()];
    want.sort();
    assert_eq!(ids, want);

    let rb = role_b.to_string();
    let Reply { status, body: r1, .. } = app
        .token_call(
            &[
                ("grant_type", "refresh_token"),
                ("refresh_token", &refresh),
                ("tenantId", "000000"),
            ],
            &[("Role-Id", &rb)],
        )
        .await;
    assert_eq!(status, 200, "{r1}");
    assert_eq!(r1["role_id"], rb.as_str(), "a held role is honoured");
    assert_eq!(r1["role_name"], "role_b");
    let Reply {
        status, body: info, ..
    } = app
        .send(
            app.as_user(r1["access_token"].as_str().unwrap())
                .request(Method::GET, "/api/blade-auth/oauth/user-info"),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(info["data"]["roleId"], rb.as_str());

    // A role carol does not hold is ignored.
    let r1_refresh = r1["refresh_token"].as_str().unwrap().to_owned();
    let Reply { status, body: r2, .. } = app
        .token_call(
            &[("grant_type", "refresh_token"), ("refresh_token", &r1_refresh)],
            &[("Role-Id", "1")],
        )
        .await;
    assert_eq!(status, 200, "{r2}");
    assert_eq!(r2["role_id"].as_str().unwrap().split(',').count(), 2);

    // Reusing an already-used refresh token ends the session: even the newest tokens die.
    let Reply { status, body, .. } = app
        .token_call(
            &[("grant_type", "refresh_token"), ("refresh_token", &refresh)],
            &[],
        )
        .await;
    oauth_error(status, &body, 400, "登录已过期，请重新登录");
    let Reply { status, body, .. } = app
        .send(
            app.as_user(r2["access_token"].as_str().unwrap())
                .request(Method::GET, "/api/blade-auth/oauth/user-info"),
        )
        .await;
    assert_failure(status, &body, 401);
    // An access token is not a refresh token.
    let Reply { status, .. } = app
        .token_call(
            &[
                ("grant_type", "refresh_token"),
                ("refresh_token", r2["access_token"].as_str().unwrap()),
            ],
            &[],
        )
        .await;
    assert_eq!(status, 400);
    app.stop().await;
}

#[tokio::test]
async fn logout_and_tampering_end_access() {
    let app = TestApp::start().await;
    let token = app.token_of("000000", "admin", "admin").await;
    let other = app.token_of("000000", "admin", "admin").await;
    let Reply { status, .. } = app
        .send(
            app.as_user(&token)
                .request(Method::GET, "/api/blade-system/menu/routes"),
        )
        .await;
    assert_eq!(status, 200);
    // Tampered: another payload under the same signature.
    let mut parts: Vec<String> = token.split('.').map(str::to_owned).collect();
    parts[1] = other.split('.').nth(1).unwrap().to_owned() + "x";
    let Reply { status, body, .. } = app
        .send(
            app.as_user(&parts.join("."))
                .request(Method::GET, "/api/blade-system/menu/routes"),
        )
        .await;
    assert_failure(status, &body, 401);
    let Reply { status, body, .. } = app.get("/api/blade-system/menu/routes").await;
    assert_failure(status, &body, 401);
    let Reply { status, body, .. } = app
        .send(
            app.as_user(&token)
                .request(Method::GET, "/api/blade-auth/oauth/logout"),
        )
        .await;
    assert_eq!((status, &body["data"]), (200, &Json::Bool(true)), "{body}");
    let Reply { status, body, .. } = app
        .send(
            app.as_user(&token)
                .request(Method::GET, "/api/blade-system/menu/routes"),
        )
        .await;
    assert_failure(status, &body, 401);
    // Only that session ended.
    let Reply { status, .. } = app
        .send(
            app.as_user(&other)
                .request(Method::GET, "/api/blade-system/menu/routes"),
        )
        .await;
    assert_eq!(status, 200);
    app.stop().await;
}

#[tokio::test]
async fn menus_follow_roles_packages_and_language() {
    let app = TestApp::start().await;
    let admin = app.as_admin().await;
    let Reply { body: routes, .. } = app
        .send(admin.request(Method::GET, "/api/blade-system/menu/routes"))
        .await;
    let top: Vec<&str> = routes["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["code"].as_str().unwrap())
        .collect();
    assert_eq!(
        top,
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
    assert_eq!(routes["data"][2]["name"], "电站监控");
    assert!(
        !codes_in(&routes["data"]).contains(&"station_add".to_owned()),
        "routes carry menus only"
    );
    let Reply { body: en, .. } = app
        .send(
            admin
                .request(Method::GET, "/api/blade-system/menu/routes")
                .header("Accept-Language", "en-US"),
        )
        .await;
    assert_eq!(en["data"][2]["name"], "Station monitoring");
    let Reply { body: buttons, .. } = app
        .send(admin.request(Method::GET, "/api/blade-system/menu/buttons"))
        .await;
    assert!(codes_in(&buttons["data"]).contains(&"station_add".to_owned()));

    // Another tenant's operator granted only the station page and its add button.
    app.create_tenant_user("200001", "op", "op-pass", &["station", "station_add"], None)
        .await;
    let op = app.as_user(&app.token_of("200001", "op", "op-pass").await);
    let Reply { body: routes, .. } = app
        .send(op.request(Method::GET, "/api/blade-system/menu/routes"))
        .await;
    assert_eq!(
        codes_in(&routes["data"]),
        ["stationMonitor", "station"],
        "granted page plus its ancestor"
    );
    let Reply { body: buttons, .. } = app
        .send(op.request(Method::GET, "/api/blade-system/menu/buttons"))
        .await;
    assert_eq!(
        codes_in(&buttons["data"]),
        ["stationMonitor", "station", "station_add"]
    );

    // A tenant whose package lacks the system group: even a role granted it does not see it.
    app.create_tenant_user(
        "200002",
        "boss",
        "boss-pass",
        &["station", "user", "user_unlock"],
        Some(&["stationMonitor", "station"]),
    )
    .await;
    let boss = app.as_user(&app.token_of("200002", "boss", "boss-pass").await);
    let Reply { body: routes, .. } = app
        .send(boss.request(Method::GET, "/api/blade-system/menu/routes"))
        .await;
    assert_eq!(codes_in(&routes["data"]), ["stationMonitor", "station"]);
    let Reply { status, body, .. } = app
        .send(boss.request(Method::POST, "/api/blade-user/unlock?userIds=1"))
        .await;
    assert_failure(status, &body, 403);
    app.stop().await;
}

#[tokio::test]
async fn tenants_never_see_each_other() {
    let app = TestApp::start().await;
    let admin = app.as_admin().await;
    let admin_id = app
        .scalar_text(
            "SELECT CAST(id AS VARCHAR(30)) FROM blade_user WHERE account = 'admin'",
            vec![],
        )
        .await
        .unwrap();
    // The other tenant's user even holds user_view there.
    app.create_tenant_user("300001", "admin", "other-pass", &["user", "user_view"], None)
        .await;
    let other = app.as_user(&app.token_of("300001", "admin", "other-pass").await);
    let Reply { body: info, .. } = app.send(other.request(Method::GET, "/api/blade-user/info")).await;
    assert_eq!(
        info["data"]["tenantId"], "300001",
        "same account name, different tenant"
    );
    assert_ne!(info["data"]["id"].as_str().unwrap(), admin_id);
    let Reply { status, body, .. } = app
        .send(other.request(
            Method::GET,
            &format!("/api/blade-system/role/select?userId={admin_id}"),
        ))
        .await;
    assert_failure(status, &body, 404);
    let Reply { body: routes, .. } = app
        .send(other.request(Method::GET, "/api/blade-system/menu/routes"))
        .await;
    assert_eq!(codes_in(&routes["data"]), ["system", "user"]);

    // Files: tenant 000000 uploads; the other tenant's token cannot read or remove it.
    let form = reqwest::multipart::Form::new().part(
        "file",
        reqwest::multipart::Part::bytes(b"hello".to_vec()).file_name("note.txt"),
    );
    let Reply { status, body: up, .. } = app
        .send(
            admin
                .request(Method::POST, "/api/blade-resource/oss/endpoint/put-file")
                .multipart(form),
        )
        .await;
    assert_eq!(status, 200, "{up}");
    let link = up["data"]["link"].as_str().unwrap().to_owned();
    let path_only = link.split('?').next().unwrap().to_owned();
    let res = other.request(Method::GET, &path_only).send().await.unwrap();
    assert_eq!(res.status(), 403);
    let name = up["data"]["name"].as_str().unwrap();
    let Reply { status, body, .. } = app
        .send(other.request(
            Method::POST,
            &format!("/api/blade-resource/oss/endpoint/remove-file?fileName={name}"),
        ))
        .await;
    assert_failure(status, &body, 404);
    let res = admin.request(Method::GET, &path_only).send().await.unwrap();
    assert_eq!(res.status(), 200);
    app.stop().await;
}

#[tokio::test]
async fn uploads_are_served_by_signed_link_and_never_run_inline() {
    let app = TestApp::start().await;
    let admin = app.token_of("000000", "admin", "admin").await;
    let upload = |bytes: Vec<u8>, name: &str| {
        let form = reqwest::multipart::Form::new().part(
            "file",
            reqwest::multipart::Part::bytes(bytes).file_name(name.to_owned()),
        );
        app.as_user(&admin)
            .request(Method::POST, "/api/blade-resource/oss/endpoint/put-file")
            .multipart(form)
    };
    let png = b"\x89PNG\r\n\x1a\nfake".to_vec();
    let Reply { status, body: up, .. } = app.send(upload(png.clone(), "me.png")).await;
    assert_eq!(status, 200, "{up}");
    let link = up["data"]["link"].as_str().unwrap();
    let res = app.client.get(app.url(link)).send().await.unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["content-type"], "image/png");
    assert_eq!(res.bytes().await.unwrap().to_vec(), png);
    let unsigned = link.split('?').next().unwrap();
    assert_eq!(
        app.client.get(app.url(unsigned)).send().await.unwrap().status(),
        403
    );
    let forged = format!("{unsigned}?sig=00000000000000000000000000000000");
    assert_eq!(
        app.client.get(app.url(&forged)).send().await.unwrap().status(),
        403
    );

    let Reply { body: html, .. } = app
        .send(upload(b"<script>alert(1)</script>".to_vec(), "x.html"))
        .await;
    let res = app
        .client
        .get(app.url(html["data"]["link"].as_str().unwrap()))
        .send()
        .await
        .unwrap();
    assert_eq!(res.headers()["content-disposition"], "attachment");
    assert_eq!(res.headers()["content-type"], "application/octet-stream");

    // A claimed type is checked against the content: HTML named .png, script named .pdf.
    let Reply { status, body, .. } = app
        .send(upload(
            b"<html><script>alert(1)</script></html>".to_vec(),
            "evil.png",
        ))
        .await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "文件内容与扩展名 .png 不符");
    let Reply { status, body, .. } = app
        .send(
            upload(b"<script>alert(document.cookie)</script>".to_vec(), "evil.pdf")
                .header("Accept-Language", "en"),
        )
        .await;
    assert_failure(status, &body, 400);
    assert_eq!(
        body["msg"],
        "The file's content does not match its extension .pdf"
    );
    let Reply {
        status, body: pdf, ..
    } = app.send(upload(b"%PDF-1.7\n%fake".to_vec(), "real.pdf")).await;
    assert_eq!(status, 200, "{pdf}");
    let res = app
        .client
        .get(app.url(pdf["data"]["link"].as_str().unwrap()))
        .send()
        .await
        .unwrap();
    assert_eq!(res.headers()["content-type"], "application/pdf");
    assert!(res.headers().get("content-disposition").is_none());
    // A file stored before uploads were checked, whose bytes are not what its name says, is a
    // download.
    let stored = up["data"]["name"].as_str().unwrap();
    std::fs::write(
        app.data_dir.join("files").join(stored),
        b"<html><script>alert(1)</script></html>",
    )
    .unwrap();
    let res = app.client.get(app.url(link)).send().await.unwrap();
    assert_eq!(res.headers()["content-disposition"], "attachment");
    assert_eq!(res.headers()["content-type"], "application/octet-stream");
    assert_eq!(res.headers()["x-content-type-options"], "nosniff");

    let Reply { status, body, .. } = app
        .send(
            app.client
                .post(app.url("/api/blade-resource/oss/endpoint/put-file")),
        )
        .await;
    assert_failure(status, &body, 401);
    app.stop().await;
}

#[tokio::test]
async fn profile_and_password_changes_validate_and_save_nothing_half() {
    let app = TestApp::start().await;
    let token = app.as_admin().await;
    let second = app.token_of("000000", "admin", "admin").await;
    let post = |body: Json| {
        token
            .request(Method::POST, "/api/blade-user/update-info")
            .json(&body)
    };
    let Reply { status, body, .. } = app
        .send(post(
            serde_json::json!({"realName": "张三", "name": "zs", "phone": "2380013800", "email": ""}),
        ))
        .await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "请输入正确的11位手机号码");
    let Reply { status, body, .. } = app
        .send(post(
            serde_json::json!({"realName": "张三", "avatar": "/not/uploaded.png"}),
        ))
        .await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "头像只能是jpg/png格式，且不超过500kb");
    let big = reqwest::multipart::Form::new().part(
        "file",
        reqwest::multipart::Part::bytes([&b"\x89PNG\r\n\x1a\n"[..], &vec![0u8; 600 * 1024]].concat())
            .file_name("big.png"),
    );
    let Reply { body: up, .. } = app
        .send(
            token
                .request(Method::POST, "/api/blade-resource/oss/endpoint/put-file")
                .multipart(big),
        )
        .await;
    let Reply { status, .. } = app
        .send(post(
            serde_json::json!({"realName": "张三", "avatar": up["data"]["link"]}),
        ))
        .await;
    assert_eq!(status, 400, "an avatar over 500 kB is refused");
    let Reply { body: info, .. } = app.send(token.request(Method::GET, "/api/blade-user/info")).await;
    assert_eq!(
        info["data"]["realName"], "管理员",
        "nothing saved by the refused calls"
    );

    let small = reqwest::multipart::Form::new().part(
        "file",
        reqwest::multipart::Part::bytes([&b"\x89PNG\r\n\x1a\n"[..], &[1u8; 1024][..]].concat())
            .file_name("a.png"),
    );
    let Reply { body: up, .. } = app
        .send(
            token
                .request(Method::POST, "/api/blade-resource/oss/endpoint/put-file")
                .multipart(small),
        )
        .await;
    let Reply { status, body, .. } = app.send(post(serde_json::json!({"realName": "张三", "name": "zs", "phone": "13800138000", "email": "zs@example.com", "avatar": up["data"]["link"]}))).await;
    assert_eq!(status, 200, "{body}");
    let Reply { body: info, .. } = app.send(token.request(Method::GET, "/api/blade-user/info")).await;
    assert_eq!(
        (info["data"]["realName"].as_str(), info["data"]["phone"].as_str()),
        (Some("张三"), Some("13800138000"))
    );
    assert_eq!(info["data"]["avatar"], up["data"]["link"]);

    let change = |old: &str, new: &str, again: &str| {
        token
            .request(Method::POST, "/api/blade-user/update-password")
            .query(&[
                ("oldPassword", md5_hex(old)),
                ("newPassword", md5_hex(new)),
                ("newPassword1", md5_hex(again)),
            ])
    };
    let Reply { status, body, .. } = app.send(change("admin", "n3w-Pass", "other")).await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "两次输入的密码不一致");
    let Reply { status, body, .. } = app.send(change("wrong", "n3w-Pass", "n3w-Pass")).await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "原密码不正确");
    let Reply { status, body, .. } = app.send(change("admin", "n3w-Pass", "n3w-Pass")).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(app.sign_in("000000", "admin", "admin").await.status, 400);
    assert_eq!(app.sign_in("000000", "admin", "n3w-Pass").await.status, 200);
    // This session goes on; the other one ended with the change.
    assert_eq!(
        app.send(token.request(Method::GET, "/api/blade-user/info"))
            .await
            .status,
        200
    );
    assert_eq!(
        app.send(app.as_user(&second).request(Method::GET, "/api/blade-user/info"))
            .await
            .status,
        401
    );
    app.stop().await;
}

#[tokio::test]
async fn guests_register_and_wait_for_approval() {
    let app = TestApp::start().await;
    // Self-registration is off unless the tenant allows it.
    app.exec(
        "UPDATE blade_tenant SET self_register = 1 WHERE tenant_id = '000000'",
        vec![],
    )
    .await;
    let register = |account: &str| {
        app.client
            .post(app.url("/api/blade-user/register-guest"))
            .query(&[
                ("tenantId", "000000"),
                ("name", "Guest"),
                ("account", account),
                ("password", &md5_hex("guest-pass")),
            ])
    };
    let Reply { status, body, .. } = app.send(register("guest_1")).await;
    assert_eq!(status, 200, "{body}");
    let first = body;
    // Taken: the same answer (no hint that the account exists), and still one account.
    let Reply { status, body, .. } = app.send(register("guest_1")).await;
    assert_eq!((status, &body), (200, &first));
    assert_eq!(
        app.scalar_i64(
            "SELECT COUNT(*) FROM blade_user WHERE account = 'guest_1'",
            vec![]
        )
        .await,
        1
    );
    let Reply { status, body, .. } = app.send(register("bad account!")).await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "请输入正确的用户名");
    let Reply { status, body, .. } = app.sign_in("000000", "guest_1", "guest-pass").await;
    oauth_error(status, &body, 400, "账号待管理员审批");
    app.stop().await;
}

#[tokio::test]
async fn the_alarm_websocket_needs_the_users_own_live_token() {
    let app = TestApp::start().await;
    let Reply { body, .. } = app.sign_in("000000", "admin", "admin").await;
    let token = body["access_token"].as_str().unwrap().to_owned();
    let user = body["user_id"].as_str().unwrap().to_owned();
    let ws_url =
        |user: &str, token: &str| format!("{}/ws/{user}?token={token}", app.base.replacen("http", "ws", 1));
    let (mut socket, _) = tokio_tungstenite::connect_async(ws_url(&user, &token))
        .await
        .expect("connect");
    let first = socket.next().await.expect("a message").expect("ok");
    let msg: Json = serde_json::from_str(first.to_text().unwrap()).unwrap();
    assert_eq!(
        msg,
        serde_json::json!({"data": [], "count": 0, "work": [], "workCount": 0})
    );
    socket
        .send(tokio_tungstenite::tungstenite::Message::Text("{}".into()))
        .await
        .unwrap();
    assert!(
        tokio_tungstenite::connect_async(ws_url("123", &token))
            .await
            .is_err(),
        "someone else's feed"
    );
    assert!(
        tokio_tungstenite::connect_async(ws_url(&user, "garbage"))
            .await
            .is_err()
    );
    app.send(
        app.as_user(&token)
            .request(Method::GET, "/api/blade-auth/oauth/logout"),
    )
    .await;
    assert!(
        tokio_tungstenite::connect_async(ws_url(&user, &token))
            .await
            .is_err(),
        "ended session"
    );
    app.stop().await;
}
