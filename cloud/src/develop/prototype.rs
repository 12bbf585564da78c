//! The field settings of a model (`model/model-prototype`, `model-prototype/submit-list`,
//! `model-prototype/select`): how each column of its table is labelled, shown and checked in
//! the code the generator makes.

use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::catalogue::ColumnInfo;
use super::model::{self, allow};
use crate::auth::Caller;
use crate::kernel::extract::{Json as Body, Query};
use crate::kernel::lang::Text;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, ApiResult, Data, Envelope, Id};
use crate::resource::ResourceCtx;

/// Columns the entity engine keeps itself: never a field of a generated form.
pub const ENGINE_COLUMNS: &[&str] = &[
    "id",
    "tenant_id",
    "create_user",
    "create_dept",
    "create_time",
    "update_user",
    "update_time",
    "status",
    "is_deleted",
];

pub const PROPERTY_TYPES: &[&str] = &["string", "integer", "number", "date"];
pub const COMPONENTS: &[&str] = &["input", "textarea", "number", "select", "date"];

/// How one column is shown and checked.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Prototype {
    pub id: Option<Id>,
    pub model_id: Option<Id>,
    /// The column.
    pub jdbc_name: String,
    /// Its declared type.
    pub jdbc_type: String,
    /// The wire name (camelCase of the column).
    pub property_name: String,
    /// `string`, `integer`, `number` or `date` (a day `yyyy-MM-dd`).
    pub property_type: String,
    pub label_zh: String,
    pub label_en: String,
    /// `input`, `textarea`, `number`, `select` or `date`.
    pub component: String,
    pub required: bool,
    /// A column of the list.
    pub list: bool,
    /// A filter of the list.
    pub search: bool,
    /// A field of the form.
    pub form: bool,
    /// The platform dictionary a `select` takes its options from.
    pub dict_code: Option<String>,
    pub max_length: Option<i64>,
    pub min_value: Option<f64>,
    pub max_value: Option<f64>,
    pub sort: i64,
}

#[derive(sqlx::FromRow)]
struct Row {
    id: i64,
    model_id: i64,
    jdbc_name: String,
    jdbc_type: String,
    property_name: String,
    property_type: String,
    label_zh: String,
    label_en: String,
    component: String,
    is_required: i64,
    is_list: i64,
    is_search: i64,
    is_form: i64,
    dict_code: Option<String>,
    max_length: Option<i64>,
    min_value: Option<f64>,
    max_value: Option<f64>,
    sort: i64,
}

impl From<Row> for Prototype {
    fn from(r: Row) -> Self {
        Prototype {
            id: Some(Id(r.id)),
            model_id: Some(Id(r.model_id)),
            jdbc_name: r.jdbc_name,
            jdbc_type: r.jdbc_type,
            property_name: r.property_name,
            property_type: r.property_type,
            label_zh: r.label_zh,
            label_en: r.label_en,
            component: r.component,
            required: r.is_required == 1,
            list: r.is_list == 1,
            search: r.is_search == 1,
            form: r.is_form == 1,
            dict_code: r.dict_code,
            max_length: r.max_length,
            min_value: r.min_value,
            max_value: r.max_value,
            sort: r.sort,
        }
    }
}

/// `part_name` → `partName`.
pub fn camel(column: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in column.chars() {
        if c == '_' {
            upper = !out.is_empty();
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.extend(c.to_lowercase());
        }
    }
    out
}

/// The wire type a declared column type reads as.
pub fn property_type_of(declared: &str) -> &'static str {
    let t = declared.to_ascii_lowercase();
    if t.contains("date") || t.starts_with("timestamp") {
        "date"
    } else if t.contains("int") || t == "serial" || t == "bigserial" {
        "integer"
    } else if ["real", "floa", "doub", "numeric", "decimal"]
        .iter()
        .any(|k| t.contains(k))
    {
        "number"
    } else {
        "string"
    }
}

/// The settings a column starts with: labelled by its name (or its comment), in the list and
/// the form, required when the column is NOT NULL.
pub fn default_for(column: &ColumnInfo, sort: i64) -> Prototype {
    let property_type = property_type_of(&column.ty);
    let label = column
        .comment
        .clone()
        .filter(|c| !c.trim().is_empty() && c.chars().count() <= 64)
        .unwrap_or_else(|| column.name.clone());
    let long_text = property_type == "string" && column.max_length.is_none_or(|n| n > 255);
    Prototype {
        id: None,
        model_id: None,
        jdbc_name: column.name.clone(),
        jdbc_type: column.ty.clone(),
        property_name: camel(&column.name),
        property_type: property_type.to_owned(),
        label_zh: label.clone(),
        label_en: column.name.replace('_', " "),
        component: match property_type {
            "integer" | "number" => "number",
            "date" => "date",
            _ if long_text => "textarea",
            _ => "input",
        }
        .to_owned(),
        required: !column.nullable,
        list: true,
        search: false,
        form: true,
        dict_code: None,
        max_length: if property_type == "string" {
            column.max_length
        } else {
            None
        },
        min_value: None,
        max_value: None,
        sort,
    }
}

/// The stored settings of a model, in order.
pub async fn stored(ctx: &ResourceCtx, model_id: Id) -> Result<Vec<Prototype>, ApiError> {
    let mut sql = Sql::new(
        "SELECT id, model_id, jdbc_name, jdbc_type, property_name, property_type, label_zh, label_en, component, \
         is_required, is_list, is_search, is_form, dict_code, max_length, min_value, max_value, sort \
         FROM blade_model_prototype",
    );
    sql.push_bind(" WHERE model_id = ? ORDER BY sort, id", [model_id.into()]);
    Ok(sql
        .fetch_all::<Row, _>(ctx.db.pool())
        .await?
        .into_iter()
        .map(Prototype::from)
        .collect())
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(rename_all = "camelCase")]
pub struct ModelParams {
    pub model_id: Id,
}

/// The field settings to edit: the stored ones merged with the table's columns as they are now
/// (a new column gets defaults, a column gone from the table is dropped).
#[utoipa::path(get, path = "/api/blade-develop/model/model-prototype", tag = "develop", params(ModelParams),
    responses((status = 200, body = Envelope<Vec<Prototype>>),
        (status = 400, description = "No such model, or its data source cannot be reached"), (status = 401), (status = 403)))]
pub async fn model_prototype(
    State(ctx): State<ResourceCtx>,
    caller: Caller,
    Query(p): Query<ModelParams>,
) -> ApiResult<Data<Vec<Prototype>>> {
    allow(&ctx, &caller, "model").await?;
    let m = model::stored(&ctx, p.model_id).await?;
    let table = model::read_table(&ctx, Id(m.datasource_id), &m.model_table).await?;
    let saved = stored(&ctx, p.model_id).await?;
    let mut out = Vec::new();
    for (i, column) in table
        .columns
        .iter()
        .filter(|c| !ENGINE_COLUMNS.contains(&c.name.as_str()))
        .enumerate()
    {
        let mut proto = match saved.iter().find(|s| s.jdbc_name == column.name) {
            Some(s) => {
                let mut s = s.clone();
                s.jdbc_type = column.ty.clone();
                s
            }
            None => default_for(column, (i as i64 + 1) * 10),
        };
        proto.model_id = Some(p.model_id);
        out.push(proto);
    }
    out.sort_by_key(|p| p.sort);
    Ok(Data(out))
}

/// The stored field settings of a model (what the code generator uses).
#[utoipa::path(get, path = "/api/blade-develop/model-prototype/select", tag = "develop", params(ModelParams),
    responses((status = 200, body = Envelope<Vec<Prototype>>), (status = 400), (status = 401), (status = 403)))]
pub async fn select(
    State(ctx): State<ResourceCtx>,
    caller: Caller,
    Query(p): Query<ModelParams>,
) -> ApiResult<Data<Vec<Prototype>>> {
    allow(&ctx, &caller, "model").await?;
    model::stored(&ctx, p.model_id).await?;
    Ok(Data(stored(&ctx, p.model_id).await?))
}

const EMPTY: Text = Text::new("请至少提交一个字段", "Submit at least one field");
const MIXED: Text = Text::new(
    "一次只能提交同一个模型的字段",
    "Submit the fields of one model at a time",
);

fn field_error(column: &str, zh: &str, en: &str) -> ApiError {
    ApiError::bad_request(format!("字段 {column}：{zh}"), format!("Field {column}: {en}"))
}

/// Checks one field's settings; the message names the column.
pub fn check(p: &Prototype, columns: &[ColumnInfo]) -> Result<(), ApiError> {
    let col = p.jdbc_name.as_str();
    if !columns.iter().any(|c| c.name == col) || ENGINE_COLUMNS.contains(&col) {
        return Err(field_error(
            col,
            "数据表中没有该列",
            "the table has no such column",
        ));
    }
    let name = p.property_name.as_bytes();
    if name.is_empty()
        || name.len() > 40
        || !name[0].is_ascii_lowercase()
        || !name.iter().all(u8::is_ascii_alphanumeric)
    {
        return Err(field_error(
            col,
            "属性名须以小写字母开头，只含字母和数字（至多40个字符）",
            "the property name starts with a lowercase letter and holds only letters and digits (at most 40)",
        ));
    }
    if !PROPERTY_TYPES.contains(&p.property_type.as_str()) {
        return Err(field_error(col, "属性类型无效", "invalid property type"));
    }
    if !COMPONENTS.contains(&p.component.as_str()) {
        return Err(field_error(col, "组件类型无效", "invalid component"));
    }
    for (label, zh, en) in [
        (&p.label_zh, "请输入中文名称", "enter the Chinese label"),
        (&p.label_en, "请输入英文名称", "enter the English label"),
    ] {
        let n = label.trim().chars().count();
        if n == 0 || n > 64 {
            return Err(field_error(col, zh, en));
        }
    }
    if p.required && !p.form {
        return Err(field_error(
            col,
            "必填字段必须显示在表单中",
            "a required field must be in the form",
        ));
    }
    let dict = p.dict_code.as_deref().map(str::trim).filter(|d| !d.is_empty());
    if p.component == "select" && dict.is_none() {
        return Err(field_error(
            col,
            "下拉框须指定字典编号",
            "a select needs a dictionary code",
        ));
    }
    if let Some(d) = dict
        && (d.len() > 64
            || !d
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-'))
    {
        return Err(field_error(col, "字典编号无效", "invalid dictionary code"));
    }
    let numeric = matches!(p.property_type.as_str(), "integer" | "number");
    if numeric != (p.component == "number" || (p.component == "select" && p.property_type == "integer")) {
        return Err(field_error(
            col,
            "数值字段须使用数字输入框，数字输入框只用于数值字段",
            "numbers use the number input, and the number input is only for numbers",
        ));
    }
    if p.property_type == "date" && p.component != "date" {
        return Err(field_error(
            col,
            "日期字段须使用日期组件",
            "a date uses the date component",
        ));
    }
    if let Some(n) = p.max_length
        && !(1..=4000).contains(&n)
    {
        return Err(field_error(
            col,
            "最大长度须在1到4000之间",
            "the maximum length is between 1 and 4000",
        ));
    }
    for v in [p.min_value, p.max_value].into_iter().flatten() {
        if !v.is_finite() || v.abs() > 1e15 {
            return Err(field_error(col, "数值范围无效", "invalid number bounds"));
        }
    }
    if let (Some(lo), Some(hi)) = (p.min_value, p.max_value)
        && lo > hi
    {
        return Err(field_error(
            col,
            "最小值不能大于最大值",
            "the minimum exceeds the maximum",
        ));
    }
    Ok(())
}

/// Replaces a model's field settings at once: all are checked first, then the old rows go and
/// the new ones are written in one transaction.
#[utoipa::path(post, path = "/api/blade-develop/model-prototype/submit-list", tag = "develop",
    request_body = Vec<Prototype>,
    responses((status = 200, body = Envelope<bool>),
        (status = 400, description = "A field's settings are invalid (the message names the column)"),
        (status = 401), (status = 403)))]
pub async fn submit_list(
    State(ctx): State<ResourceCtx>,
    caller: Caller,
    Body(list): Body<Vec<Prototype>>,
) -> ApiResult<Data<bool>> {
    allow(&ctx, &caller, "model_edit").await?;
    let model_id = list
        .first()
        .and_then(|p| p.model_id)
        .ok_or(ApiError::BadRequest(EMPTY))?;
    if list.iter().any(|p| p.model_id != Some(model_id)) {
        return Err(ApiError::BadRequest(MIXED));
    }
    let m = model::stored(&ctx, model_id).await?;
    let table = model::read_table(&ctx, Id(m.datasource_id), &m.model_table).await?;
    let mut seen = std::collections::HashSet::new();
    for p in &list {
        check(p, &table.columns)?;
        if !seen.insert(p.jdbc_name.as_str())
            || list.iter().filter(|o| o.property_name == p.property_name).count() > 1
        {
            return Err(field_error(&p.jdbc_name, "重复提交", "submitted twice"));
        }
    }
    let mut tx = ctx.db.begin_write().await?;
    let mut clear = Sql::default();
    clear.push_bind(
        "DELETE FROM blade_model_prototype WHERE model_id = ?",
        [model_id.into()],
    );
    clear.execute(&mut *tx).await?;
    for p in &list {
        let dict = p.dict_code.as_deref().map(str::trim).filter(|d| !d.is_empty());
        let mut insert = Sql::default();
        insert.push_bind(
            "INSERT INTO blade_model_prototype (id, model_id, jdbc_name, jdbc_type, property_name, property_type, \
             label_zh, label_en, component, is_required, is_list, is_search, is_form, dict_code, max_length, \
             min_value, max_value, sort) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                ctx.ids.next().into(),
                model_id.into(),
                p.jdbc_name.clone().into(),
                p.jdbc_type.chars().take(64).collect::<String>().into(),
                p.property_name.clone().into(),
                p.property_type.clone().into(),
                p.label_zh.trim().to_owned().into(),
                p.label_en.trim().to_owned().into(),
                p.component.clone().into(),
                Value::Int(p.required.into()),
                Value::Int(p.list.into()),
                Value::Int(p.search.into()),
                Value::Int(p.form.into()),
                dict.map_or(Value::NullText, |d| d.to_owned().into()),
                p.max_length.map_or(Value::Null, Value::Int),
                p.min_value.map_or(Value::NullFloat, Value::Float),
                p.max_value.map_or(Value::NullFloat, Value::Float),
                Value::Int(p.sort),
            ],
        );
        insert.execute(&mut *tx).await?;
    }
    tx.commit().await?;
    Ok(Data(true))
}
