//! Communication loss, as the engine raises it: a device that sent nothing for the tenant's
//! `deviceSilenceSeconds` (server clock at receipt), or that its gateway's status reports
//! offline, gets `comm:device`; a gateway offline (silence, last will, shutdown) for the same
//! silence gets `comm:gateway` on device 0 (debounced in `outage`), and its devices get no alarm
//! of their own while it is down (one outage, one alarm). They clear when the device has sent
//! again / the gateway has been back for `clearHoldSeconds`.

use super::store::{self, Raise};

/// Kinds of communication alarms.
pub const COMM_DEVICE: &str = "comm:device";
pub const COMM_GATEWAY: &str = "comm:gateway";

/// The `comm:gateway` alarm of a station whose gateway `gateway_id` went offline at `at`.
pub fn gateway_lost(tenant_id: &str, station_id: i64, gateway_id: &str, at: i64) -> Raise {
    Raise {
        tenant_id: tenant_id.to_owned(),
        station_id,
        device_id: 0,
        device_kind: "gateway".into(),
        device_name: gateway_id.to_owned(),
        kind: COMM_GATEWAY.into(),
        category: "comm".into(),
        r#type: store::TYPE_FAULT,
        level: store::LEVEL_MAJOR,
        code: COMM_GATEWAY.into(),
        name: "网关通讯中断".into(),
        name_en: "Gateway communication lost".into(),
        detail: format!("网关 {gateway_id} 离线"),
        detail_en: format!("Gateway {gateway_id} is offline"),
        value: None,
        threshold: None,
        at,
    }
}

/// The `comm:device` alarm of a device (`device_kind`, named `name`) silent for `silence_ms`.
pub fn device_lost(
    tenant_id: &str,
    station_id: i64,
    device_id: i64,
    device_kind: &str,
    name: &str,
    silence_ms: i64,
    at: i64,
) -> Raise {
    let seconds = silence_ms / 1000;
    Raise {
        tenant_id: tenant_id.to_owned(),
        station_id,
        device_id,
        device_kind: device_kind.to_owned(),
        device_name: name.to_owned(),
        kind: COMM_DEVICE.into(),
        category: "comm".into(),
        r#type: store::TYPE_FAULT,
        level: store::LEVEL_MAJOR,
        code: COMM_DEVICE.into(),
        name: "设备通讯中断".into(),
        name_en: "Device communication lost".into(),
        detail: format!("{name} 已 {seconds} 秒无数据"),
        detail_en: format!("{name} sent nothing for {seconds} s"),
        value: Some(seconds as f64),
        threshold: None,
        at,
    }
}
