//! What the commissioning calls answer: the gateway's reports (shared with the edge's CLI) as
//! the console's typed records, with the hub's own knowledge of each map (kind, make, model)
//! and each metric's unit added.

use pv_shared::commission::{Inventory, ProbeReport, ScanReport};
use pv_shared::wire::Value;
use serde::Serialize;
use utoipa::ToSchema;

use crate::station::MapModel;

/// A gateway's buses and the maps it can probe with.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GatewayBuses {
    pub gateway_id: String,
    pub buses: Vec<Bus>,
    /// The maps in the gateway's maps folder, described from the hub's copy where it has one.
    pub maps: Vec<MapChoice>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Bus {
    pub name: String,
    /// `rtu`, `tcp` or `rtu-over-tcp`.
    pub transport: String,
    /// The bus as a device's Modbus address names it (serial port, `ip:port`, ...).
    pub address: String,
    pub devices: Vec<BusDevice>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BusDevice {
    /// The device's id in the gateway's configuration (the station device's SN).
    pub id: String,
    pub unit: u8,
    pub map: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MapChoice {
    pub id: String,
    /// `inverter`, `meter`, `weather` or `tracker`; absent when the hub does not know the map.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub manufacturer: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

/// The units that answered a bus scan.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScanResult {
    pub bus: String,
    pub from: u8,
    pub to: u8,
    pub elapsed_ms: u64,
    pub units: Vec<FoundUnit>,
    /// Unit ids that did not answer at all (timeout or transport error).
    pub silent: u32,
    /// Unit ids the gateway reported absent (exception 0x0A or 0x0B): not devices.
    pub gateway_absent: u32,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FoundUnit {
    pub unit: u8,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub manufacturer: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub serial: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub firmware: Option<String>,
    /// How the identity was read (`sunspec`, `device_id`, `map:<id>`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub identified_via: Option<String>,
    /// Maps that fit, best first.
    pub suggested_maps: Vec<String>,
    /// How it answered, for people.
    pub detail: String,
}

/// One unit read once with one map.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProbeResult {
    pub unit: u8,
    pub map: String,
    /// False when none of the main models or blocks of the map is present.
    pub fits: bool,
    pub missing: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    pub warnings: Vec<String>,
    /// Decoded values in canonical units, by metric name.
    pub values: Vec<ProbedValue>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProbedValue {
    pub metric: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<f64>,
    /// For text points (serial number, model name).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The metric's unit symbol ("" when it has none).
    pub unit: String,
}

/// A device added to the station and to its gateway's configuration.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AddedDevice {
    pub device_id: crate::kernel::Id,
    /// `inverter`, `meter` or `weather`: which registry it went into.
    pub kind: String,
    pub sn: String,
    /// The gateway's answer ("added ... ; reloaded: 2 buses, 3 devices").
    pub message: String,
}

pub fn buses(gateway_id: String, inventory: Inventory, known: &[MapModel]) -> GatewayBuses {
    GatewayBuses {
        gateway_id,
        buses: inventory
            .buses
            .into_iter()
            .map(|b| Bus {
                name: b.name,
                transport: b.transport,
                address: b.address,
                devices: b
                    .devices
                    .into_iter()
                    .map(|d| BusDevice {
                        id: d.id,
                        unit: d.unit,
                        map: d.map,
                    })
                    .collect(),
            })
            .collect(),
        maps: inventory
            .maps
            .into_iter()
            .map(|id| {
                let hub = known.iter().find(|m| m.id == id);
                MapChoice {
                    kind: hub.map(|m| format!("{:?}", m.kind).to_ascii_lowercase()),
                    manufacturer: hub.map(|m| m.manufacturer.clone()),
                    model: hub.map(|m| m.model.clone()),
                    id,
                }
            })
            .collect(),
    }
}

pub fn scan(report: ScanReport, bus: &str) -> ScanResult {
    ScanResult {
        bus: bus.to_owned(),
        from: report.from,
        to: report.to,
        elapsed_ms: report.elapsed_ms,
        silent: report.silent,
        gateway_absent: report.gateway_absent,
        units: report
            .units
            .into_iter()
            .map(|u| {
                let id = u.identity.unwrap_or_default();
                let via = Some(id.via).filter(|v| !v.is_empty());
                FoundUnit {
                    unit: u.unit,
                    manufacturer: id.manufacturer,
                    model: id.model,
                    serial: id.serial,
                    firmware: id.firmware,
                    identified_via: via,
                    suggested_maps: u.suggested_maps,
                    detail: u.detail,
                }
            })
            .collect(),
    }
}

pub fn probe(report: ProbeReport) -> ProbeResult {
    ProbeResult {
        unit: report.unit,
        map: report.map,
        fits: report.fits,
        missing: report.missing,
        status: report.status,
        warnings: report.warnings,
        values: report
            .values
            .into_iter()
            .map(|(metric, v)| {
                let unit = pv_shared::metrics::lookup(&metric)
                    .map(|m| m.unit().symbol.to_owned())
                    .unwrap_or_default();
                let (value, text) = match v {
                    Value::Number(x) => (Some(x), None),
                    Value::Text(t) => (None, Some(t)),
                };
                ProbedValue {
                    metric,
                    value,
                    text,
                    unit,
                }
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pv_shared::commission::{BusInventory, Identity, UnitFound};
    use pv_shared::regmap::DeviceKind;

    #[test]
    fn maps_the_hub_knows_carry_their_kind_and_units_their_identity() {
        let inv = Inventory {
            buses: vec![BusInventory {
                name: "rs485-1".into(),
                transport: "rtu".into(),
                address: "/dev/ttyUSB0".into(),
                devices: vec![],
            }],
            maps: vec!["huawei-sun2000-ktl".into(), "site-special".into()],
        };
        let known = [MapModel {
            id: "huawei-sun2000-ktl".into(),
            kind: DeviceKind::Inverter,
            manufacturer: "Huawei".into(),
            model: "SUN2000".into(),
        }];
        let b = buses("gw".into(), inv, &known);
        assert_eq!(b.maps[0].kind.as_deref(), Some("inverter"));
        assert_eq!(b.maps[1].kind, None, "a map only the gateway has");
        let json = serde_json::to_string(&b.maps[1]).unwrap();
        assert_eq!(json, r#"{"id":"site-special"}"#);

        let s = scan(
            ScanReport {
                bus: "rtu /dev/ttyUSB0 @9600".into(),
                from: 1,
                to: 5,
                units: vec![UnitFound {
                    unit: 2,
                    identity: Some(Identity {
                        manufacturer: Some("Fronius".into()),
                        via: "sunspec".into(),
                        ..Identity::default()
                    }),
                    suggested_maps: vec!["sunspec-inverter".into()],
                    detail: "SunSpec".into(),
                    sunspec_models: vec![1, 113],
                }],
                elapsed_ms: 9,
                silent: 3,
                gateway_absent: 1,
            },
            "rs485-1",
        );
        assert_eq!(s.bus, "rs485-1");
        assert_eq!((s.silent, s.gateway_absent), (3, 1));
        assert_eq!(s.units[0].identified_via.as_deref(), Some("sunspec"));
        assert_eq!(s.units[0].manufacturer.as_deref(), Some("Fronius"));

        let mut values = std::collections::BTreeMap::new();
        values.insert("ac_power".to_string(), Value::Number(8000.0));
        values.insert("serial_number".to_string(), Value::Text("X1".into()));
        let p = probe(ProbeReport {
            unit: 2,
            map: "m".into(),
            values,
            missing: vec![],
            fits: true,
            status: None,
            warnings: vec![],
            identity: None,
        });
        assert_eq!(p.values[0].metric, "ac_power");
        assert_eq!(p.values[0].unit, "W");
        assert_eq!(p.values[1].text.as_deref(), Some("X1"));
    }
}
