//! The numbers alarms are stored and shown with (types, statuses, levels) and the permission
//! code of handling one.

/// Alarm `type`: a station fault (the bell opens the alarm data page).
pub const TYPE_FAULT: i64 = 1;
/// Alarm `type`: a smart warning from analytics (the bell opens the smart warning page).
pub const TYPE_WARNING: i64 = 2;

/// Alarm statuses.
pub const STATUS_ACTIVE: i64 = 0;
pub const STATUS_ACKNOWLEDGED: i64 = 1;
pub const STATUS_CLEARED: i64 = 2;

/// Alarm levels (dictionary `alarm_level`).
pub const LEVEL_NOTICE: i64 = 1;
pub const LEVEL_MINOR: i64 = 2;
pub const LEVEL_MAJOR: i64 = 3;
pub const LEVEL_CRITICAL: i64 = 4;

/// The button that acknowledges and clears alarms (and edits the tenant's alarm rules).
pub const HANDLE_BUTTON: &str = "alarmData_handle";
