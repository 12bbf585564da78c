//! Typed records of the entity-declared lists the system answers itself (department trees,
//! dictionary pages). The entity engine reads and decorates rows as JSON objects; these types
//! take them over unchanged. Fields are declared in the order of their wire names (the objects
//! serialize their keys sorted) and unknown keys are refused, so a column added to a declaration
//! without its field here fails loudly instead of vanishing from the answer.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;
use utoipa::ToSchema;

use crate::kernel::time::Timestamp;
use crate::kernel::{ApiError, Id, Page};

/// A department as the department screens list it.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Dept {
    /// Comma-joined ids from `0` down to the parent.
    pub ancestors: Option<String>,
    /// In the tree list only: the departments under this one (an empty list for a leaf).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(no_recursion)]
    pub children: Option<Vec<Dept>>,
    pub create_time: Option<Timestamp>,
    pub dept_category: Option<i64>,
    pub dept_name: Option<String>,
    pub full_name: Option<String>,
    pub has_children: bool,
    pub id: Id,
    pub parent_id: Option<Id>,
    /// The parent's name; `null` at the top level.
    pub parent_name: Option<String>,
    pub remark: Option<String>,
    pub sort: Option<i64>,
    pub tenant_id: Option<String>,
}

/// A row of the platform's dictionaries (a dictionary, `parentId` 0, or one of its entries).
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Dict {
    pub code: Option<String>,
    pub create_time: Option<Timestamp>,
    pub dict_key: Option<String>,
    pub dict_value: Option<String>,
    pub dict_value_en: Option<String>,
    pub id: Id,
    pub is_sealed: Option<i64>,
    pub parent_id: Option<Id>,
    pub remark: Option<String>,
    pub sort: Option<i64>,
}

/// A row of a tenant's business dictionaries.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DictBiz {
    pub code: Option<String>,
    pub create_time: Option<Timestamp>,
    pub dict_key: Option<String>,
    pub dict_value: Option<String>,
    pub dict_value_en: Option<String>,
    pub id: Id,
    pub is_sealed: Option<i64>,
    pub parent_id: Option<Id>,
    pub remark: Option<String>,
    pub sort: Option<i64>,
    pub tenant_id: Option<String>,
}

/// The engine's JSON rows as typed records.
pub fn typed<T: DeserializeOwned>(rows: Vec<Json>) -> Result<Vec<T>, ApiError> {
    rows.into_iter()
        .map(|r| serde_json::from_value(r).map_err(|e| ApiError::Internal(format!("record shape: {e}"))))
        .collect()
}

/// A page of the engine's JSON rows as a page of typed records.
pub fn typed_page<T: DeserializeOwned>(page: Page<Json>) -> Result<Page<T>, ApiError> {
    Ok(Page {
        records: typed(page.records)?,
        total: page.total,
        size: page.size,
        current: page.current,
        pages: page.pages,
    })
}
