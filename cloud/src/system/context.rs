//! What system administration's declared entities work with.

use std::sync::Arc;

/// What the declared entities of system administration work with: the kernel's core and the
/// API-scope cache that a scope change must invalidate.
#[derive(Clone)]
pub struct SystemCtx {
    pub core: crate::kernel::Core,
    pub api_scopes: Arc<crate::auth::api_scope::ApiScopeCache>,
}

impl std::ops::Deref for SystemCtx {
    type Target = crate::kernel::Core;
    fn deref(&self) -> &crate::kernel::Core {
        &self.core
    }
}
