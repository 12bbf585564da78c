//! Data models (`/api/blade-develop/model`): a table of a data source the code generator works
//! from, and the calls that read the data source's catalogue for the model dialog.

use axum::extract::State;
use serde::Deserialize;
use serde_json::{Map, Value as Json};
use utoipa::IntoParams;

use super::catalogue::{self, TableInfo, TableName};
use super::datasource;
use crate::auth::Caller;
use crate::kernel::entity::blade::{Hooks, PLATFORM_TENANT};
use crate::kernel::entity::field::{CheckFuture, Col, Ty};
use crate::kernel::extract::Query;
use crate::kernel::lang::Text;
use crate::kernel::sql::Sql;
use crate::kernel::{ApiError, ApiResult, Data, Envelope, Id};
use crate::resource::ResourceCtx;
use crate::resource::context::EntityDef;

pub static MODEL: EntityDef = EntityDef {
    base: "/api/blade-develop/model",
    table: "blade_model",
    tenant_scoped: false,
    platform_only: true,
    menu_code: "model",
    tag: "develop",
    fields: &[
        Col::of("id", "id", Ty::Id).read_only(),
        Col::of("datasourceId", "datasource_id", Ty::Id)
            .required_as("请选择数据源", "Please select the data source")
            .filter(),
        Col::of("modelName", "model_name", Ty::Text(64))
            .required_as("请输入模型名称", "Please enter the model name")
            .filter(),
        Col::of("modelCode", "model_code", Ty::Text(40))
            .required_as("请输入模型编号", "Please enter the model code")
            .unique("模型编号已存在", "This model code already exists"),
        Col::of("modelTable", "model_table", Ty::Text(64))
            .required_as("请选择数据表", "Please select the table"),
        Col::of("modelRemark", "model_remark", Ty::Text(255)),
        Col::of("createTime", "create_time", Ty::Time).read_only(),
    ],
    default_order: "id DESC",
    hooks: &ModelHooks,
    ..EntityDef::DEFAULT
};

struct ModelHooks;

const BAD_CODE: Text = Text::new(
    "模型编号须以小写字母开头，只含小写字母、数字和下划线（2～40个字符）",
    "The model code starts with a lowercase letter and holds only lowercase letters, digits and underscores (2–40 characters)",
);
const NO_DATASOURCE: Text = Text::new("数据源不存在", "No such data source");
const MODEL_IN_USE: Text = Text::new(
    "该模型正被代码生成配置使用，请先删除那些配置",
    "Code generation rows use this model: remove them first",
);

/// `^[a-z][a-z0-9_]{1,39}$`: a name that is a Rust module, a file and a table at once.
pub fn is_snake_identifier(s: &str) -> bool {
    let b = s.as_bytes();
    (2..=40).contains(&b.len())
        && b[0].is_ascii_lowercase()
        && b.iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'_')
}

impl Hooks<ResourceCtx, Caller> for ModelHooks {
    fn before_save<'a>(
        &'a self,
        state: &'a ResourceCtx,
        _caller: &'a Caller,
        _id: Option<Id>,
        body: &'a mut Map<String, Json>,
    ) -> CheckFuture<'a, ()> {
        Box::pin(async move {
            if let Some(code) = body.get("modelCode").and_then(Json::as_str)
                && !code.trim().is_empty()
                && !is_snake_identifier(code.trim())
            {
                return Err(ApiError::BadRequest(BAD_CODE));
            }
            if let Some(ds) = body.get("datasourceId") {
                let id = ds
                    .as_str()
                    .and_then(|s| s.trim().parse::<i64>().ok())
                    .or_else(|| ds.as_i64());
                if let Some(id) = id
                    && !datasource::exists(state, Id(id)).await?
                {
                    return Err(ApiError::BadRequest(NO_DATASOURCE));
                }
            }
            Ok(())
        })
    }

    fn before_remove<'a>(
        &'a self,
        state: &'a ResourceCtx,
        _caller: &'a Caller,
        ids: &'a [Id],
    ) -> CheckFuture<'a, ()> {
        Box::pin(async move {
            let mut used = Sql::new("SELECT COUNT(*) FROM blade_code WHERE is_deleted = 0 AND model_id IN (");
            used.push_ids(ids);
            used.push(")");
            if used.scalar::<i64, _>(state.db.pool()).await? > 0 {
                return Err(ApiError::BadRequest(MODEL_IN_USE));
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
                Sql::new("SELECT id, name FROM blade_datasource WHERE is_deleted = 0")
                    .fetch_all::<(i64, String), _>(state.db.pool())
                    .await?;
            super::names::add_names(rows, "datasourceId", "datasourceName", &names);
            Ok(())
        })
    }
}

/// A stored model.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct ModelRow {
    pub id: i64,
    pub datasource_id: i64,
    pub model_name: String,
    pub model_code: String,
    pub model_table: String,
}

const NO_MODEL: Text = Text::new("模型不存在", "No such model");

pub async fn stored(ctx: &ResourceCtx, id: Id) -> Result<ModelRow, ApiError> {
    let mut sql = Sql::new(
        "SELECT id, datasource_id, model_name, model_code, model_table FROM blade_model WHERE is_deleted = 0",
    );
    sql.push_bind(" AND id = ?", [id.into()]);
    sql.fetch_optional::<ModelRow, _>(ctx.db.pool())
        .await?
        .ok_or(ApiError::BadRequest(NO_MODEL))
}

/// The developer tools are the platform's: any other tenant is refused whatever its menus.
pub async fn allow(ctx: &ResourceCtx, caller: &Caller, code: &str) -> Result<(), ApiError> {
    if caller.tenant_id != PLATFORM_TENANT {
        return Err(ApiError::Forbidden(crate::auth::caller::NO_PERMISSION));
    }
    caller.require(ctx, code).await
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(rename_all = "camelCase")]
pub struct TableListParams {
    /// The data source to list.
    pub datasource_id: Id,
}

/// The tables of a data source, by name.
#[utoipa::path(get, path = "/api/blade-develop/model/table-list", tag = "develop", params(TableListParams),
    responses((status = 200, body = Envelope<Vec<TableName>>),
        (status = 400, description = "No such data source, or it cannot be reached (the server's message)"),
        (status = 401), (status = 403)))]
pub async fn table_list(
    State(ctx): State<ResourceCtx>,
    caller: Caller,
    Query(p): Query<TableListParams>,
) -> ApiResult<Data<Vec<TableName>>> {
    allow(&ctx, &caller, "model").await?;
    let target = datasource::target_of(&ctx, p.datasource_id).await?;
    let mut conn = catalogue::connect(&ctx.config.data_dir, &target).await?;
    Ok(Data(catalogue::tables(&mut conn, target.category).await?))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(rename_all = "camelCase")]
pub struct TableInfoParams {
    /// A model: its data source and table.
    pub model_id: Option<Id>,
    /// Or a table of `datasourceId`.
    pub table_name: Option<String>,
    pub datasource_id: Option<Id>,
}

const NEED_TABLE: Text = Text::new(
    "请指定模型，或数据源与表名",
    "Name a model, or a data source and a table",
);

/// The columns of a model's table, or of a table of a data source.
#[utoipa::path(get, path = "/api/blade-develop/model/table-info", tag = "develop", params(TableInfoParams),
    responses((status = 200, body = Envelope<TableInfo>),
        (status = 400, description = "No such model, data source or table, or it cannot be reached"),
        (status = 401), (status = 403)))]
pub async fn table_info(
    State(ctx): State<ResourceCtx>,
    caller: Caller,
    Query(p): Query<TableInfoParams>,
) -> ApiResult<Data<TableInfo>> {
    allow(&ctx, &caller, "model").await?;
    let (datasource_id, table) = match (p.model_id, p.table_name, p.datasource_id) {
        (Some(model), _, _) => {
            let m = stored(&ctx, model).await?;
            (Id(m.datasource_id), m.model_table)
        }
        (None, Some(table), Some(ds)) if !table.trim().is_empty() => (ds, table.trim().to_owned()),
        _ => return Err(ApiError::BadRequest(NEED_TABLE)),
    };
    Ok(Data(read_table(&ctx, datasource_id, &table).await?))
}

/// The columns of `table` of data source `datasource_id`.
pub async fn read_table(ctx: &ResourceCtx, datasource_id: Id, table: &str) -> Result<TableInfo, ApiError> {
    let target = datasource::target_of(ctx, datasource_id).await?;
    let mut conn = catalogue::connect(&ctx.config.data_dir, &target).await?;
    catalogue::columns(&mut conn, target.category, table).await
}
