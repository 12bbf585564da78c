//! Who is calling. Every signed-in route takes a `Caller`: the token is verified, its session
//! must still be live, and the caller's tenant then scopes every query the route makes. Routes
//! that change data name the permission (button code) they need with `Caller::require`.

use axum::extract::{FromRef, FromRequestParts};
use axum::http::HeaderMap;
use axum::http::request::Parts;

use super::session;
use super::token::{self, Kind, TokenError};
use crate::kernel::Core;
use crate::kernel::lang::Text;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, Id};

pub const TOKEN_HEADER: &str = "blade-auth";

#[derive(Debug, Clone)]
pub struct Caller {
    pub tenant_id: String,
    pub user_id: Id,
    pub account: String,
    pub role_ids: Vec<Id>,
    pub dept_id: Option<Id>,
    pub session_id: Id,
    pub client_id: String,
}

pub const NOT_SIGNED_IN: Text = Text::new("请求未授权，请重新登录", "Not signed in or the session has ended");
pub const EXPIRED: Text = Text::new(
    "登录已过期，请重新登录",
    "The session has expired, please sign in again",
);
pub const NO_PERMISSION: Text = Text::new("缺少操作权限", "You do not have permission for this operation");

/// The bearer token of a request: `Blade-Auth: bearer <token>` (prefix case-insensitive).
pub fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(TOKEN_HEADER)?.to_str().ok()?.trim();
    let (scheme, token) = value.split_once(' ')?;
    (scheme.eq_ignore_ascii_case("bearer") && !token.trim().is_empty()).then(|| token.trim())
}

impl Caller {
    /// Checks an access token and its session.
    pub async fn from_token(state: &Core, token: &str) -> Result<Caller, ApiError> {
        let claims = token::verify(&state.token_secret, token, Kind::Access).map_err(|e| match e {
            TokenError::Expired => ApiError::Unauthorized(EXPIRED),
            _ => ApiError::Unauthorized(NOT_SIGNED_IN),
        })?;
        let parse = |s: &str| s.parse::<Id>().map_err(|_| ApiError::Unauthorized(NOT_SIGNED_IN));
        let session_id = parse(&claims.sid)?;
        let user_id = parse(&claims.sub)?;
        let live = session::find(&state.db, session_id).await?.is_some_and(|s| {
            s.revoked == 0
                && s.user_id == user_id
                && s.tenant_id == claims.tid
                && s.expire_time > crate::kernel::time::now_ms()
        });
        if !live {
            return Err(ApiError::Unauthorized(NOT_SIGNED_IN));
        }
        Ok(Caller {
            tenant_id: claims.tid,
            user_id,
            account: claims.acc,
            role_ids: claims.rid.iter().map(|r| parse(r)).collect::<Result<_, _>>()?,
            dept_id: claims.did.as_deref().map(parse).transpose()?,
            session_id,
            client_id: claims.cid,
        })
    }

    /// Fails with 403 unless one of the caller's roles is granted the button or menu `code`
    /// and the tenant's package includes it.
    pub async fn require(&self, state: &Core, code: &str) -> Result<(), ApiError> {
        if self.has_permission(state, code).await? {
            Ok(())
        } else {
            Err(ApiError::Forbidden(NO_PERMISSION))
        }
    }

    pub async fn has_permission(&self, state: &Core, code: &str) -> Result<bool, ApiError> {
        if self.role_ids.is_empty() {
            return Ok(false);
        }
        let mut sql = Sql::new("SELECT m.id FROM blade_menu m JOIN blade_role_menu rm ON rm.menu_id = m.id");
        sql.push_bind(
            " WHERE m.is_deleted = 0 AND rm.kind = 'web' AND m.code = ?",
            [Value::from(code)],
        );
        sql.push(" AND rm.role_id IN (");
        sql.push_ids(&self.role_ids);
        sql.push(") LIMIT 1");
        let menu: Option<i64> = sql.scalar_optional::<i64, _>(state.db.pool()).await?;
        let Some(menu) = menu else { return Ok(false) };
        crate::auth::package::package_allows(state, &self.tenant_id, Id(menu)).await
    }

    /// `tenant_id = ?` for the caller's tenant, to start every tenant-owned query with.
    pub fn tenant_filter(&self, column: &str) -> Sql {
        let mut sql = Sql::default();
        sql.push_bind(&format!("{column} = ?"), [Value::Text(self.tenant_id.clone())]);
        sql
    }
}

impl<S> FromRequestParts<S> for Caller
where
    Core: FromRef<S>,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let token = bearer(&parts.headers).ok_or(ApiError::Unauthorized(NOT_SIGNED_IN))?;
        Caller::from_token(&Core::from_ref(state), token).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_prefix_is_case_insensitive_and_required() {
        let mut h = HeaderMap::new();
        assert_eq!(bearer(&h), None);
        h.insert("Blade-Auth", "bearer abc".parse().unwrap());
        assert_eq!(bearer(&h), Some("abc"));
        h.insert("Blade-Auth", "Bearer  xyz ".parse().unwrap());
        assert_eq!(bearer(&h), Some("xyz"));
        h.insert("Blade-Auth", "Basic abc".parse().unwrap());
        assert_eq!(bearer(&h), None);
        h.insert("Blade-Auth", "bearer ".parse().unwrap());
        assert_eq!(bearer(&h), None);
    }
}
