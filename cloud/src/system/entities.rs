//! The system families (param, post, tenant, tenant package, client, role, menu, top menu, data
//! scope, api scope, dept, dict, dict-biz) as entities of the engine's admin-console adapter,
//! and how the engine sees this domain's caller.
//!
//! The engine is kernel code and cannot name auth's `Caller` or this domain's data scopes; it
//! asks through [`Access`], implemented here, where both are known. So the dependency runs
//! kernel ← auth ← system, and the engine never learns about either.

use crate::auth::Caller;
use crate::kernel::Id;
use crate::kernel::entity::blade::{self, Access};
use crate::kernel::entity::field::CheckFuture;
use crate::kernel::sql::Sql;
use crate::system::context::SystemCtx;

pub use crate::kernel::entity::blade::{Hooks, PLATFORM_TENANT, find, page, rows};
pub use crate::kernel::entity::field::{CheckFuture as HookFuture, Col, Ty};

/// An entity of the system domain: its handlers take `State<SystemCtx>` and a `Caller`.
pub type EntityDef = blade::BladeDef<SystemCtx, Caller>;

impl Access<SystemCtx> for Caller {
    fn tenant_id(&self) -> &str {
        &self.tenant_id
    }

    fn user_id(&self) -> Id {
        self.user_id
    }

    fn dept_id(&self) -> Option<Id> {
        self.dept_id
    }

    fn require<'a>(&'a self, state: &'a SystemCtx, code: &'a str) -> CheckFuture<'a, ()> {
        Box::pin(async move { Caller::require(self, state, code).await })
    }

    fn tenant_filter(&self, column: &str) -> Sql {
        Caller::tenant_filter(self, column)
    }

    fn narrow<'a>(&'a self, state: &'a SystemCtx, code: &'a str) -> CheckFuture<'a, Option<Sql>> {
        Box::pin(async move { crate::system::data_scope::narrow(state, self, code).await })
    }
}
