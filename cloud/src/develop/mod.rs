//! Developer tools (`/api/blade-develop`): data sources, data models with their field settings,
//! and the code generator that turns a model into a business module of this product (see
//! `docs/develop.md`). Platform only. The handlers take the resource domain's state, whose
//! credential key seals data-source passwords.

pub mod catalogue;
pub mod code;
pub mod codegen;
pub mod datasource;
pub mod model;
pub mod prototype;

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::resource::ResourceCtx;

/// Adds `{name_field}` to each row: the name its `{id_field}` points at among `names` (the live
/// rows of the referenced table), or null.
pub(crate) fn add_names(
    rows: &mut [serde_json::Value],
    id_field: &str,
    name_field: &str,
    names: &[(i64, String)],
) {
    for row in rows.iter_mut() {
        let id = row[id_field].as_str().and_then(|s| s.parse::<i64>().ok());
        let name = names.iter().find(|(n, _)| Some(*n) == id).map(|(_, n)| n.clone());
        if let Some(map) = row.as_object_mut() {
            map.insert(
                name_field.into(),
                name.map(serde_json::Value::String).unwrap_or_default(),
            );
        }
    }
}

/// The developer-tool routes, mounted by `app` on the hub's state.
pub fn routes<S>() -> OpenApiRouter<S>
where
    S: Clone + Send + Sync + 'static,
    crate::kernel::Core: axum::extract::FromRef<S>,
    ResourceCtx: axum::extract::FromRef<S>,
{
    let entities = [&datasource::DATASOURCE, &model::MODEL, &code::CODE]
        .into_iter()
        .fold(OpenApiRouter::new(), crate::kernel::entity::blade::mount);
    OpenApiRouter::new()
        .routes(routes!(datasource::test))
        .routes(routes!(model::table_list))
        .routes(routes!(model::table_info))
        .routes(routes!(prototype::model_prototype))
        .routes(routes!(prototype::submit_list))
        .routes(routes!(prototype::select))
        .routes(routes!(code::preview))
        .routes(routes!(code::copy))
        .routes(routes!(code::gen_code))
        .merge(entities)
}
