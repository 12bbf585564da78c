//! Abuse resistance of the anonymous doors: sign-in throttling by account and client address
//! (no hard lock anyone could trigger, unknown accounts indistinguishable), guest registration
//! without existence hints and only where a tenant allows it, and per-address rate limits
//! answering 429 in the envelope.

use crate::support;

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{Value as Json, json};
use support::{BASIC_SABER, TestApp, md5_hex};

/// The hub trusts the loopback as its proxy, so a test can speak for several client addresses.
async fn behind_proxy(tweak: impl FnOnce(&mut pv_cloud::config::Config)) -> TestApp {
    TestApp::start_configured(|c| {
        c.limits.trusted_proxies = vec!["127.0.0.1".into()];
        tweak(c);
    })
    .await
}

struct Answer {
    status: u16,
    retry_after: Option<String>,
    body: Json,
}

async fn answer(req: reqwest::RequestBuilder) -> Answer {
    let res = req.send().await.expect("request");
    let status = res.status().as_u16();
    let retry_after = res
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let body = res.json().await.expect("JSON body");
    Answer {
        status,
        retry_after,
        body,
    }
}

/// A sign-in from `from` (the address the trusted proxy names) with the given grant.
async fn sign_in_from(app: &TestApp, from: &str, account: &str, password: &str, grant: &str) -> Answer {
    let pw = md5_hex(password);
    let mut req = app
        .client
        .post(app.url("/api/blade-auth/oauth/token"))
        .query(&[
            ("tenantId", "000000"),
            ("username", account),
            ("password", pw.as_str()),
            ("grant_type", grant),
            ("scope", "all"),
        ])
        .header("Authorization", BASIC_SABER)
        .header("X-Forwarded-For", from);
    if grant == "captcha" {
        let (key, code) = captcha_answer(app, from).await;
        req = req.header("Captcha-Key", key).header("Captcha-Code", code);
    }
    answer(req).await
}

async fn captcha_answer(app: &TestApp, from: &str) -> (String, String) {
    let c = answer(
        app.client
            .get(app.url("/api/blade-auth/oauth/captcha"))
            .header("X-Forwarded-For", from),
    )
    .await;
    assert_eq!(c.status, 200, "{}", c.body);
    let key = c.body["key"].as_str().expect("key").to_owned();
    let code = app
        .scalar_text(
            "SELECT answer FROM blade_captcha WHERE captcha_key = ?",
            vec![key.clone().into()],
        )
        .await
        .expect("answer");
    (key, code)
}

fn description(a: &Answer) -> &str {
    a.body["error_description"].as_str().unwrap_or("")
}

const ATTACKER: &str = "203.0.113.9";
const OWNER: &str = "198.51.100.20";
const WRONG: &str = "用户名或密码不正确";

#[tokio::test]
async fn wrong_passwords_slow_one_address_for_one_account_and_never_lock_out_the_owner() {
    let app = behind_proxy(|_| {}).await;
    app.create_tenant_user("000000", "bob", "bob-pass", &["equipmentMap"], None)
        .await;
    // Three free failures, for an existing and for an unknown account alike.
    for account in ["bob", "nobody"] {
        for _ in 0..3 {
            let a = sign_in_from(&app, ATTACKER, account, "nope", "password").await;
            assert_eq!((a.status, description(&a)), (400, WRONG), "{}", a.body);
        }
    }
    // Then a wait, said plainly, the same for both — even the right password waits.
    for (account, password) in [("bob", "nope"), ("nobody", "nope"), ("bob", "bob-pass")] {
        let a = sign_in_from(&app, ATTACKER, account, password, "password").await;
        assert_eq!(a.status, 429, "{account}: {}", a.body);
        assert_eq!(a.body["error_code"], 429);
        let text = description(&a);
        assert!(
            text.starts_with("登录失败次数过多，请") && text.ends_with("秒后再试"),
            "{text}"
        );
        assert!(a.retry_after.is_some(), "Retry-After");
        assert!(a.body.get("access_token").is_none());
    }
    // The owner, from another address, is not slowed at all.
    let a = sign_in_from(&app, OWNER, "bob", "bob-pass", "password").await;
    assert_eq!(a.status, 200, "{}", a.body);
    // No account is marked locked for the owner's address; for the administrator it shows as
    // throttled while an address waits.
    // After the wait, the attacker's address must bring a captcha: same for both accounts.
    tokio::time::sleep(Duration::from_millis(2_100)).await;
    for account in ["bob", "nobody"] {
        let a = sign_in_from(&app, ATTACKER, account, "nope", "password").await;
        assert_eq!(
            (a.status, description(&a)),
            (400, "登录失败次数过多，请输入验证码后登录"),
            "{account}: {}",
            a.body
        );
    }
    // With the captcha, the next wrong password counts and doubles the wait (4 s now).
    let a = sign_in_from(&app, ATTACKER, "bob", "nope", "captcha").await;
    assert_eq!((a.status, description(&a)), (400, WRONG), "{}", a.body);
    let a = sign_in_from(&app, ATTACKER, "bob", "bob-pass", "captcha").await;
    assert_eq!(a.status, 429, "{}", a.body);
    assert!(
        matches!(a.retry_after.as_deref(), Some("3" | "4")),
        "{:?}",
        a.retry_after
    );
    // The administrator's unlock clears the account's throttle from every address.
    let bob_id = app
        .scalar_text(
            "SELECT CAST(id AS VARCHAR(30)) FROM blade_user WHERE account = 'bob'",
            vec![],
        )
        .await
        .unwrap();
    let admin = app.as_admin().await;
    let listed = admin
        .get_query("/api/blade-user/detail", &[("id", &bob_id)])
        .await;
    assert_eq!(listed.body["data"]["locked"], true, "{}", listed.body);
    let r = admin
        .post_query("/api/blade-user/unlock", &[("userIds", &bob_id)])
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let a = sign_in_from(&app, ATTACKER, "bob", "bob-pass", "password").await;
    assert_eq!(a.status, 200, "{}", a.body);
    let listed = admin
        .get_query("/api/blade-user/detail", &[("id", &bob_id)])
        .await;
    assert_eq!(listed.body["data"]["locked"], false, "{}", listed.body);
    app.stop().await;
}

#[tokio::test]
async fn one_address_cannot_spray_many_accounts() {
    let app = behind_proxy(|c| c.auth.throttle_address_failures = 5).await;
    for i in 0..5 {
        let a = sign_in_from(&app, ATTACKER, &format!("victim{i}"), "guess", "password").await;
        assert_eq!((a.status, description(&a)), (400, WRONG), "{}", a.body);
    }
    // A sixth account, never tried, is refused from that address; not from another.
    let a = sign_in_from(&app, ATTACKER, "admin", "admin", "password").await;
    assert_eq!(a.status, 429, "{}", a.body);
    assert!(description(&a).contains("秒后再试"), "{}", a.body);
    let a = sign_in_from(&app, OWNER, "admin", "admin", "password").await;
    assert_eq!(a.status, 200, "{}", a.body);
    app.stop().await;
}

/// Unknown accounts cost the same argon2 work as wrong passwords: the median answer times of
/// the two stay within a factor of two (without the dummy hash an unknown account answers
/// many times faster).
#[tokio::test]
async fn unknown_accounts_answer_like_wrong_passwords_in_the_same_time() {
    let app = TestApp::start_configured(|c| {
        c.auth.throttle_free_failures = 1000;
        c.auth.throttle_captcha_after = 1000;
        c.auth.throttle_address_failures = 1000;
    })
    .await;
    // Warm-up: the first sign-in makes the dummy hash.
    app.sign_in("000000", "admin", "admin").await;
    let mut wrong = Vec::new();
    let mut unknown = Vec::new();
    let mut bodies = Vec::new();
    for i in 0..11 {
        let ghost = format!("ghost{i}");
        // Alternate which goes first, so a busy moment of the machine hits both alike.
        let order = if i % 2 == 0 { [true, false] } else { [false, true] };
        for known in order {
            let account = if known { "admin" } else { ghost.as_str() };
            let started = Instant::now();
            let r = app.sign_in("000000", account, "not-the-password").await;
            let took = started.elapsed();
            if known {
                wrong.push(took)
            } else {
                unknown.push(took)
            }
            bodies.push((r.status, r.body));
        }
    }
    for (status, body) in &bodies {
        assert_eq!(*status, 400);
        assert_eq!(body["error_description"], WRONG, "{body}");
    }
    let median = |v: &mut Vec<Duration>| {
        v.sort();
        v[v.len() / 2]
    };
    let (w, u) = (median(&mut wrong), median(&mut unknown));
    let ratio = u.as_secs_f64() / w.as_secs_f64();
    eprintln!("median wrong password {w:?}, unknown account {u:?}, ratio {ratio:.2}");
    assert!(
        (0.5..2.0).contains(&ratio),
        "wrong password {w:?} vs unknown account {u:?}"
    );
    app.stop().await;
}

fn register(app: &TestApp, tenant: &str, account: &str) -> reqwest::RequestBuilder {
    app.client
        .post(app.url("/api/blade-user/register-guest"))
        .query(&[
            ("tenantId", tenant),
            ("name", "Guest"),
            ("account", account),
            ("password", &md5_hex("guest-pass")),
        ])
}

const RECEIVED: &str = "申请已收到：有效的注册申请将交由租户管理员审核，审核通过后方可登录";

#[tokio::test]
async fn registration_gives_no_hints_and_needs_the_tenant_to_allow_it() {
    let app = TestApp::start_configured(|c| c.limits.register.burst = 50).await;
    let pending = async |account: &str| {
        app.scalar_i64(
            "SELECT COUNT(*) FROM blade_user WHERE account = ? AND status = 2 AND is_deleted = 0",
            vec![account.into()],
        )
        .await
    };
    let same = |a: &Answer, what: &str| {
        assert_eq!(a.status, 200, "{what}: {}", a.body);
        assert_eq!(a.body["data"], RECEIVED, "{what}: {}", a.body);
    };
    // Off by default: the same answer, and nothing created.
    same(
        &answer(register(&app, "000000", "guest_1")).await,
        "closed tenant",
    );
    assert_eq!(pending("guest_1").await, 0);
    same(
        &answer(register(&app, "999999", "guest_1")).await,
        "unknown tenant",
    );
    same(
        &answer(register(&app, "000000", "admin")).await,
        "existing account",
    );
    // The platform administrator opens the tenant to registration.
    let admin = app.as_admin().await;
    let tenants = admin
        .get_query("/api/blade-system/tenant/list", &[("tenantId", "000000")])
        .await;
    let row = &tenants.body["data"]["records"][0];
    assert_eq!(row["selfRegister"], 0, "off by default: {row}");
    let r = admin
        .post_json(
            "/api/blade-system/tenant/submit",
            json!({"id": row["id"], "tenantName": row["tenantName"], "selfRegister": 1}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    // A tenant added without saying is closed to registration.
    let r = admin
        .post_json(
            "/api/blade-system/tenant/submit",
            json!({"tenantName": "新租户", "selfRegister": null}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let added = admin
        .get_query("/api/blade-system/tenant/list", &[("tenantName", "新租户")])
        .await;
    let closed = &added.body["data"]["records"][0]["selfRegister"];
    assert!(closed.is_null() || *closed == 0, "{}", added.body);
    same(&answer(register(&app, "000000", "guest_1")).await, "created");
    assert_eq!(pending("guest_1").await, 1);
    same(&answer(register(&app, "000000", "guest_1")).await, "taken");
    assert_eq!(pending("guest_1").await, 1);
    same(
        &answer(register(&app, "000000", "admin")).await,
        "existing account",
    );
    // Malformed input is still named (it says nothing about what exists).
    let a = answer(register(&app, "000000", "bad account!")).await;
    assert_eq!(
        (a.status, a.body["msg"].as_str()),
        (400, Some("请输入正确的用户名"))
    );
    // English too.
    let a = answer(register(&app, "999999", "guest_2").header("Accept-Language", "en")).await;
    assert_eq!(
        a.body["data"],
        "Request received: a valid registration goes to the tenant's administrator for approval; you can sign in once it is approved"
    );
    app.stop().await;
}

/// Each limited route, hammered from one address past a small quota, answers 429 in the
/// envelope with `Retry-After`; other routes and other addresses are not affected.
#[tokio::test]
async fn hammered_routes_answer_429_in_the_envelope_and_others_do_not() {
    let app = behind_proxy(|c| {
        let q = pv_cloud::config::RateQuota {
            burst: 3,
            per_minute: 1,
        };
        let l = &mut c.limits;
        (l.sign_in, l.captcha, l.register, l.password, l.upload) = (q, q, q, q, q);
    })
    .await;
    // Signed in from its own address, so the sign-in quota of the hammering address stays full.
    let token = {
        let a = sign_in_from(&app, "192.0.2.200", "admin", "admin", "password").await;
        a.body["access_token"].as_str().expect("token").to_owned()
    };
    let pw = md5_hex("admin");
    let calls: Vec<(&str, Method, String)> = vec![
        (
            "sign-in",
            Method::POST,
            format!(
                "/api/blade-auth/oauth/token?tenantId=000000&username=admin&password={pw}&grant_type=password"
            ),
        ),
        ("captcha", Method::GET, "/api/blade-auth/oauth/captcha".into()),
        (
            "register",
            Method::POST,
            "/api/blade-user/register-guest?tenantId=000000&name=G&account=g1&password=x".into(),
        ),
        (
            "password",
            Method::POST,
            "/api/blade-user/update-password?oldPassword=a&newPassword=b&newPassword1=b".into(),
        ),
        (
            "upload",
            Method::POST,
            "/api/blade-resource/oss/endpoint/put-file".into(),
        ),
    ];
    for (i, (what, method, path)) in calls.iter().enumerate() {
        let from = format!("192.0.2.{}", i + 1);
        let call = |from: &str, lang: &str| {
            let req = app
                .client
                .request(method.clone(), app.url(path))
                .header("Authorization", BASIC_SABER)
                .header("Blade-Auth", format!("bearer {token}"))
                .header("X-Forwarded-For", from)
                .header("Accept-Language", lang);
            if *what == "upload" {
                let part = reqwest::multipart::Part::bytes(b"plain text".to_vec()).file_name("note.txt");
                req.multipart(reqwest::multipart::Form::new().part("file", part))
            } else {
                req
            }
        };
        for _ in 0..3 {
            let a = answer(call(&from, "zh")).await;
            assert_ne!(a.status, 429, "{what} within its quota: {}", a.body);
        }
        let a = answer(call(&from, "zh")).await;
        assert_eq!(a.status, 429, "{what}: {}", a.body);
        assert_eq!(a.body["code"], 429, "{what}: in the envelope");
        assert_eq!(a.body["success"], false);
        let msg = a.body["msg"].as_str().unwrap_or("");
        assert!(
            msg.starts_with("请求过于频繁，请") && msg.ends_with("秒后再试"),
            "{msg}"
        );
        let wait: u64 = a
            .retry_after
            .as_deref()
            .and_then(|s| s.parse().ok())
            .expect("Retry-After");
        assert!((1..=60).contains(&wait), "{wait}");
        let a = answer(call(&from, "en")).await;
        assert!(
            a.body["msg"]
                .as_str()
                .unwrap_or("")
                .starts_with("Too many requests: try again in"),
            "{}",
            a.body
        );
        // Another address is not limited by this one's calls.
        let a = answer(call("192.0.2.100", "zh")).await;
        assert_ne!(a.status, 429, "{what} from another address: {}", a.body);
        // Nor are other routes, from the hammering address.
        let a = answer(
            app.client
                .get(app.url("/api/blade-user/info"))
                .header("Blade-Auth", format!("bearer {token}"))
                .header("X-Forwarded-For", from.as_str()),
        )
        .await;
        assert_eq!(a.status, 200, "{what}: other routes: {}", a.body);
    }
    app.stop().await;
}
