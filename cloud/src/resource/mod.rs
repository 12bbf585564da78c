//! Files: uploads stored on local disk under the data directory (object-storage back-ends come
//! with their admin screens later).

pub mod image;
pub mod oss;

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// The file routes, mounted by `app` on the hub's state.
pub fn routes<S>() -> OpenApiRouter<S>
where
    S: Clone + Send + Sync + 'static,
    crate::kernel::Core: axum::extract::FromRef<S>,
{
    OpenApiRouter::new()
        // uploads stream to disk under their own size limit
        .merge(
            OpenApiRouter::new()
                .routes(routes!(oss::put_file))
                .routes(routes!(oss::put_image))
                .layer(axum::extract::DefaultBodyLimit::disable()),
        )
        .routes(routes!(oss::remove_file))
        .routes(routes!(oss::serve_file))
}
