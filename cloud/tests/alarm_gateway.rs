//! Gateway communication alarms over real parts: a gateway that drops from the embedded broker
//! (its last will) raises one gateway alarm per outage, a flapping one only after the silence,
//! each cleared after the hold. The site and its gateway are the alarm tests' own.

use crate::alarm::{Gw, Site, T, site, will};
use crate::support;

use std::time::{Duration, Instant};

use pv_shared::wire::TelemetryBatch;
use serde_json::json;
use support::{GatewayClient, Reply, eventually, now_ms, sample};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gateway_that_drops_raises_one_gateway_alarm_until_it_is_back() {
    let (s, mut g) = site().await;
    let Reply { status, body, .. } = s
        .put_rule(json!({"deviceSilenceSeconds": 1, "clearHoldSeconds": 1}))
        .await;
    assert_eq!(status, 200, "{body}");
    g.publish("S1", &[(now_ms() - 1_000, vec![("ac_power", 1000.0)])])
        .await;
    g.publish("S2", &[(now_ms() - 1_000, vec![("ac_power", 1000.0)])])
        .await;
    // Power lost: the broker publishes the gateway's last will.
    g.gw.kill();
    let site = &s;
    let open = |kind: &'static str| async move {
        site.count(
            "SELECT COUNT(*) FROM pv_alarm WHERE kind = ? AND status = 0",
            vec![kind.into()],
        )
        .await
    };
    assert!(
        eventually(T, || async { open("comm:gateway").await == 1 }).await,
        "raised once offline for the silence"
    );
    let r = &s.alarms("").await[0];
    assert_eq!(
        (
            r["deviceKind"].as_str(),
            r["deviceId"].as_str(),
            r["deviceName"].as_str()
        ),
        (Some("gateway"), Some("0"), Some("GW-1")),
        "{r}"
    );
    // Its devices get no alarm of their own.
    assert_eq!(open("comm:device").await, 0);
    // Back: cleared by the system.
    let gw = GatewayClient::connect(s.app.gateway_addr, "GW-1", Some(("GW-1", &s.password)), None)
        .await
        .expect("back");
    let mut g = Gw { gw, seq: 200 };
    g.publish("S1", &[(now_ms(), vec![("ac_power", 1000.0)])]).await;
    assert!(eventually(T, || async { open("comm:gateway").await == 0 }).await);
    assert_eq!(
        s.count(
            "SELECT COUNT(*) FROM pv_alarm WHERE kind = 'comm:gateway' AND status = 2 AND clear_user = 0",
            vec![]
        )
        .await,
        1
    );
}

impl Gw {
    /// Publishes one sample of each of `S1` and `S2` in one batch and waits for the ack.
    async fn publish_both(&mut self) {
        let now = now_ms();
        let batch = ["S1", "S2"]
            .iter()
            .map(|d| {
                self.seq += 1;
                sample(self.seq, d, now, &[("ac_power", 1000.0)])
            })
            .collect();
        self.gw.send(&TelemetryBatch::new("GW-1", false, batch)).await;
        self.gw.ack_within(T).await.expect("stored and acknowledged");
    }
}

impl Site {
    /// `GW-1` connected again over a new MQTT connection (with its last will) and heard from.
    async fn reconnect(&self, seq: u64) -> Gw {
        let gw = GatewayClient::connect(
            self.app.gateway_addr,
            "GW-1",
            Some(("GW-1", &self.password)),
            Some(will()),
        )
        .await
        .expect("gateway signs in again");
        let mut g = Gw { gw, seq };
        g.publish_both().await;
        g
    }

    /// (comm:gateway alarms ever raised, open ones, messages about them).
    async fn gateway_alarms(&self) -> (i64, i64, i64) {
        (
            self.count(
                "SELECT COUNT(*) FROM pv_alarm WHERE kind = 'comm:gateway'",
                vec![],
            )
            .await,
            self.count(
                "SELECT COUNT(*) FROM pv_alarm WHERE kind = 'comm:gateway' AND status < 2",
                vec![],
            )
            .await,
            self.count(
                "SELECT COUNT(*) FROM pv_message m JOIN pv_alarm a ON a.id = m.alarm_id \
                 WHERE a.kind = 'comm:gateway'",
                vec![],
            )
            .await,
        )
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flapping_gateway_is_one_outage_raised_after_the_silence_and_cleared_after_the_hold() {
    let (s, mut g) = site().await;
    let Reply { status, body, .. } = s
        .put_rule(json!({"deviceSilenceSeconds": 3, "clearHoldSeconds": 2}))
        .await;
    assert_eq!(status, 200, "{body}");
    g.publish_both().await;
    // Its MQTT connection drops 12 times within a few seconds (power flickers, the broker sends
    // its will each time), each time back well within the silence.
    let mut seq = 100;
    for _ in 0..12 {
        g.gw.kill();
        tokio::time::sleep(Duration::from_millis(300)).await;
        seq += 100;
        g = s.reconnect(seq).await;
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Connected for longer than the silence: no outage was ever long enough to be one.
    for _ in 0..6 {
        tokio::time::sleep(Duration::from_millis(600)).await;
        g.publish_both().await;
    }
    assert_eq!(s.gateway_alarms().await, (0, 0, 0), "no alarm for reconnects");
    assert_eq!(
        s.count("SELECT COUNT(*) FROM pv_message", vec![]).await,
        0,
        "no message"
    );

    // A real outage: raised after the silence (3 s), not before; one alarm, one message.
    g.gw.kill();
    let lost = Instant::now();
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    assert_eq!(s.gateway_alarms().await.0, 0, "raised before the silence ran out");
    assert!(
        eventually(T, || async { s.gateway_alarms().await.1 == 1 }).await,
        "raised once offline for the silence"
    );
    assert!(
        lost.elapsed() >= Duration::from_millis(2_500),
        "{:?}",
        lost.elapsed()
    );
    assert!(eventually(T, || async { s.gateway_alarms().await == (1, 1, 1) }).await);
    // Back, and gone again within the clear hold: the same outage (re-triggered, no message).
    seq += 100;
    g = s.reconnect(seq).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    g.gw.kill();
    tokio::time::sleep(Duration::from_millis(1_000)).await;
    assert_eq!(s.gateway_alarms().await, (1, 1, 1), "one outage");
    // Back for good: still open before the hold (2 s), cleared by the system after it.
    seq += 100;
    g = s.reconnect(seq).await;
    let back = Instant::now();
    tokio::time::sleep(Duration::from_millis(1_000)).await;
    assert_eq!(s.gateway_alarms().await.1, 1, "cleared before the hold ran out");
    let cleared = async {
        loop {
            g.publish_both().await;
            if s.gateway_alarms().await.1 == 0 {
                return back.elapsed();
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    };
    let after = tokio::time::timeout(T, cleared)
        .await
        .expect("cleared after the hold");
    assert!(after >= Duration::from_millis(2_000), "{after:?}");
    assert_eq!(s.gateway_alarms().await, (1, 0, 1));
    let (occurrences, clear_user): (i64, i64) = (
        s.count(
            "SELECT occurrences FROM pv_alarm WHERE kind = 'comm:gateway'",
            vec![],
        )
        .await,
        s.count(
            "SELECT clear_user FROM pv_alarm WHERE kind = 'comm:gateway'",
            vec![],
        )
        .await,
    );
    assert_eq!(
        (occurrences, clear_user),
        (2, 0),
        "re-triggered once, cleared by the system"
    );
    // Its devices never had an alarm of their own.
    assert_eq!(
        s.count("SELECT COUNT(*) FROM pv_alarm WHERE kind = 'comm:device'", vec![])
            .await,
        0
    );
}
