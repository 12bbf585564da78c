//! TLS on the hub's listeners, with certificates made at test time (never committed):
//! - the gateway listener of the embedded broker with `broker.tls`: a real `pv-edge run` agent,
//!   configured with the generated gateway config and the hub's CA, gets its simulated samples
//!   stored and acknowledged; a plain-MQTT client and an agent trusting another CA are refused;
//! - the `pv-cloud` binary with `https`: `/api/health` and the console's `/` answer over TLS
//!   with the configured certificate; wrong certificate or key files stop the start with the
//!   setting and the file named.

use crate::support;

use support::process::{Proc, free_port, repo_root};

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use pv_cloud::config::TlsFiles;
use serde_json::json;
use support::mqtt::{GatewayClient, IngestApp};
use support::{Device, eventually};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_rustls::rustls;

/// A test CA, the hub's certificate signed by it (for 127.0.0.1 and localhost), and a second,
/// unrelated CA; all written as PEM files into `dir`.
struct Pki {
    ca: PathBuf,
    other_ca: PathBuf,
    cert: PathBuf,
    key: PathBuf,
}

impl Pki {
    fn new(dir: &Path) -> Pki {
        use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair};
        let ca = |name: &str| {
            let mut p = CertificateParams::new(Vec::<String>::new()).expect("ca params");
            p.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
            p.distinguished_name.push(DnType::CommonName, name);
            CertifiedIssuer::self_signed(p, KeyPair::generate().expect("ca key")).expect("ca")
        };
        let (hub_ca, other) = (ca("PV test CA"), ca("Someone else's CA"));
        let mut leaf = CertificateParams::new(vec!["127.0.0.1".to_owned(), "localhost".to_owned()])
            .expect("leaf params");
        leaf.distinguished_name.push(DnType::CommonName, "pv hub");
        let leaf_key = KeyPair::generate().expect("leaf key");
        let leaf_cert = leaf.signed_by(&leaf_key, &hub_ca).expect("leaf");
        let pki = Pki {
            ca: dir.join("ca.pem"),
            other_ca: dir.join("other-ca.pem"),
            cert: dir.join("hub.pem"),
            key: dir.join("hub.key"),
        };
        std::fs::write(&pki.ca, hub_ca.pem()).expect("ca file");
        std::fs::write(&pki.other_ca, other.pem()).expect("other ca file");
        // The chain as a server sends it: its own certificate, then the issuer's.
        std::fs::write(&pki.cert, leaf_cert.pem() + &hub_ca.pem()).expect("cert file");
        std::fs::write(&pki.key, leaf_key.serialize_pem()).expect("key file");
        pki
    }

    fn files(&self) -> TlsFiles {
        TlsFiles {
            cert_file: self.cert.display().to_string(),
            key_file: self.key.display().to_string(),
        }
    }

    /// A rustls client that trusts only the CA in `ca`.
    fn client(ca: &Path) -> tokio_rustls::TlsConnector {
        use rustls::pki_types::CertificateDer;
        use rustls::pki_types::pem::PemObject;
        let mut roots = rustls::RootCertStore::empty();
        for c in CertificateDer::pem_file_iter(ca).expect("ca pem") {
            roots.add(c.expect("ca cert")).expect("root");
        }
        let config =
            rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
                .with_safe_default_protocol_versions()
                .expect("versions")
                .with_root_certificates(roots)
                .with_no_client_auth();
        tokio_rustls::TlsConnector::from(Arc::new(config))
    }
}

const T: Duration = Duration::from_secs(30);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_trusting_the_hub_ca_publishes_over_tls_and_others_are_refused() {
    let tmp = tempfile::tempdir().expect("tmp");
    let pki = Pki::new(tmp.path());
    let app = IngestApp::start(|c| {
        c.broker.tls = pki.files();
        // The generated gateway config must then point gateways at TLS by itself.
        c.broker.public_url = String::new();
    })
    .await;
    let addr = app.gateway_addr;
    let token = app.app.gateway_manager("100001", "mgr").await;
    let sim_port = free_port();
    let installer = app.app.as_user(&token);
    let station = installer
        .station_with(json!({"name": "TLS plant", "gatewayId": "GW-TLS"}))
        .await;
    installer
        .device(
            Device::Inverter,
            json!({"stationId": station, "name": "INV-1", "sn": "TLS-INV-1",
            "mapModel": "huawei-sun2000-ktl", "unitId": 1, "stringsCount": 8,
            "modbusAddress": format!("tcp://127.0.0.1:{sim_port}")}),
        )
        .await;
    let password = installer.gateway_credentials(&station).await.ok().data()["password"]
        .as_str()
        .expect("password")
        .to_owned();
    let generated = app
        .app
        .client
        .get(
            app.app
                .url(&format!("/api/station/gateway/config?stationId={station}")),
        )
        .header("Blade-Auth", format!("bearer {token}"))
        .send()
        .await
        .expect("config")
        .text()
        .await
        .expect("config text");
    assert!(
        generated.contains("tls = true") && generated.contains("ca_file = "),
        "the generated config asks for TLS when the hub's listener speaks it:\n{generated}"
    );

    // A client speaking plain MQTT with the right password never gets to sign in.
    let plain = GatewayClient::connect(addr, "GW-TLS", Some(("GW-TLS", &password)), None).await;
    assert!(plain.is_err(), "plain MQTT must be refused on the TLS listener");

    let edge = support::pv_edge_binary();
    let _sim = Proc(
        Command::new(&edge)
            .args(["simulate", "--maps-dir"])
            .arg(repo_root().join("firmware-configs"))
            .args(["--device", "1=huawei-sun2000-ktl", "--tcp"])
            .arg(format!("127.0.0.1:{sim_port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start simulator"),
    );
    let gw_dir = tmp.path().join("gateway");
    std::fs::create_dir_all(&gw_dir).expect("gateway dir");
    std::fs::write(gw_dir.join("mqtt-password"), &password).expect("password file");
    let agent = |ca: &Path, name: &str| {
        let config: String = generated
            .lines()
            .map(|l| match l.split_once(" = ").map(|(k, _)| k) {
                Some("data_dir") => format!("data_dir = {:?}", gw_dir.join(name).display().to_string()),
                Some("maps_dir") => format!(
                    "maps_dir = {:?}",
                    repo_root().join("firmware-configs").display().to_string()
                ),
                Some("password_file") => format!(
                    "password_file = {:?}",
                    gw_dir.join("mqtt-password").display().to_string()
                ),
                Some("port") => format!("port = {}\nstatus_interval_s = 1", addr.port()),
                Some("ca_file") => format!("ca_file = {:?}", ca.display().to_string()),
                Some("interval_ms") => "interval_ms = 500".to_owned(),
                _ => l.to_owned(),
            })
            .collect::<Vec<_>>()
            .join("\n");
        let file = gw_dir.join(format!("{name}.toml"));
        std::fs::write(&file, config).expect("agent config");
        let log = gw_dir.join(format!("{name}.log"));
        let proc = Proc(
            Command::new(&edge)
                .args(["run", "--config"])
                .arg(&file)
                .stdout(Stdio::null())
                .stderr(std::fs::File::create(&log).expect("agent log"))
                .spawn()
                .expect("start agent"),
        );
        (proc, log)
    };

    // An agent trusting another CA refuses the hub's certificate: nothing arrives.
    let (untrusting, log) = agent(&pki.other_ca, "untrusting");
    let refused = eventually(T, || async {
        std::fs::read_to_string(&log).is_ok_and(|l| l.contains("UnknownIssuer"))
    })
    .await;
    assert!(
        refused,
        "the agent names the unknown issuer:\n{}",
        std::fs::read_to_string(&log).unwrap_or_default()
    );
    drop(untrusting);
    assert_eq!(app.raw_count().await, 0, "nothing came through an untrusted hub");

    // The agent with the hub's CA: samples stored, and acknowledged (its queue drains).
    let (_trusting, log) = agent(&pki.ca, "trusting");
    let view = app.app.state.realtime.clone();
    let acked = eventually(T, || async {
        let queue = view
            .gateway("GW-TLS")
            .and_then(|g| g.status)
            .and_then(|s| s.queue);
        // Only acknowledgements take samples out of a queue that is not full: depth well below
        // what was queued proves acks came back (an empty queue at the instant of a status is
        // timing, since the agent applies acks off its uplink task).
        queue.is_some_and(|q| q.next_seq > 10 && q.dropped_oldest == 0 && q.depth + 5 < q.next_seq)
            && app.raw_count().await >= 3
    })
    .await;
    assert!(
        acked,
        "samples stored and acknowledged over TLS (stored {}):\n{}",
        app.raw_count().await,
        std::fs::read_to_string(&log).unwrap_or_default()
    );
}

/// A `pv-cloud` process on loopback with the given extra environment.
fn hub(data_dir: &Path, port: u16, env: &[(&str, String)]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_pv-cloud"));
    c.env("PV_LISTEN", format!("127.0.0.1:{port}"))
        .env("PV_DATA_DIR", data_dir)
        .env("PV_BROKER__LISTEN", format!("127.0.0.1:{}", free_port()))
        .envs(env.iter().map(|(k, v)| (k, v)));
    c
}

/// One HTTP/1.1 GET over TLS with `connector`; (status line, body).
async fn https_get(
    connector: &tokio_rustls::TlsConnector,
    port: u16,
    path: &str,
) -> std::io::Result<(String, String)> {
    let tcp = tokio::net::TcpStream::connect(("127.0.0.1", port)).await?;
    let name = rustls::pki_types::ServerName::try_from("localhost").expect("name");
    let mut tls = connector.connect(name, tcp).await?;
    let request = format!("GET {path} HTTP/1.1\r\nHost: localhost:{port}\r\nConnection: close\r\n\r\n");
    tls.write_all(request.as_bytes()).await?;
    let mut answer = Vec::new();
    tls.read_to_end(&mut answer).await?;
    let text = String::from_utf8_lossy(&answer).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    Ok((
        head.lines().next().unwrap_or_default().to_owned(),
        body.to_owned(),
    ))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_console_and_api_answer_over_https_and_bad_files_stop_the_start() {
    let tmp = tempfile::tempdir().expect("tmp");
    let pki = Pki::new(tmp.path());
    let port = free_port();
    let data_dir = tmp.path().join("hub");
    let log = tmp.path().join("hub.log");
    let _hub = Proc(
        hub(
            &data_dir,
            port,
            &[
                ("PV_HTTPS__CERT_FILE", pki.cert.display().to_string()),
                ("PV_HTTPS__KEY_FILE", pki.key.display().to_string()),
                ("PV_TELEMETRY__ENABLED", "false".to_owned()),
            ],
        )
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).expect("log"))
        .spawn()
        .expect("start pv-cloud"),
    );
    let trusting = Pki::client(&pki.ca);
    let deadline = Instant::now() + Duration::from_secs(60);
    let (status, body) = loop {
        match https_get(&trusting, port, "/api/health").await {
            Ok(answer) => break answer,
            Err(e) => {
                assert!(
                    Instant::now() < deadline,
                    "no HTTPS answer: {e}\n{}",
                    std::fs::read_to_string(&log).unwrap_or_default()
                );
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        }
    };
    assert!(status.contains(" 200"), "{status}\n{body}");
    assert!(body.contains("\"status\""), "the health answer: {body}");
    let (status, body) = https_get(&trusting, port, "/").await.expect("console over https");
    assert!(status.contains(" 200"), "{status}");
    // The built console, or the page saying it was not built into this binary yet.
    assert!(body.contains("<title>"), "the console's page: {body}");

    // A client trusting another CA refuses the certificate; plain HTTP gets no answer.
    let err = https_get(&Pki::client(&pki.other_ca), port, "/api/health")
        .await
        .expect_err("another CA does not vouch for the hub");
    assert!(err.to_string().contains("UnknownIssuer"), "{err}");
    let plain = crate::support::client::http()
        .get(format!("http://127.0.0.1:{port}/api/health"))
        .timeout(Duration::from_secs(5))
        .send()
        .await;
    assert!(
        plain.is_err(),
        "plain HTTP is not served on the HTTPS listener: {plain:?}"
    );

    // Wrong files: the start fails at once, naming the setting and the file.
    let missing = tmp.path().join("nowhere.pem");
    let cases = [
        (
            vec![
                ("PV_HTTPS__CERT_FILE", missing.display().to_string()),
                ("PV_HTTPS__KEY_FILE", pki.key.display().to_string()),
            ],
            format!("https.cert_file {}", missing.display()),
        ),
        (
            // A certificate where the key should be.
            vec![
                ("PV_HTTPS__CERT_FILE", pki.cert.display().to_string()),
                ("PV_HTTPS__KEY_FILE", pki.ca.display().to_string()),
            ],
            format!("https.key_file {}", pki.ca.display()),
        ),
        (
            vec![
                ("PV_BROKER__TLS__CERT_FILE", pki.cert.display().to_string()),
                ("PV_BROKER__TLS__KEY_FILE", missing.display().to_string()),
            ],
            format!("broker.tls.key_file {}", missing.display()),
        ),
        (
            vec![("PV_BROKER__TLS__CERT_FILE", pki.cert.display().to_string())],
            "broker.tls.cert_file and broker.tls.key_file are set together".to_owned(),
        ),
    ];
    for (i, (env, message)) in cases.iter().enumerate() {
        let out = hub(&tmp.path().join(format!("bad{i}")), free_port(), env)
            .output()
            .expect("run pv-cloud");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "case {i} must not start");
        assert!(
            stderr.contains(message.as_str()),
            "case {i}: {message:?} in\n{stderr}"
        );
    }
}
