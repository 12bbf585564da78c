//! The checks of a submitted station beyond its declared fields: images (uploaded jpg/png of
//! the tenant, at most five), the owner (a live owner of the tenant, whose name and phone fill
//! blank fields) and the region codes (existing at their levels and nesting).

use serde_json::Value as Json;

use super::fields::{Parsed, value_of};
use super::station_store::COLS;
use crate::auth::Caller;
use crate::kernel::lang::Text;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, Core, Id};

pub const MAX_IMAGES: usize = 5;

const TOO_MANY_IMAGES: Text = Text::new("电站图片最多5张", "A station can have at most 5 images");
const IMAGE_TYPE: Text = Text::new("图片只能是jpg或png格式", "Images must be jpg or png files");
const NO_OWNER: Text = Text::new("业主不存在", "No such owner in this tenant");

/// Attach ids of the submitted images (ids, `{attachId}` objects or links), each an uploaded
/// jpg/png of the caller's tenant; at most five.
pub(crate) async fn image_ids(state: &Core, caller: &Caller, raw: &Json) -> Result<Vec<Id>, ApiError> {
    let items: Vec<Json> = match raw {
        Json::Null => vec![],
        Json::Array(a) => a.clone(),
        Json::String(s) => s
            .split(',')
            .filter(|p| !p.trim().is_empty())
            .map(|p| Json::String(p.trim().to_owned()))
            .collect(),
        other => vec![other.clone()],
    };
    if items.len() > MAX_IMAGES {
        return Err(ApiError::BadRequest(TOO_MANY_IMAGES));
    }
    let bad =
        |v: &Json| ApiError::bad_request(format!("图片不存在：{v}"), format!("No such uploaded image: {v}"));
    let mut ids = Vec::new();
    for item in &items {
        let key = match item {
            Json::Object(o) => o
                .get("attachId")
                .or_else(|| o.get("link"))
                .cloned()
                .unwrap_or(Json::Null),
            other => other.clone(),
        };
        let attach = match &key {
            Json::Number(n) => find_attach_by_id(state, caller, n.as_i64().unwrap_or(-1)).await?,
            Json::String(s) => match s.trim().parse::<i64>() {
                Ok(id) => find_attach_by_id(state, caller, id).await?,
                Err(_) => crate::resource::oss::find_by_link(state, &caller.tenant_id, s.trim()).await?,
            },
            _ => None,
        }
        .ok_or_else(|| bad(item))?;
        if !matches!(attach.extension.as_str(), "jpg" | "jpeg" | "png") {
            return Err(ApiError::BadRequest(IMAGE_TYPE));
        }
        if !ids.contains(&attach.id) {
            ids.push(attach.id);
        }
    }
    Ok(ids)
}

async fn find_attach_by_id(
    state: &Core,
    caller: &Caller,
    id: i64,
) -> Result<Option<crate::resource::oss::Attach>, ApiError> {
    let mut sql = Sql::new(&format!(
        "SELECT {} FROM blade_attach WHERE is_deleted = 0",
        crate::resource::oss::COLUMNS
    ));
    sql.push_bind(" AND id = ? AND ", [Value::Int(id)]);
    sql.append(&caller.tenant_filter("tenant_id"));
    sql.fetch_optional::<crate::resource::oss::Attach, _>(state.db.pool())
        .await
}

/// The owner's (account or name, phone) when `owner` is a live owner of the caller's tenant.
async fn owner_of(state: &Core, caller: &Caller, owner: Id) -> Result<(String, Option<String>), ApiError> {
    let mut sql =
        Sql::new("SELECT COALESCE(u.real_name, u.account), u.phone FROM blade_user u WHERE u.is_deleted = 0");
    sql.push_bind(" AND u.id = ? AND ", [Value::Int(owner.0)]);
    sql.append(&caller.tenant_filter("u.tenant_id"));
    sql.push_bind(
        " AND EXISTS (SELECT 1 FROM blade_user_role ur \
         JOIN blade_role r ON r.id = ur.role_id WHERE ur.user_id = u.id AND r.is_deleted = 0 AND r.role_alias = ?)",
        [crate::auth::scope::OWNER_ROLE.into()],
    );
    sql.fetch_optional::<(String, Option<String>), _>(state.db.pool())
        .await?
        .ok_or(ApiError::BadRequest(NO_OWNER))
}

async fn region_parent(state: &Core, code: &str, level: i64) -> Result<Option<String>, ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT parent_code FROM blade_region WHERE code = ? AND level = ?",
        [Value::from(code), Value::Int(level)],
    );
    sql.scalar_optional::<String, _>(state.db.pool()).await
}

/// Province, city and district must exist at their levels and nest (GB/T 2260 codes).
async fn check_region(state: &Core, parsed: &[Parsed]) -> Result<(), ApiError> {
    let text = |name| match value_of(parsed, name) {
        Some(Value::Text(s)) => Some(s.clone()),
        _ => None,
    };
    let unknown =
        |c: &str| ApiError::bad_request(format!("行政区划不存在：{c}"), format!("Unknown region code {c}"));
    let mut parent: Option<String> = None;
    for (name, level, zh, en) in [
        (
            "provinceCode",
            1,
            "请先选择省份",
            "Please select the province first",
        ),
        ("cityCode", 2, "请先选择城市", "Please select the city first"),
        ("districtCode", 3, "", ""),
    ] {
        let Some(code) = text(name) else {
            if level < 3 && text(if level == 1 { "cityCode" } else { "districtCode" }).is_some() {
                return Err(ApiError::bad_request(zh, en));
            }
            parent = None;
            continue;
        };
        let up = region_parent(state, &code, level)
            .await?
            .ok_or_else(|| unknown(&code))?;
        if let Some(p) = &parent
            && *p != up
        {
            return Err(unknown(&code));
        }
        parent = Some(code);
    }
    Ok(())
}

/// Checks the region and the owner of parsed station fields, filling the owner's name and phone
/// when the form left them blank; answers the owner.
pub(crate) async fn check(
    state: &Core,
    caller: &Caller,
    parsed: &mut Vec<Parsed>,
) -> Result<Option<Id>, ApiError> {
    check_region(state, parsed).await?;
    let owner = match value_of(parsed, "ownerId") {
        Some(Value::Int(o)) => Some(Id(*o)),
        _ => None,
    };
    if let Some(owner) = owner {
        let (name, phone) = owner_of(state, caller, owner).await?;
        // The form may leave the owner's name and phone to the server.
        for (field, v) in [("ownerName", Some(name)), ("ownerPhone", phone)] {
            let blank = !matches!(value_of(parsed, field), Some(Value::Text(_)));
            if let (true, Some(v)) = (blank, v) {
                parsed.retain(|p| p.col.name != field);
                if let Some(col) = COLS.iter().find(|c| c.name == field) {
                    parsed.push(Parsed {
                        col,
                        value: Value::Text(v),
                    });
                }
            }
        }
    }
    Ok(owner)
}
