//! OAuth client administration (platform only). A client's secret is write-only: it is hashed on
//! the way in and never answered, so a leaked list or backup does not leak working credentials.

use serde_json::{Map, Value as Json};

use super::entities::{Col, EntityDef, HookFuture, Hooks, Ty};
use crate::auth::Caller;
use crate::auth::client::secret_hash;
use crate::kernel::{ApiError, Id};
use crate::system::context::SystemCtx;

/// Grant types the token endpoint implements.
const GRANT_TYPES: &[&str] = &[
    "password",
    "captcha",
    "refresh_token",
    "social",
    "authorization_code",
];

pub static CLIENT: EntityDef = EntityDef {
    base: "/api/blade-system/client",
    table: "blade_client",
    tenant_scoped: false,
    menu_code: "client",
    fields: &[
        Col::of("id", "id", Ty::Id).read_only(),
        Col::of("clientId", "client_id", Ty::TEXT)
            .required_as("请输入客户端ID", "Please enter the client id")
            .max(48)
            .unique("客户端ID已存在", "This client id already exists")
            .filter(),
        Col::of("clientSecret", "client_secret_hash", Ty::TEXT)
            .required_as("请输入客户端密钥", "Please enter the client secret")
            .max(64)
            .write_only(),
        Col::of("scope", "scope", Ty::TEXT).max(255),
        Col::of("authorizedGrantTypes", "authorized_grant_types", Ty::TEXT)
            .required_as("请输入授权类型", "Please enter the grant types")
            .max(255),
        Col::of("webServerRedirectUri", "web_server_redirect_uri", Ty::TEXT).max(255),
        Col::of("accessTokenValidity", "access_token_validity", Ty::INT).required_as(
            "请输入令牌过期秒数",
            "Please enter the access token validity in seconds",
        ),
        Col::of("refreshTokenValidity", "refresh_token_validity", Ty::INT).required_as(
            "请输入刷新令牌过期秒数",
            "Please enter the refresh token validity in seconds",
        ),
        Col::of("createTime", "create_time", Ty::Time).read_only(),
    ],
    default_order: "create_time ASC, id ASC",
    platform_only: true,
    hooks: &ClientHooks,
    ..EntityDef::DEFAULT
};

pub struct ClientHooks;

fn positive(body: &Map<String, Json>, key: &str) -> bool {
    match body.get(key) {
        None | Some(Json::Null) => true,
        Some(v) => v
            .as_i64()
            .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
            .is_some_and(|n| n > 0),
    }
}

impl Hooks<SystemCtx, Caller> for ClientHooks {
    fn before_save<'a>(
        &'a self,
        _state: &'a SystemCtx,
        _caller: &'a Caller,
        id: Option<Id>,
        body: &'a mut Map<String, Json>,
    ) -> HookFuture<'a, ()> {
        Box::pin(async move {
            let secret = body
                .get("clientSecret")
                .and_then(Json::as_str)
                .map(str::trim)
                .unwrap_or("")
                .to_owned();
            if secret.is_empty() {
                if id.is_some() {
                    // Editing without typing a new secret keeps the old one.
                    body.remove("clientSecret");
                }
            } else if secret.chars().count() > 64 {
                return Err(ApiError::bad_request(
                    "客户端密钥过长",
                    "The client secret is too long",
                ));
            } else {
                body.insert("clientSecret".into(), Json::String(secret_hash(&secret)));
            }
            if let Some(grants) = body.get("authorizedGrantTypes").and_then(Json::as_str) {
                let unknown: Vec<&str> = grants
                    .split(',')
                    .map(str::trim)
                    .filter(|g| !g.is_empty() && !GRANT_TYPES.contains(g))
                    .collect();
                if !unknown.is_empty() {
                    return Err(ApiError::bad_request(
                        format!("不支持的授权类型：{}", unknown.join(",")),
                        format!("unsupported grant types: {}", unknown.join(",")),
                    ));
                }
            }
            if !positive(body, "accessTokenValidity") || !positive(body, "refreshTokenValidity") {
                return Err(ApiError::bad_request(
                    "令牌有效期必须是正整数（秒）",
                    "Token validities are positive numbers of seconds",
                ));
            }
            Ok(())
        })
    }

    fn before_remove<'a>(
        &'a self,
        state: &'a SystemCtx,
        caller: &'a Caller,
        ids: &'a [Id],
    ) -> HookFuture<'a, ()> {
        Box::pin(async move {
            let mut sql = crate::kernel::sql::Sql::new("SELECT client_id FROM blade_client WHERE id IN (");
            sql.push_ids(ids);
            sql.push(")");
            let names: Vec<String> = sql.scalars::<String, _>(state.db.pool()).await?;
            if names.contains(&caller.client_id) {
                return Err(ApiError::bad_request(
                    "不能删除当前正在使用的客户端",
                    "The client you are signed in with cannot be removed",
                ));
            }
            Ok(())
        })
    }
}
