//! The cloud's commands to a gateway: turning a set-point into register words through the
//! device's map, running device commands on their bus, and answering each command id once.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Arc;
use std::time::Instant;

use pv_shared::commission::ScanReport;
use pv_shared::decode::{self, Raw};
use pv_shared::regmap::{Location, RegisterMap};
use pv_shared::topics::WIRE_VERSION;
use pv_shared::wire::{Action, CommandAck};
use tokio::sync::{mpsc, oneshot};

use crate::clock::now_ms;
use crate::device::DeviceSpec;
use crate::scheduler::BusCommand;

/// An answer to command `id`.
pub fn answer(gateway: &str, id: &str, result: Result<String, String>) -> CommandAck {
    let (ok, message) = match result {
        Ok(m) => (true, m),
        Err(m) => (false, m),
    };
    CommandAck {
        v: WIRE_VERSION,
        gateway: gateway.to_string(),
        id: id.to_string(),
        ok,
        message,
        ts: now_ms(),
        values: None,
        inventory: None,
        scan: None,
        probe: None,
    }
}

/// The register words that set `metric` of `spec` to `value` (canonical unit), and where they
/// go. Only points the map marks writable qualify.
pub fn set_point(spec: &DeviceSpec, metric: &str, value: f64) -> Result<(u16, Vec<u16>), String> {
    let map = &spec.map;
    let Some(point) = map.points.iter().find(|p| p.metric == metric) else {
        return Err(format!("{} ({}) has no point {metric}", spec.id, map.id));
    };
    if !point.writable {
        let writable: Vec<&str> = map
            .points
            .iter()
            .filter(|p| p.writable)
            .map(|p| p.metric.as_str())
            .collect();
        return Err(format!(
            "{metric} of {} is not writable (writable: {})",
            map.id,
            if writable.is_empty() {
                "none".to_string()
            } else {
                writable.join(", ")
            }
        ));
    }
    let Location::Absolute(address) = point.location else {
        return Err(format!("{metric}: only absolute addresses are written"));
    };
    let raw = value / point.factor();
    let rounded = raw.round();
    // A set-point the register cannot carry exactly is refused rather than silently rounded
    // beyond half a step.
    if (raw - rounded).abs() > 1e-6 * raw.abs().max(1.0)
        && point.data_type != pv_shared::regmap::DataType::F32
    {
        return Err(format!(
            "{value} is not a multiple of the register's step {}",
            point.factor()
        ));
    }
    let raw = match point.data_type {
        pv_shared::regmap::DataType::F32 => Raw::Float(raw as f32),
        _ => Raw::Int(rounded as i128),
    };
    let words = decode::encode(point, &map.limits, &raw).map_err(|e| e.to_string())?;
    Ok((address, words))
}

/// Where a device's commands go.
#[derive(Clone)]
pub struct Route {
    pub spec: DeviceSpec,
    pub bus: mpsc::Sender<BusCommand>,
}

/// Runs a device command on its bus; the answer's `values` carry a `read_now` result.
pub async fn run_device_command(
    gateway: &str,
    id: &str,
    routes: &HashMap<String, Route>,
    action: Action,
) -> CommandAck {
    let unknown = |device: &str| {
        let mut known: Vec<&str> = routes.keys().map(String::as_str).collect();
        known.sort();
        Err(format!("no device {device} (have: {})", known.join(", ")))
    };
    match action {
        Action::ReadNow { device } => {
            let Some(route) = routes.get(&device) else {
                return answer(gateway, id, unknown(&device));
            };
            let (reply, rx) = oneshot::channel();
            if route
                .bus
                .send(BusCommand::ReadNow {
                    device: device.clone(),
                    reply,
                })
                .await
                .is_err()
            {
                return answer(gateway, id, Err("bus stopped".into()));
            }
            match rx.await {
                Ok(Ok(values)) => {
                    let mut a = answer(
                        gateway,
                        id,
                        Ok(format!("read {} values from {device}", values.len())),
                    );
                    a.values = Some(values);
                    a
                }
                Ok(Err(e)) => answer(gateway, id, Err(format!("{device}: {e}"))),
                Err(_) => answer(gateway, id, Err("bus stopped".into())),
            }
        }
        Action::WritePoint {
            device,
            metric,
            value,
        } => {
            let Some(route) = routes.get(&device) else {
                return answer(gateway, id, unknown(&device));
            };
            let (address, words) = match set_point(&route.spec, &metric, value) {
                Ok(x) => x,
                Err(e) => return answer(gateway, id, Err(e)),
            };
            let (reply, rx) = oneshot::channel();
            let write = BusCommand::Write {
                device: device.clone(),
                address,
                words,
                reply,
            };
            if route.bus.send(write).await.is_err() {
                return answer(gateway, id, Err("bus stopped".into()));
            }
            let unit = pv_shared::metrics::lookup(&metric)
                .map(|m| m.unit().symbol)
                .unwrap_or("");
            match rx.await {
                Ok(Ok(())) => answer(
                    gateway,
                    id,
                    Ok(format!("wrote {value} {unit} to {metric} of {device}")),
                ),
                Ok(Err(e)) => answer(gateway, id, Err(format!("{device}: {e}"))),
                Err(_) => answer(gateway, id, Err("bus stopped".into())),
            }
        }
        _ => answer(gateway, id, Err("not a device command".into())),
    }
}

/// Unit ids per slice of a scan. The bus goes back to its schedule between slices, so its
/// devices wait at most one slice (a few timeouts when the ids are empty) however long the
/// scan.
pub const SCAN_SLICE: u8 = 4;

fn unknown_bus(buses: &HashMap<String, mpsc::Sender<BusCommand>>, bus: &str) -> String {
    let mut known: Vec<&str> = buses.keys().map(String::as_str).collect();
    known.sort();
    format!("no bus {bus} (have: {})", known.join(", "))
}

/// Runs a commissioning command (`scan_bus`, `probe_unit`) on its bus, between that bus's
/// polls; the other buses are not involved at all.
pub async fn run_commission_command(
    gateway: &str,
    id: &str,
    buses: &HashMap<String, mpsc::Sender<BusCommand>>,
    maps: &BTreeMap<String, Arc<RegisterMap>>,
    action: Action,
) -> CommandAck {
    match action {
        Action::ScanBus { bus, from, to } => {
            let Some(tx) = buses.get(&bus) else {
                return answer(gateway, id, Err(unknown_bus(buses, &bus)));
            };
            let started = Instant::now();
            let all: Vec<Arc<RegisterMap>> = maps.values().cloned().collect();
            let mut report = ScanReport {
                bus: bus.clone(),
                from,
                to,
                units: Vec::new(),
                elapsed_ms: 0,
                silent: 0,
                gateway_absent: 0,
            };
            let mut first = from;
            loop {
                let last = first.saturating_add(SCAN_SLICE - 1).min(to);
                let (reply, rx) = oneshot::channel();
                let slice = BusCommand::Scan {
                    units: first..=last,
                    maps: all.clone(),
                    reply,
                };
                if tx.send(slice).await.is_err() {
                    return answer(gateway, id, Err("bus stopped".into()));
                }
                match rx.await {
                    Ok(part) => {
                        report.units.extend(part.units);
                        report.silent += part.silent;
                        report.gateway_absent += part.gateway_absent;
                    }
                    Err(_) => return answer(gateway, id, Err("bus stopped".into())),
                }
                if last >= to {
                    break;
                }
                first = last + 1;
            }
            report.elapsed_ms = started.elapsed().as_millis() as u64;
            let mut a = answer(
                gateway,
                id,
                Ok(format!(
                    "bus {bus}: {} of units {from}-{to} answered",
                    report.units.len()
                )),
            );
            a.scan = Some(Box::new(report));
            a
        }
        Action::ProbeUnit { bus, unit, map } => {
            let Some(tx) = buses.get(&bus) else {
                return answer(gateway, id, Err(unknown_bus(buses, &bus)));
            };
            let Some(m) = maps.get(&map) else {
                let known: Vec<&str> = maps.keys().map(String::as_str).collect();
                return answer(
                    gateway,
                    id,
                    Err(format!("no map {map} (have: {})", known.join(", "))),
                );
            };
            let (reply, rx) = oneshot::channel();
            let probe = BusCommand::Probe {
                unit,
                map: m.clone(),
                reply,
            };
            if tx.send(probe).await.is_err() {
                return answer(gateway, id, Err("bus stopped".into()));
            }
            match rx.await {
                Ok(Ok(report)) => {
                    let mut a = answer(
                        gateway,
                        id,
                        Ok(format!(
                            "unit {unit} of bus {bus} with {map}: {} values",
                            report.values.len()
                        )),
                    );
                    a.probe = Some(Box::new(report));
                    a
                }
                Ok(Err(e)) => answer(gateway, id, Err(format!("unit {unit} of bus {bus}: {e}"))),
                Err(_) => answer(gateway, id, Err("bus stopped".into())),
            }
        }
        _ => answer(gateway, id, Err("not a commissioning command".into())),
    }
}

/// Command ids seen lately: a command delivered twice (QoS 1 redelivery) runs once, and the
/// repeat gets the first answer.
#[derive(Default)]
pub struct Recent {
    order: VecDeque<String>,
    answers: HashMap<String, Option<CommandAck>>,
}

/// How many ids are remembered.
const RECENT: usize = 256;

pub enum Seen {
    New,
    /// Still running: its answer will come.
    Running,
    Answered(CommandAck),
}

impl Recent {
    /// Registers `id` as running unless it was seen before.
    pub fn check(&mut self, id: &str) -> Seen {
        match self.answers.get(id) {
            Some(Some(a)) => Seen::Answered(a.clone()),
            Some(None) => Seen::Running,
            None => {
                self.answers.insert(id.to_string(), None);
                self.order.push_back(id.to_string());
                if self.order.len() > RECENT
                    && let Some(old) = self.order.pop_front()
                {
                    self.answers.remove(&old);
                }
                Seen::New
            }
        }
    }

    pub fn done(&mut self, answer: &CommandAck) {
        if let Some(slot) = self.answers.get_mut(&answer.id) {
            *slot = Some(answer.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;
    use std::sync::Arc;
    use std::time::Duration;

    fn tracker() -> DeviceSpec {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../firmware-configs/pv-reference-tracker.toml");
        DeviceSpec {
            id: "tracker-1".into(),
            unit: 1,
            map: Arc::new(pv_shared::regmap::RegisterMap::load(&path).unwrap()),
            interval: Duration::from_secs(1),
        }
    }

    #[test]
    fn set_points_become_register_words_through_the_map() {
        let t = tracker();
        assert_eq!(
            set_point(&t, "tracker_target_angle", 12.5).unwrap(),
            (1, vec![125])
        );
        assert_eq!(
            set_point(&t, "tracker_target_angle", -30.0).unwrap(),
            (1, vec![(-300i16) as u16])
        );
        let e = set_point(&t, "tracker_angle", 1.0).unwrap_err();
        assert!(
            e.contains("not writable") && e.contains("tracker_target_angle"),
            "{e}"
        );
        assert!(
            set_point(&t, "tracker_target_angle", 12.55)
                .unwrap_err()
                .contains("step")
        );
        assert!(
            set_point(&t, "tracker_target_angle", 5000.0).is_err(),
            "beyond i16"
        );
        assert!(set_point(&t, "ac_power", 1.0).unwrap_err().contains("no point"));
    }

    #[test]
    fn a_repeated_command_id_runs_once() {
        let mut r = Recent::default();
        assert!(matches!(r.check("a"), Seen::New));
        assert!(matches!(r.check("a"), Seen::Running));
        r.done(&answer("g", "a", Ok("done".into())));
        assert!(matches!(r.check("a"), Seen::Answered(a) if a.message == "done"));
    }
}
