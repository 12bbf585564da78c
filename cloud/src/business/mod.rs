//! Business modules made with the code generator (`docs/develop.md`): each `{module}.rs` in this
//! folder declares one entity (`pub static ENTITY`) on the kernel's entity engine, with its menu
//! entry in `{module}.menu.toml` beside it. The build script lists the folder, so a generated
//! module joins the hub by dropping its files in: there is no registry to edit by hand.

use utoipa_axum::router::OpenApiRouter;

use crate::system::SystemCtx;

// `pub mod {module};` for every file and `ENTITIES` (written by build.rs; the seed reads the
// menu files, `system::seed`).
include!(concat!(env!("OUT_DIR"), "/business_modules.rs"));

/// The routes of every business module, mounted by `app` on the hub's state.
pub fn routes<S>() -> OpenApiRouter<S>
where
    S: Clone + Send + Sync + 'static,
    crate::kernel::Core: axum::extract::FromRef<S>,
    SystemCtx: axum::extract::FromRef<S>,
{
    ENTITIES.iter().fold(OpenApiRouter::new(), |router, entity| {
        crate::kernel::entity::blade::mount(router, *entity)
    })
}
