//! The OpenAPI document. Routes are registered through `utoipa_axum`, which adds each handler's
//! `#[utoipa::path]` to the document as the route is mounted, so the document cannot forget one.

use utoipa::OpenApi;

#[derive(OpenApi)]
#[openapi(
    info(
        title = "PV station O&M platform API",
        description = "Every `/api` answer is the envelope `{code, success, data, msg}` unless noted. \
                       Ids are 64-bit integers sent as strings; date-times are `yyyy-MM-dd HH:mm:ss`."
    ),
    tags(
        (name = "ops", description = "Operating the hub"),
        (name = "auth", description = "Sign-in, tokens, captcha"),
        (name = "system", description = "Tenants, menus, permissions"),
        (name = "user", description = "Accounts and profiles"),
        (name = "resource", description = "Uploaded files"),
        (name = "log", description = "Logs"),
        (name = "alarm", description = "Alarms and the live alarm feed")
    )
)]
pub struct ApiDoc;

pub const PATH: &str = "/api/openapi.json";
