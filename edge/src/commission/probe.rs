//! Reading one unit with a chosen map.

use std::sync::Arc;
use std::time::Duration;

use pv_shared::commission::ProbeReport;
use pv_shared::regmap::RegisterMap;
use pv_shared::wire::Value;

use super::Registers;
use crate::device::DeviceSpec;

/// Polls `unit` once with `map` and reports the decoded values.
pub async fn probe(bus: &mut impl Registers, unit: u8, map: Arc<RegisterMap>) -> Result<ProbeReport, String> {
    let spec = DeviceSpec {
        id: format!("unit-{unit}"),
        unit,
        map: map.clone(),
        interval: Duration::from_secs(1),
    };
    let values = bus.poll_device(&spec).await?;
    let status = match values.get("status_code") {
        Some(Value::Number(code)) => map
            .status_of(*code as u32)
            .map(|s| format!("{} / {}", s.en, s.zh)),
        _ => None,
    };
    Ok(ProbeReport {
        unit,
        map: map.id.clone(),
        fits: !values.is_empty(),
        values,
        missing: Vec::new(),
        status,
        warnings: Vec::new(),
    })
}
