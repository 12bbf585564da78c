//! API scopes: calls that only some roles may make, whatever menus they hold.
//!
//! A live row of `blade_scope_api` protects every request whose method and path it matches (the
//! path exactly, or as a prefix when it ends in `/**`). A signed-in caller may make a protected
//! call when one of their roles is granted a matching scope or holds the alias `administrator`;
//! anyone else gets 403 `缺少接口权限`. Requests without a valid token pass through untouched:
//! the route itself decides whether it needs a sign-in (and answers 401 if so).
//!
//! The scope table is read on nearly every request, so it is kept in memory for [`TTL`]. A change
//! ([`ApiScopeCache::changed`]) takes effect at once on this replica and, through a cluster
//! signal ([`TOPIC`]), on the others; the TTL bounds what a lost signal (or a reload racing a
//! removal's commit) could leave behind. Grants are not cached: they are checked in the
//! database, and only for requests that match a scope.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use axum::extract::{Request, State};
use axum::http::Method;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::caller::{Caller, bearer};
use crate::kernel::Core;
use crate::kernel::db::Db;
use crate::kernel::lang::Text;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, Id};

pub const NO_API_PERMISSION: Text = Text::new("缺少接口权限", "You do not have permission for this API");

/// The cluster topic of a changed scope table.
pub const TOPIC: &str = "api_scope";

/// How long a replica trusts its copy of the scope table.
pub const TTL: Duration = Duration::from_secs(5);

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiScope {
    pub id: Id,
    pub path: String,
    /// 1 any method, 2 GET, 3 POST, 4 PUT, 5 DELETE.
    pub scope_type: i64,
}

impl ApiScope {
    pub fn matches(&self, method: &Method, path: &str) -> bool {
        let method_ok = match self.scope_type {
            1 => true,
            // axum answers HEAD with the GET handler, so a GET scope covers it too.
            2 => method == Method::GET || method == Method::HEAD,
            3 => method == Method::POST,
            4 => method == Method::PUT,
            5 => method == Method::DELETE,
            _ => false,
        };
        method_ok && path_matches(&self.path, path)
    }
}

/// `pattern` is a path, or a prefix when it ends in `/**` (which then also matches the prefix
/// itself, but never a longer segment: `/a/b/**` does not match `/a/bc`).
pub fn path_matches(pattern: &str, path: &str) -> bool {
    let pattern = pattern.trim();
    match pattern.strip_suffix("/**") {
        Some(prefix) => {
            path == prefix
                || path
                    .strip_prefix(prefix)
                    .is_some_and(|rest| rest.starts_with('/'))
        }
        None => path == pattern,
    }
}

#[derive(Default)]
struct Slot {
    /// Bumped by every invalidation, so a load that started before one is not stored.
    generation: u64,
    cached: Option<(Instant, Arc<Vec<ApiScope>>)>,
}

/// This replica's copy of the live API scopes.
#[derive(Default)]
pub struct ApiScopeCache {
    slot: Mutex<Slot>,
}

impl ApiScopeCache {
    fn lock(&self) -> MutexGuard<'_, Slot> {
        // The slot holds plain data: a panic elsewhere cannot leave it half-written.
        self.slot.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub async fn get(&self, db: &Db) -> Result<Arc<Vec<ApiScope>>, ApiError> {
        let generation = {
            let slot = self.lock();
            if let Some((at, scopes)) = &slot.cached
                && at.elapsed() < TTL
            {
                return Ok(scopes.clone());
            }
            slot.generation
        };
        let loaded = Arc::new(load(db).await?);
        let mut slot = self.lock();
        if slot.generation == generation {
            slot.cached = Some((Instant::now(), loaded.clone()));
        }
        Ok(loaded)
    }

    /// Forgets this replica's copy and the other replicas'. Called by every scope change.
    pub fn changed(&self, core: &Core) {
        self.invalidate();
        core.cluster.publish(TOPIC, crate::kernel::cluster::ALL);
    }

    /// Forgets the copy; the next request reloads it.
    pub fn invalidate(&self) {
        let mut slot = self.lock();
        slot.generation += 1;
        slot.cached = None;
    }
}

async fn load(db: &Db) -> Result<Vec<ApiScope>, ApiError> {
    let rows: Vec<(i64, String, i64)> = Sql::new(
        "SELECT id, scope_path, scope_type FROM blade_scope_api WHERE is_deleted = 0 AND status = 1",
    )
    .fetch_all::<(i64, String, i64), _>(db.pool())
    .await?;
    Ok(rows
        .into_iter()
        .map(|(id, path, scope_type)| ApiScope {
            id: Id(id),
            path,
            scope_type,
        })
        .collect())
}

/// Middleware on the whole application (only `/api/` paths are considered).
pub async fn enforce(
    State(state): State<Core>,
    State(scopes): State<Arc<ApiScopeCache>>,
    req: Request,
    next: Next,
) -> Response {
    match check(&state, &scopes, req.method(), req.uri().path(), req.headers()).await {
        Ok(()) => next.run(req).await,
        Err(e) => e.into_response(),
    }
}

async fn check(
    state: &Core,
    scopes: &ApiScopeCache,
    method: &Method,
    path: &str,
    headers: &axum::http::HeaderMap,
) -> Result<(), ApiError> {
    if !path.starts_with("/api/") {
        return Ok(());
    }
    let scopes = scopes.get(&state.db).await?;
    let matching: Vec<Id> = scopes
        .iter()
        .filter(|s| s.matches(method, path))
        .map(|s| s.id)
        .collect();
    if matching.is_empty() {
        return Ok(());
    }
    let Some(token) = bearer(headers) else {
        return Ok(());
    };
    let caller = match Caller::from_token(state, token).await {
        Ok(c) => c,
        // Not signed in: the route answers for itself (401 when it needs a caller).
        Err(ApiError::Unauthorized(_)) => return Ok(()),
        Err(e) => return Err(e),
    };
    if may_call(state, &caller, &matching).await? {
        Ok(())
    } else {
        Err(ApiError::Forbidden(NO_API_PERMISSION))
    }
}

/// Whether one of the caller's live roles is an administrator or granted one of `scopes`.
async fn may_call(state: &Core, caller: &Caller, scopes: &[Id]) -> Result<bool, ApiError> {
    if caller.role_ids.is_empty() {
        return Ok(false);
    }
    let mut sql = Sql::new("SELECT r.id FROM blade_role r WHERE r.is_deleted = 0 AND ");
    sql.append(&caller.tenant_filter("r.tenant_id"));
    sql.push(" AND r.id IN (");
    sql.push_ids(&caller.role_ids);
    sql.push_bind(
        ") AND (r.role_alias = ? OR EXISTS (SELECT 1 FROM blade_role_scope s \
         WHERE s.role_id = r.id AND s.scope_category = 2 AND s.scope_id IN (",
        [Value::from(crate::system::seed::ADMIN_ROLE_ALIAS)],
    );
    sql.push_ids(scopes);
    sql.push("))) LIMIT 1");
    let found: Option<i64> = sql.scalar_optional::<i64, _>(state.db.pool()).await?;
    Ok(found.is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_paths_and_prefixes() {
        assert!(path_matches("/api/a/list", "/api/a/list"));
        assert!(!path_matches("/api/a/list", "/api/a/list/x"));
        assert!(path_matches("/api/a/**", "/api/a"));
        assert!(path_matches("/api/a/**", "/api/a/b/c"));
        assert!(!path_matches("/api/a/**", "/api/ab"));
        assert!(!path_matches("/api/a/**", "/api/b/a"));
    }

    #[test]
    fn methods_by_scope_type() {
        let s = |t| ApiScope {
            id: Id(1),
            path: "/api/x".into(),
            scope_type: t,
        };
        assert!(s(1).matches(&Method::DELETE, "/api/x"));
        assert!(s(2).matches(&Method::GET, "/api/x"));
        assert!(s(2).matches(&Method::HEAD, "/api/x"));
        assert!(!s(2).matches(&Method::POST, "/api/x"));
        assert!(s(3).matches(&Method::POST, "/api/x"));
        assert!(s(4).matches(&Method::PUT, "/api/x"));
        assert!(s(5).matches(&Method::DELETE, "/api/x"));
        assert!(!s(9).matches(&Method::GET, "/api/x"));
    }
}
