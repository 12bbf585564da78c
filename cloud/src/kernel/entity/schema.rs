//! Typed OpenAPI of declared entities: the schema of a record (its readable fields), of a body
//! (its writable fields), the envelope around one record or a page, and the list parameters
//! (paging, sort, one per filter field). Declared entities are described from their declaration,
//! so the document always says what the engine answers.

use utoipa::openapi::path::{HttpMethod, Operation, OperationBuilder, ParameterBuilder, ParameterIn};
use utoipa::openapi::request_body::RequestBodyBuilder;
use utoipa::openapi::response::ResponseBuilder;
use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, Schema, SchemaType, Type};
use utoipa::openapi::{Content, OpenApi, RefOr, Required};

use super::field::{Col, Ty};
use crate::kernel::list::{Field, Kind};

fn typed(ty: Type, nullable: bool, description: Option<String>) -> Schema {
    let schema_type = if nullable {
        SchemaType::from_iter([ty, Type::Null])
    } else {
        SchemaType::from(ty)
    };
    Schema::Object(
        ObjectBuilder::new()
            .schema_type(schema_type)
            .description(description)
            .build(),
    )
}

/// A value of `ty` as it travels (ids and date-times as strings; read back `null` when unset).
pub fn value(ty: Ty, nullable: bool) -> Schema {
    match ty {
        Ty::Text(_) | Ty::Phone | Ty::Dict(_) | Ty::MapModel(_) | Ty::Secret(_) => {
            typed(Type::String, nullable, None)
        }
        Ty::Float { .. } => typed(Type::Number, nullable, None),
        Ty::Int { .. } => typed(Type::Integer, nullable, None),
        Ty::Time => typed(Type::String, nullable, Some("yyyy-MM-dd HH:mm:ss".into())),
        Ty::Date => typed(Type::String, nullable, Some("yyyy-MM-dd".into())),
        Ty::Id => typed(
            Type::String,
            nullable,
            Some("64-bit id as a decimal string".into()),
        ),
        Ty::IntList(_) => {
            let items = ArrayBuilder::new().items(RefOr::T(typed(Type::Integer, false, None)));
            let items = if nullable {
                items.schema_type(SchemaType::from_iter([Type::Array, Type::Null]))
            } else {
                items
            };
            Schema::Array(items.build())
        }
    }
}

/// The answered record: `extra` (id, names of referenced rows, audit times...) and every
/// declared field (a write-only one as `{name}Set`, whether it is stored).
pub fn record(cols: &[Col], extra: &[(&str, Schema)]) -> Schema {
    let mut object = ObjectBuilder::new();
    for (name, schema) in extra {
        object = object.property(*name, schema.clone()).required(*name);
    }
    for c in cols {
        object = match c.ty {
            Ty::Secret(_) => {
                let name = format!("{}Set", c.name);
                object
                    .property(&name, typed(Type::Boolean, false, None))
                    .required(name)
            }
            _ => object.property(c.name, value(c.ty, true)).required(c.name),
        };
    }
    Schema::Object(object.build())
}

/// A submitted body: every declared field; with `fields_required` (an insert of its own), the
/// required ones must be there.
pub fn body(cols: &[Col], id_required: bool, fields_required: bool) -> Schema {
    let mut object = ObjectBuilder::new().property("id", value(Ty::Id, !id_required));
    if id_required {
        object = object.required("id");
    }
    for c in cols {
        object = object.property(
            c.name,
            Schema::Object(
                ObjectBuilder::new()
                    .schema_type(match value(c.ty, true) {
                        Schema::Object(o) => o.schema_type,
                        Schema::Array(_) => SchemaType::from_iter([Type::Array, Type::String, Type::Null]),
                        _ => SchemaType::AnyValue,
                    })
                    .description((!c.zh.is_empty()).then(|| format!("{} / {}", c.zh, c.en)))
                    .build(),
            ),
        );
        if c.required && fields_required {
            object = object.required(c.name);
        }
    }
    Schema::Object(object.build())
}

/// `{code, success, data, msg}` around `data`.
pub fn envelope(data: Schema) -> Schema {
    Schema::Object(
        ObjectBuilder::new()
            .property("code", typed(Type::Integer, false, None))
            .required("code")
            .property("success", typed(Type::Boolean, false, None))
            .required("success")
            .property("data", data)
            .property("msg", typed(Type::String, false, None))
            .required("msg")
            .build(),
    )
}

/// `{records, total, size, current, pages}`.
pub fn page(record: Schema) -> Schema {
    let mut object = ObjectBuilder::new()
        .property(
            "records",
            Schema::Array(ArrayBuilder::new().items(RefOr::T(record)).build()),
        )
        .required("records");
    for n in ["total", "size", "current", "pages"] {
        object = object.property(n, typed(Type::Integer, false, None)).required(n);
    }
    Schema::Object(object.build())
}

fn query(name: &str, ty: Type, description: String) -> RefOr<utoipa::openapi::path::Parameter> {
    RefOr::T(
        ParameterBuilder::new()
            .name(name)
            .parameter_in(ParameterIn::Query)
            .required(Required::False)
            .description(Some(description))
            .schema(Some(typed(ty, false, None)))
            .build(),
    )
}

/// Paging, sort and one parameter per filter field (with the suffixes the list accepts).
pub fn list_params(filters: &[Field], exact: &[&str]) -> Vec<RefOr<utoipa::openapi::path::Parameter>> {
    let mut out = vec![
        query("current", Type::Integer, "Page, from 1".into()),
        query("size", Type::Integer, "Page size (10/30/50/100/200)".into()),
        query(
            "ascs",
            Type::String,
            "Sort ascending by (comma list of fields)".into(),
        ),
        query(
            "descs",
            Type::String,
            "Sort descending by (comma list of fields)".into(),
        ),
    ];
    for f in filters {
        let (ty, how) = match f.kind {
            Kind::Text => (
                Type::String,
                "contains; suffixes _equal, _like, _notequal, _null...",
            ),
            Kind::Int => (Type::String, "equals; suffixes _ge, _le, _gt, _lt, _notequal..."),
            Kind::Float => (Type::Number, "equals; suffixes _ge, _le, _gt, _lt..."),
            Kind::Time => (Type::String, "yyyy-MM-dd HH:mm:ss; suffixes _datege, _datelt..."),
        };
        out.push(query(f.name, ty, format!("Filter on {} ({how})", f.name)));
    }
    for name in exact {
        out.push(query(name, Type::String, format!("Filter on {name} (equals)")));
    }
    out
}

/// A 200 answer carrying `schema`.
pub fn answer(operation: &mut Operation, schema: Schema) {
    operation.responses.responses.insert(
        "200".into(),
        RefOr::T(
            ResponseBuilder::new()
                .description("Envelope {code, success, data, msg}")
                .content("application/json", Content::new(Some(schema)))
                .build(),
        ),
    );
}

/// A refusal `status` (400, 404...) in the envelope, `data` null, `msg` saying why.
pub fn refusal(operation: &mut Operation, status: u16, description: &str) {
    let failure = envelope(typed(Type::Null, false, None));
    operation.responses.responses.insert(
        status.to_string(),
        RefOr::T(
            ResponseBuilder::new()
                .description(description)
                .content("application/json", Content::new(Some(failure)))
                .build(),
        ),
    );
}

/// A JSON request body of `schema`.
pub fn request(operation: &mut Operation, schema: Schema) {
    operation.request_body = Some(RefOr::T(
        RequestBodyBuilder::new()
            .content("application/json", Content::new(Some(schema)))
            .required(Some(Required::True))
            .build(),
    ));
}

/// The operation `method` of `path`, if the document has it.
pub fn operation<'a>(doc: &'a mut OpenApi, path: &str, method: HttpMethod) -> Option<&'a mut Operation> {
    let item = doc.paths.paths.get_mut(path)?;
    match method {
        HttpMethod::Get => item.get.as_mut(),
        HttpMethod::Post => item.post.as_mut(),
        HttpMethod::Put => item.put.as_mut(),
        HttpMethod::Delete => item.delete.as_mut(),
        _ => None,
    }
}

/// The REST routes of an entity (`page`, `POST`/`PUT` base, `GET`/`DELETE` item).
pub struct RestPaths<'a> {
    pub page: &'a str,
    pub base: &'a str,
    pub item: &'a str,
}

/// Fills in the typed parameters, bodies and answers of an entity's REST routes.
pub fn document_rest(
    doc: &mut OpenApi,
    paths: &RestPaths<'_>,
    cols: &[Col],
    extra: &[(&str, Schema)],
    filters: &[Field],
    exact: &[&str],
) {
    let record = record(cols, extra);
    if let Some(op) = operation(doc, paths.page, HttpMethod::Get) {
        op.parameters = Some(list_params(filters, exact));
        answer(op, envelope(page(record.clone())));
    }
    if let Some(op) = operation(doc, paths.base, HttpMethod::Post) {
        request(op, body(cols, false, true));
    }
    if let Some(op) = operation(doc, paths.base, HttpMethod::Put) {
        request(op, body(cols, true, false));
    }
    if let Some(op) = operation(doc, paths.item, HttpMethod::Get) {
        answer(op, envelope(record));
    }
}

/// The admin console's routes of an entity (`{base}/list`, `detail`, `submit`, `remove`).
pub struct BladePaths<'a> {
    pub base: &'a str,
    pub tag: &'a str,
    pub table: &'a str,
    /// The entity answers `{base}/list` itself (and documents it there).
    pub own_list: bool,
}

fn required_query(name: &str, description: &str) -> RefOr<utoipa::openapi::path::Parameter> {
    RefOr::T(
        ParameterBuilder::new()
            .name(name)
            .parameter_in(ParameterIn::Query)
            .required(Required::True)
            .description(Some(description))
            .schema(Some(typed(Type::String, false, None)))
            .build(),
    )
}

/// Adds the typed list/detail/submit/remove operations of an entity to the document.
pub fn document_blade(
    doc: &mut OpenApi,
    paths: &BladePaths<'_>,
    readable: &[Col],
    writable: &[Col],
    filters: &[Field],
) {
    let record = record(readable, &[]);
    let operation = |summary: String| {
        OperationBuilder::new()
            .tag(paths.tag)
            .summary(Some(summary))
            .build()
    };
    let mut ops = Vec::new();
    if !paths.own_list {
        let mut list = operation(format!("Page of {}", paths.table));
        list.parameters = Some(list_params(filters, &[]));
        answer(&mut list, envelope(page(record.clone())));
        ops.push(("list", HttpMethod::Get, list));
    }
    let mut detail = operation(format!("One row of {}", paths.table));
    detail.parameters = Some(vec![required_query("id", "Id")]);
    answer(&mut detail, envelope(record));
    ops.push(("detail", HttpMethod::Get, detail));
    let mut submit = operation(format!(
        "Insert (no id) or update (with id) a row of {}",
        paths.table
    ));
    // One call inserts and updates: an update may leave required fields out.
    request(&mut submit, body(writable, false, false));
    answer(&mut submit, envelope(value(Ty::Id, false)));
    ops.push(("submit", HttpMethod::Post, submit));
    let mut remove = operation(format!("Logically delete rows of {}", paths.table));
    remove.parameters = Some(vec![required_query("ids", "Comma-joined ids")]);
    answer(
        &mut remove,
        envelope(typed(Type::Integer, false, Some("rows removed".into()))),
    );
    // All or nothing (`kernel::id::all_found`): one id the caller may not act on refuses all.
    refusal(&mut remove, 400, "No id, or an id that is not a number");
    refusal(
        &mut remove,
        404,
        "An id is not a row the caller may act on: nothing is removed",
    );
    ops.push(("remove", HttpMethod::Post, remove));
    for (suffix, method, op) in ops {
        doc.paths
            .add_path_operation(format!("{}/{suffix}", paths.base), vec![method], op);
    }
}
