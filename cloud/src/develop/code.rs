//! Code generation rows (`/api/blade-develop/code`): which model becomes which business module,
//! with `copy`, a `preview` of every file and `gen-code`, the zip of the files of several rows.

use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Map, Value as Json};
use utoipa::IntoParams;

use super::codegen::{self, GeneratedFile, Spec};
use super::model::{self, allow, is_snake_identifier};
use super::prototype;
use crate::auth::Caller;
use crate::kernel::entity::blade::Hooks;
use crate::kernel::entity::field::{CheckFuture, Col, Ty};
use crate::kernel::extract::Query;
use crate::kernel::lang::Text;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, ApiResult, Data, Envelope, Id, time};
use crate::resource::ResourceCtx;
use crate::resource::context::EntityDef;

pub static CODE: EntityDef = EntityDef {
    base: "/api/blade-develop/code",
    table: "blade_code",
    tenant_scoped: false,
    platform_only: true,
    menu_code: "code",
    tag: "develop",
    fields: &[
        Col::of("id", "id", Ty::Id).read_only(),
        Col::of("modelId", "model_id", Ty::Id).required_as("请选择数据模型", "Please select the data model"),
        Col::of("codeName", "code_name", Ty::Text(64))
            .required_as("请输入模块名称", "Please enter the module name")
            .filter(),
        Col::of("codeNameEn", "code_name_en", Ty::Text(64))
            .required_as("请输入模块英文名称", "Please enter the module's English name"),
        Col::of("moduleName", "module_name", Ty::Text(40))
            .required_as("请输入模块编号", "Please enter the module code")
            .unique("模块编号已存在", "This module code already exists"),
        Col::of("tenantScoped", "tenant_scoped", Ty::Int { min: 0, max: 1 }).defaulted(),
        Col::of("remark", "remark", Ty::Text(255)),
        Col::of("createTime", "create_time", Ty::Time).read_only(),
    ],
    default_order: "id DESC",
    hooks: &CodeHooks,
    ..EntityDef::DEFAULT
};

struct CodeHooks;

const BAD_MODULE: Text = Text::new(
    "模块编号须以小写字母开头，只含小写字母、数字和下划线（2～40个字符）",
    "The module code starts with a lowercase letter and holds only lowercase letters, digits and underscores (2–40 characters)",
);
const BAD_NAME: Text = Text::new(
    "模块名称不能含换行、反引号、反斜杠或 */",
    "The module names cannot hold line breaks, backquotes, backslashes or */",
);
const NO_MODEL: Text = Text::new("模型不存在", "No such model");

/// A module name the generated Rust and TypeScript can both use (not a keyword of either).
fn reserved(module: &str) -> bool {
    const WORDS: &[&str] = &[
        "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
        "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref",
        "return", "self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where",
        "while", "gen", "mod_rs", "menu", "delete", "new", "function", "class", "var", "default", "import",
        "export",
    ];
    WORDS.contains(&module)
}

impl Hooks<ResourceCtx, Caller> for CodeHooks {
    fn before_save<'a>(
        &'a self,
        state: &'a ResourceCtx,
        _caller: &'a Caller,
        _id: Option<Id>,
        body: &'a mut Map<String, Json>,
    ) -> CheckFuture<'a, ()> {
        Box::pin(async move {
            if let Some(m) = body.get("moduleName").and_then(Json::as_str)
                && !m.trim().is_empty()
                && (!is_snake_identifier(m.trim()) || reserved(m.trim()) || m.trim().ends_with('_'))
            {
                return Err(ApiError::BadRequest(BAD_MODULE));
            }
            for name in ["codeName", "codeNameEn"] {
                if let Some(n) = body.get(name).and_then(Json::as_str)
                    && (n.contains("*/") || n.chars().any(|c| c.is_control() || c == '`' || c == '\\'))
                {
                    return Err(ApiError::BadRequest(BAD_NAME));
                }
            }
            if let Some(v) = body.get("modelId") {
                let id = v
                    .as_str()
                    .and_then(|s| s.trim().parse::<i64>().ok())
                    .or_else(|| v.as_i64());
                if let Some(id) = id {
                    model::stored(state, Id(id))
                        .await
                        .map_err(|_| ApiError::BadRequest(NO_MODEL))?;
                }
            }
            Ok(())
        })
    }

    fn decorate<'a>(
        &'a self,
        state: &'a ResourceCtx,
        _caller: &'a Caller,
        rows: &'a mut [Json],
    ) -> CheckFuture<'a, ()> {
        Box::pin(async move {
            let names: Vec<(i64, String)> =
                Sql::new("SELECT id, model_name FROM blade_model WHERE is_deleted = 0")
                    .fetch_all::<(i64, String), _>(state.db.pool())
                    .await?;
            super::names::add_names(rows, "modelId", "modelName", &names);
            Ok(())
        })
    }
}

#[derive(Debug, Clone, sqlx::FromRow)]
struct CodeRow {
    model_id: i64,
    code_name: String,
    code_name_en: String,
    module_name: String,
    tenant_scoped: i64,
    remark: Option<String>,
    create_time: i64,
}

const COLUMNS: &str = "model_id, code_name, code_name_en, module_name, tenant_scoped, remark, create_time";

async fn stored(ctx: &ResourceCtx, id: Id) -> Result<CodeRow, ApiError> {
    let mut sql = Sql::new(&format!("SELECT {COLUMNS} FROM blade_code WHERE is_deleted = 0"));
    sql.push_bind(" AND id = ?", [id.into()]);
    sql.fetch_optional::<CodeRow, _>(ctx.db.pool())
        .await?
        .ok_or_else(ApiError::not_found)
}

const NO_FIELDS: Text = Text::new(
    "该模型尚未设置字段，请先在模型管理中保存字段设置",
    "The model has no field settings yet: save them under Data models first",
);

/// Every file of one row.
async fn files_of(ctx: &ResourceCtx, row: &CodeRow) -> Result<Vec<GeneratedFile>, ApiError> {
    let m = model::stored(ctx, Id(row.model_id)).await?;
    let fields = prototype::stored(ctx, Id(row.model_id)).await?;
    if fields.is_empty() {
        return Err(ApiError::BadRequest(NO_FIELDS));
    }
    let mut rank = Sql::new("SELECT COUNT(*) FROM blade_code WHERE is_deleted = 0");
    rank.push_bind(" AND create_time < ?", [Value::Int(row.create_time)]);
    let sort = rank.scalar::<i64, _>(ctx.db.pool()).await? + 1;
    let version: String = time::format_ms(row.create_time)
        .chars()
        .filter(char::is_ascii_digit)
        .collect();
    let spec = Spec {
        module: row.module_name.clone(),
        name_zh: row.code_name.clone(),
        name_en: row.code_name_en.clone(),
        tenant_scoped: row.tenant_scoped == 1,
        model_code: m.model_code,
        model_table: m.model_table,
        version,
        sort,
    };
    codegen::generate(&spec, &fields).map_err(|e| ApiError::Internal(e.to_string()))
}

#[derive(Debug, Deserialize, IntoParams)]
pub struct IdParams {
    pub id: Id,
}

/// Every file the generator makes for one row, to read before downloading.
#[utoipa::path(get, path = "/api/blade-develop/code/preview", tag = "develop", params(IdParams),
    responses((status = 200, body = Envelope<Vec<GeneratedFile>>),
        (status = 400, description = "The model has no field settings"), (status = 401), (status = 403),
        (status = 404, description = "No such code row")))]
pub async fn preview(
    State(ctx): State<ResourceCtx>,
    caller: Caller,
    Query(p): Query<IdParams>,
) -> ApiResult<Data<Vec<GeneratedFile>>> {
    allow(&ctx, &caller, "code").await?;
    let row = stored(&ctx, p.id).await?;
    Ok(Data(files_of(&ctx, &row).await?))
}

/// A new row from an existing one, named as its copy (`{module}_copy`, `_copy2`...).
#[utoipa::path(post, path = "/api/blade-develop/code/copy", tag = "develop", params(IdParams),
    responses((status = 200, body = Envelope<Id>), (status = 401), (status = 403),
        (status = 404, description = "No such code row")))]
pub async fn copy(
    State(ctx): State<ResourceCtx>,
    caller: Caller,
    Query(p): Query<IdParams>,
) -> ApiResult<Data<Id>> {
    allow(&ctx, &caller, "code_copy").await?;
    let row = stored(&ctx, p.id).await?;
    let taken: Vec<String> = Sql::new("SELECT module_name FROM blade_code WHERE is_deleted = 0")
        .scalars::<String, _>(ctx.db.pool())
        .await?;
    let stem: String = row.module_name.chars().take(32).collect();
    let module = (1..)
        .map(|n| {
            if n == 1 {
                format!("{stem}_copy")
            } else {
                format!("{stem}_copy{n}")
            }
        })
        .find(|m| !taken.contains(m))
        .unwrap_or_default();
    let cut = |s: &str, suffix: &str| -> String {
        let keep = 64 - suffix.chars().count();
        format!("{}{suffix}", s.chars().take(keep).collect::<String>())
    };
    let id = ctx.ids.next();
    let mut tx = ctx.db.begin_write().await?;
    let mut insert = Sql::default();
    insert.push_bind(
        "INSERT INTO blade_code (id, model_id, code_name, code_name_en, module_name, tenant_scoped, remark, \
         create_user, create_time) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            id.into(),
            Value::Int(row.model_id),
            cut(&row.code_name, "（副本）").into(),
            cut(&row.code_name_en, " (copy)").into(),
            module.into(),
            Value::Int(row.tenant_scoped),
            row.remark.map_or(Value::NullText, Value::from),
            caller.user_id.into(),
            Value::Int(time::now_ms()),
        ],
    );
    insert.execute(&mut *tx).await?;
    tx.commit().await?;
    Ok(Data(id))
}

#[derive(Debug, Deserialize, IntoParams)]
pub struct GenParams {
    /// Comma-joined ids of code rows.
    pub ids: String,
    /// The console the code is for: `saber` (this product's React console).
    pub system: Option<String>,
}

const BAD_SYSTEM: Text = Text::new(
    "只支持生成本系统（saber）的代码",
    "Only code for this product's console (saber) can be generated",
);
const NO_IDS: Text = Text::new("请选择要生成的记录", "Select the rows to generate");

/// The zip of the files of every listed row.
#[utoipa::path(post, path = "/api/blade-develop/code/gen-code", tag = "develop", params(GenParams),
    responses((status = 200, description = "The zip of the generated files", content_type = "application/zip"),
        (status = 400, description = "No rows, an unknown system, or a model without field settings"),
        (status = 401), (status = 403), (status = 404, description = "A listed code row does not exist")))]
pub async fn gen_code(
    State(ctx): State<ResourceCtx>,
    caller: Caller,
    Query(p): Query<GenParams>,
) -> Result<Response, ApiError> {
    allow(&ctx, &caller, "code_gen").await?;
    if p.system.as_deref().is_some_and(|s| s != "saber") {
        return Err(ApiError::BadRequest(BAD_SYSTEM));
    }
    let ids = p
        .ids
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse::<i64>()
                .map(Id)
                .map_err(|_| ApiError::bad_request("无效的ID", "invalid id"))
        })
        .collect::<Result<Vec<Id>, ApiError>>()?;
    if ids.is_empty() {
        return Err(ApiError::BadRequest(NO_IDS));
    }
    let mut files = Vec::new();
    for id in ids {
        let row = stored(&ctx, id).await?;
        files.extend(files_of(&ctx, &row).await?);
    }
    let bytes = codegen::zip(&files).map_err(|e| ApiError::Internal(format!("zip: {e}")))?;
    let stamp: String = time::format_ms(time::now_ms())
        .chars()
        .filter(char::is_ascii_digit)
        .collect();
    let disposition = format!("attachment; filename=\"code-{stamp}.zip\"");
    let mut response = bytes.into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/zip"));
    if let Ok(v) = HeaderValue::from_str(&disposition) {
        headers.insert(header::CONTENT_DISPOSITION, v);
    }
    Ok(response)
}
