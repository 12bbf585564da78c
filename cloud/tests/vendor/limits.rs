//! The budget holds each vendor's limit, counted where the vendor counts it: at the mock. The
//! mocks here enforce the vendor's per-minute rule over a shortened window, and the budget runs
//! the same figure over the same window, so the test takes seconds, not minutes.

use std::time::{Duration, Instant};

use pv_cloud::vendor::{Budget, Platform, VendorError};
use pv_mock_vendors::MockConfig;

use super::*;

const WINDOW: Duration = Duration::from_secs(1);

async fn strict_mock(v: Vendor, limit: u32) -> MockHandle {
    let mut cfg = MockConfig {
        now_ms: Some(NOON_MS),
        rate_window: WINDOW,
        ..MockConfig::default()
    };
    cfg.rate_limits.insert(v, limit);
    pv_mock_vendors::start(cfg).await.expect("mock vendors start")
}

/// 8 live reads within the vendor's limit of 4 per window: paced, never refused.
async fn stays_under(platform: Platform) {
    let v = vendor(platform);
    let mock = strict_mock(v, 4).await;
    let budget = Arc::new(Budget::with_period(4, WINDOW, None));
    let mut api = session(&mock, platform, budget.clone());
    let (plant, inverters) = first_plant(api.as_mut()).await;
    let one = &inverters[..1];
    let start = Instant::now();
    for _ in 0..8 {
        api.realtime(&plant, one).await.expect("never throttled");
    }
    assert_eq!(mock.refused(v), 0, "{platform:?}: the vendor never had to refuse");
    assert!(
        mock.busiest_window(v) <= 4,
        "{platform:?}: {} in one window",
        mock.busiest_window(v)
    );
    let total = mock.requests(v) as u32;
    assert_eq!(
        total,
        budget.used_today(),
        "{platform:?}: every request went through the budget"
    );
    // More than 8 requests at 4 per window take at least two windows.
    assert!(total > 8);
    assert!(
        start.elapsed() >= WINDOW * 2,
        "{platform:?}: paced, took {:?}",
        start.elapsed()
    );
}

#[tokio::test]
async fn fusionsolar_stays_under_its_limit() {
    stays_under(Platform::FusionSolar).await;
}

#[tokio::test]
async fn growatt_stays_under_its_limit() {
    stays_under(Platform::Growatt).await;
}

/// Without the budget's pacing the same reads are refused with the vendor's own answer (the
/// check above can fail).
#[tokio::test]
async fn an_unpaced_account_is_refused() {
    for platform in [Platform::FusionSolar, Platform::Growatt, Platform::ISolarCloud] {
        let v = vendor(platform);
        let mock = strict_mock(v, 4).await;
        let budget = Arc::new(Budget::with_period(100, WINDOW, None));
        let mut api = session(&mock, platform, budget.clone());
        let (plant, inverters) = first_plant(api.as_mut()).await;
        let mut refused = None;
        for _ in 0..8 {
            if let Err(e) = api.realtime(&plant, &inverters[..1]).await {
                refused = Some(e);
                break;
            }
        }
        assert!(
            matches!(refused, Some(VendorError::Throttled { .. })),
            "{platform:?}: {refused:?}"
        );
        assert!(mock.refused(v) >= 1);
        assert!(
            budget.paused_until().is_some(),
            "{platform:?}: the refusal paused the account"
        );
    }
}

/// SolarEdge counts per day (300 per key and per site): the budget stops at the day's figure and
/// waits for the next day instead of spending requests the vendor would refuse.
#[tokio::test]
async fn solaredge_daily_quota_is_held_by_the_budget() {
    let day = 6;
    let cfg = MockConfig {
        solaredge_per_day: day,
        ..MockConfig::default()
    };
    let mock = pv_mock_vendors::start(cfg).await.expect("mock");
    let budget = Arc::new(Budget::with_period(100, Duration::from_secs(1), Some(day)));
    let mut api = session(&mock, Platform::SolarEdge, budget.clone());
    let (plant, inverters) = first_plant(api.as_mut()).await;
    let mut reads = 0;
    // A read the budget holds back for the next day does not finish within the timeout.
    while let Ok(r) =
        tokio::time::timeout(Duration::from_millis(300), api.realtime(&plant, &inverters[..1])).await
    {
        r.expect("within the day's quota");
        reads += 1;
    }
    assert_eq!(
        mock.requests(Vendor::SolarEdge),
        u64::from(day),
        "the day's quota, not one more"
    );
    assert_eq!(mock.refused(Vendor::SolarEdge), 0);
    assert_eq!(budget.used_today(), day);
    assert_eq!(
        reads,
        day - 2,
        "sites/list and inventory took two of the day's requests"
    );

    // Without the daily cap the vendor answers 429, read as Throttled.
    let mock = pv_mock_vendors::start(MockConfig {
        solaredge_per_day: 2,
        ..MockConfig::default()
    })
    .await
    .expect("mock");
    let mut api = session(&mock, Platform::SolarEdge, roomy_budget());
    let (plant, inverters) = first_plant(api.as_mut()).await;
    let err = api
        .realtime(&plant, &inverters[..1])
        .await
        .expect_err("over the day");
    assert!(matches!(err, VendorError::Throttled { .. }), "{err:?}");
}

#[tokio::test]
async fn documented_limits_are_the_ones_the_mock_enforces() {
    for platform in Platform::ALL {
        let l = platform.limits();
        let v = vendor(platform);
        assert!(l.requests_per_minute <= v.documented_per_minute(), "{platform:?}");
        assert!(
            l.history_window >= Duration::from_secs(3 * 3600),
            "{platform:?}: a window holds an hour of history"
        );
        assert_eq!(Platform::from_code(platform.as_str()), Some(platform));
    }
    assert_eq!(Platform::SolarEdge.limits().requests_per_day, Some(300));
    assert_eq!(MockConfig::default().solaredge_per_day, 300);
}
