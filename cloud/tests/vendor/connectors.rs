//! Each connector against its mock cloud: what it reads, in which units, and how it answers the
//! vendor's refusals.

use std::time::Duration;

use pv_cloud::vendor::{AlarmLevel, DeviceKind, Platform, VendorError};
use pv_mock_vendors::plant::{self, SLOT_MS};

use super::*;

/// Live and history samples of every inverter match the mock plant in canonical units (W, Wh,
/// V, A, Hz), at the vendor's 5-minute slots, with lifetime counters that grow by the energy of
/// the power.
async fn reads_in_canonical_units(platform: Platform, fixed_clock: bool) {
    let mock = roomy_mock(fixed_clock.then_some(NOON_MS)).await;
    let mut api = session(&mock, platform, roomy_budget());
    let (plant_id, inverters) = first_plant(api.as_mut()).await;
    assert_eq!(
        inverters.len(),
        2,
        "{platform:?}: the mock plant has two inverters"
    );
    assert!(
        inverters
            .iter()
            .all(|d| !d.serial.is_empty() && d.plant_id == plant_id)
    );

    let live = api.realtime(&plant_id, &inverters).await.expect("realtime");
    assert_eq!(live.len(), 2, "{platform:?}: one live sample per inverter");
    let now = mock.now_ms();
    for (i, d) in inverters.iter().enumerate() {
        let s = live
            .iter()
            .find(|s| s.device_id == d.device_id)
            .expect("a sample of each inverter");
        assert_eq!(
            s.ts_ms % SLOT_MS,
            0,
            "{platform:?}: samples sit on 5-minute slots"
        );
        assert!(
            s.ts_ms <= now && now - s.ts_ms < 2 * SLOT_MS,
            "{platform:?}: the newest slot"
        );
        if fixed_clock {
            assert_eq!(s.ts_ms, plant::slot(NOON_MS));
        }
        let want = plant::sample(plant::rated_w(0, i), s.ts_ms);
        assert_eq!(
            s.values["energy_total"], want.energy_total_wh,
            "{platform:?}: lifetime energy in Wh"
        );
        if fixed_clock {
            assert!(want.power_w > 0.0, "noon produces");
        }
        assert_eq!(s.values["ac_power"], want.power_w, "{platform:?}: power in W");
        assert_eq!(
            s.values["grid_voltage_a"], want.grid_voltage,
            "{platform:?}: volts"
        );
        assert_eq!(s.values["ac_current_a"], want.ac_current, "{platform:?}: amps");
        assert_eq!(s.values["grid_frequency"], 50.0);
        if platform != Platform::SolarEdge {
            // SolarEdge's inverter data has no day counter.
            assert_eq!(
                s.values["energy_today"], want.energy_today_wh,
                "{platform:?}: day energy in Wh"
            );
        }
        for name in s.values.keys() {
            assert!(
                pv_shared::metrics::lookup(name).is_some(),
                "{platform:?}: {name} is not canonical"
            );
        }
    }

    // Two hours of history ending at the newest slot: 24 samples, counters consistent with power.
    let to = plant::slot(now);
    let from = to - 2 * 3_600_000;
    let history = api
        .history(&plant_id, &inverters[1], from, to)
        .await
        .expect("history");
    assert_eq!(
        history.len(),
        24,
        "{platform:?}: every 5-minute slot of the window"
    );
    for (k, s) in history.iter().enumerate() {
        assert_eq!(s.ts_ms, from + k as i64 * SLOT_MS);
        assert_eq!(s.device_id, inverters[1].device_id);
        let want = plant::sample(plant::rated_w(0, 1), s.ts_ms);
        assert_eq!(
            s.values["energy_total"], want.energy_total_wh,
            "{platform:?} at {}",
            s.ts_ms
        );
        assert_eq!(s.values["ac_power"], want.power_w);
    }
    for pair in history.windows(2) {
        let grown = pair[1].values["energy_total"] - pair[0].values["energy_total"];
        assert!(
            (grown - pair[0].values["ac_power"] / 12.0).abs() < 1e-6,
            "{platform:?}: energy follows power"
        );
    }
}

#[tokio::test]
async fn fusionsolar_reads_plants_devices_live_and_history() {
    reads_in_canonical_units(Platform::FusionSolar, true).await;
}

#[tokio::test]
async fn isolarcloud_reads_plants_devices_live_and_history() {
    reads_in_canonical_units(Platform::ISolarCloud, true).await;
}

#[tokio::test]
async fn growatt_reads_plants_devices_live_and_history() {
    reads_in_canonical_units(Platform::Growatt, true).await;
}

/// SolarEdge's equipment call asks a time range, so its mock follows the wall clock.
#[tokio::test]
async fn solaredge_reads_plants_devices_live_and_history() {
    reads_in_canonical_units(Platform::SolarEdge, false).await;
}

#[tokio::test]
async fn plants_and_devices_carry_the_vendors_descriptions() {
    let mock = roomy_mock(Some(NOON_MS)).await;
    for platform in Platform::ALL {
        let mut api = session(&mock, platform, roomy_budget());
        let plants = api.plants().await.expect("plants");
        assert_eq!(plants.len(), 1);
        let kwp = plants[0].capacity_kwp.expect("capacity");
        assert!(
            (kwp - 54.0).abs() < 0.05,
            "{platform:?}: capacity in kWp, got {kwp}"
        );
        assert!(!plants[0].name.is_empty());
        let devices = api.devices(&plants[0].plant_id).await.expect("devices");
        assert!(devices.iter().any(|d| d.model.is_some()), "{platform:?}: models");
    }
    // FusionSolar also lists the plant's environmental monitor, read as a weather device.
    let mut api = session(&mock, Platform::FusionSolar, roomy_budget());
    let plant = api.plants().await.expect("plants").remove(0).plant_id;
    let devices = api.devices(&plant).await.expect("devices");
    let emi: Vec<_> = devices
        .into_iter()
        .filter(|d| d.kind == DeviceKind::Weather)
        .collect();
    assert_eq!(emi.len(), 1);
    let live = api.realtime(&plant, &emi).await.expect("weather realtime");
    assert_eq!(
        live[0].values["irradiance_poa"],
        plant::irradiance(plant::slot(NOON_MS))
    );
    assert!(live[0].values.contains_key("ambient_temperature"));
}

#[tokio::test]
async fn sessions_sign_in_again_after_the_token_expires() {
    let mock = roomy_mock(Some(NOON_MS)).await;
    for platform in [Platform::FusionSolar, Platform::ISolarCloud] {
        let v = vendor(platform);
        let mut api = session(&mock, platform, roomy_budget());
        let (plant, inverters) = first_plant(api.as_mut()).await;
        let before = mock.requests(v);
        api.realtime(&plant, &inverters)
            .await
            .expect("realtime on the first token");
        assert_eq!(
            mock.requests(v),
            before + 1,
            "{platform:?}: a live token costs one request"
        );
        mock.expire_tokens();
        let live = api
            .realtime(&plant, &inverters)
            .await
            .expect("realtime after the token expired");
        assert_eq!(live.len(), 2);
        // The refused call, the sign-in, the call again.
        assert_eq!(mock.requests(v), before + 4, "{platform:?}: one fresh sign-in");
    }
}

#[tokio::test]
async fn throttling_answers_become_throttled_and_pause_the_budget() {
    let mock = roomy_mock(Some(NOON_MS)).await;
    for platform in Platform::ALL {
        let v = vendor(platform);
        let budget = roomy_budget();
        let mut api = session(&mock, platform, budget.clone());
        let (plant, inverters) = first_plant(api.as_mut()).await;
        mock.throttle(v, true);
        let err = api.realtime(&plant, &inverters).await.expect_err("throttled");
        let VendorError::Throttled { retry_after, .. } = err else {
            panic!("{platform:?}: {err:?}")
        };
        let paused = budget.paused_until().expect("the budget pauses");
        let pause = paused - budget.now_ms();
        match retry_after {
            // iSolarCloud's 429 names its Retry-After.
            Some(d) => assert!(
                (pause - d.as_millis() as i64).abs() < 1_000,
                "{platform:?}: {pause} ms"
            ),
            // The first back-off without one is a minute.
            None => assert!((59_000..=60_000).contains(&pause), "{platform:?}: {pause} ms"),
        }
        assert!(mock.refused(v) >= 1);
        mock.throttle(v, false);
    }
}

#[tokio::test]
async fn wrong_credentials_are_auth_errors() {
    let mock = roomy_mock(Some(NOON_MS)).await;
    for platform in Platform::ALL {
        let mut c = credentials(&mock, platform);
        c.secret.push('x');
        let mut api = pv_cloud::vendor::connect(platform, c, roomy_budget(), http());
        let err = api.plants().await.expect_err("refused");
        assert!(matches!(err, VendorError::Auth(_)), "{platform:?}: {err:?}");
    }
    // iSolarCloud also refuses a wrong app access key.
    let mut c = credentials(&mock, Platform::ISolarCloud);
    c.access_key = Some("not-the-key".into());
    let mut api = pv_cloud::vendor::connect(Platform::ISolarCloud, c, roomy_budget(), http());
    assert!(matches!(api.plants().await, Err(VendorError::Auth(_))));
}

#[tokio::test]
async fn an_outage_is_unavailable_and_passes() {
    // The wall clock: SolarEdge's live read asks for the last hour.
    let mock = roomy_mock(None).await;
    for platform in Platform::ALL {
        let mut api = session(&mock, platform, roomy_budget());
        let (plant, inverters) = first_plant(api.as_mut()).await;
        mock.set_outage(true);
        let err = api.realtime(&plant, &inverters).await.expect_err("down");
        assert!(
            matches!(err, VendorError::Unavailable(_)),
            "{platform:?}: {err:?}"
        );
        mock.set_outage(false);
        assert_eq!(
            api.realtime(&plant, &inverters).await.expect("back").len(),
            2,
            "{platform:?}"
        );
    }
    // Nobody listening at all is unavailable too.
    let addr = mock.addr();
    drop(mock);
    tokio::time::sleep(Duration::from_millis(50)).await;
    let c = pv_cloud::vendor::Credentials {
        base_url: format!("http://{addr}"),
        account: "a".into(),
        secret: "b".into(),
        app_key: None,
        access_key: None,
    };
    let mut api = pv_cloud::vendor::connect(Platform::Growatt, c, roomy_budget(), http());
    assert!(matches!(api.plants().await, Err(VendorError::Unavailable(_))));
}

#[tokio::test]
async fn fusionsolar_alarms_raise_and_clear() {
    let mock = roomy_mock(Some(NOON_MS)).await;
    let mut api = session(&mock, Platform::FusionSolar, roomy_budget());
    let (plant, inverters) = first_plant(api.as_mut()).await;
    assert!(api.alarms(&plant).await.expect("alarms").is_empty());
    mock.raise_alarm(Vendor::FusionSolar, 0, 1, "2064", 2, "String reverse connection");
    let alarms = api.alarms(&plant).await.expect("alarms");
    assert_eq!(alarms.len(), 1);
    let a = &alarms[0];
    assert_eq!(a.code, "2064");
    assert_eq!(a.level, AlarmLevel::Major);
    assert!(a.active);
    assert_eq!(a.raised_ms, NOON_MS);
    assert_eq!(
        a.device_id.as_deref(),
        Some(inverters[1].device_id.as_str()),
        "the alarm names its inverter"
    );
    assert!(a.message.contains("String reverse connection"));
    mock.clear_alarm(Vendor::FusionSolar, "2064");
    assert!(api.alarms(&plant).await.expect("alarms").is_empty());
}
