//! The station record as answered (page, detail, the update's base, the export): one field per
//! declared column ([`COLS`]) plus the id, the lifecycle status, the audit times and, in the
//! detail only, the images. Fields are declared in the order they travel (alphabetical, the
//! order the record had as a JSON map), so the answer is the same byte for byte.

use serde::Serialize;
use sqlx::Row;
use sqlx::any::AnyRow;
use utoipa::ToSchema;

use crate::kernel::{ApiError, Id, time};

#[derive(Debug, Clone, Serialize, ToSchema, sqlx::FromRow)]
#[serde(rename_all = "camelCase")]
pub struct Image {
    pub attach_id: Id,
    pub link: String,
    pub original_name: String,
}

/// A station; every declared field reads `null` when unset. Dictionary fields carry the key.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Station {
    pub address: Option<String>,
    pub azimuth: Option<f64>,
    /// kW.
    pub capacity: Option<f64>,
    pub city_code: Option<String>,
    /// kWp.
    pub component_capacity: Option<f64>,
    pub component_count: Option<i64>,
    /// Dictionary `connected_type`.
    pub connected_type: Option<String>,
    pub contact: Option<String>,
    pub contact_phone: Option<String>,
    /// Dictionary `contribution_way`.
    pub contribution_way: Option<String>,
    /// yyyy-MM-dd HH:mm:ss.
    pub create_time: String,
    pub district_code: Option<String>,
    /// Dictionary `electricity_price_type`.
    pub electricity_price_type: Option<String>,
    pub feed_in_tariff: Option<f64>,
    pub gateway_id: Option<String>,
    pub gateway_sn: Option<String>,
    /// yyyy-MM-dd HH:mm:ss.
    pub grid_connection_time: Option<String>,
    pub id: Id,
    /// Only in the detail.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub images: Option<Vec<Image>>,
    pub inclination: Option<f64>,
    /// 1 commissioning, 2 running.
    pub installation_status: String,
    pub installer: Option<String>,
    pub installer_phone: Option<String>,
    /// Dictionary `inverter_manufacturer`.
    pub inverter_manufacturer: Option<String>,
    pub latitude: Option<f64>,
    pub longitude: Option<f64>,
    pub name: Option<String>,
    pub owner_id: Option<Id>,
    pub owner_name: Option<String>,
    pub owner_phone: Option<String>,
    pub province_code: Option<String>,
    pub remark1: Option<String>,
    pub remark2: Option<String>,
    pub remark3: Option<String>,
    /// Dictionary `station_state`.
    pub state: Option<String>,
    /// Dictionary `station_type`.
    pub station_type: Option<String>,
    /// yyyy-MM-dd HH:mm:ss.
    pub update_time: Option<String>,
    /// The site's clock; `null`: the hub's timezone.
    pub utc_offset_minutes: Option<i64>,
}

impl Station {
    /// A row of `s.id, s.installation_status, s.create_time, s.update_time` and the declared
    /// columns under their column names.
    pub fn from_row(r: &AnyRow) -> Result<Station, ApiError> {
        let text = |c: &str| r.try_get::<Option<String>, _>(c);
        let float = |c: &str| r.try_get::<Option<f64>, _>(c);
        let int = |c: &str| r.try_get::<Option<i64>, _>(c);
        let when = |c: &str| int(c).map(|t| t.map(time::format_ms));
        Ok(Station {
            address: text("address")?,
            azimuth: float("azimuth")?,
            capacity: float("capacity")?,
            city_code: text("city_code")?,
            component_capacity: float("component_capacity")?,
            component_count: int("component_count")?,
            connected_type: text("connected_type")?,
            contact: text("contact")?,
            contact_phone: text("contact_phone")?,
            contribution_way: text("contribution_way")?,
            create_time: time::format_ms(r.try_get::<i64, _>("create_time")?),
            district_code: text("district_code")?,
            electricity_price_type: text("electricity_price_type")?,
            feed_in_tariff: float("feed_in_tariff")?,
            gateway_id: text("gateway_id")?,
            gateway_sn: text("gateway_sn")?,
            grid_connection_time: when("grid_connection_time")?,
            id: Id(r.try_get::<i64, _>("id")?),
            images: None,
            inclination: float("inclination")?,
            installation_status: r.try_get("installation_status")?,
            installer: text("installer")?,
            installer_phone: text("installer_phone")?,
            inverter_manufacturer: text("inverter_manufacturer")?,
            latitude: float("latitude")?,
            longitude: float("longitude")?,
            name: text("name")?,
            owner_id: int("owner_id")?.map(Id),
            owner_name: text("owner_name")?,
            owner_phone: text("owner_phone")?,
            province_code: text("province_code")?,
            remark1: text("remark1")?,
            remark2: text("remark2")?,
            remark3: text("remark3")?,
            state: text("state")?,
            station_type: text("station_type")?,
            update_time: when("update_time")?,
            utc_offset_minutes: int("utc_offset_minutes")?,
        })
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::station::fields::Ty;
    use crate::station::station_fields::COLS;

    fn sample() -> Station {
        Station {
            address: None,
            azimuth: None,
            capacity: None,
            city_code: None,
            component_capacity: None,
            component_count: None,
            connected_type: None,
            contact: None,
            contact_phone: None,
            contribution_way: None,
            create_time: String::new(),
            district_code: None,
            electricity_price_type: None,
            feed_in_tariff: None,
            gateway_id: None,
            gateway_sn: None,
            grid_connection_time: None,
            id: Id(1),
            images: Some(vec![]),
            inclination: None,
            installation_status: String::new(),
            installer: None,
            installer_phone: None,
            inverter_manufacturer: None,
            latitude: None,
            longitude: None,
            name: None,
            owner_id: None,
            owner_name: None,
            owner_phone: None,
            province_code: None,
            remark1: None,
            remark2: None,
            remark3: None,
            state: None,
            station_type: None,
            update_time: None,
            utc_offset_minutes: None,
        }
    }

    /// A field added to the declaration must be added to the record (and the other way round).
    #[test]
    fn the_record_has_every_declared_field_and_nothing_else() {
        let json = serde_json::to_string(&sample()).unwrap();
        let value: serde_json::Value = serde_json::from_str(&json).unwrap();
        let keys: BTreeSet<String> = value.as_object().unwrap().keys().cloned().collect();
        let mut want: BTreeSet<String> = COLS.iter().map(|c| c.name.to_owned()).collect();
        for extra in ["id", "installationStatus", "createTime", "updateTime", "images"] {
            want.insert(extra.to_owned());
        }
        assert_eq!(keys, want);
        assert!(COLS.iter().all(|c| !matches!(c.ty, Ty::Secret(_))));
    }

    /// The fields are serialized in the order of a JSON map's keys, as the record always was.
    #[test]
    fn fields_travel_in_key_order() {
        let json = serde_json::to_string(&sample()).unwrap();
        let value: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(serde_json::to_string(&value).unwrap(), json);
    }
}
