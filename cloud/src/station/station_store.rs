//! Where stations are kept (`pv_station`, its images and assignments): reading a station or a
//! page of them in the caller's scope as the wire record, inserting a checked one, and removing
//! stations with everything hanging off them.

use sqlx::Any;

use super::fields::{self, Parsed};
pub use super::station_record::{Image, Station};
use crate::auth::Caller;
use crate::auth::scope::StationScope;
use crate::kernel::list::{Field, Kind, ListQuery, fetch_page_with};
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, Core, Id, Page, time};

pub use super::station_fields::COLS;

/// `installationStatus` of a new station; it moves to [`RUNNING`] only through `switchStation`.
pub const COMMISSIONING: &str = "1";
pub const RUNNING: &str = "2";

fn columns() -> String {
    format!(
        "s.id, s.installation_status, s.create_time, s.update_time, {}",
        fields::select_list(COLS, "s")
    )
}

async fn images_of(state: &Core, station: Id) -> Result<Vec<Image>, ApiError> {
    let mut sql = Sql::new(
        "SELECT a.id AS attach_id, a.link, a.original_name FROM pv_station_image i \
         JOIN blade_attach a ON a.id = i.attach_id WHERE a.is_deleted = 0",
    );
    sql.push_bind(" AND i.station_id = ? ORDER BY i.sort", [Value::Int(station.0)]);
    sql.fetch_all::<Image, _>(state.db.pool()).await
}

/// The station as the caller may see it, with its images.
pub async fn find(state: &Core, scope: &StationScope, id: Id) -> Result<Option<Station>, ApiError> {
    let mut sql = Sql::new(&format!("SELECT {} FROM pv_station s WHERE ", columns()));
    sql.append(&scope.stations("s"));
    sql.push_bind(" AND s.id = ?", [Value::Int(id.0)]);
    let Some(row) = sql.row(state.db.pool()).await? else {
        return Ok(None);
    };
    let mut station = Station::from_row(&row)?;
    station.images = Some(images_of(state, id).await?);
    Ok(Some(station))
}

const PAGE_FIELDS: &[Field] = &[Field::new("createTime", "s.create_time", Kind::Time)];

/// Exact filters that are not plain declared fields.
fn extra_filters(query: &mut ListQuery) -> Sql {
    let mut sql = Sql::default();
    let mut take = |name: &str| {
        query
            .take(name)
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty())
    };
    for (name, column) in [
        ("installationStatus", "s.installation_status"),
        ("status", "s.installation_status"),
        ("provinceCode", "s.province_code"),
        ("cityCode", "s.city_code"),
        ("districtCode", "s.district_code"),
    ] {
        if let Some(v) = take(name) {
            sql.push_bind(&format!(" AND {column} = ?"), [Value::Text(v)]);
        }
    }
    if let Some(v) = take("regionCode") {
        sql.push_bind(
            " AND (s.province_code = ? OR s.city_code = ? OR s.district_code = ?)",
            [Value::Text(v.clone()), Value::Text(v.clone()), Value::Text(v)],
        );
    }
    if let Some(v) = take("type") {
        sql.push_bind(" AND s.station_type = ?", [Value::Text(v)]);
    }
    sql
}

/// A page of the stations the caller may see (the list, and the export page by page).
pub async fn page_of(
    state: &Core,
    scope: &StationScope,
    mut query: ListQuery,
) -> Result<Page<Station>, ApiError> {
    let mut from = Sql::new("FROM pv_station s WHERE ");
    from.append(&scope.stations("s"));
    from.append(&extra_filters(&mut query));
    from.append(&fields::exact_filters(COLS, &mut query));
    // Declared text filters name bare columns; the list reads one table, aliased `s`.
    let fields = fields::list_fields(COLS, PAGE_FIELDS);
    fetch_page_with(
        &state.db,
        &columns(),
        from,
        &query,
        &fields,
        "s.create_time DESC, s.id DESC",
        Station::from_row,
    )
    .await
}

/// Replaces the station's images by `images`, in this order.
pub(crate) async fn replace_images(
    tx: &mut sqlx::Transaction<'static, Any>,
    station: Id,
    images: &[Id],
) -> Result<(), ApiError> {
    let mut del = Sql::default();
    del.push_bind(
        "DELETE FROM pv_station_image WHERE station_id = ?",
        [Value::Int(station.0)],
    );
    del.execute(&mut **tx).await?;
    for (i, a) in images.iter().enumerate() {
        let mut ins = Sql::default();
        ins.push_bind(
            "INSERT INTO pv_station_image (station_id, attach_id, sort) VALUES (?, ?, ?)",
            [Value::Int(station.0), Value::Int(a.0), Value::Int(i as i64)],
        );
        ins.execute(&mut **tx).await?;
    }
    Ok(())
}

/// Gives `user` the station unless already given.
pub async fn assign(
    tx: &mut sqlx::Transaction<'static, Any>,
    tenant: &str,
    user: Id,
    station: Id,
) -> Result<(), ApiError> {
    let mut del = Sql::default();
    del.push_bind(
        "DELETE FROM pv_user_station WHERE user_id = ? AND station_id = ?",
        [Value::Int(user.0), Value::Int(station.0)],
    );
    del.execute(&mut **tx).await?;
    let mut ins = Sql::default();
    ins.push_bind(
        "INSERT INTO pv_user_station (user_id, station_id, tenant_id) VALUES (?, ?, ?)",
        [Value::Int(user.0), Value::Int(station.0), tenant.into()],
    );
    ins.execute(&mut **tx).await?;
    Ok(())
}

/// Takes the station away from `user`.
pub(crate) async fn unassign(
    tx: &mut sqlx::Transaction<'static, Any>,
    user: Id,
    station: Id,
) -> Result<(), ApiError> {
    let mut del = Sql::default();
    del.push_bind(
        "DELETE FROM pv_user_station WHERE user_id = ? AND station_id = ?",
        [Value::Int(user.0), Value::Int(station.0)],
    );
    del.execute(&mut **tx).await?;
    Ok(())
}

/// Inserts a checked station (commissioning) in `tx`, giving it to its owner and, when the
/// creator is restricted, to the creator; answers its id. Used by the form and the import.
pub(crate) async fn insert(
    state: &Core,
    tx: &mut sqlx::Transaction<'static, Any>,
    caller: &Caller,
    scope: &StationScope,
    parsed: &[Parsed],
    owner: Option<Id>,
) -> Result<Id, ApiError> {
    let id = state.ids.next();
    let mut cols = vec![
        "id",
        "tenant_id",
        "installation_status",
        "create_user",
        "create_dept",
        "create_time",
    ];
    let mut values = vec![
        Value::Int(id.0),
        Value::Text(caller.tenant_id.clone()),
        COMMISSIONING.into(),
        Value::Int(caller.user_id.0),
        caller.dept_id.map(|d| Value::Int(d.0)).unwrap_or(Value::Null),
        Value::Int(time::now_ms()),
    ];
    for p in parsed {
        cols.push(p.col.column);
        values.push(p.value.clone());
    }
    let mut sql = Sql::default();
    sql.push_bind(
        &format!(
            "INSERT INTO pv_station ({}) VALUES ({})",
            cols.join(", "),
            vec!["?"; cols.len()].join(", ")
        ),
        values,
    );
    sql.execute(&mut **tx).await?;
    if let Some(owner) = owner {
        assign(tx, &caller.tenant_id, owner, id).await?;
    }
    // A restricted creator would otherwise lose sight of the station they just made.
    if scope.is_restricted() {
        assign(tx, &caller.tenant_id, caller.user_id, id).await?;
    }
    Ok(id)
}

/// Writes the checked fields of a station the caller may see (found in their scope just
/// before); answers the rows changed.
pub(crate) async fn update(
    tx: &mut sqlx::Transaction<'static, Any>,
    caller: &Caller,
    scope: &StationScope,
    id: Id,
    parsed: &[Parsed],
) -> Result<u64, ApiError> {
    let mut sql = Sql::new("UPDATE pv_station SET ");
    for p in parsed {
        sql.push_bind(&format!("{} = ?, ", p.col.column), [p.value.clone()]);
    }
    sql.push_bind(
        "update_user = ?, update_time = ? WHERE id = ? AND ",
        [
            Value::Int(caller.user_id.0),
            Value::Int(time::now_ms()),
            Value::Int(id.0),
        ],
    );
    sql.append(&scope.stations("pv_station"));
    sql.execute(&mut **tx).await
}

/// Commissioning → running; answers false when the station was not commissioning any more
/// (another request switched it in between).
pub(crate) async fn switch_to_running(
    state: &Core,
    caller: &Caller,
    scope: &StationScope,
    id: Id,
) -> Result<bool, ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "UPDATE pv_station SET installation_status = ?, update_user = ?, update_time = ? \
         WHERE id = ? AND installation_status = ? AND ",
        [
            RUNNING.into(),
            Value::Int(caller.user_id.0),
            Value::Int(time::now_ms()),
            Value::Int(id.0),
            COMMISSIONING.into(),
        ],
    );
    sql.append(&scope.stations("pv_station"));
    Ok(sql.execute(state.db.pool()).await? > 0)
}

/// Device registries removed with their station (the vendor accounts tied to it too).
const DEVICE_TABLES: &[&str] = &[
    "pv_inverter",
    "pv_camera",
    "pv_weather",
    "pv_meter",
    "pv_inverter_third",
    "pv_flex",
];

/// `prefix` followed by the ids and a closing parenthesis.
fn in_ids(prefix: &str, ids: &[Id]) -> Sql {
    let mut sql = Sql::new(prefix);
    sql.push_ids(ids);
    sql.push(")");
    sql
}

/// Of `wanted`, the stations the caller may see.
pub(crate) async fn visible_of(
    state: &Core,
    scope: &StationScope,
    wanted: &[Id],
) -> Result<Vec<Id>, ApiError> {
    let mut sql = Sql::new("SELECT s.id FROM pv_station s WHERE ");
    sql.append(&scope.stations("s"));
    sql.append(&in_ids(" AND s.id IN (", wanted));
    Ok(sql
        .scalars::<i64, _>(state.db.pool())
        .await?
        .into_iter()
        .map(Id)
        .collect())
}

/// Live devices of the stations (already checked visible), every registry together.
pub(crate) async fn device_count(state: &Core, ids: &[Id]) -> Result<i64, ApiError> {
    let mut devices = 0i64;
    for table in DEVICE_TABLES {
        devices += in_ids(
            &format!("SELECT COUNT(*) FROM {table} WHERE is_deleted = 0 AND station_id IN ("),
            ids,
        )
        .scalar::<i64, _>(state.db.pool())
        .await?;
    }
    Ok(devices)
}

/// Removes the stations (already checked visible) with their devices, prices, images,
/// assignments and gateway credentials, in one transaction, so nothing is left pointing at a
/// removed station.
pub(crate) async fn remove(state: &Core, ids: &[Id], user: Id, now: i64) -> Result<(), ApiError> {
    let mut tx = state.db.begin_write().await?;
    for table in DEVICE_TABLES
        .iter()
        .chain(&["pv_station_price", "pv_electric_price"])
    {
        let mut sql = Sql::new(&format!("UPDATE {table} SET is_deleted = 1"));
        if *table != "pv_electric_price" {
            sql.push_bind(
                ", update_user = ?, update_time = ?",
                [Value::Int(user.0), Value::Int(now)],
            );
        }
        sql.append(&in_ids(" WHERE is_deleted = 0 AND station_id IN (", ids));
        sql.execute(&mut *tx).await?;
    }
    in_ids("DELETE FROM pv_station_image WHERE station_id IN (", ids)
        .execute(&mut *tx)
        .await?;
    in_ids("DELETE FROM pv_user_station WHERE station_id IN (", ids)
        .execute(&mut *tx)
        .await?;
    // The gateway's MQTT credentials go with the station (see station::gateway).
    in_ids("DELETE FROM pv_gateway_credential WHERE station_id IN (", ids)
        .execute(&mut *tx)
        .await?;
    let mut sql = Sql::new("UPDATE pv_station SET is_deleted = 1");
    sql.push_bind(
        ", update_user = ?, update_time = ?",
        [Value::Int(user.0), Value::Int(now)],
    );
    sql.append(&in_ids(" WHERE id IN (", ids));
    sql.execute(&mut *tx).await?;
    tx.commit().await?;
    Ok(())
}
