//! What can be notified and to whom: the events, their defaults, and the plan for one event's
//! recipients (which of them get the bell, an SMS, an e-mail). A user's rows in
//! `pv_notify_subscription` replace the defaults of their events.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use sqlx::Row;
use utoipa::ToSchema;

use crate::alarm::codes::LEVEL_CRITICAL;
use crate::kernel::ApiError;
use crate::kernel::sql::{Sql, Value};

pub const ALARM_RAISED: &str = "alarm_raised";
pub const ALARM_CLEARED: &str = "alarm_cleared";
pub const SMART_WARNING: &str = "smart_warning";
pub const GATEWAY_OFFLINE: &str = "gateway_offline";
pub const REPAIR_ASSIGNED: &str = "repair_assigned";
pub const REPAIR_OVERDUE: &str = "repair_overdue";
pub const REPAIR_RETURNED: &str = "repair_returned";
pub const INSPECTION_DUE: &str = "inspection_due";

/// How one event reaches a user.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(as = NotifyChannels)]
#[serde(rename_all = "camelCase")]
pub struct Channels {
    pub bell: bool,
    pub sms: bool,
    pub email: bool,
    /// Alarms below this level (1 notice … 4 critical) go by neither SMS nor e-mail.
    pub min_level: i64,
}

/// Every event with its defaults, in the order the settings page lists them. The demo's
/// maintainers hear about faults from minor up by SMS and e-mail (minor ones in the digest),
/// about orders given to them at once, and about overdue orders always. Cleared alarms and
/// smart warnings have no bell message (the bell lists open alarms), so their `bell` is off.
pub const EVENTS: [(&str, Channels); 8] = [
    (
        ALARM_RAISED,
        Channels {
            bell: true,
            sms: true,
            email: true,
            min_level: 2,
        },
    ),
    (
        ALARM_CLEARED,
        Channels {
            bell: true,
            sms: false,
            email: false,
            min_level: 3,
        },
    ),
    (
        SMART_WARNING,
        Channels {
            bell: true,
            sms: false,
            email: true,
            min_level: 1,
        },
    ),
    (
        GATEWAY_OFFLINE,
        Channels {
            bell: true,
            sms: true,
            email: true,
            min_level: 1,
        },
    ),
    (
        REPAIR_ASSIGNED,
        Channels {
            bell: true,
            sms: true,
            email: true,
            min_level: 1,
        },
    ),
    (
        REPAIR_OVERDUE,
        Channels {
            bell: true,
            sms: true,
            email: true,
            min_level: 1,
        },
    ),
    (
        REPAIR_RETURNED,
        Channels {
            bell: true,
            sms: false,
            email: true,
            min_level: 1,
        },
    ),
    (
        INSPECTION_DUE,
        Channels {
            bell: true,
            sms: false,
            email: true,
            min_level: 1,
        },
    ),
];

pub fn defaults(event: &str) -> Option<Channels> {
    EVENTS.iter().find(|(e, _)| *e == event).map(|(_, c)| *c)
}

/// Something that happened, for some users of one tenant.
#[derive(Debug, Clone)]
pub struct Event<'a> {
    pub tenant_id: &'a str,
    /// One of the event names above.
    pub kind: &'static str,
    /// The alarm level (0 for events that are not alarms).
    pub level: i64,
    /// The alarm, order or task it is about.
    pub biz_id: Option<i64>,
    pub title: &'a str,
    pub title_en: &'a str,
    pub content: &'a str,
    pub content_en: &'a str,
}

impl Event<'_> {
    /// Never held by quiet hours or the digest: critical alarms, and overdue orders (the
    /// escalation).
    pub fn urgent(&self) -> bool {
        self.level >= LEVEL_CRITICAL || self.kind == REPAIR_OVERDUE
    }
}

/// The channels of `event` for each of `users`: their own subscription, else the defaults.
pub async fn plan(
    conn: &mut sqlx::AnyConnection,
    event: &Event<'_>,
    users: &[i64],
) -> Result<Vec<(i64, Channels)>, ApiError> {
    let Some(default) = defaults(event.kind) else {
        return Ok(vec![]);
    };
    if users.is_empty() {
        return Ok(vec![]);
    }
    let mut own: HashMap<i64, Channels> = HashMap::new();
    for chunk in users.chunks(500) {
        let mut sql =
            Sql::new("SELECT user_id, bell, sms, email, min_level FROM pv_notify_subscription WHERE ");
        sql.push_bind("event = ? AND user_id IN (", [Value::from(event.kind)]);
        for (i, u) in chunk.iter().enumerate() {
            sql.push_bind(if i == 0 { "?" } else { ", ?" }, [Value::Int(*u)]);
        }
        sql.push(")");
        let rows = sql.rows(&mut *conn).await?;
        for r in rows {
            own.insert(
                r.try_get("user_id")?,
                Channels {
                    bell: r.try_get::<i64, _>("bell")? != 0,
                    sms: r.try_get::<i64, _>("sms")? != 0,
                    email: r.try_get::<i64, _>("email")? != 0,
                    min_level: r.try_get("min_level")?,
                },
            );
        }
    }
    Ok(users
        .iter()
        .map(|u| (*u, own.get(u).copied().unwrap_or(default)))
        .collect())
}
