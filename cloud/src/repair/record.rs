//! What the repair calls answer: the order (`RepairOrder`), its timeline entries, and the stored
//! row they are read from.

use serde::Serialize;
use utoipa::ToSchema;

use super::machine;
use crate::kernel::Id;
use crate::kernel::lang::{Lang, Text};
use crate::kernel::time::Timestamp;

pub const SOURCE_MANUAL: i64 = 1;
pub const SOURCE_ALARM: i64 = 2;
pub const SOURCE_INSPECTION: i64 = 3;

const SOURCE_NAMES: [(&str, &str); 3] = [("手动创建", "Manual"), ("告警", "Alarm"), ("巡检", "Inspection")];
const LEVEL_NAMES: [(&str, &str); 4] = [
    ("提示", "Notice"),
    ("次要", "Minor"),
    ("重要", "Major"),
    ("紧急", "Critical"),
];

fn name_of(names: &[(&'static str, &'static str)], key: i64, lang: Lang) -> String {
    usize::try_from(key - 1)
        .ok()
        .and_then(|i| names.get(i))
        .map(|(zh, en)| Text::new(zh, en).get(lang).to_owned())
        .unwrap_or_default()
}

/// A stored order with the names it is shown with (`store::SELECT`).
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Row {
    pub id: i64,
    pub tenant_id: String,
    pub code: String,
    pub title: String,
    pub description: String,
    pub station_id: i64,
    pub station_name: String,
    pub device_id: Option<i64>,
    pub device_name: String,
    pub alarm_id: Option<i64>,
    pub alarm_name: String,
    pub alarm_level: Option<i64>,
    pub inspect_record_id: Option<i64>,
    pub source: i64,
    pub level: i64,
    pub status: i64,
    pub assignee_id: Option<i64>,
    pub assignee_name: String,
    pub creator_id: i64,
    pub creator_name: String,
    pub photos: String,
    pub work_done: String,
    pub parts: String,
    pub finish_photos: String,
    pub rating: Option<i64>,
    pub evaluation: String,
    pub response_deadline: i64,
    pub repair_deadline: i64,
    pub create_time: i64,
    pub accept_time: Option<i64>,
    pub finish_time: Option<i64>,
    pub complete_time: Option<i64>,
    pub cancel_time: Option<i64>,
    pub approval: i64,
    pub approval_instance: Option<i64>,
    pub approval_comment: String,
}

impl Row {
    /// Accepted after the response deadline, or still waiting for acceptance past it.
    pub fn response_overdue(&self, now: i64) -> bool {
        let answered = self.accept_time.or(match self.status {
            machine::SUBMITTED | machine::TO_ACCEPT => Some(now),
            _ => self.cancel_time,
        });
        answered.is_some_and(|t| t > self.response_deadline)
    }

    /// Finished after the repair deadline, or still not finished past it.
    pub fn repair_overdue(&self, now: i64) -> bool {
        let done = self.finish_time.or(if self.status < machine::REPAIRED {
            Some(now)
        } else {
            self.cancel_time
        });
        done.is_some_and(|t| t > self.repair_deadline)
    }
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RepairLog {
    /// `create`, `assign`, `accept`, `transfer`, `start`, `finish`, `verify`, `evaluate`, `cancel`,
    /// and the approval's `approve` and `reject`.
    pub action: String,
    /// 0 for the creation row.
    pub from_status: i64,
    pub to_status: i64,
    /// `"0"` when the system acted (the alarm's condition ended).
    pub user_id: Id,
    pub user_name: String,
    pub note: String,
    pub create_time: Timestamp,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RepairOrder {
    pub id: Id,
    /// `WO` + yyyyMMdd + 4 digits.
    pub code: String,
    pub title: String,
    pub description: String,
    pub station_id: Id,
    pub station_name: String,
    pub device_id: Option<Id>,
    pub device_name: String,
    pub alarm_id: Option<Id>,
    pub alarm_name: String,
    pub alarm_level: Option<i64>,
    pub inspect_record_id: Option<Id>,
    /// `"1"` manual, `"2"` alarm, `"3"` inspection.
    pub source: String,
    pub source_name: String,
    /// 1 notice .. 4 critical (dictionary `alarm_level`).
    pub level: i64,
    pub level_name: String,
    /// 1 submitted .. 7 completed, 8 canceled (dictionary `repair_status`).
    pub status: i64,
    pub status_name: String,
    pub assignee_id: Option<Id>,
    pub assignee_name: String,
    pub creator_id: Id,
    pub creator_name: String,
    pub photos: Vec<String>,
    pub work_done: String,
    pub parts: String,
    pub finish_photos: Vec<String>,
    /// 1 .. 5 once evaluated.
    pub rating: Option<i64>,
    pub evaluation: String,
    pub response_deadline: Timestamp,
    pub repair_deadline: Timestamp,
    pub response_overdue: bool,
    pub repair_overdue: bool,
    pub create_time: Timestamp,
    pub accept_time: Option<Timestamp>,
    pub finish_time: Option<Timestamp>,
    pub complete_time: Option<Timestamp>,
    /// Approval by the tenant's `repair_approval` process: 0 not needed, 1 pending (not
    /// assignable yet), 2 approved, 3 rejected (returned with `approvalComment`).
    pub approval: i64,
    pub approval_instance: Option<Id>,
    pub approval_comment: String,
    /// What the caller may do now: `assign`, `accept`, `transfer`, `start`, `finish`, `verify`,
    /// `evaluate`, `cancel`.
    pub actions: Vec<String>,
    /// The timeline, oldest first (detail and actions only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub logs: Option<Vec<RepairLog>>,
}

pub fn links(json: &str) -> Vec<String> {
    serde_json::from_str(json).unwrap_or_default()
}

impl RepairOrder {
    pub fn of(r: Row, actions: Vec<String>, now: i64, lang: Lang) -> RepairOrder {
        RepairOrder {
            id: Id(r.id),
            response_overdue: r.response_overdue(now),
            repair_overdue: r.repair_overdue(now),
            code: r.code,
            title: r.title,
            description: r.description,
            station_id: Id(r.station_id),
            station_name: r.station_name,
            device_id: r.device_id.map(Id),
            device_name: r.device_name,
            alarm_id: r.alarm_id.map(Id),
            alarm_name: r.alarm_name,
            alarm_level: r.alarm_level,
            inspect_record_id: r.inspect_record_id.map(Id),
            source: r.source.to_string(),
            source_name: name_of(&SOURCE_NAMES, r.source, lang),
            level: r.level,
            level_name: name_of(&LEVEL_NAMES, r.level, lang),
            status: r.status,
            status_name: machine::status_name(r.status, lang),
            assignee_id: r.assignee_id.map(Id),
            assignee_name: r.assignee_name,
            creator_id: Id(r.creator_id),
            creator_name: r.creator_name,
            photos: links(&r.photos),
            work_done: r.work_done,
            parts: r.parts,
            finish_photos: links(&r.finish_photos),
            rating: r.rating,
            evaluation: r.evaluation,
            response_deadline: Timestamp(r.response_deadline),
            repair_deadline: Timestamp(r.repair_deadline),
            create_time: Timestamp(r.create_time),
            accept_time: r.accept_time.map(Timestamp),
            finish_time: r.finish_time.map(Timestamp),
            complete_time: r.complete_time.map(Timestamp),
            approval: r.approval,
            approval_instance: r.approval_instance.map(Id),
            approval_comment: r.approval_comment,
            actions,
            logs: None,
        }
    }
}
