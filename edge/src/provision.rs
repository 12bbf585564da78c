//! Changing the gateway's configuration from the cloud's commissioning commands: what the
//! gateway has to offer (buses, devices, maps) and adding a device to its configuration file.
//!
//! The file stays the installer's: a device is added as one more `[[bus.device]]` of the named
//! bus, comments and layout kept. The new text is checked exactly as a start would check it
//! before anything is written; then it goes to a temporary file next to the original, is
//! flushed to disk and renamed over it, so a power cut leaves either the old file or the new
//! one, never half of each.

use std::io::Write;
use std::path::Path;

use pv_shared::commission::{BusInventory, Inventory, InventoryDevice};

use crate::config::GatewayConfig;
use crate::transport::Transport;

/// The buses of `config` with their devices, and the maps it can use.
pub fn inventory(config: &GatewayConfig) -> Inventory {
    Inventory {
        buses: config
            .buses
            .iter()
            .map(|b| {
                let (transport, address) = match &b.transport {
                    Transport::Rtu { path, .. } => ("rtu", path.clone()),
                    Transport::Tcp { address } => ("tcp", address.to_string()),
                    Transport::RtuOverTcp { address } => {
                        ("rtu-over-tcp", format!("rtu-over-tcp://{address}"))
                    }
                };
                BusInventory {
                    name: b.name.clone(),
                    transport: transport.into(),
                    address,
                    devices: b
                        .devices
                        .iter()
                        .map(|d| InventoryDevice {
                            id: d.id.clone(),
                            unit: d.unit,
                            map: d.map.id.clone(),
                        })
                        .collect(),
                }
            })
            .collect(),
        maps: config.maps.keys().cloned().collect(),
    }
}

/// A device to add to a bus.
#[derive(Debug, Clone)]
pub struct NewDevice<'a> {
    pub bus: &'a str,
    pub id: &'a str,
    pub unit: u8,
    pub map: &'a str,
    pub interval_ms: Option<u64>,
}

/// `text` with `device` appended to its bus. Only the shape is handled here; whether the
/// result is a valid configuration (unique id and unit, known map) is `GatewayConfig::parse`'s.
pub fn with_device(text: &str, device: &NewDevice) -> Result<String, String> {
    let mut doc: toml_edit::DocumentMut = text.parse().map_err(|e| format!("configuration: {e}"))?;
    let Some(buses) = doc.get_mut("bus").and_then(|b| b.as_array_of_tables_mut()) else {
        return Err("the configuration has no [[bus]]".into());
    };
    let mut names = Vec::new();
    let mut target = None;
    for bus in buses.iter_mut() {
        let name = bus
            .get("name")
            .and_then(|n| n.as_str())
            .unwrap_or_default()
            .to_string();
        if name == device.bus {
            target = Some(bus);
            break;
        }
        names.push(name);
    }
    let Some(bus) = target else {
        return Err(format!("no bus {} (have: {})", device.bus, names.join(", ")));
    };
    let mut table = toml_edit::Table::new();
    table.insert("id", toml_edit::value(device.id));
    table.insert("map", toml_edit::value(device.map));
    table.insert("unit", toml_edit::value(i64::from(device.unit)));
    if let Some(ms) = device.interval_ms {
        let ms = i64::try_from(ms).map_err(|_| "interval_ms is too large".to_string())?;
        table.insert("interval_ms", toml_edit::value(ms));
    }
    table
        .decor_mut()
        .set_prefix("\n# added from the cloud's commissioning\n");
    match bus.get_mut("device") {
        Some(item) => match item.as_array_of_tables_mut() {
            Some(devices) => devices.push(table),
            None => return Err(format!("bus {}: `device` is not a list of tables", device.bus)),
        },
        None => {
            let mut devices = toml_edit::ArrayOfTables::new();
            devices.push(table);
            bus.insert("device", toml_edit::Item::ArrayOfTables(devices));
        }
    }
    Ok(doc.to_string())
}

/// Adds `device` to the configuration file at `path` if the result checks; the file is
/// unchanged otherwise. Answers the checked new configuration.
pub fn add_device(path: &Path, device: &NewDevice) -> Result<GatewayConfig, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let new_text = with_device(&text, device)?;
    let checked = GatewayConfig::parse(path, &new_text).map_err(|e| e.to_string())?;
    write_atomically(path, &new_text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(checked)
}

/// Replaces the file at `path` by `text` in one step (temporary file, fsync, rename).
pub fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "config".into());
    let tmp = dir.join(format!(".{name}.new"));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)?;
        // The rename itself is durable once the folder is.
        if let Ok(d) = std::fs::File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "# installer's notes\ngateway_id = \"gw-1\"\ndata_dir = \"data\"\nmaps_dir = \"MAPS\"\n\n[[bus]]\nname = \"a\"\ntransport = \"tcp\"\naddress = \"127.0.0.1:1502\"\n\n[[bus.device]]\nid = \"inv-1\"\nmap = \"huawei-sun2000-ktl\"\nunit = 1\n\n[[bus]]\nname = \"b\"   # the empty one\ntransport = \"tcp\"\naddress = \"127.0.0.1:1503\"\n";

    fn file() -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let maps = Path::new(env!("CARGO_MANIFEST_DIR")).join("../firmware-configs");
        let path = dir.path().join("pv-edge.toml");
        std::fs::write(&path, BASE.replace("MAPS", &maps.display().to_string())).unwrap();
        (dir, path)
    }

    fn dev<'a>(bus: &'a str, id: &'a str, unit: u8, map: &'a str) -> NewDevice<'a> {
        NewDevice {
            bus,
            id,
            unit,
            map,
            interval_ms: Some(2000),
        }
    }

    #[test]
    fn a_device_lands_in_its_bus_and_the_rest_of_the_file_stays() {
        let (_d, path) = file();
        let c = add_device(&path, &dev("b", "meter-1", 2, "eastron-sdm630")).unwrap();
        assert_eq!(c.buses[1].devices.len(), 1);
        assert_eq!(c.buses[1].devices[0].unit, 2);
        assert_eq!(c.buses[1].devices[0].interval.as_millis(), 2000);
        assert_eq!(c.buses[0].devices.len(), 1);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("# installer's notes\n"), "{text}");
        assert!(text.contains("# the empty one"), "{text}");
        // A second device on a bus that already has one.
        let c = add_device(&path, &dev("a", "inv-2", 3, "huawei-sun2000-ktl")).unwrap();
        assert_eq!(
            c.buses[0]
                .devices
                .iter()
                .map(|d| d.id.as_str())
                .collect::<Vec<_>>(),
            ["inv-1", "inv-2"]
        );
        assert_eq!(inventory(&c).buses[0].devices.len(), 2);
        assert!(inventory(&c).maps.contains(&"eastron-sdm630".to_string()));
    }

    #[test]
    fn a_device_that_does_not_check_leaves_the_file_alone() {
        let (dir, path) = file();
        let before = std::fs::read_to_string(&path).unwrap();
        for (d, why) in [
            (dev("a", "inv-1", 9, "huawei-sun2000-ktl"), "unique"),
            (dev("a", "inv-9", 1, "huawei-sun2000-ktl"), "unit id"),
            (dev("a", "inv-9", 9, "no-such-map"), "no map"),
            (dev("zz", "inv-9", 9, "huawei-sun2000-ktl"), "no bus zz"),
        ] {
            let e = add_device(&path, &d).unwrap_err();
            assert!(e.contains(why), "{e}");
        }
        assert_eq!(std::fs::read_to_string(&path).unwrap(), before);
        // No temporary file left behind.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
