//! The attachment row every stored file becomes, and its lookups: shared by the upload
//! routes (`oss`) and the attachment list (`attach`), which must not depend on each other.

use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, Core, Id};

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Attach {
    pub id: Id,
    pub tenant_id: String,
    pub link: String,
    pub name: String,
    pub original_name: String,
    pub extension: String,
    pub attach_size: i64,
    pub content_type: String,
    /// The store holding it (`None`: the local disk).
    pub oss_id: Option<Id>,
}

pub const COLUMNS: &str =
    "id, tenant_id, link, name, original_name, extension, attach_size, content_type, oss_id";

pub(super) async fn find_where(state: &Core, column: &str, value: &str) -> Result<Option<Attach>, ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        &format!("SELECT {COLUMNS} FROM blade_attach WHERE is_deleted = 0 AND {column} = ?"),
        [Value::from(value)],
    );
    sql.fetch_optional::<Attach, _>(state.db.pool()).await
}

/// The upload of `tenant_id` that `link` points at.
pub async fn find_by_link(state: &Core, tenant_id: &str, link: &str) -> Result<Option<Attach>, ApiError> {
    Ok(find_where(state, "link", link)
        .await?
        .filter(|a| a.tenant_id == tenant_id))
}
