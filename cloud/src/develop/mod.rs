//! Developer tools (`/api/blade-develop`): data sources, data models with their field settings,
//! and the code generator that turns a model into a business module of this product (see
//! `docs/develop.md`). Platform only. The handlers take the resource domain's state, whose
//! credential key seals data-source passwords.

pub mod catalogue;
pub mod code;
pub mod codegen;
pub mod datasource;
pub mod model;
pub mod names;
pub mod prototype;

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::resource::ResourceCtx;

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
