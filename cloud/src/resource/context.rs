//! What the resource domain works with: the kernel's core and the domain's services (the key
//! that seals storage and SMS secrets, the open object-store clients).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::auth::Caller;
use crate::kernel::Id;
use crate::kernel::entity::blade::{self, Access};
use crate::kernel::entity::field::CheckFuture;
use crate::kernel::sql::Sql;

/// An open S3 client and the `update_time` of the configuration it was built from.
type OpenStore = (i64, Arc<dyn object_store::ObjectStore>);

/// Process-wide services of the resource domain.
pub struct ResourceServices {
    credential_key: String,
    /// Open S3 clients by configuration id, with the `update_time` they were built from: an
    /// edited configuration builds a new one.
    pub(crate) stores: Mutex<HashMap<i64, OpenStore>>,
}

impl ResourceServices {
    pub fn new(credential_key: String) -> ResourceServices {
        ResourceServices {
            credential_key,
            stores: Mutex::default(),
        }
    }

    /// Encrypts a secret for storage (the station domain's scheme, same key).
    pub fn seal(&self, plain: &str) -> Result<String, crate::kernel::ApiError> {
        crate::station::services::seal(&self.credential_key, plain)
            .map_err(|e| crate::kernel::ApiError::Internal(format!("seal: {e}")))
    }

    pub fn open(&self, sealed: &str) -> Option<String> {
        crate::station::services::open(&self.credential_key, sealed)
    }
}

/// The state the domain's handlers take.
#[derive(Clone)]
pub struct ResourceCtx {
    pub core: crate::kernel::Core,
    pub services: Arc<ResourceServices>,
}

impl std::ops::Deref for ResourceCtx {
    type Target = crate::kernel::Core;
    fn deref(&self) -> &crate::kernel::Core {
        &self.core
    }
}

/// An entity of this domain: its handlers take `State<ResourceCtx>` and a `Caller`.
pub type EntityDef = blade::BladeDef<ResourceCtx, Caller>;

impl Access<ResourceCtx> for Caller {
    fn tenant_id(&self) -> &str {
        &self.tenant_id
    }

    fn user_id(&self) -> Id {
        self.user_id
    }

    fn dept_id(&self) -> Option<Id> {
        self.dept_id
    }

    fn require<'a>(&'a self, state: &'a ResourceCtx, code: &'a str) -> CheckFuture<'a, ()> {
        Box::pin(async move { Caller::require(self, state, code).await })
    }

    fn tenant_filter(&self, column: &str) -> Sql {
        Caller::tenant_filter(self, column)
    }

    fn narrow<'a>(&'a self, state: &'a ResourceCtx, code: &'a str) -> CheckFuture<'a, Option<Sql>> {
        Box::pin(async move { crate::system::data_scope::narrow(state, self, code).await })
    }
}
