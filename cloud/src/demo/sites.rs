//! The demo's three stations: real places (coordinates and GB/T 2260 region codes), sizes and
//! device mixes a newcomer would meet in China, and what goes wrong at one of them.
//!
//! Ratings follow the simulator's model (`docs/simulator.md`): each inverter's DC array is 1.15
//! times its AC rating, so module counts and kWp below are chosen to match, and yield and PR
//! computed from them come out plausible.

/// A demo station with everything needed to register it and to simulate it.
#[derive(Debug, Clone)]
pub struct Site {
    /// Gateway id: the key the provisioner finds the station by on later starts.
    pub gateway_id: &'static str,
    pub gateway_sn: &'static str,
    pub name: &'static str,
    pub address: &'static str,
    pub latitude: f64,
    pub longitude: f64,
    /// Province, city, district (GB/T 2260).
    pub regions: [&'static str; 3],
    /// Dictionary keys: `station_type`, `connected_type`, `contribution_way`,
    /// `inverter_manufacturer` (the main make).
    pub station_type: &'static str,
    pub connected_type: &'static str,
    pub contribution_way: &'static str,
    pub inverter_manufacturer: &'static str,
    /// Modules' plane: tilt from horizontal and azimuth from north (180 = south), as the
    /// simulator takes them.
    pub tilt: f64,
    pub azimuth: f64,
    /// Share of time with a passing cloud, and the weather's seed.
    pub cloudiness: f64,
    pub seed: u64,
    pub grid_connection: &'static str,
    pub feed_in_tariff: f64,
    /// The price history's first (and only) entry: from this day, per kWh.
    pub settlement: (&'static str, f64),
    pub tariff: Tariff,
    /// What the station's remark says about it (its troubles included).
    pub description: &'static str,
    /// Each bus is one simulated Modbus TCP listener.
    pub buses: Vec<Bus>,
}

/// The electricity price schedule of a station.
#[derive(Debug, Clone)]
pub enum Tariff {
    Fixed(f64),
    /// From an effective day: (start, end, `price_segment_type` key, price) covering the day.
    PeakValley(&'static str, Vec<(&'static str, &'static str, &'static str, f64)>),
}

/// Devices on one bus, and the AC rating the simulator gives the inverters (or, for a meter,
/// the plant behind it).
#[derive(Debug, Clone)]
pub struct Bus {
    pub capacity_kw: f64,
    pub devices: Vec<Device>,
}

#[derive(Debug, Clone)]
pub struct Device {
    pub unit: u8,
    pub sn: String,
    pub name: String,
    pub map: &'static str,
    pub kind: Kind,
    /// A weak string: (1-based string, share of its current).
    pub weak_string: Option<(usize, f64)>,
    /// Simulator troubles (`pv-edge simulate` fault syntax without the unit).
    pub faults: Vec<&'static str>,
}

#[derive(Debug, Clone)]
pub enum Kind {
    Inverter {
        manufacturer: &'static str,
        rated_kw: f64,
        strings: usize,
        /// Modules per string (empty for a central inverter's combiner inputs).
        modules_per_string: Option<usize>,
    },
    Meter,
    Weather,
    Tracker,
}

fn inverters(
    prefix: &str,
    model: &str,
    units: std::ops::RangeInclusive<u8>,
    first_no: u8,
    map: &'static str,
    kind: Kind,
) -> Vec<Device> {
    units
        .enumerate()
        .map(|(k, unit)| {
            let no = first_no + k as u8;
            Device {
                unit,
                sn: format!("{prefix}-INV-{no:02}"),
                name: format!("{no}号逆变器 {model}"),
                map,
                kind: kind.clone(),
                weak_string: None,
                faults: vec![],
            }
        })
        .collect()
}

fn device(unit: u8, sn: &str, name: &str, map: &'static str, kind: Kind) -> Device {
    Device {
        unit,
        sn: sn.into(),
        name: name.into(),
        map,
        kind,
        weak_string: None,
        faults: vec![],
    }
}

/// The sites' own clock, China Standard Time (+08:00) in minutes east of UTC. A simulated
/// site's `pv_station.utc_offset_minutes` is this plus its clock shift, so the station-local
/// windows of the analytics (dispersion's 10:00-14:00) fall on the simulated sun's hours.
pub const SITE_UTC_OFFSET_MINUTES: i64 = 8 * 60;

/// The JS inverter with the weak string and the one with the recurring fault.
pub const WEAK_STRING_SN: &str = "DEMO-JS-INV-02";
/// String 7 of DEMO-JS-INV-02 delivers a quarter of its neighbours' current (a string with most
/// of its modules bypassed, or a failed connector on one of two parallel strings): one such string
/// among 12 gives a dispersion of 22.1 %, "poor" with the default bounds (0.55 would give 12.9 %,
/// only "attention").
pub const WEAK_STRING: (usize, f64) = (7, 0.25);
pub const RECURRING_FAULT_SN: &str = "DEMO-JS-INV-08";
/// Faulted for 5 minutes at the start of every half hour (site clock).
pub const RECURRING_FAULT: &str = "recurring:30:5";

pub fn sites() -> Vec<Site> {
    // Qinghai: a utility-scale plant on the Talatan plateau (Gonghe county), clear skies,
    // two SunSpec central inverters (SMA Sunny Central 2500-EV, 8 DC inputs each) and a
    // single-axis tracker field.
    let qinghai = Site {
        gateway_id: "DEMO-QH-01",
        gateway_sn: "DEMO-GW-QH-0001",
        name: "演示-青海共和5MW跟踪支架地面电站",
        address: "青海省海南藏族自治州共和县塔拉滩光伏园区",
        latitude: 36.134,
        longitude: 100.579,
        regions: ["630000", "632500", "632521"],
        station_type: "3",
        connected_type: "1",
        contribution_way: "1",
        inverter_manufacturer: "5",
        tilt: 30.0,
        azimuth: 180.0,
        cloudiness: 0.15,
        seed: 11,
        grid_connection: "2021-12-28 00:00:00",
        feed_in_tariff: 0.2277,
        settlement: ("2021-12-28", 0.2277),
        tariff: Tariff::Fixed(0.2277),
        description: "演示电站：5MW地面电站，平单轴跟踪支架，2台SMA集中式逆变器（SunSpec），全额上网。",
        buses: vec![
            Bus {
                capacity_kw: 2500.0,
                devices: inverters(
                    "DEMO-QH",
                    "SMA Sunny Central 2500-EV",
                    1..=2,
                    1,
                    "sunspec-inverter",
                    Kind::Inverter {
                        manufacturer: "5",
                        rated_kw: 2500.0,
                        strings: 8,
                        modules_per_string: None,
                    },
                ),
            },
            Bus {
                capacity_kw: 5000.0,
                devices: vec![
                    device(1, "DEMO-QH-MTR-01", "并网关口表", "sunspec-meter", Kind::Meter),
                    device(
                        2,
                        "DEMO-QH-MET-01",
                        "气象站",
                        "sunspec-met-station",
                        Kind::Weather,
                    ),
                    device(
                        3,
                        "DEMO-QH-TRK-01",
                        "1号方阵跟踪支架控制器",
                        "pv-reference-tracker",
                        Kind::Tracker,
                    ),
                ],
            },
        ],
    };

    // Jiangsu: a commercial rooftop in Wujiang (Suzhou) on a time-of-use tariff, self-use with
    // the surplus fed in; two makes of string inverters, one with a weak string, one with a
    // fault that keeps coming back.
    let mut js_inverters = inverters(
        "DEMO-JS",
        "阳光电源 SG110CX",
        1..=5,
        1,
        "sungrow-sg-cx",
        Kind::Inverter {
            manufacturer: "2",
            rated_kw: 110.0,
            strings: 12,
            modules_per_string: Some(19),
        },
    );
    js_inverters.extend(inverters(
        "DEMO-JS",
        "华为 SUN2000-110KTL-M0",
        6..=10,
        6,
        "huawei-sun2000-ktl",
        Kind::Inverter {
            manufacturer: "1",
            rated_kw: 110.0,
            strings: 8,
            modules_per_string: Some(24),
        },
    ));
    for d in &mut js_inverters {
        if d.sn == WEAK_STRING_SN {
            d.weak_string = Some(WEAK_STRING);
        }
        if d.sn == RECURRING_FAULT_SN {
            d.faults.push(RECURRING_FAULT);
        }
    }
    let jiangsu = Site {
        gateway_id: "DEMO-JS-01",
        gateway_sn: "DEMO-GW-JS-0001",
        name: "演示-苏州吴江1.1MW工商业屋顶电站",
        address: "江苏省苏州市吴江区经济技术开发区运东大道",
        latitude: 31.139,
        longitude: 120.653,
        regions: ["320000", "320500", "320509"],
        station_type: "2",
        connected_type: "2",
        contribution_way: "4",
        inverter_manufacturer: "2",
        tilt: 10.0,
        azimuth: 180.0,
        cloudiness: 0.35,
        seed: 22,
        grid_connection: "2023-05-18 00:00:00",
        feed_in_tariff: 0.391,
        settlement: ("2023-05-18", 0.6),
        // Jiangsu's industrial time-of-use periods (valley 0-8, peak 14-22, flat between).
        tariff: Tariff::PeakValley(
            "2024-01-01",
            vec![
                ("00:00", "08:00", "4", 0.2589),
                ("08:00", "14:00", "3", 0.6259),
                ("14:00", "22:00", "2", 1.0349),
                ("22:00", "24:00", "3", 0.6259),
            ],
        ),
        description: "演示电站：1.1MW工商业屋顶，合同能源管理，自发自用余电上网，峰谷电价；\
                      阳光电源与华为组串式逆变器。",
        buses: vec![
            Bus {
                capacity_kw: 110.0,
                devices: js_inverters,
            },
            Bus {
                capacity_kw: 1100.0,
                devices: vec![
                    device(1, "DEMO-JS-MTR-01", "并网关口表", "chint-dtsu666", Kind::Meter),
                    device(
                        2,
                        "DEMO-JS-MET-01",
                        "屋顶气象站",
                        "sunspec-met-station",
                        Kind::Weather,
                    ),
                ],
            },
        ],
    };

    // Guangdong: a small factory rooftop in Shunde (Foshan), humid and often cloudy.
    let guangdong = Site {
        gateway_id: "DEMO-GD-01",
        gateway_sn: "DEMO-GW-GD-0001",
        name: "演示-佛山顺德300kW厂房屋顶电站",
        address: "广东省佛山市顺德区大良街道",
        latitude: 22.840,
        longitude: 113.250,
        regions: ["440000", "440600", "440606"],
        station_type: "2",
        connected_type: "2",
        contribution_way: "1",
        inverter_manufacturer: "3",
        tilt: 8.0,
        azimuth: 180.0,
        cloudiness: 0.45,
        seed: 33,
        grid_connection: "2024-03-26 00:00:00",
        feed_in_tariff: 0.453,
        settlement: ("2024-03-26", 0.65),
        tariff: Tariff::Fixed(0.65),
        description: "演示电站：300kW厂房屋顶，业主自投，自发自用余电上网，3台古瑞瓦特组串式逆变器。",
        buses: vec![
            Bus {
                capacity_kw: 100.0,
                devices: inverters(
                    "DEMO-GD",
                    "古瑞瓦特 MAX 100KTL3-X LV",
                    1..=3,
                    1,
                    "growatt-max",
                    Kind::Inverter {
                        manufacturer: "3",
                        rated_kw: 100.0,
                        strings: 8,
                        modules_per_string: Some(22),
                    },
                ),
            },
            Bus {
                capacity_kw: 300.0,
                devices: vec![
                    device(1, "DEMO-GD-MTR-01", "并网电表", "eastron-sdm630", Kind::Meter),
                    device(
                        2,
                        "DEMO-GD-MET-01",
                        "气象站",
                        "sunspec-met-station",
                        Kind::Weather,
                    ),
                ],
            },
        ],
    };
    vec![qinghai, jiangsu, guangdong]
}

/// Module ratings (Wp) per inverter family, so kWp = 1.15 × kW AC as the simulator assumes.
pub fn module_wp(map: &str) -> f64 {
    match map {
        "sungrow-sg-cx" => 555.0,
        "huawei-sun2000-ktl" => 660.0,
        "growatt-max" => 655.0,
        _ => 665.0,
    }
}

impl Site {
    pub fn capacity_kw(&self) -> f64 {
        self.inverters().map(|(_, kw, _)| kw).sum()
    }

    /// (module count, kWp): what strings × modules give, or for inverters without strings of
    /// known length (central inverters), 1.15 × their AC rating in modules.
    pub fn components(&self) -> (i64, f64) {
        let mut count = 0i64;
        let mut wp = 0.0;
        for (d, kw, modules) in self.inverters() {
            let each = module_wp(d.map);
            let n = match modules {
                Some(n) => n as i64,
                None => (kw * 1.15 * 1000.0 / each).round() as i64,
            };
            count += n;
            wp += n as f64 * each;
        }
        (count, (wp / 1000.0 * 100.0).round() / 100.0)
    }

    /// Inverters with their AC rating and total module count (when strings have a known length).
    fn inverters(&self) -> impl Iterator<Item = (&Device, f64, Option<usize>)> {
        self.buses
            .iter()
            .flat_map(|b| &b.devices)
            .filter_map(|d| match &d.kind {
                Kind::Inverter {
                    rated_kw,
                    strings,
                    modules_per_string,
                    ..
                } => Some((d, *rated_kw, modules_per_string.map(|m| m * strings))),
                _ => None,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sites_add_up() {
        let sites = sites();
        assert_eq!(sites.len(), 3);
        let caps: Vec<f64> = sites.iter().map(Site::capacity_kw).collect();
        assert_eq!(caps, vec![5000.0, 1100.0, 300.0]);
        for s in &sites {
            let (_, kwp) = s.components();
            let ratio = kwp / s.capacity_kw();
            assert!((1.1..1.2).contains(&ratio), "{}: DC/AC {ratio}", s.name);
            // The meter's bus simulates the whole plant.
            assert_eq!(s.buses[1].capacity_kw, s.capacity_kw(), "{}", s.name);
            for b in &s.buses {
                let mut units: Vec<u8> = b.devices.iter().map(|d| d.unit).collect();
                units.dedup();
                assert_eq!(units.len(), b.devices.len(), "unit ids unique per bus");
            }
        }
        let weak = sites[1].buses[0]
            .devices
            .iter()
            .find(|d| d.weak_string.is_some())
            .expect("a weak string");
        assert!(matches!(weak.kind, Kind::Inverter { strings, .. } if strings >= 6));
        assert!(sites.iter().any(|s| {
            s.buses
                .iter()
                .any(|b| b.devices.iter().any(|d| matches!(d.kind, Kind::Tracker)))
        }));
    }
}
