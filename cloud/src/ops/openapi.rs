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

/// The document describes itself too, so a client can find it from the index of paths. Its
/// answer is the bare document (not enveloped); the schema names what every OpenAPI 3.1
/// document has.
pub fn describe_itself(doc: &mut utoipa::openapi::OpenApi) {
    use utoipa::openapi::ContentBuilder;
    use utoipa::openapi::path::{HttpMethod, OperationBuilder, PathItem};
    use utoipa::openapi::response::ResponseBuilder;
    use utoipa::openapi::schema::{ObjectBuilder, Type};
    let text = || ObjectBuilder::new().schema_type(Type::String);
    let object = || ObjectBuilder::new().schema_type(Type::Object);
    let schema = ObjectBuilder::new()
        .schema_type(Type::Object)
        .property("openapi", text())
        .property("info", object())
        .property("paths", object())
        .property("components", object())
        .property("tags", ObjectBuilder::new().schema_type(Type::Array))
        .required("openapi")
        .required("info")
        .required("paths");
    let op = OperationBuilder::new()
        .tag("ops")
        .summary(Some("This OpenAPI document"))
        .response(
            "200",
            ResponseBuilder::new()
                .description("OpenAPI 3.1 JSON (not enveloped)")
                .content(
                    "application/json",
                    ContentBuilder::new().schema(Some(schema)).build(),
                ),
        )
        .build();
    doc.paths
        .paths
        .insert(PATH.to_owned(), PathItem::new(HttpMethod::Get, op));
}
