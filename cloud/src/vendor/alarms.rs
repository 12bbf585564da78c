//! Alarms of vendor-fed stations.
//!
//! - Communication loss to the vendor's cloud (`comm:vendor`, on device 0 of each station the
//!   account feeds): debounced as a gateway outage is (`alarm::outage`, keyed by account):
//!   raised once the account's calls have failed without a break for the tenant's
//!   `deviceSilenceSeconds`, once per episode, and cleared by the next successful poll.
//! - The vendor's own alarms (`VendorApi::alarms`) become this product's alarms on the device
//!   they name (`vendor:<code>`; device 0 when they name none): raised once while the vendor
//!   reports them, cleared when the vendor reports them cleared or stops reporting them.

use std::collections::{HashMap, HashSet};

use super::account::Account;
use super::connector::{AlarmLevel, VendorAlarm};
use super::context::VendorCtx;
use super::plant::MappedPlant;
use crate::alarm::store::{self, Raise};
use crate::kernel::ApiError;

pub const COMM_VENDOR: &str = "comm:vendor";
const VENDOR_PREFIX: &str = "vendor:";

/// The `comm:vendor` alarm of a station fed by `account`, unreachable since `since`.
pub fn vendor_lost(account: &Account, station_id: i64, since: i64, error: &str) -> Raise {
    let label = account.label();
    let error: String = error.chars().take(300).collect();
    Raise {
        tenant_id: account.tenant_id.clone(),
        station_id,
        device_id: 0,
        device_kind: "gateway".into(),
        device_name: label.clone(),
        kind: COMM_VENDOR.into(),
        category: "comm".into(),
        r#type: store::TYPE_FAULT,
        level: store::LEVEL_MAJOR,
        code: COMM_VENDOR.into(),
        name: "厂商云通讯中断".into(),
        name_en: "Vendor cloud communication lost".into(),
        detail: format!("厂商云账号 {label} 无法访问：{error}"),
        detail_en: format!("Vendor cloud account {label} is unreachable: {error}"),
        value: None,
        threshold: None,
        at: since,
    }
}

/// Raises `comm:vendor` on each station of the account.
pub async fn raise_lost(
    state: &VendorCtx,
    account: &Account,
    stations: &[i64],
    since: i64,
    error: &str,
) -> Result<(), ApiError> {
    for s in stations {
        store::raise(&state.station.alarm, &vendor_lost(account, *s, since, error)).await?;
    }
    Ok(())
}

/// Clears `comm:vendor` on each station of the account.
pub async fn clear_lost(
    state: &VendorCtx,
    account: &Account,
    stations: &[i64],
    at: i64,
) -> Result<(), ApiError> {
    for s in stations {
        store::clear_auto(&state.station.alarm, &account.tenant_id, *s, 0, COMM_VENDOR, at).await?;
    }
    Ok(())
}

fn level_of(l: AlarmLevel) -> i64 {
    match l {
        AlarmLevel::Critical => store::LEVEL_CRITICAL,
        AlarmLevel::Major => store::LEVEL_MAJOR,
        AlarmLevel::Minor => store::LEVEL_MINOR,
        AlarmLevel::Warning => store::LEVEL_NOTICE,
    }
}

/// Brings the plant's `vendor:*` alarms in line with what the vendor reports now.
pub async fn sync(
    state: &VendorCtx,
    account: &Account,
    plant: &MappedPlant,
    reported: &[VendorAlarm],
    now: i64,
) -> Result<(), ApiError> {
    // Our device (id, kind, name) by the vendor's device id; 0 is the station.
    let by_vendor: HashMap<&str, (i64, &'static str, &str)> = plant
        .vendor
        .iter()
        .zip(&plant.ours)
        .map(|(d, (id, kind))| (d.device_id.as_str(), (*id, *kind, d.name.as_str())))
        .collect();
    let mut active: HashSet<(i64, String)> = HashSet::new();
    for a in reported {
        let (device_id, kind, name) = match &a.device_id {
            Some(v) => match by_vendor.get(v.as_str()) {
                Some(d) => *d,
                // A device of the plant that is not mapped: nothing of ours to put it on.
                None => continue,
            },
            None => (0, "station", ""),
        };
        let alarm_kind = format!("{VENDOR_PREFIX}{}", a.code.chars().take(80).collect::<String>());
        let open = store::open_kinds(&state.db, plant.station_id, device_id).await?;
        let is_open = open.contains(&alarm_kind);
        if !a.active {
            if is_open {
                store::clear_auto(
                    &state.station.alarm,
                    &account.tenant_id,
                    plant.station_id,
                    device_id,
                    &alarm_kind,
                    now,
                )
                .await?;
            }
            continue;
        }
        active.insert((device_id, alarm_kind.clone()));
        if is_open {
            continue;
        }
        let message: String = a.message.chars().take(500).collect();
        store::raise(
            &state.station.alarm,
            &Raise {
                tenant_id: account.tenant_id.clone(),
                station_id: plant.station_id,
                device_id,
                device_kind: kind.into(),
                device_name: name.into(),
                kind: alarm_kind,
                category: "fault".into(),
                r#type: store::TYPE_FAULT,
                level: level_of(a.level),
                code: a.code.chars().take(32).collect(),
                name: format!("厂商告警 {}", a.code),
                name_en: format!("Vendor alarm {}", a.code),
                detail: message.clone(),
                detail_en: message,
                value: None,
                threshold: None,
                at: if a.raised_ms > 0 { a.raised_ms } else { now },
            },
        )
        .await?;
    }
    // Open vendor alarms the vendor no longer reports have ended.
    let devices = std::iter::once(0).chain(plant.ours.iter().map(|(id, _)| *id));
    for device_id in devices {
        for k in store::open_kinds(&state.db, plant.station_id, device_id).await? {
            if k.starts_with(VENDOR_PREFIX) && !active.contains(&(device_id, k.clone())) {
                store::clear_auto(
                    &state.station.alarm,
                    &account.tenant_id,
                    plant.station_id,
                    device_id,
                    &k,
                    now,
                )
                .await?;
            }
        }
    }
    Ok(())
}
