//! Gateways over MQTT: a hub with the embedded broker and ingest running, and a gateway's
//! connection made the way the edge makes it.

use pv_cloud::config::Config;
use tokio::sync::oneshot;

use super::factory::Device;
use super::server::TestApp;

/// A hub with the MQTT broker and ingest running, gateways dialling `gateway_addr`.
pub struct IngestApp {
    pub app: TestApp,
    pub telemetry: pv_cloud::telemetry::Telemetry,
    pub gateway_addr: std::net::SocketAddr,
}

impl IngestApp {
    /// Broker on a free loopback port; counters flushed every second; rollups at once.
    pub async fn start(tweak: impl FnOnce(&mut Config)) -> IngestApp {
        let app = TestApp::start_configured(|c| {
            c.broker.listen = "127.0.0.1:0".parse().expect("addr");
            c.broker.public_url = "mqtt://127.0.0.1:1883".into();
            c.telemetry.state_flush_seconds = 1;
            c.telemetry.rollup_delay_seconds = 0;
            c.telemetry.rollup_interval_ms = 200;
            tweak(c);
        })
        .await;
        let telemetry = pv_cloud::server::start_data_path(&app.state)
            .await
            .expect("telemetry starts");
        let gateway_addr = telemetry.gateway_addr.expect("embedded broker");
        IngestApp {
            app,
            telemetry,
            gateway_addr,
        }
    }

    /// Provisions as an installer would through the API: a station with `gateway`, one
    /// inverter per SN, and the gateway's credentials. Returns (station id, password).
    pub async fn provision(&self, token: &str, gateway: &str, sns: &[&str]) -> (String, String) {
        let installer = self.app.as_user(token);
        let station = installer
            .station_with(serde_json::json!({"name": format!("Plant {gateway}"), "gatewayId": gateway}))
            .await;
        for (i, sn) in sns.iter().enumerate() {
            installer
                .device(
                    Device::Inverter,
                    serde_json::json!({"stationId": station, "name": format!("INV-{i}"),
                        "sn": sn, "stringsCount": 2, "mapModel": "sungrow-sg-cx", "unitId": i + 1}),
                )
                .await;
        }
        let password = installer.gateway_credentials(&station).await.ok().data()["password"]
            .as_str()
            .expect("password")
            .to_owned();
        (station, password)
    }

    /// Rows of `pv_telemetry_raw` of a device SN's registry row.
    pub async fn raw_count(&self) -> i64 {
        self.app
            .scalar_int("SELECT COUNT(*) FROM pv_telemetry_raw", vec![])
            .await
            .unwrap_or(0)
    }
}

/// A gateway's MQTT connection as the edge makes it (rumqttc, clean session, QoS 1).
pub struct GatewayClient {
    pub id: String,
    pub client: rumqttc::AsyncClient,
    pub acks: tokio::sync::mpsc::UnboundedReceiver<pv_shared::wire::Ack>,
    pub closed: std::sync::Arc<std::sync::atomic::AtomicBool>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for GatewayClient {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl GatewayClient {
    /// Connects with (client id, optional username/password, optional last will); Err with the
    /// reason when the broker refuses.
    pub async fn connect(
        addr: std::net::SocketAddr,
        client_id: &str,
        login: Option<(&str, &str)>,
        will: Option<Vec<u8>>,
    ) -> Result<GatewayClient, String> {
        use rumqttc::{Event, MqttOptions, Packet, QoS};
        let mut o = MqttOptions::new(client_id, addr.ip().to_string(), addr.port());
        o.set_keep_alive(std::time::Duration::from_secs(5))
            .set_clean_session(true)
            .set_max_packet_size(300 * 1024, 300 * 1024);
        if let Some((u, p)) = login {
            o.set_credentials(u, p);
        }
        if let Some(w) = will {
            let topic = pv_shared::topics::status(client_id).unwrap_or_default();
            o.set_last_will(rumqttc::LastWill::new(topic, w, QoS::AtLeastOnce, true));
        }
        let (client, mut eventloop) = rumqttc::AsyncClient::new(o, 1000);
        let (ack_tx, acks) = tokio::sync::mpsc::unbounded_channel();
        let (ready_tx, ready_rx) = oneshot::channel::<Result<(), String>>();
        let closed = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let sub = client.clone();
        let down = pv_shared::topics::downlink_filter(client_id).unwrap_or_default();
        let flag = closed.clone();
        let task = tokio::spawn(async move {
            let mut ready = Some(ready_tx);
            loop {
                match eventloop.poll().await {
                    Ok(Event::Incoming(Packet::ConnAck(_))) => {
                        let _ = sub.try_subscribe(down.clone(), QoS::AtLeastOnce);
                    }
                    Ok(Event::Incoming(Packet::SubAck(_))) => {
                        if let Some(r) = ready.take() {
                            let _ = r.send(Ok(()));
                        }
                    }
                    Ok(Event::Incoming(Packet::Publish(p))) => {
                        if let Ok(a) = pv_shared::wire::parse::<pv_shared::wire::Ack>(&p.payload) {
                            let _ = ack_tx.send(a);
                        }
                    }
                    Ok(_) => {}
                    Err(e) => {
                        flag.store(true, std::sync::atomic::Ordering::SeqCst);
                        if let Some(r) = ready.take() {
                            let _ = r.send(Err(e.to_string()));
                        }
                        return;
                    }
                }
            }
        });
        match tokio::time::timeout(std::time::Duration::from_secs(10), ready_rx).await {
            Ok(Ok(Ok(()))) => Ok(GatewayClient {
                id: client_id.to_owned(),
                client,
                acks,
                closed,
                task,
            }),
            Ok(Ok(Err(e))) => Err(e),
            _ => Err("no answer from the broker".into()),
        }
    }

    pub async fn publish(&self, topic: &str, payload: Vec<u8>) {
        self.client
            .publish(topic, rumqttc::QoS::AtLeastOnce, false, payload)
            .await
            .expect("publish queued");
    }

    /// Publishes a batch on its own telemetry topic if the connection is still up; false once it
    /// has gone (a hub that is stopping closes it at a moment of its choosing).
    pub async fn try_send(&self, batch: &pv_shared::wire::TelemetryBatch) -> bool {
        let bytes = pv_shared::wire::to_bytes(batch).expect("valid batch");
        let topic = pv_shared::topics::telemetry(&self.id).expect("topic");
        self.client
            .publish(topic, rumqttc::QoS::AtLeastOnce, false, bytes)
            .await
            .is_ok()
    }

    /// Publishes a batch on its own telemetry topic.
    pub async fn send(&self, batch: &pv_shared::wire::TelemetryBatch) {
        let bytes = pv_shared::wire::to_bytes(batch).expect("valid batch");
        self.publish(&pv_shared::topics::telemetry(&self.id).expect("topic"), bytes)
            .await;
    }

    /// The next ack within `limit`.
    pub async fn ack_within(&mut self, limit: std::time::Duration) -> Option<pv_shared::wire::Ack> {
        tokio::time::timeout(limit, self.acks.recv()).await.ok().flatten()
    }

    /// Ends the connection without DISCONNECT (a gateway losing power): the broker sends its will.
    pub fn kill(&self) {
        self.task.abort();
    }
}

/// A sample of `device` with the given metrics.
pub fn sample(seq: u64, device: &str, ts: i64, metrics: &[(&str, f64)]) -> pv_shared::wire::Sample {
    pv_shared::wire::Sample {
        seq,
        device: device.to_owned(),
        ts,
        values: metrics
            .iter()
            .map(|(k, v)| (k.to_string(), pv_shared::wire::Value::Number(*v)))
            .collect(),
        suspect: Default::default(),
    }
}
