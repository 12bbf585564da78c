//! Files and their stores: uploads kept on the local disk or in a tenant's S3-compatible
//! object storage (`store`), the storage configurations (`oss_admin`), the attachment rows
//! every upload becomes (`attach`).

pub mod attach;
pub mod attach_row;
pub mod context;
pub mod image;
pub mod mail;
pub mod oss;
pub mod oss_admin;
pub mod sms_admin;
pub mod sms_code;
pub mod sms_provider;
pub mod store;

pub use context::{ResourceCtx, ResourceServices};

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// The resource routes, mounted by `app` on the hub's state.
pub fn routes<S>() -> OpenApiRouter<S>
where
    S: Clone + Send + Sync + 'static,
    crate::kernel::Core: axum::extract::FromRef<S>,
    ResourceCtx: axum::extract::FromRef<S>,
{
    let entities = [&oss_admin::OSS, &attach::ATTACH, &sms_admin::SMS]
        .into_iter()
        .fold(OpenApiRouter::new(), crate::kernel::entity::blade::mount);
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
        .routes(routes!(oss_admin::enable))
        .routes(routes!(oss_admin::sts_token))
        .routes(routes!(attach::download))
        .routes(routes!(sms_admin::enable))
        .routes(routes!(sms_code::send_validate))
        .routes(routes!(sms_code::validate_message))
        .routes(routes!(sms_code::send_message))
        .routes(routes!(mail::endpoint::test))
        .merge(entities)
}
