//! The one way tests talk to the hub over HTTP: a [`Client`] (anonymous, a signed-in user, or
//! the platform administrator) whose calls all answer a [`Reply`] (HTTP status and JSON body),
//! with the envelope checks of `shared/design/api-conventions.md` as methods.

use reqwest::{Method, RequestBuilder};
use serde_json::Value as Json;

use super::server::TestApp;

/// The console's client credentials (`saber` / `saber_secret`), sent on every call.
pub const BASIC_SABER: &str = "Basic c2FiZXI6c2FiZXJfc2VjcmV0";

/// The lowercase hex MD5 the console sends in place of a typed password.
pub fn md5_hex(s: &str) -> String {
    use md5::{Digest, Md5};
    hex::encode(Md5::digest(s.as_bytes()))
}

/// An answer: its HTTP status and JSON body, plus what was asked (for failure messages).
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub body: Json,
    pub call: String,
}

impl Reply {
    /// Asserts success (HTTP 200, and `code` 200 when the body is an envelope).
    #[track_caller]
    pub fn ok(self) -> Reply {
        assert_eq!(self.status, 200, "{}: {}", self.call, self.body);
        if let Some(code) = self.body.get("code") {
            assert_eq!(code, 200, "{}: {}", self.call, self.body);
        }
        self
    }

    /// Asserts the failure envelope with `code` (see [`assert_failure`]).
    #[track_caller]
    pub fn fails(self, code: u16) -> Reply {
        assert_failure(self.status, &self.body, code);
        self
    }

    /// The envelope's `data`.
    pub fn data(&self) -> Json {
        self.body["data"].clone()
    }

    /// The envelope's `msg` ("" when absent).
    pub fn msg(&self) -> &str {
        self.body["msg"].as_str().unwrap_or_default()
    }

    /// `data` as a new row's id (ids are JSON strings).
    #[track_caller]
    pub fn id(&self) -> String {
        self.body["data"]
            .as_str()
            .unwrap_or_else(|| panic!("{}: no id in {}", self.call, self.body))
            .to_owned()
    }
}

/// Asserts the failure envelope: HTTP status = code, success false, data null, a message.
#[track_caller]
pub fn assert_failure(status: u16, body: &Json, code: u16) {
    assert_eq!(status, code, "{body}");
    assert_eq!(body["code"], code, "{body}");
    assert_eq!(body["success"], false, "{body}");
    assert!(body["data"].is_null(), "{body}");
    assert!(body["msg"].as_str().is_some_and(|m| !m.is_empty()), "{body}");
}

/// An id sent as a JSON string, as a number.
#[track_caller]
pub fn int(id: &str) -> i64 {
    id.parse().unwrap_or_else(|_| panic!("not an id: {id}"))
}

/// A caller of the API: anonymous or with a bearer token, optionally in a language; of a
/// [`TestApp`] or of a hub reached only by its URL ([`Client::at`]).
#[derive(Clone)]
pub struct Client<'a> {
    app: Option<&'a TestApp>,
    http: reqwest::Client,
    base: String,
    token: Option<String>,
    lang: Option<String>,
}

impl TestApp {
    /// A caller that has not signed in.
    pub fn anon(&self) -> Client<'_> {
        Client {
            app: Some(self),
            http: self.client.clone(),
            base: self.base.clone(),
            token: None,
            lang: None,
        }
    }

    /// A caller signed in with `token`.
    pub fn as_user(&self, token: &str) -> Client<'_> {
        self.anon().with_token(token)
    }

    /// The platform administrator (tenant 000000, `admin` / `admin`), signed in now.
    pub async fn as_admin(&self) -> Client<'_> {
        let token = self.token_of("000000", "admin", "admin").await;
        self.as_user(&token)
    }

    /// An anonymous GET.
    pub async fn get(&self, path: &str) -> Reply {
        self.anon().get(path).await
    }

    /// Sends a request built by hand (custom headers, multipart...).
    pub async fn send(&self, req: RequestBuilder) -> Reply {
        send(req).await
    }

    /// A token call: query parameters and extra headers; the answer is flat JSON.
    pub async fn token_call(&self, params: &[(&str, &str)], headers: &[(&str, &str)]) -> Reply {
        self.anon().token_call(params, headers).await
    }

    /// The password grant with the console's MD5 of `password`.
    pub async fn sign_in(&self, tenant: &str, account: &str, password: &str) -> Reply {
        self.anon().sign_in(tenant, account, password).await
    }

    /// Signs in and returns the access token, panicking on failure.
    pub async fn token_of(&self, tenant: &str, account: &str, password: &str) -> String {
        self.anon().token_of(tenant, account, password).await
    }
}

/// Sends a request and reads its JSON answer.
pub async fn send(req: RequestBuilder) -> Reply {
    let call = req
        .try_clone()
        .and_then(|r| r.build().ok())
        .map(|r| match r.url().query() {
            Some(q) => format!("{} {}?{q}", r.method(), r.url().path()),
            None => format!("{} {}", r.method(), r.url().path()),
        })
        .unwrap_or_default();
    let res = req.send().await.expect("request");
    let status = res.status().as_u16();
    let body = res.json().await.expect("JSON body");
    Reply { status, body, call }
}

impl Client<'static> {
    /// An anonymous caller of a hub reached by its base URL (a hub run as its own process).
    pub fn at(base: &str) -> Client<'static> {
        Client {
            app: None,
            http: crate::support::client::http(),
            base: base.to_owned(),
            token: None,
            lang: None,
        }
    }
}

impl<'a> Client<'a> {
    /// The hub this caller talks to, when it runs in this process.
    pub fn app(&self) -> &'a TestApp {
        self.app.expect("a hub started by the test")
    }

    /// The same hub, signed in with `token`.
    pub fn with_token(&self, token: &str) -> Client<'a> {
        Client {
            token: Some(token.to_owned()),
            ..self.clone()
        }
    }

    /// A token call: query parameters and extra headers; the answer is flat JSON.
    pub async fn token_call(&self, params: &[(&str, &str)], headers: &[(&str, &str)]) -> Reply {
        let mut req = self
            .http
            .post(format!("{}/api/blade-auth/oauth/token", self.base))
            .query(params)
            .header("Authorization", BASIC_SABER);
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        send(req).await
    }

    /// The password grant with the console's MD5 of `password`.
    pub async fn sign_in(&self, tenant: &str, account: &str, password: &str) -> Reply {
        let pw = md5_hex(password);
        self.token_call(
            &[
                ("tenantId", tenant),
                ("username", account),
                ("password", &pw),
                ("grant_type", "password"),
                ("scope", "all"),
            ],
            &[("Tenant-Id", tenant)],
        )
        .await
    }

    /// Signs in and returns the access token, panicking on failure.
    pub async fn token_of(&self, tenant: &str, account: &str, password: &str) -> String {
        let Reply { status, body, .. } = self.sign_in(tenant, account, password).await;
        assert_eq!(status, 200, "sign in {tenant}/{account}: {body}");
        body["access_token"].as_str().expect("access_token").to_owned()
    }

    /// The same caller asking in `lang` (`Accept-Language`).
    pub fn lang(&self, lang: &str) -> Client<'a> {
        Client {
            lang: Some(lang.to_owned()),
            ..self.clone()
        }
    }

    /// The same caller asking in English.
    pub fn en(&self) -> Client<'a> {
        self.lang("en")
    }

    /// A request with this caller's headers, to finish by hand and [`TestApp::send`].
    pub fn request(&self, method: Method, path: &str) -> RequestBuilder {
        let mut req = self.http.request(method, format!("{}{path}", self.base));
        if let Some(t) = &self.token {
            req = req.header("Blade-Auth", format!("bearer {t}"));
        }
        if let Some(l) = &self.lang {
            req = req.header("Accept-Language", l);
        }
        req
    }

    /// A call with an optional JSON body.
    pub async fn send(&self, method: Method, path: &str, body: Option<Json>) -> Reply {
        let mut req = self.request(method, path);
        if let Some(b) = body {
            req = req.json(&b);
        }
        send(req).await
    }

    pub async fn get(&self, path: &str) -> Reply {
        self.send(Method::GET, path, None).await
    }

    pub async fn get_query(&self, path: &str, query: &[(&str, &str)]) -> Reply {
        send(self.request(Method::GET, path).query(query)).await
    }

    /// GETs `path`, asserts success and returns `data`.
    pub async fn get_data(&self, path: &str) -> Json {
        self.get(path).await.ok().data()
    }

    pub async fn post(&self, path: &str) -> Reply {
        self.send(Method::POST, path, None).await
    }

    pub async fn post_json(&self, path: &str, body: Json) -> Reply {
        self.send(Method::POST, path, Some(body)).await
    }

    /// POSTs `body`, asserts success and returns `data`.
    pub async fn post_data(&self, path: &str, body: Json) -> Json {
        self.post_json(path, body).await.ok().data()
    }

    /// The list family's insert-or-update: POST `{base}/submit`.
    pub async fn submit(&self, base: &str, body: Json) -> Reply {
        self.post_json(&format!("{base}/submit"), body).await
    }

    /// The list family's (logical) delete: POST `{base}/remove?ids=1,2,3`.
    pub async fn remove(&self, base: &str, ids: &str) -> Reply {
        self.post(&format!("{base}/remove?ids={ids}")).await
    }

    pub async fn post_query(&self, path: &str, query: &[(&str, &str)]) -> Reply {
        send(self.request(Method::POST, path).query(query)).await
    }

    pub async fn put(&self, path: &str) -> Reply {
        self.send(Method::PUT, path, None).await
    }

    pub async fn put_json(&self, path: &str, body: Json) -> Reply {
        self.send(Method::PUT, path, Some(body)).await
    }

    pub async fn delete(&self, path: &str) -> Reply {
        self.send(Method::DELETE, path, None).await
    }

    /// Uploads `bytes` as `file_name` (multipart field `file`) to `path`.
    pub async fn upload_file(&self, path: &str, file_name: &str, bytes: Vec<u8>) -> Reply {
        let form = reqwest::multipart::Form::new().part(
            "file",
            reqwest::multipart::Part::bytes(bytes).file_name(file_name.to_owned()),
        );
        send(self.request(Method::POST, path).multipart(form)).await
    }

    /// A call answering (status, headers, raw body), for downloads.
    pub async fn raw(&self, method: Method, path: &str) -> (u16, reqwest::header::HeaderMap, Vec<u8>) {
        let res = self.request(method, path).send().await.expect("request");
        let status = res.status().as_u16();
        let headers = res.headers().clone();
        let body = res.bytes().await.expect("body").to_vec();
        (status, headers, body)
    }

    /// GETs `path` until `done` accepts the body (rows written off the request's path, such as
    /// log rows, appear a moment later); panics after 10 s.
    pub async fn poll(&self, path: &str, done: impl Fn(&Json) -> bool) -> Json {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        loop {
            let Reply { status, body, .. } = self.get(path).await;
            if status == 200 && done(&body) {
                return body;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "gave up waiting on {path}: {body}"
            );
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    }
}

/// An id sent as a JSON string (`data` of a create, an `id` field), as a number.
#[track_caller]
pub fn json_id(v: &Json) -> i64 {
    v.as_str().expect("id string").parse().expect("id")
}

/// A reqwest client builder. The hub's reqwest runs rustls without a bundled crypto provider
/// (ring is installed as the process default, never aws-lc), and features are shared with the
/// tests' reqwest: so every client here installs ring first, or building it panics.
pub fn http_builder() -> reqwest::ClientBuilder {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
}

/// A default reqwest client (see [`http_builder`]).
pub fn http() -> reqwest::Client {
    http_builder().build().expect("http client")
}
