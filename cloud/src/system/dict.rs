//! Dictionaries (`/api/blade-system/dict`, platform data: every signed-in user reads them, only
//! the platform tenant changes them) and business dictionaries (`/api/blade-system/dict-biz`,
//! per tenant). A dictionary is a row with `parentId` 0 and `dictKey` `-1`; its entries point at
//! it and repeat its code, which the server forces so the two cannot drift apart.
//!
//! Business dictionaries read through: every read shows a tenant the platform tenant's rows of
//! the codes it has none of ([`biz_readable`]); changes stay within its own rows.

use axum::extract::State;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value as Json};
use utoipa::{IntoParams, ToSchema};

use super::entities::{self, Col, EntityDef, HookFuture, Hooks, PLATFORM_TENANT, Ty};
use super::records::{Dict, DictBiz, typed_page};
use super::tree::{self as tree, HAS_CHILDREN, Node};
use crate::auth::Caller;
use crate::kernel::Core;
use crate::kernel::extract::Query;
use crate::kernel::lang::{Lang, Text};
use crate::kernel::list::ListQuery;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, ApiResult, Data, Envelope, Id, Page};
use crate::system::context::SystemCtx;

/// The key of a dictionary row itself (its entries carry real keys).
pub const ROOT_KEY: &str = "-1";
/// `tree?code=DICT` (or no code) lists the dictionaries themselves.
pub const TREE_ROOT: &str = "DICT";

const PLATFORM_ONLY: Text = Text::new("缺少操作权限", "You do not have permission for this operation");
const DUPLICATE: Text = Text::new("字典键值已存在", "This dictionary key already exists");
const SEALED: Text = Text::new(
    "该字典已封存，无法修改或删除",
    "This dictionary item is sealed and cannot be changed or removed",
);
const PARENT_MISSING: Text = Text::new("上级字典不存在", "The parent dictionary does not exist");

macro_rules! dict_fields {
    ($($extra:expr),*) => {
        &[
            Col::of("id", "id", Ty::Id).read_only(),
            $($extra,)*
            Col::of("parentId", "parent_id", Ty::Id),
            Col::of("code", "code", Ty::TEXT)
                .required_as("请输入字典编号", "Please enter the dictionary code")
                .max(255)
                .filter(),
            Col::of("dictValue", "dict_value", Ty::TEXT)
                .required_as("请输入字典名称", "Please enter the dictionary name")
                .max(255)
                .filter(),
            Col::of("dictValueEn", "dict_value_en", Ty::TEXT).max(255),
            Col::of("sort", "sort", Ty::INT)
                .required_as("请输入字典排序", "Please enter the dictionary sort order"),
            Col::of("isSealed", "is_sealed", Ty::INT)
                .required_as("请选择封存", "Please choose whether it is sealed")
                .filter(),
            Col::of("dictKey", "dict_key", Ty::TEXT)
                .required_as("请输入字典键值", "Please enter the dictionary key")
                .max(255)
                .filter(),
            Col::of("remark", "remark", Ty::TEXT).max(255),
            Col::of("createTime", "create_time", Ty::Time).read_only(),
        ]
    };
}

pub static DICT: EntityDef = EntityDef {
    base: "/api/blade-system/dict",
    table: "blade_dict",
    tenant_scoped: false,
    menu_code: "dict",
    tag: "system",
    fields: dict_fields!(),
    default_order: "sort ASC, id ASC",
    own_list: true,
    hooks: &DictHooks { biz: false },
    ..EntityDef::DEFAULT
};

pub static DICT_BIZ: EntityDef = EntityDef {
    base: "/api/blade-system/dict-biz",
    table: "blade_dict_biz",
    tenant_scoped: true,
    menu_code: "dictbiz",
    tag: "system",
    fields: dict_fields!(Col::of("tenantId", "tenant_id", Ty::TEXT).read_only()),
    default_order: "sort ASC, id ASC",
    own_list: true,
    hooks: &DictHooks { biz: true },
    ..EntityDef::DEFAULT
};

struct DictHooks {
    biz: bool,
}

#[derive(Debug, Clone, sqlx::FromRow)]
struct Stored {
    id: i64,
    parent_id: i64,
    code: String,
    dict_key: String,
    is_sealed: i64,
}

fn is_platform(caller: &Caller) -> bool {
    caller.tenant_id == PLATFORM_TENANT
}

impl DictHooks {
    fn table(&self) -> &'static str {
        if self.biz { "blade_dict_biz" } else { "blade_dict" }
    }

    /// `FROM table WHERE is_deleted = 0 [AND tenant_id = ?]`
    fn scope(&self, caller: &Caller) -> Sql {
        let mut sql = Sql::new(&format!(" FROM {} WHERE is_deleted = 0", self.table()));
        if self.biz {
            sql.push(" AND ");
            sql.append(&caller.tenant_filter("tenant_id"));
        }
        sql
    }

    async fn load(&self, state: &Core, caller: &Caller, id: i64) -> Result<Option<Stored>, ApiError> {
        let mut sql = Sql::new("SELECT id, parent_id, code, dict_key, is_sealed");
        sql.append(&self.scope(caller));
        sql.push_bind(" AND id = ?", [Value::Int(id)]);
        sql.fetch_optional::<Stored, _>(state.db.pool()).await
    }
}

/// The text of a submitted scalar, trimmed; `None` when absent or blank.
fn text_of(body: &Map<String, Json>, name: &str) -> Option<String> {
    match body.get(name)? {
        Json::String(s) if !s.trim().is_empty() => Some(s.trim().to_owned()),
        Json::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

impl Hooks<SystemCtx, Caller> for DictHooks {
    fn read_tenant<'a>(&'a self, _state: &'a SystemCtx, caller: &'a Caller) -> HookFuture<'a, Option<Sql>> {
        Box::pin(async move { Ok(self.biz.then(|| biz_readable(caller))) })
    }

    fn before_save<'a>(
        &'a self,
        state: &'a SystemCtx,
        caller: &'a Caller,
        id: Option<Id>,
        body: &'a mut Map<String, Json>,
    ) -> HookFuture<'a, ()> {
        Box::pin(async move {
            if !self.biz && !is_platform(caller) {
                return Err(ApiError::Forbidden(PLATFORM_ONLY));
            }
            let existing = match id {
                Some(own) => Some(
                    self.load(state, caller, own.0)
                        .await?
                        .ok_or_else(ApiError::not_found)?,
                ),
                None => None,
            };
            if existing.as_ref().is_some_and(|e| e.is_sealed == 1) && !is_platform(caller) {
                return Err(ApiError::BadRequest(SEALED));
            }
            let parent = match text_of(body, "parentId") {
                Some(p) => p
                    .parse::<i64>()
                    .map_err(|_| ApiError::bad_request("上级字典无效", "invalid parentId"))?,
                None if body.contains_key("parentId") => 0,
                None => existing.as_ref().map(|e| e.parent_id).unwrap_or(0),
            };
            if parent == 0 {
                body.insert("parentId".into(), Json::String("0".into()));
                body.insert("dictKey".into(), Json::String(ROOT_KEY.into()));
            } else {
                if id.is_some_and(|own| own.0 == parent) {
                    return Err(ApiError::BadRequest(PARENT_MISSING));
                }
                let p = self
                    .load(state, caller, parent)
                    .await?
                    .filter(|p| p.parent_id == 0)
                    .ok_or(ApiError::BadRequest(PARENT_MISSING))?;
                // A dictionary with entries cannot itself become an entry (two levels only).
                if let Some(e) = &existing
                    && e.parent_id == 0
                {
                    let mut kids = Sql::new("SELECT COUNT(*)");
                    kids.append(&self.scope(caller));
                    kids.push_bind(" AND parent_id = ?", [Value::Int(e.id)]);
                    if kids.scalar::<i64, _>(state.db.pool()).await? > 0 {
                        return Err(ApiError::BadRequest(HAS_CHILDREN));
                    }
                }
                body.insert("parentId".into(), Json::String(p.id.to_string()));
                body.insert("code".into(), Json::String(p.code));
            }
            let code = text_of(body, "code").or_else(|| existing.as_ref().map(|e| e.code.clone()));
            let key = text_of(body, "dictKey").or_else(|| existing.as_ref().map(|e| e.dict_key.clone()));
            if let (Some(code), Some(key)) = (code, key) {
                let mut dup = Sql::new("SELECT COUNT(*)");
                dup.append(&self.scope(caller));
                dup.push_bind(" AND code = ? AND dict_key = ?", [code.into(), key.into()]);
                if let Some(own) = id {
                    dup.push_bind(" AND id <> ?", [own.into()]);
                }
                if dup.scalar::<i64, _>(state.db.pool()).await? > 0 {
                    return Err(ApiError::BadRequest(DUPLICATE));
                }
            }
            Ok(())
        })
    }

    fn after_save<'a>(
        &'a self,
        state: &'a SystemCtx,
        caller: &'a Caller,
        id: Id,
        created: bool,
        _body: &'a Map<String, Json>,
    ) -> HookFuture<'a, ()> {
        Box::pin(async move {
            if created {
                return Ok(());
            }
            // A dictionary's entries follow its code.
            let Some(row) = self.load(state, caller, id.0).await? else {
                return Ok(());
            };
            if row.parent_id != 0 {
                return Ok(());
            }
            let mut sql = Sql::default();
            sql.push_bind(
                &format!(
                    "UPDATE {} SET code = ? WHERE is_deleted = 0 AND parent_id = ? AND code <> ?",
                    self.table()
                ),
                [row.code.clone().into(), Value::Int(row.id), row.code.into()],
            );
            sql.execute(state.db.pool()).await?;
            Ok(())
        })
    }

    fn before_remove<'a>(
        &'a self,
        state: &'a SystemCtx,
        caller: &'a Caller,
        ids: &'a [Id],
    ) -> HookFuture<'a, ()> {
        Box::pin(async move {
            if !self.biz && !is_platform(caller) {
                return Err(ApiError::Forbidden(PLATFORM_ONLY));
            }
            if !is_platform(caller) {
                let mut sealed = Sql::new("SELECT COUNT(*)");
                sealed.append(&self.scope(caller));
                sealed.push(" AND is_sealed = 1 AND id IN (");
                sealed.push_ids(ids);
                sealed.push(")");
                if sealed.scalar::<i64, _>(state.db.pool()).await? > 0 {
                    return Err(ApiError::BadRequest(SEALED));
                }
            }
            // A dictionary that still has entries is refused (contract: delete children first)
            // rather than taking its entries with it, so nothing disappears by surprise.
            let mut kids = Sql::new(&format!(
                "SELECT COUNT(*) FROM {} WHERE is_deleted = 0 AND parent_id IN (",
                self.table()
            ));
            kids.push_ids(ids);
            kids.push(") AND id NOT IN (");
            kids.push_ids(ids);
            kids.push(")");
            if kids.scalar::<i64, _>(state.db.pool()).await? > 0 {
                return Err(ApiError::BadRequest(HAS_CHILDREN));
            }
            Ok(())
        })
    }
}

// ---- reads ----

/// One entry as `dictionary?code=` answers it.
#[derive(Debug, Clone, Serialize, ToSchema, sqlx::FromRow)]
#[serde(rename_all = "camelCase")]
pub struct Entry {
    pub id: Id,
    pub parent_id: Id,
    pub code: String,
    pub dict_key: String,
    pub dict_value: String,
    pub dict_value_en: Option<String>,
    pub sort: i64,
    pub remark: Option<String>,
}

impl Entry {
    /// The entry as select boxes and tables show it: `dictValue` in `lang` (the English value
    /// when English is asked for and the entry has one), `dictValueEn` as stored.
    pub fn in_lang(mut self, lang: Lang) -> Entry {
        if let Some(en) = self
            .dict_value_en
            .as_deref()
            .map(str::trim)
            .filter(|e| !e.is_empty())
            && lang == Lang::En
        {
            self.dict_value = en.to_owned();
        }
        self
    }
}

/// One dictionary as `listDict` answers it.
#[derive(Debug, Clone, Serialize, ToSchema, sqlx::FromRow)]
#[serde(rename_all = "camelCase")]
pub struct DictRef {
    pub id: Id,
    pub code: String,
    /// In the request's language.
    pub dict_value: String,
    #[serde(skip)]
    pub dict_value_en: Option<String>,
}

const ENTRY_COLUMNS: &str = "id, parent_id, code, dict_key, dict_value, dict_value_en, sort, remark";

/// The one visibility rule of business dictionaries, for every read (list, child-list, detail,
/// tree, dictionary, listDict): the caller's tenant's rows, plus the platform tenant's rows of
/// every code the caller's tenant has no row of. A new tenant so starts empty and still renders
/// every list; once it keeps its own rows for a code, they alone stand for it. Changes stay
/// within the caller's tenant. A condition on `blade_dict_biz` (no alias, no leading `AND`).
pub fn biz_readable(caller: &Caller) -> Sql {
    let mut sql = Sql::new("(");
    sql.append(&caller.tenant_filter("tenant_id"));
    if caller.tenant_id != PLATFORM_TENANT {
        sql.push_bind(
            " OR (tenant_id = ? AND NOT EXISTS (SELECT 1 FROM blade_dict_biz o \
             WHERE o.is_deleted = 0 AND o.code = blade_dict_biz.code AND ",
            [PLATFORM_TENANT.into()],
        );
        sql.append(&caller.tenant_filter("o.tenant_id"));
        sql.push("))");
    }
    sql.push(")");
    sql
}

/// `SELECT columns` of the rows a caller reads: the platform's dictionaries, or the business
/// dictionaries [`biz_readable`] lets it see.
fn readable(caller: &Caller, biz: bool, columns: &str) -> Sql {
    if !biz {
        return Sql::new(&format!("SELECT {columns} FROM blade_dict WHERE is_deleted = 0"));
    }
    let mut sql = Sql::new(&format!(
        "SELECT {columns} FROM blade_dict_biz WHERE is_deleted = 0 AND "
    ));
    sql.append(&biz_readable(caller));
    sql
}

/// The entries (`parent_id <> 0`) of `code` the caller reads, by sort.
async fn entries(state: &Core, caller: &Caller, biz: bool, code: &str) -> Result<Vec<Entry>, ApiError> {
    let mut sql = readable(caller, biz, ENTRY_COLUMNS);
    sql.push_bind(" AND code = ? AND parent_id <> 0", [code.into()]);
    sql.push(" ORDER BY parent_id, sort, id");
    sql.fetch_all::<Entry, _>(state.db.pool()).await
}

/// The entries of the platform dictionary `code`, by sort (other domains' select lists and
/// key checks read them).
pub async fn system_entries(state: &Core, code: &str) -> Result<Vec<Entry>, ApiError> {
    let mut sql = Sql::new(&format!(
        "SELECT {ENTRY_COLUMNS} FROM blade_dict WHERE is_deleted = 0"
    ));
    sql.push_bind(" AND code = ? AND parent_id <> 0", [code.into()]);
    sql.push(" ORDER BY parent_id, sort, id");
    sql.fetch_all::<Entry, _>(state.db.pool()).await
}

/// Every dictionary (row with parent 0) the caller reads.
async fn dictionaries(state: &Core, caller: &Caller, biz: bool) -> Result<Vec<DictRef>, ApiError> {
    let mut sql = readable(caller, biz, "id, code, dict_value, dict_value_en");
    sql.push(" AND parent_id = 0 ORDER BY sort, id");
    let mut all = sql.fetch_all::<DictRef, _>(state.db.pool()).await?;
    if Lang::current() == Lang::En {
        for d in &mut all {
            if let Some(en) = d
                .dict_value_en
                .as_deref()
                .map(str::trim)
                .filter(|e| !e.is_empty())
            {
                d.dict_value = en.to_owned();
            }
        }
    }
    Ok(all)
}

fn def(biz: bool) -> &'static EntityDef {
    if biz { &DICT_BIZ } else { &DICT }
}

async fn list_impl<T: DeserializeOwned>(
    state: SystemCtx,
    caller: Caller,
    query: ListQuery,
    biz: bool,
) -> ApiResult<Data<Page<T>>> {
    let def = def(biz);
    caller.require(&state, def.menu_code).await?;
    let page = entities::page(def, &state, &caller, &query, Some(Sql::new("parent_id = 0"))).await?;
    Ok(Data(typed_page(shown_in_lang(page, Lang::current()))?))
}

/// A list page as the management tables show it: `dictValue` in English when English is asked
/// for and the row has one (as [`Entry::in_lang`]). Forms read `detail`, which keeps the stored
/// Chinese value, so editing a row shown in English does not overwrite its Chinese name.
fn shown_in_lang(mut page: Page<Json>, lang: Lang) -> Page<Json> {
    if lang == Lang::En {
        for row in &mut page.records {
            let en = row
                .get("dictValueEn")
                .and_then(Json::as_str)
                .map(str::trim)
                .filter(|e| !e.is_empty())
                .map(str::to_owned);
            if let (Some(en), Some(obj)) = (en, row.as_object_mut()) {
                obj.insert("dictValue".into(), Json::String(en));
            }
        }
    }
    page
}

async fn child_list_impl<T: DeserializeOwned>(
    state: SystemCtx,
    caller: Caller,
    mut query: ListQuery,
    biz: bool,
) -> ApiResult<Data<Page<T>>> {
    let def = def(biz);
    caller.require(&state, def.menu_code).await?;
    let parent = tree::optional_id("parentId", query.take("parentId").as_deref())?
        .ok_or_else(|| ApiError::bad_request("请选择上级字典", "parentId is required"))?;
    let mut extra = Sql::default();
    extra.push_bind("parent_id = ?", [Value::Int(parent)]);
    Ok(Data(typed_page(shown_in_lang(
        entities::page(def, &state, &caller, &query, Some(extra)).await?,
        Lang::current(),
    ))?))
}

#[derive(Debug, Deserialize, IntoParams)]
pub struct CodeParams {
    /// Dictionary code; for `tree`, empty or `DICT` means the dictionaries themselves.
    pub code: Option<String>,
}

async fn tree_impl(
    state: SystemCtx,
    caller: Caller,
    code: Option<String>,
    biz: bool,
) -> ApiResult<Data<Vec<Node>>> {
    let code = code.map(|c| c.trim().to_owned()).filter(|c| !c.is_empty());
    let nodes = match code.as_deref() {
        None | Some(TREE_ROOT) => dictionaries(&state, &caller, biz)
            .await?
            .into_iter()
            .map(|d| Node::new(d.id.to_string(), "0", d.dict_value))
            .collect(),
        Some(code) => entries(&state, &caller, biz, code)
            .await?
            .into_iter()
            .map(|e| e.in_lang(Lang::current()))
            .map(|e| Node::new(e.id.to_string(), e.parent_id.to_string(), e.dict_value))
            .collect(),
    };
    Ok(Data(nodes))
}

async fn dictionary_impl(
    state: SystemCtx,
    caller: Caller,
    code: Option<String>,
    biz: bool,
) -> ApiResult<Data<Vec<Entry>>> {
    let code = code
        .map(|c| c.trim().to_owned())
        .filter(|c| !c.is_empty())
        .ok_or_else(|| ApiError::bad_request("请输入字典编号", "Please enter the dictionary code"))?;
    let lang = Lang::current();
    Ok(Data(
        entries(&state, &caller, biz, &code)
            .await?
            .into_iter()
            .map(|e| e.in_lang(lang))
            .collect(),
    ))
}

// ---- routes (one function per path so each is documented) ----

/// `GET dict/list`: the dictionaries (rows with parentId 0), paged; filters code, dictValue.
#[utoipa::path(get, path = "/api/blade-system/dict/list", tag = "system",
    params(("code" = Option<String>, Query), ("dictValue" = Option<String>, Query), ("current" = Option<i64>, Query), ("size" = Option<i64>, Query)),
    responses((status = 200, description = "Page of dictionaries", body = Envelope<Page<Dict>>), (status = 401), (status = 403)))]
pub async fn dict_list(State(s): State<SystemCtx>, c: Caller, q: ListQuery) -> ApiResult<Data<Page<Dict>>> {
    list_impl(s, c, q, false).await
}

/// `GET dict-biz/list`: the business dictionaries the caller reads ([`biz_readable`]), paged.
#[utoipa::path(get, path = "/api/blade-system/dict-biz/list", tag = "system",
    params(("code" = Option<String>, Query), ("dictValue" = Option<String>, Query), ("current" = Option<i64>, Query), ("size" = Option<i64>, Query)),
    responses((status = 200, description = "Page of dictionaries", body = Envelope<Page<DictBiz>>), (status = 401), (status = 403)))]
pub async fn biz_list(State(s): State<SystemCtx>, c: Caller, q: ListQuery) -> ApiResult<Data<Page<DictBiz>>> {
    list_impl(s, c, q, true).await
}

/// `GET dict/child-list?parentId=`: the entries of a dictionary, paged.
#[utoipa::path(get, path = "/api/blade-system/dict/child-list", tag = "system",
    params(("parentId" = String, Query), ("current" = Option<i64>, Query), ("size" = Option<i64>, Query)),
    responses((status = 200, description = "Page of entries", body = Envelope<Page<Dict>>), (status = 400), (status = 401), (status = 403)))]
pub async fn dict_child_list(
    State(s): State<SystemCtx>,
    c: Caller,
    q: ListQuery,
) -> ApiResult<Data<Page<Dict>>> {
    child_list_impl(s, c, q, false).await
}

/// `GET dict-biz/child-list?parentId=`: the entries of a business dictionary, paged.
#[utoipa::path(get, path = "/api/blade-system/dict-biz/child-list", tag = "system",
    params(("parentId" = String, Query), ("current" = Option<i64>, Query), ("size" = Option<i64>, Query)),
    responses((status = 200, description = "Page of entries", body = Envelope<Page<DictBiz>>), (status = 400), (status = 401), (status = 403)))]
pub async fn biz_child_list(
    State(s): State<SystemCtx>,
    c: Caller,
    q: ListQuery,
) -> ApiResult<Data<Page<DictBiz>>> {
    child_list_impl(s, c, q, true).await
}

/// `GET dict/tree?code=`: `DICT` (or none) → every dictionary; a code → its entries.
#[utoipa::path(get, path = "/api/blade-system/dict/tree", tag = "system", params(CodeParams),
    responses((status = 200, body = Envelope<Vec<Node>>), (status = 401)))]
pub async fn dict_tree(
    State(s): State<SystemCtx>,
    c: Caller,
    Query(p): Query<CodeParams>,
) -> ApiResult<Data<Vec<Node>>> {
    tree_impl(s, c, p.code, false).await
}

/// `GET dict-biz/tree?code=`: as `dict/tree`, reading through to the platform's rows.
#[utoipa::path(get, path = "/api/blade-system/dict-biz/tree", tag = "system", params(CodeParams),
    responses((status = 200, body = Envelope<Vec<Node>>), (status = 401)))]
pub async fn biz_tree(
    State(s): State<SystemCtx>,
    c: Caller,
    Query(p): Query<CodeParams>,
) -> ApiResult<Data<Vec<Node>>> {
    tree_impl(s, c, p.code, true).await
}

/// `GET dict/dictionary?code=`: the entries of a dictionary by sort, `dictValue` in the
/// request's language (for select boxes; `flow`
/// gives the console's flow routes: routeKey = code + "_" + dictKey, routeValue = remark).
#[utoipa::path(get, path = "/api/blade-system/dict/dictionary", tag = "system", params(CodeParams),
    responses((status = 200, body = Envelope<Vec<Entry>>), (status = 400), (status = 401)))]
pub async fn dict_dictionary(
    State(s): State<SystemCtx>,
    c: Caller,
    Query(p): Query<CodeParams>,
) -> ApiResult<Data<Vec<Entry>>> {
    dictionary_impl(s, c, p.code, false).await
}

/// `GET dict-biz/dictionary?code=`: the tenant's entries, or the platform tenant's when the
/// tenant has no row of that code ([`biz_readable`]).
#[utoipa::path(get, path = "/api/blade-system/dict-biz/dictionary", tag = "system", params(CodeParams),
    responses((status = 200, body = Envelope<Vec<Entry>>), (status = 400), (status = 401)))]
pub async fn biz_dictionary(
    State(s): State<SystemCtx>,
    c: Caller,
    Query(p): Query<CodeParams>,
) -> ApiResult<Data<Vec<Entry>>> {
    dictionary_impl(s, c, p.code, true).await
}

/// `GET dict/listDict`: every dictionary `{id, code, dictValue}`.
#[utoipa::path(get, path = "/api/blade-system/dict/listDict", tag = "system",
    responses((status = 200, body = Envelope<Vec<DictRef>>), (status = 401)))]
pub async fn dict_list_dict(State(s): State<SystemCtx>, c: Caller) -> ApiResult<Data<Vec<DictRef>>> {
    Ok(Data(dictionaries(&s, &c, false).await?))
}

/// `GET dict-biz/listDict`: the tenant's business dictionaries plus the platform tenant's codes
/// the tenant does not have ([`biz_readable`]).
#[utoipa::path(get, path = "/api/blade-system/dict-biz/listDict", tag = "system",
    responses((status = 200, body = Envelope<Vec<DictRef>>), (status = 401)))]
pub async fn biz_list_dict(State(s): State<SystemCtx>, c: Caller) -> ApiResult<Data<Vec<DictRef>>> {
    Ok(Data(dictionaries(&s, &c, true).await?))
}
