//! What a row of the overview is, how its status is decided, and the list's filters and sort
//! (pure: the store gathers the facts, this decides).

use std::cmp::Ordering;

use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::kernel::lang::Text;
use crate::kernel::{ApiError, Id};

pub const KIND_INVERTER: &str = "inverter";
pub const KIND_METER: &str = "meter";
pub const KIND_WEATHER: &str = "weather";
pub const KIND_TRACKER: &str = "tracker";
pub const KIND_CAMERA: &str = "camera";
pub const KINDS: [&str; 5] = [KIND_INVERTER, KIND_METER, KIND_WEATHER, KIND_TRACKER, KIND_CAMERA];

pub const SOURCE_GATEWAY: &str = "gateway";
pub const SOURCE_VENDOR: &str = "vendor";
pub const SOURCES: [&str; 2] = [SOURCE_GATEWAY, SOURCE_VENDOR];

/// Samples arrive and the gateway (or vendor cloud) counts the device as answering.
pub const STATUS_ONLINE: &str = "online";
/// It reported before and is silent now (or its gateway says it does not answer).
pub const STATUS_OFFLINE: &str = "offline";
/// An open (active or acknowledged) fault alarm is on the device.
pub const STATUS_FAULT: &str = "fault";
/// Its gateway holds its values back (layout or identity changed, not confirmed).
pub const STATUS_WITHHELD: &str = "withheld";
/// No sample of it ever reached the hub.
pub const STATUS_NEVER: &str = "never";
/// Cameras: no samples, so no status.
pub const STATUS_UNKNOWN: &str = "unknown";
pub const STATUSES: [&str; 6] = [
    STATUS_ONLINE,
    STATUS_OFFLINE,
    STATUS_FAULT,
    STATUS_WITHHELD,
    STATUS_NEVER,
    STATUS_UNKNOWN,
];

/// One device of the overview.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Equipment {
    pub id: Id,
    pub name: String,
    pub station_id: Id,
    pub station_name: String,
    /// `inverter`, `meter`, `weather`, `tracker` or `camera`.
    pub kind: String,
    /// The vendor's model name (vendor devices), else the register map's manufacturer and
    /// model; empty when neither is known.
    pub model: String,
    pub sn: String,
    /// As the vendor cloud reports it; empty otherwise (gateways do not report firmware).
    pub firmware: String,
    /// `gateway` or `vendor` (a vendor-cloud device row points at it).
    pub source: String,
    /// `online`, `offline`, `fault`, `withheld`, `never` or `unknown` (cameras).
    pub status: String,
    /// Time of the newest sample, `yyyy-MM-dd HH:mm:ss`; absent when it never reported.
    pub last_sample: Option<String>,
    /// Failed polls its gateway's statuses reported since the start of the hour 24 hours ago
    /// (`telemetry::polls`); absent when no gateway reports the device (vendor devices, cameras,
    /// a gateway that never sent a status naming it).
    pub missed_polls: Option<i64>,
    /// Samples stored with suspect marks since the start of the hour 24 hours ago.
    pub suspect_values: i64,
    /// Counter rebases found in its energy counters over the same window.
    pub counter_rebases: i64,
    /// The gateway feeding it (its own, else its station's); empty for vendor devices.
    pub gateway_id: String,
    #[serde(skip)]
    #[schema(ignore)]
    pub last_sample_ms: Option<i64>,
}

/// What decides a device's status.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Facts {
    pub camera: bool,
    /// The newest sample's time, when one ever arrived.
    pub last_sample_ms: Option<i64>,
    /// Whether the realtime view counts it online.
    pub live_online: bool,
    /// What its online gateway's newest status says of it: (answers, withheld).
    pub gateway_line: Option<(bool, bool)>,
    pub open_fault: bool,
}

/// The status, first match wins: a camera has none; a withheld device is withheld whatever else
/// (its values are held back, so "online" would overstate it); an open fault alarm makes it
/// fault; a device that never reported is never; else online or offline as its gateway's status
/// says, or the realtime view when no status names it (vendor devices).
pub fn status(f: &Facts) -> &'static str {
    if f.camera {
        return STATUS_UNKNOWN;
    }
    if f.gateway_line.is_some_and(|(_, withheld)| withheld) {
        return STATUS_WITHHELD;
    }
    if f.open_fault {
        return STATUS_FAULT;
    }
    if f.last_sample_ms.is_none() {
        return STATUS_NEVER;
    }
    let online = f.gateway_line.map_or(f.live_online, |(answers, _)| answers);
    if online { STATUS_ONLINE } else { STATUS_OFFLINE }
}

/// The list's filters and sort.
#[derive(Debug, Clone, Default, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct EquipmentQuery {
    /// Page number, from 1 (page only).
    pub current: Option<i64>,
    /// Rows per page, 1..=1000 (page only; larger asks are cut to 1000).
    pub size: Option<i64>,
    /// Only devices of this station.
    pub station_id: Option<Id>,
    /// `inverter`, `meter`, `weather`, `tracker` or `camera`.
    pub kind: Option<String>,
    /// `gateway` or `vendor`.
    pub source: Option<String>,
    /// `online`, `offline`, `fault`, `withheld`, `never` or `unknown`.
    pub status: Option<String>,
    /// Part of the name, SN or model (case-insensitive).
    pub keyword: Option<String>,
    /// `station`, `kind`, `name`, `sn`, `model`, `source`, `status`, `lastSample`,
    /// `missedPolls`, `suspectValues` or `counterRebases` (default: station, kind, name).
    pub sort: Option<String>,
    /// `asc` (default) or `desc`.
    pub order: Option<String>,
}

/// A query checked against the whitelists.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub station_id: Option<Id>,
    pub kind: Option<&'static str>,
    pub source: Option<&'static str>,
    pub status: Option<&'static str>,
    pub keyword: Option<String>,
    pub sort: Sort,
    pub descending: bool,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Sort {
    #[default]
    Station,
    Kind,
    Name,
    Sn,
    Model,
    Source,
    Status,
    LastSample,
    MissedPolls,
    SuspectValues,
    CounterRebases,
}

const SORTS: [(&str, Sort); 11] = [
    ("station", Sort::Station),
    ("kind", Sort::Kind),
    ("name", Sort::Name),
    ("sn", Sort::Sn),
    ("model", Sort::Model),
    ("source", Sort::Source),
    ("status", Sort::Status),
    ("lastSample", Sort::LastSample),
    ("missedPolls", Sort::MissedPolls),
    ("suspectValues", Sort::SuspectValues),
    ("counterRebases", Sort::CounterRebases),
];

fn one_of(
    value: Option<&str>,
    allowed: &[&'static str],
    what: Text,
) -> Result<Option<&'static str>, ApiError> {
    match value.map(str::trim).filter(|v| !v.is_empty()) {
        None => Ok(None),
        Some(v) => allowed
            .iter()
            .find(|a| **a == v)
            .map(|a| Some(*a))
            .ok_or(ApiError::BadRequest(what)),
    }
}

impl EquipmentQuery {
    pub fn filter(&self) -> Result<Filter, ApiError> {
        let sort = match self.sort.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
            None => Sort::Station,
            Some(s) => SORTS
                .iter()
                .find(|(name, _)| *name == s)
                .map(|(_, sort)| *sort)
                .ok_or(ApiError::BadRequest(Text::new(
                    "不支持的排序字段",
                    "Unsupported sort field",
                )))?,
        };
        let descending = match self.order.as_deref().map(str::trim) {
            None | Some("") | Some("asc") | Some("ascend") => false,
            Some("desc") | Some("descend") => true,
            Some(_) => {
                return Err(ApiError::BadRequest(Text::new(
                    "排序方向只能是 asc 或 desc",
                    "The order must be asc or desc",
                )));
            }
        };
        Ok(Filter {
            station_id: self.station_id,
            kind: one_of(
                self.kind.as_deref(),
                &KINDS,
                Text::new("不支持的设备类型", "Unsupported device kind"),
            )?,
            source: one_of(
                self.source.as_deref(),
                &SOURCES,
                Text::new("不支持的数据来源", "Unsupported data source"),
            )?,
            status: one_of(
                self.status.as_deref(),
                &STATUSES,
                Text::new("不支持的设备状态", "Unsupported device status"),
            )?,
            keyword: self
                .keyword
                .as_deref()
                .map(|k| k.trim().to_lowercase())
                .filter(|k| !k.is_empty()),
            sort,
            descending,
        })
    }
}

impl Filter {
    /// Whether a row passes the filters the database did not apply (source, status, keyword).
    pub fn keeps(&self, e: &Equipment) -> bool {
        self.source.is_none_or(|s| e.source == s)
            && self.status.is_none_or(|s| e.status == s)
            && self.keyword.as_deref().is_none_or(|k| {
                [&e.name, &e.sn, &e.model]
                    .iter()
                    .any(|f| f.to_lowercase().contains(k))
            })
    }

    /// Sorts by the chosen field, ties by station, kind, name and id (a stable, total order, so
    /// paging never shows a row twice).
    pub fn sort(&self, rows: &mut [Equipment]) {
        let tie = |a: &Equipment, b: &Equipment| {
            a.station_name
                .cmp(&b.station_name)
                .then_with(|| kind_rank(&a.kind).cmp(&kind_rank(&b.kind)))
                .then_with(|| a.name.cmp(&b.name))
                .then_with(|| a.id.0.cmp(&b.id.0))
        };
        let key = |a: &Equipment, b: &Equipment| -> Ordering {
            match self.sort {
                Sort::Station => Ordering::Equal,
                Sort::Kind => kind_rank(&a.kind).cmp(&kind_rank(&b.kind)),
                Sort::Name => a.name.cmp(&b.name),
                Sort::Sn => a.sn.cmp(&b.sn),
                Sort::Model => a.model.cmp(&b.model),
                Sort::Source => a.source.cmp(&b.source),
                Sort::Status => status_rank(&a.status).cmp(&status_rank(&b.status)),
                Sort::LastSample => a.last_sample_ms.cmp(&b.last_sample_ms),
                Sort::MissedPolls => a.missed_polls.cmp(&b.missed_polls),
                Sort::SuspectValues => a.suspect_values.cmp(&b.suspect_values),
                Sort::CounterRebases => a.counter_rebases.cmp(&b.counter_rebases),
            }
        };
        rows.sort_by(|a, b| {
            let o = key(a, b).then_with(|| tie(a, b));
            if self.descending { o.reverse() } else { o }
        });
    }
}

fn kind_rank(kind: &str) -> usize {
    KINDS.iter().position(|k| *k == kind).unwrap_or(KINDS.len())
}

fn status_rank(status: &str) -> usize {
    STATUSES
        .iter()
        .position(|s| *s == status)
        .unwrap_or(STATUSES.len())
}

/// Devices of one kind by status.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct KindSummary {
    pub kind: String,
    pub total: i64,
    pub online: i64,
    pub offline: i64,
    pub fault: i64,
    pub withheld: i64,
    pub never: i64,
    pub unknown: i64,
}

impl KindSummary {
    fn add(&mut self, status: &str) {
        self.total += 1;
        match status {
            STATUS_ONLINE => self.online += 1,
            STATUS_OFFLINE => self.offline += 1,
            STATUS_FAULT => self.fault += 1,
            STATUS_WITHHELD => self.withheld += 1,
            STATUS_NEVER => self.never += 1,
            _ => self.unknown += 1,
        }
    }
}

/// The summary row: counts by kind and status of the rows the same filters list.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EquipmentSummary {
    /// Every kind, in the list's kind order, with zeros for kinds with no device.
    pub kinds: Vec<KindSummary>,
    /// All kinds together (`kind` = `all`).
    pub all: KindSummary,
}

pub fn summarize(rows: &[Equipment]) -> EquipmentSummary {
    let mut kinds: Vec<KindSummary> = KINDS
        .iter()
        .map(|k| KindSummary {
            kind: (*k).to_owned(),
            ..KindSummary::default()
        })
        .collect();
    let mut all = KindSummary {
        kind: "all".into(),
        ..KindSummary::default()
    };
    for r in rows {
        if let Some(k) = kinds.get_mut(kind_rank(&r.kind)) {
            k.add(&r.status);
        }
        all.add(&r.status);
    }
    EquipmentSummary { kinds, all }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: i64, name: &str, kind: &str, status: &str, last: Option<i64>) -> Equipment {
        Equipment {
            id: Id(id),
            name: name.into(),
            station_id: Id(1),
            station_name: "S".into(),
            kind: kind.into(),
            model: String::new(),
            sn: format!("SN{id}"),
            firmware: String::new(),
            source: SOURCE_GATEWAY.into(),
            status: status.into(),
            last_sample: None,
            missed_polls: None,
            suspect_values: 0,
            counter_rebases: 0,
            gateway_id: String::new(),
            last_sample_ms: last,
        }
    }

    #[test]
    fn status_precedence() {
        let seen = Facts {
            last_sample_ms: Some(1),
            live_online: true,
            ..Facts::default()
        };
        assert_eq!(status(&Facts { camera: true, ..seen }), STATUS_UNKNOWN);
        assert_eq!(status(&seen), STATUS_ONLINE);
        assert_eq!(
            status(&Facts {
                live_online: false,
                ..seen
            }),
            STATUS_OFFLINE
        );
        // The gateway's word beats the view's.
        assert_eq!(
            status(&Facts {
                gateway_line: Some((false, false)),
                ..seen
            }),
            STATUS_OFFLINE
        );
        assert_eq!(
            status(&Facts {
                gateway_line: Some((true, true)),
                open_fault: true,
                ..seen
            }),
            STATUS_WITHHELD
        );
        assert_eq!(
            status(&Facts {
                open_fault: true,
                ..seen
            }),
            STATUS_FAULT
        );
        assert_eq!(status(&Facts::default()), STATUS_NEVER);
        assert_eq!(
            status(&Facts {
                gateway_line: Some((true, false)),
                ..Facts::default()
            }),
            STATUS_NEVER
        );
    }

    #[test]
    fn filters_are_whitelisted() {
        let q = |kind: &str, sort: &str, order: &str| EquipmentQuery {
            kind: Some(kind.into()),
            sort: Some(sort.into()),
            order: Some(order.into()),
            ..EquipmentQuery::default()
        };
        assert!(q("inverter", "lastSample", "desc").filter().is_ok());
        assert!(q("pv_inverter", "name", "asc").filter().is_err());
        assert!(q("meter", "name; DROP TABLE x", "asc").filter().is_err());
        assert!(q("meter", "name", "sideways").filter().is_err());
    }

    #[test]
    fn sorting_is_total_and_summary_counts_every_row() {
        let mut rows = vec![
            row(3, "b", KIND_METER, STATUS_NEVER, None),
            row(1, "a", KIND_INVERTER, STATUS_ONLINE, Some(5)),
            row(2, "a", KIND_INVERTER, STATUS_OFFLINE, Some(9)),
            row(4, "c", KIND_CAMERA, STATUS_UNKNOWN, None),
        ];
        let f = Filter {
            sort: Sort::LastSample,
            descending: true,
            ..Filter::default()
        };
        f.sort(&mut rows);
        assert_eq!(rows.iter().map(|r| r.id.0).collect::<Vec<_>>(), [2, 1, 4, 3]);
        Filter::default().sort(&mut rows);
        assert_eq!(rows.iter().map(|r| r.id.0).collect::<Vec<_>>(), [1, 2, 3, 4]);
        let s = summarize(&rows);
        assert_eq!(s.all.total, 4);
        assert_eq!(s.kinds[0].online + s.kinds[0].offline, 2);
        assert_eq!(s.kinds.iter().map(|k| k.total).sum::<i64>(), 4);
        assert_eq!(s.kinds[4].unknown, 1);
    }
}
