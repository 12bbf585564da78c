//! SMS configurations and sending through mock providers that check each provider's signature
//! (implemented here again from the providers' public documentation, independently of the hub's
//! code); verification codes, `phone/update-password` and what `/forget` relies on.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::http::{HeaderMap, StatusCode};
use hmac::{Hmac, Mac};
use pv_cloud::kernel::sql::Value;
use serde_json::{Value as Json, json};
use sha2::{Digest, Sha256};

use crate::support::process::free_port;
use crate::support::{TestApp, md5_hex};

const SMS: &str = "/api/blade-resource/sms";
const SEND_VALIDATE: &str = "/api/blade-resource/sms/endpoint/send-validate";
const RESET: &str = "/api/blade-user/phone/update-password";
const PHONE: &str = "13800000001";
pub(crate) const SECRET: &str = "provider-secret-9f";

/// What a mock provider accepted: (provider, phones, template variables).
type Inbox = Arc<Mutex<Vec<(String, Vec<String>, Json)>>>;

fn enc(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// Aliyun RPC signature v1.0 (HMAC-SHA1), from Aliyun's "request signature" page.
fn aliyun_ok(form: &BTreeMap<String, String>) -> bool {
    use base64::Engine;
    let mut params = form.clone();
    let Some(given) = params.remove("Signature") else {
        return false;
    };
    let canonical: Vec<String> = params
        .iter()
        .map(|(k, v)| format!("{}={}", enc(k), enc(v)))
        .collect();
    let to_sign = format!("POST&%2F&{}", enc(&canonical.join("&")));
    let mut mac = Hmac::<sha1::Sha1>::new_from_slice(format!("{SECRET}&").as_bytes()).unwrap();
    mac.update(to_sign.as_bytes());
    base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes()) == given
}

fn h(key: &[u8], msg: &str) -> Vec<u8> {
    let mut mac = Hmac::<Sha256>::new_from_slice(key).unwrap();
    mac.update(msg.as_bytes());
    mac.finalize().into_bytes().to_vec()
}

/// Tencent Cloud API 3.0 TC3-HMAC-SHA256, from Tencent's "signature v3" page.
fn tencent_ok(headers: &HeaderMap, body: &str) -> bool {
    let get = |k: &str| {
        headers
            .get(k)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned()
    };
    let ts: i64 = get("x-tc-timestamp").parse().unwrap_or(0);
    let date = chrono::DateTime::from_timestamp(ts, 0)
        .unwrap()
        .format("%Y-%m-%d")
        .to_string();
    let canonical = format!(
        "POST\n/\n\ncontent-type:{}\nhost:{}\n\ncontent-type;host\n{}",
        get("content-type"),
        get("host"),
        hex::encode(Sha256::digest(body.as_bytes()))
    );
    let to_sign = format!(
        "TC3-HMAC-SHA256\n{ts}\n{date}/sms/tc3_request\n{}",
        hex::encode(Sha256::digest(canonical.as_bytes()))
    );
    let key = h(
        &h(&h(format!("TC3{SECRET}").as_bytes(), &date), "sms"),
        "tc3_request",
    );
    let expected = format!(
        "TC3-HMAC-SHA256 Credential=AKID-test/{date}/sms/tc3_request, SignedHeaders=content-type;host, Signature={}",
        hex::encode(h(&key, &to_sign))
    );
    get("authorization") == expected && (chrono::Utc::now().timestamp() - ts).abs() < 300
}

/// A mock of the three providers on one port; `down` answers 503 to everything.
pub(crate) struct Mock {
    pub(crate) url: String,
    inbox: Inbox,
    pub(crate) down: Arc<std::sync::atomic::AtomicBool>,
}

pub(crate) async fn start_mock() -> Mock {
    let inbox: Inbox = Arc::default();
    let down = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let (i1, i2, i3) = (inbox.clone(), inbox.clone(), inbox.clone());
    let (d1, d2) = (down.clone(), down.clone());
    let app = axum::Router::new()
        .route(
            "/aliyun/",
            axum::routing::post(move |body: Bytes| async move {
                if d1.load(std::sync::atomic::Ordering::SeqCst) {
                    return (StatusCode::SERVICE_UNAVAILABLE, String::new());
                }
                let form: BTreeMap<String, String> = serde_urlencoded::from_bytes(&body).unwrap_or_default();
                if !aliyun_ok(&form) || form.get("Action").map(String::as_str) != Some("SendSms") {
                    return (StatusCode::BAD_REQUEST, json!({"Code": "SignatureDoesNotMatch", "Message": "bad signature"}).to_string());
                }
                let phones = form["PhoneNumbers"].split(',').map(str::to_owned).collect();
                let params: Json = serde_json::from_str(&form["TemplateParam"]).unwrap_or_default();
                i1.lock().unwrap().push(("aliyun".into(), phones, params));
                (StatusCode::OK, json!({"Code": "OK", "Message": "OK", "BizId": "1", "RequestId": "r"}).to_string())
            }),
        )
        .route(
            "/",
            axum::routing::post(move |headers: HeaderMap, body: String| async move {
                if d2.load(std::sync::atomic::Ordering::SeqCst) {
                    return (StatusCode::SERVICE_UNAVAILABLE, String::new());
                }
                if !tencent_ok(&headers, &body) {
                    return (StatusCode::OK, json!({"Response": {"Error": {"Code": "AuthFailure.SignatureFailure", "Message": "bad"}}}).to_string());
                }
                let v: Json = serde_json::from_str(&body).unwrap();
                let phones = v["PhoneNumberSet"].as_array().unwrap().iter().map(|p| p.as_str().unwrap().to_owned()).collect();
                i2.lock().unwrap().push(("tencent".into(), phones, v["TemplateParamSet"].clone()));
                (StatusCode::OK, json!({"Response": {"SendStatusSet": [{"Code": "Ok", "Message": "send success"}], "RequestId": "r"}}).to_string())
            }),
        )
        .route(
            "/generic",
            axum::routing::post(move |headers: HeaderMap, body: String| async move {
                let ts = headers["x-timestamp"].to_str().unwrap().to_owned();
                if headers["x-signature"].to_str().unwrap() != hex::encode(h(SECRET.as_bytes(), &format!("{ts}\n{body}"))) {
                    return StatusCode::UNAUTHORIZED;
                }
                let v: Json = serde_json::from_str(&body).unwrap();
                let phones = v["phones"].as_array().unwrap().iter().map(|p| p.as_str().unwrap().to_owned()).collect();
                i3.lock().unwrap().push(("generic".into(), phones, v["params"].clone()));
                StatusCode::OK
            }),
        );
    let port = free_port();
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await.unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    Mock {
        url: format!("http://127.0.0.1:{port}"),
        inbox,
        down,
    }
}

impl Mock {
    pub(crate) fn taken(&self) -> Vec<(String, Vec<String>, Json)> {
        self.inbox.lock().unwrap().clone()
    }

    /// Waits (a few seconds at most) for the `n`th message and returns it.
    pub(crate) async fn nth(&self, n: usize) -> (String, Vec<String>, Json) {
        for _ in 0..100 {
            if let Some(m) = self.taken().get(n - 1) {
                return m.clone();
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        panic!("message {n} never reached the provider: {:?}", self.taken());
    }
}

async fn form(app: &TestApp, path: &str, pairs: &[(&str, &str)]) -> crate::support::Reply {
    let body = serde_urlencoded::to_string(pairs).unwrap();
    crate::support::client::send(
        app.anon()
            .request(reqwest::Method::POST, path)
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body),
    )
    .await
}

#[tokio::test]
async fn providers_get_signed_calls_and_a_phone_code_resets_a_password_once() {
    let mock = start_mock().await;
    let app = TestApp::start().await;
    let admin = app.as_admin().await;
    app.exec(
        "UPDATE blade_user SET phone = ? WHERE account = 'admin'",
        vec![Value::from(PHONE)],
    )
    .await;

    // Without an enabled configuration nothing can be sent.
    let none = form(&app, SEND_VALIDATE, &[("phone", PHONE)]).await.fails(400);
    assert!(none.msg().contains("短信服务未配置"), "{}", none.msg());

    let aliyun = admin
        .submit(
            SMS,
            json!({"category": 1, "smsCode": "ali", "templateId": "SMS_1", "accessKey": "LTAI-test",
            "secretKey": SECRET, "signName": "光伏运维", "endpoint": format!("{}/aliyun", mock.url)}),
        )
        .await
        .ok()
        .id();
    let listed = admin.get(&format!("{SMS}/list?current=1&size=10")).await.ok();
    assert!(
        !listed.body.to_string().contains(SECRET),
        "the secret is never answered"
    );
    admin.post(&format!("{SMS}/enable?id={aliyun}")).await.ok();

    // An administrator's message, signed as Aliyun checks it.
    admin
        .post_query(
            "/api/blade-resource/sms/endpoint/send-message",
            &[
                ("code", "ali"),
                ("phones", "13900000002,13900000003"),
                ("params", r#"{"station":"一号站"}"#),
            ],
        )
        .await
        .ok();
    let (who, phones, params) = mock.nth(1).await;
    assert_eq!(
        (who.as_str(), phones.len(), params["station"].as_str()),
        ("aliyun", 2, Some("一号站"))
    );

    // A code for a known phone arrives; the answer carries only an id.
    let sent = form(&app, SEND_VALIDATE, &[("phone", PHONE)]).await.ok();
    let id = sent.data()["id"].as_str().unwrap().to_owned();
    let (_, phones, params) = mock.nth(2).await;
    assert_eq!(phones, vec![PHONE.to_owned()]);
    let code = params["code"].as_str().unwrap().to_owned();
    assert_eq!(code.len(), 6);
    // Again within a minute: refused.
    form(&app, SEND_VALIDATE, &[("phone", PHONE)]).await.fails(429);

    let new = md5_hex("n3w-secret");
    let reset = |id: String, value: String| {
        let new = new.clone();
        let app = &app;
        async move {
            form(
                app,
                RESET,
                &[
                    ("phone", PHONE),
                    ("id", &id),
                    ("value", &value),
                    ("newPassword", &new),
                    ("newPassword1", &new),
                ],
            )
            .await
        }
    };
    let wrong = reset(id.clone(), "000000".into()).await.fails(400);
    assert!(wrong.msg().contains("验证码"), "{}", wrong.msg());
    reset(id.clone(), code.clone()).await.ok();
    assert_eq!(app.sign_in("000000", "admin", "n3w-secret").await.status, 200);
    // The reset ended the account's sessions: the old token no longer works.
    admin
        .get(&format!("{SMS}/list?current=1&size=10"))
        .await
        .fails(401);
    let token = app.token_of("000000", "admin", "n3w-secret").await;
    let admin = app.as_user(&token);
    // Used once: the same code again is refused.
    reset(id.clone(), code.clone()).await.fails(400);

    // An unknown phone: the same answer, and no message goes out.
    let unknown = form(&app, SEND_VALIDATE, &[("phone", "13700000009")]).await.ok();
    assert!(unknown.data()["id"].is_string());
    assert_eq!(
        unknown.data().as_object().unwrap().len(),
        sent.data().as_object().unwrap().len()
    );
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(
        mock.taken().len(),
        2,
        "nothing sent to a phone without an account"
    );
    let guess = form(
        &app,
        RESET,
        &[
            ("phone", "13700000009"),
            ("id", unknown.data()["id"].as_str().unwrap()),
            ("value", "123456"),
            ("newPassword", &new),
            ("newPassword1", &new),
        ],
    )
    .await
    .fails(400);
    assert_eq!(guess.msg(), wrong.msg(), "unknown accounts look like wrong codes");

    // An expired code is refused even when right.
    app.exec(
        "UPDATE blade_sms_code SET create_time = create_time - 3600000",
        vec![],
    )
    .await;
    let again = form(&app, SEND_VALIDATE, &[("phone", PHONE)]).await.ok();
    let (_, _, params) = mock.nth(3).await;
    app.exec(
        "UPDATE blade_sms_code SET expire_time = 1 WHERE id = ?",
        vec![Value::Int(again.data()["id"].as_str().unwrap().parse().unwrap())],
    )
    .await;
    reset(
        again.data()["id"].as_str().unwrap().to_owned(),
        params["code"].as_str().unwrap().to_owned(),
    )
    .await
    .fails(400);

    // Tencent Cloud (TC3-HMAC-SHA256) and a generic HTTP gateway.
    admin
        .submit(
            SMS,
            json!({"category": 2, "smsCode": "tc", "templateId": "1001", "accessKey": "AKID-test",
            "secretKey": SECRET, "signName": "光伏运维", "appId": "1400000000", "endpoint": mock.url}),
        )
        .await
        .ok();
    admin
        .post_query(
            "/api/blade-resource/sms/endpoint/send-message",
            &[
                ("code", "tc"),
                ("phones", "13900000002"),
                ("params", r#"{"a":"1","b":"2"}"#),
            ],
        )
        .await
        .ok();
    let (who, phones, params) = mock.nth(4).await;
    assert_eq!(
        (who.as_str(), phones, params),
        ("tencent", vec!["+8613900000002".to_owned()], json!(["1", "2"]))
    );
    admin
        .submit(
            SMS,
            json!({"category": 3, "smsCode": "gw", "templateId": "alarm", "secretKey": SECRET,
            "endpoint": format!("{}/generic", mock.url)}),
        )
        .await
        .ok();
    admin
        .post_query(
            "/api/blade-resource/sms/endpoint/send-message",
            &[
                ("code", "gw"),
                ("phones", "13900000002"),
                ("params", r#"{"x":"y"}"#),
            ],
        )
        .await
        .ok();
    assert_eq!(mock.nth(5).await.0, "generic");

    // A wrong secret fails the signature check, and the refusal is told.
    admin
        .submit(
            SMS,
            json!({"category": 2, "smsCode": "tc-bad", "templateId": "1001", "accessKey": "AKID-test",
            "secretKey": "not-the-secret", "appId": "1", "endpoint": mock.url}),
        )
        .await
        .ok();
    let refused = admin
        .post_query(
            "/api/blade-resource/sms/endpoint/send-message",
            &[("code", "tc-bad"), ("phones", "13900000002")],
        )
        .await
        .fails(400);
    assert!(refused.msg().contains("AuthFailure"), "{}", refused.msg());
    let _ = &mock.down;
}
