//! Station gateways (`/api/station/gateway`): the MQTT credentials a station's gateway signs in
//! with, and the edge agent configuration (`pv-edge.toml`) generated from the station's devices.
//!
//! The gateway id (the station's `gatewayId`) is the gateway's MQTT client id and username and
//! part of every topic it uses, so it is unique across the installation, not per tenant. Its
//! password is generated here, answered once and stored only as an argon2id hash; issuing again
//! replaces it (rotation), and the old one stops working at once. The generated configuration
//! never contains the password: it names a `password_file` the installer fills.

use std::fmt::Write as _;
use std::net::SocketAddr;

use argon2::Argon2;
use argon2::password_hash::phc::PasswordHash;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use sqlx::Row;
use utoipa::{IntoParams, ToSchema};

use crate::auth::scope::Scoped;
use crate::auth::scope::StationScope;
use crate::config::Config;
use crate::kernel::Core;
use crate::kernel::extract::Query;
use crate::kernel::lang::Text;
use crate::kernel::sql::{Sql, UniqueAs, Value};
use crate::kernel::{ApiError, ApiResult, Data, Envelope, Id, time};
use crate::station::context::StationCtx;

/// Button of the station menu that guards issuing credentials and downloading configs.
pub const PERMISSION: &str = "station_gateway";

const NO_GATEWAY_ID: Text = Text::new("请先填写电站的网关ID", "Set the station's gateway id first");
const BAD_GATEWAY_ID: Text = Text::new(
    "网关ID只能包含1-64个字母、数字、“-”或“_”",
    "A gateway id is 1-64 letters, digits, '-' or '_'",
);
const GATEWAY_TAKEN: Text = Text::new(
    "该网关ID已被其他电站使用",
    "This gateway id is already used by another station",
);
const NO_BROKER: Text = Text::new(
    "未配置网关连接的MQTT地址（broker.public_url）",
    "The MQTT address gateways dial is not configured (broker.public_url)",
);
const SHOWN_ONCE: Text = Text::new(
    "密码只显示这一次，请立即保存到网关的密码文件中；再次生成会使旧密码失效",
    "The password is shown only this once: save it into the gateway's password file now; issuing again invalidates it",
);

/// Who a gateway is once its credentials check out (for the broker's authentication hook).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GatewayIdentity {
    pub tenant: String,
    pub station: Id,
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
pub struct StationQuery {
    /// The station whose gateway is meant.
    pub station_id: Id,
}

/// A station's gateway as the console shows it (never the secret).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GatewayInfo {
    pub station_id: Id,
    pub station_name: String,
    pub gateway_id: Option<String>,
    pub gateway_sn: Option<String>,
    /// Whether credentials are issued for the station's current gateway id.
    pub credentials_issued: bool,
    /// When they were issued (`yyyy-MM-dd HH:mm:ss`).
    pub issued_at: Option<String>,
    /// Where the gateway expects its password (from the hub's configuration).
    pub password_file: String,
    /// The encoding of its newest telemetry (`json` or `binary`), once any arrived.
    pub uplink_encoding: Option<String>,
    /// Telemetry payload bytes received per sample, over everything received.
    pub uplink_bytes_per_sample: Option<f64>,
}

/// Newly issued credentials: the only answer that ever carries the password.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct IssuedCredentials {
    pub gateway_id: String,
    /// The MQTT username (the gateway id).
    pub username: String,
    pub password: String,
    pub issued_at: String,
    /// Where to put the password on the gateway (first line of that file).
    pub password_file: String,
    pub notice: String,
}

struct StationGateway {
    id: Id,
    tenant: String,
    name: String,
    gateway_id: Option<String>,
    gateway_sn: Option<String>,
}

async fn station_gateway(
    state: &Core,
    scope: &StationScope,
    station: Id,
) -> Result<StationGateway, ApiError> {
    let mut sql =
        Sql::new("SELECT s.id, s.tenant_id, s.name, s.gateway_id, s.gateway_sn FROM pv_station s WHERE ");
    sql.append(&scope.stations("s"));
    sql.push_bind(" AND s.id = ?", [Value::Int(station.0)]);
    let row = sql.row(state.db.pool()).await?.ok_or_else(ApiError::not_found)?;
    let blank = |s: Option<String>| s.map(|s| s.trim().to_owned()).filter(|s| !s.is_empty());
    Ok(StationGateway {
        id: Id(row.try_get::<i64, _>("id")?),
        tenant: row.try_get("tenant_id")?,
        name: row.try_get("name")?,
        gateway_id: blank(row.try_get("gateway_id")?),
        gateway_sn: blank(row.try_get("gateway_sn")?),
    })
}

/// The station's gateway id when it can serve as an MQTT identity.
fn usable_gateway_id(station: &StationGateway) -> Result<String, ApiError> {
    let id = station
        .gateway_id
        .clone()
        .ok_or(ApiError::BadRequest(NO_GATEWAY_ID))?;
    pv_shared::topics::validate_gateway_id(&id).map_err(|_| ApiError::BadRequest(BAD_GATEWAY_ID))?;
    Ok(id)
}

/// When the credentials of `gateway_id` were issued for `station`, if they were.
async fn issued_at(state: &Core, station: Id, gateway_id: &str) -> Result<Option<i64>, ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT issued_at FROM pv_gateway_credential WHERE station_id = ? AND gateway_id = ?",
        [Value::Int(station.0), gateway_id.into()],
    );
    sql.scalar_optional::<i64, _>(state.db.pool()).await
}

/// The gateway id of a station the caller may see and manage the gateway of (commissioning).
pub async fn managed_gateway(state: &Core, who: &Scoped, station_id: Id) -> Result<String, ApiError> {
    who.caller.require(state, PERMISSION).await?;
    let station = station_gateway(state, &who.stations, station_id).await?;
    usable_gateway_id(&station)
}

/// The station's gateway: id, SN, whether credentials exist and when they were issued.
#[utoipa::path(get, path = "/api/station/gateway", tag = "station", params(StationQuery),
    responses((status = 200, body = Envelope<GatewayInfo>), (status = 401), (status = 404)))]
pub async fn info(
    State(state): State<StationCtx>,
    Scoped { stations: scope, .. }: Scoped,
    Query(q): Query<StationQuery>,
) -> ApiResult<Data<GatewayInfo>> {
    let station = station_gateway(&state, &scope, q.station_id).await?;
    let issued = match &station.gateway_id {
        Some(g) => issued_at(&state, station.id, g).await?,
        None => None,
    };
    let (uplink_encoding, uplink_bytes_per_sample) = match &station.gateway_id {
        Some(g) => uplink_of(&state, station.id, g).await?,
        None => (None, None),
    };
    Ok(Data(GatewayInfo {
        station_id: station.id,
        station_name: station.name,
        gateway_id: station.gateway_id,
        gateway_sn: station.gateway_sn,
        credentials_issued: issued.is_some(),
        issued_at: issued.map(time::format_ms),
        password_file: state.config.broker.gateway_password_file.clone(),
        uplink_encoding,
        uplink_bytes_per_sample,
    }))
}

/// What the station's gateway costs on its uplink, as ingest counted it (`telemetry::stats`).
async fn uplink_of(
    state: &Core,
    station: Id,
    gateway_id: &str,
) -> Result<(Option<String>, Option<f64>), ApiError> {
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT uplink_encoding, uplink_bytes, uplink_samples FROM pv_gateway_state \
         WHERE station_id = ? AND gateway_id = ?",
        [Value::Int(station.0), gateway_id.into()],
    );
    let Some(r) = sql.rows(state.db.pool()).await?.into_iter().next() else {
        return Ok((None, None));
    };
    let samples: i64 = r.try_get("uplink_samples")?;
    let bytes: i64 = r.try_get("uplink_bytes")?;
    let per_sample = (samples > 0).then(|| (bytes as f64 / samples as f64 * 10.0).round() / 10.0);
    Ok((r.try_get("uplink_encoding")?, per_sample))
}

/// A random password: 24 bytes from the OS, base64url (32 characters, 192 bits).
fn generate_password() -> Result<String, ApiError> {
    use base64::Engine;
    let mut bytes = [0u8; 24];
    getrandom::fill(&mut bytes).map_err(|e| ApiError::Internal(format!("randomness: {e}")))?;
    Ok(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
}

/// argon2id of the secret exactly as the gateway will send it, off the async runtime.
async fn hash_secret(secret: &str) -> Result<String, ApiError> {
    let secret = secret.to_owned();
    tokio::task::spawn_blocking(move || {
        Argon2::default()
            .hash_password(secret.as_bytes())
            .map(|h| h.to_string())
            .map_err(|e| ApiError::Internal(format!("gateway password hash: {e}")))
    })
    .await
    .map_err(|e| ApiError::Internal(format!("gateway password hash task: {e}")))?
}

async fn verify_secret(secret: &str, stored: &str) -> bool {
    let secret = secret.to_owned();
    let stored = stored.to_owned();
    tokio::task::spawn_blocking(move || {
        PasswordHash::new(&stored)
            .map(|parsed| {
                Argon2::default()
                    .verify_password(secret.as_bytes(), &parsed)
                    .is_ok()
            })
            .unwrap_or(false)
    })
    .await
    .unwrap_or(false)
}

/// Issues MQTT credentials for the station's gateway and answers the password once; calling it
/// again rotates them (the previous password stops working).
#[utoipa::path(post, path = "/api/station/gateway/credentials", tag = "station", params(StationQuery),
    responses((status = 200, body = Envelope<IssuedCredentials>), (status = 400), (status = 403), (status = 404)))]
pub async fn issue_credentials(
    State(state): State<StationCtx>,
    who: Scoped,
    Query(q): Query<StationQuery>,
) -> ApiResult<Data<IssuedCredentials>> {
    Ok(Data(issue(&state, &who, q.station_id).await?))
}

/// Issues (or rotates) the credentials of a station the caller may see and manage gateways of:
/// what the console's button and the demo provisioner both call.
pub async fn issue(state: &Core, who: &Scoped, station_id: Id) -> Result<IssuedCredentials, ApiError> {
    let caller = &who.caller;
    caller.require(state, PERMISSION).await?;
    let station = station_gateway(state, &who.stations, station_id).await?;
    let gateway_id = usable_gateway_id(&station)?;
    if super::broker_accounts::is_hub_login(&state.config.broker, &gateway_id) {
        return Err(ApiError::BadRequest(GATEWAY_TAKEN));
    }
    let password = generate_password()?;
    let hash = hash_secret(&password).await?;
    // What an external Mosquitto checks (see broker_accounts); kept so the hub can write the
    // broker's password file again at any time without the password.
    let broker_hash = super::broker_accounts::gateway_hash(&password)
        .map_err(|e| ApiError::Internal(format!("randomness: {e}")))?;
    let now = time::now_ms();

    let mut tx = state.db.begin_write().await?;
    // Credentials left by removed stations no longer hold their gateway id.
    let mut stale = Sql::new(
        "DELETE FROM pv_gateway_credential WHERE station_id NOT IN \
         (SELECT id FROM pv_station WHERE is_deleted = 0)",
    );
    stale.push_bind(" AND gateway_id = ?", [gateway_id.as_str().into()]);
    stale.execute(&mut *tx).await?;
    let mut taken = Sql::default();
    taken.push_bind(
        "SELECT COUNT(*) FROM pv_gateway_credential WHERE gateway_id = ? AND station_id <> ?",
        [gateway_id.as_str().into(), Value::Int(station.id.0)],
    );
    let n: i64 = taken.scalar::<i64, _>(&mut *tx).await?;
    if n > 0 {
        return Err(ApiError::BadRequest(GATEWAY_TAKEN));
    }
    let mut old = Sql::default();
    old.push_bind(
        "DELETE FROM pv_gateway_credential WHERE station_id = ?",
        [Value::Int(station.id.0)],
    );
    old.execute(&mut *tx).await?;
    let mut ins = Sql::default();
    ins.push_bind(
        "INSERT INTO pv_gateway_credential \
         (id, tenant_id, station_id, gateway_id, password_hash, issued_by, issued_at, broker_hash) \
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [
            Value::Int(state.ids.next().0),
            Value::Text(station.tenant.clone()),
            Value::Int(station.id.0),
            gateway_id.as_str().into(),
            Value::Text(hash),
            Value::Int(caller.user_id.0),
            Value::Int(now),
            Value::Text(broker_hash),
        ],
    );
    // Another station may have issued the same gateway id at the same moment.
    ins.execute(&mut *tx).await.unique_as(GATEWAY_TAKEN)?;
    tx.commit().await?;
    super::broker_accounts::changed();
    tracing::info!(gateway = %gateway_id, station = %station.id, "gateway credentials issued");
    Ok(IssuedCredentials {
        username: gateway_id.clone(),
        gateway_id,
        password,
        issued_at: time::format_ms(now),
        password_file: state.config.broker.gateway_password_file.clone(),
        notice: SHOWN_ONCE.render(),
    })
}

/// Checks a gateway's MQTT sign-in (for the broker's authentication hook): the credentials must
/// be the current ones of a live station that still names this gateway id.
pub async fn verify_gateway(
    state: &crate::kernel::Core,
    gateway_id: &str,
    password: &str,
) -> Result<Option<GatewayIdentity>, ApiError> {
    if pv_shared::topics::validate_gateway_id(gateway_id).is_err() {
        return Ok(None);
    }
    let mut sql = Sql::default();
    sql.push_bind(
        "SELECT c.tenant_id, c.station_id, c.password_hash FROM pv_gateway_credential c \
         JOIN pv_station s ON s.id = c.station_id \
         WHERE c.gateway_id = ? AND s.is_deleted = 0 AND s.tenant_id = c.tenant_id \
         AND s.gateway_id = c.gateway_id",
        [gateway_id.into()],
    );
    let Some(row) = sql.row(state.db.pool()).await? else {
        return Ok(None);
    };
    let stored: String = row.try_get("password_hash")?;
    if !verify_secret(password, &stored).await {
        return Ok(None);
    }
    Ok(Some(GatewayIdentity {
        tenant: row.try_get("tenant_id")?,
        station: Id(row.try_get::<i64, _>("station_id")?),
    }))
}

// ---- the generated edge configuration ----

/// Where gateways dial the broker: host, port, TLS.
#[derive(Debug, PartialEq)]
pub struct BrokerEndpoint {
    pub host: String,
    pub port: u16,
    pub tls: bool,
}

/// `broker.public_url`, else the external `broker.url`, else the embedded listener (unless it
/// listens on every interface, which names no address a gateway could dial).
pub fn broker_endpoint(config: &Config) -> Option<BrokerEndpoint> {
    let b = &config.broker;
    let url = if !b.public_url.trim().is_empty() {
        b.public_url.trim().to_owned()
    } else if !b.embedded && !b.url.trim().is_empty() {
        b.url.trim().to_owned()
    } else if b.embedded && !b.listen.ip().is_unspecified() {
        let scheme = if b.tls.enabled() { "mqtts" } else { "mqtt" };
        format!("{scheme}://{}", b.listen)
    } else {
        return None;
    };
    parse_broker_url(&url)
}

fn parse_broker_url(url: &str) -> Option<BrokerEndpoint> {
    let (tls, rest) = match url.split_once("://") {
        Some(("mqtt" | "tcp", r)) => (false, r),
        Some(("mqtts" | "ssl" | "tls", r)) => (true, r),
        Some(_) => return None,
        None => (false, url),
    };
    let rest = rest.trim_end_matches('/');
    // `broker.url` may carry the hub's own login: never hand it to a gateway.
    let rest = rest.rsplit_once('@').map_or(rest, |(_, host)| host);
    let default_port = if tls { 8883 } else { 1883 };
    if let Ok(addr) = rest.parse::<SocketAddr>() {
        if addr.ip().is_unspecified() {
            return None;
        }
        return Some(BrokerEndpoint {
            host: addr.ip().to_string(),
            port: addr.port(),
            tls,
        });
    }
    let (host, port) = match rest.rsplit_once(':') {
        Some((h, p)) if !h.contains(':') || h.starts_with('[') => (h, p.parse().ok()?),
        _ => (rest, default_port),
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    if host.is_empty() || host.contains('/') || host == "0.0.0.0" || host == "::" {
        return None;
    }
    Some(BrokerEndpoint {
        host: host.to_owned(),
        port,
        tls,
    })
}

/// A device of the station as the gateway polls it.
#[derive(Debug, Clone)]
struct GatewayDevice {
    kind: &'static str,
    sn: String,
    name: String,
    map: Option<String>,
    unit: Option<i64>,
    address: Option<String>,
    gateway: Option<String>,
}

/// The device kinds a gateway polls, with their registry table and poll interval.
const POLLED: &[(&str, &str, u32)] = &[
    ("inverter", "pv_inverter", 5000),
    ("meter", "pv_meter", 5000),
    ("weather", "pv_weather", 10_000),
    ("tracker", "pv_flex", 10_000),
];

async fn station_devices(
    state: &Core,
    scope: &StationScope,
    station: &StationGateway,
) -> Result<Vec<GatewayDevice>, ApiError> {
    let mut out = Vec::new();
    for (kind, table, _) in POLLED {
        let mut sql = Sql::new(&format!(
            "SELECT sn, name, map_model, unit_id, modbus_address, gateway_id FROM {table} WHERE "
        ));
        sql.append(&scope.rows(table, "station_id"));
        sql.push_bind(
            " AND station_id = ? ORDER BY create_time, id",
            [Value::Int(station.id.0)],
        );
        for row in sql.rows(state.db.pool()).await? {
            let opt = |s: Option<String>| s.map(|s| s.trim().to_owned()).filter(|s| !s.is_empty());
            out.push(GatewayDevice {
                kind,
                sn: row.try_get("sn")?,
                name: row.try_get("name")?,
                map: opt(row.try_get("map_model")?),
                unit: row.try_get("unit_id")?,
                address: opt(row.try_get("modbus_address")?),
                gateway: opt(row.try_get("gateway_id")?),
            });
        }
    }
    Ok(out)
}

#[derive(Debug, PartialEq, Eq, Clone)]
enum BusKind {
    Rtu(String),
    Tcp(SocketAddr),
    RtuOverTcp(SocketAddr),
}

/// The bus a device's `modbusAddress` names: empty → the gateway's first RS-485 port; a serial
/// port (`/dev/...`, `COMn`); `ip:port` or `tcp://ip:port` (Modbus TCP);
/// `rtu-over-tcp://ip:port` (a serial device server). Anything else cannot be polled.
fn bus_of(address: Option<&str>) -> Option<BusKind> {
    let Some(a) = address else {
        return Some(BusKind::Rtu("/dev/ttyUSB0".into()));
    };
    if a.starts_with("/dev/") || a.to_ascii_uppercase().starts_with("COM") {
        return Some(BusKind::Rtu(a.to_owned()));
    }
    if let Some(rest) = a.strip_prefix("rtu-over-tcp://") {
        return rest.parse().ok().map(BusKind::RtuOverTcp);
    }
    a.strip_prefix("tcp://")
        .unwrap_or(a)
        .parse()
        .ok()
        .map(BusKind::Tcp)
}

fn bus_name(kind: &BusKind) -> String {
    let clean = |s: String| {
        s.chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect::<String>()
    };
    match kind {
        BusKind::Rtu(path) => format!(
            "rtu-{}",
            clean(path.rsplit('/').next().unwrap_or(path).to_owned())
        ),
        BusKind::Tcp(a) => format!("tcp-{}", clean(a.to_string())),
        BusKind::RtuOverTcp(a) => format!("rtu-over-tcp-{}", clean(a.to_string())),
    }
}

/// A TOML string literal (quoted and escaped).
fn q(s: &str) -> String {
    toml::Value::String(s.to_owned()).to_string()
}

/// One line of a comment: no line breaks can end it early.
fn comment(s: &str) -> String {
    s.replace(['\r', '\n'], " ")
}

/// Where a generated configuration tells the gateway its own files are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GatewayPaths {
    /// The durable queue's folder.
    pub data_dir: String,
    /// The register maps' folder.
    pub maps_dir: String,
    /// The file holding the MQTT password (first line).
    pub password_file: String,
}

impl GatewayPaths {
    /// A gateway installed from the package: the paths `broker.gateway_*` configure.
    pub fn installed(config: &Config) -> GatewayPaths {
        GatewayPaths {
            data_dir: "/var/lib/pv-edge".into(),
            maps_dir: config.broker.gateway_maps_dir.clone(),
            password_file: config.broker.gateway_password_file.clone(),
        }
    }
}

/// A generated `pv-edge.toml` and the gateway it is for.
#[derive(Debug, Clone)]
pub struct GeneratedConfig {
    pub gateway_id: String,
    pub text: String,
}

/// Renders the gateway's `pv-edge.toml`; devices that cannot be polled are listed in comments.
fn render_config(
    paths: &GatewayPaths,
    broker: &BrokerEndpoint,
    station: &StationGateway,
    gateway_id: &str,
    devices: &[GatewayDevice],
) -> String {
    let mut buses: Vec<(BusKind, Vec<(&GatewayDevice, u32)>)> = Vec::new();
    let mut skipped: Vec<String> = Vec::new();
    for d in devices {
        let what = format!("{} {} ({})", d.kind, d.sn, comment(&d.name));
        if let Some(g) = &d.gateway
            && g != gateway_id
        {
            skipped.push(format!("{what}: belongs to gateway {}", comment(g)));
            continue;
        }
        let (Some(_), Some(unit)) = (&d.map, d.unit) else {
            skipped.push(format!(
                "{what}: needs a register map (mapModel) and a Modbus unit id"
            ));
            continue;
        };
        let Some(bus) = bus_of(d.address.as_deref()) else {
            skipped.push(format!(
                "{what}: address {:?} is neither a serial port nor ip:port",
                comment(d.address.as_deref().unwrap_or(""))
            ));
            continue;
        };
        let interval = POLLED
            .iter()
            .find(|(k, _, _)| *k == d.kind)
            .map_or(5000, |(_, _, i)| *i);
        let i = match buses.iter().position(|(b, _)| *b == bus) {
            Some(i) => i,
            None => {
                buses.push((bus, Vec::new()));
                buses.len() - 1
            }
        };
        if buses[i].1.iter().any(|(other, _)| other.unit == Some(unit)) {
            skipped.push(format!("{what}: another device on its bus has unit id {unit}"));
            continue;
        }
        buses[i].1.push((d, interval));
    }

    let mut out = String::new();
    let _ = writeln!(out, "# pv-edge configuration for gateway {gateway_id}");
    let _ = writeln!(out, "# station: {}", comment(&station.name));
    let _ = writeln!(
        out,
        "# generated by the hub at {}",
        time::format_ms(time::now_ms())
    );
    let _ = writeln!(
        out,
        "# The MQTT password is not in this file: put it (first line) into {}",
        comment(&paths.password_file)
    );
    let _ = writeln!(out, "# Check with: pv-edge check --config pv-edge.toml");
    for s in &skipped {
        let _ = writeln!(out, "# not included: {s}");
    }
    let _ = writeln!(out);
    let _ = writeln!(out, "gateway_id = {}", q(gateway_id));
    let _ = writeln!(out, "data_dir = {}", q(&paths.data_dir));
    let _ = writeln!(out, "maps_dir = {}", q(&paths.maps_dir));
    let _ = writeln!(out);
    let _ = writeln!(out, "[mqtt]");
    let _ = writeln!(out, "host = {}", q(&broker.host));
    let _ = writeln!(out, "port = {}", broker.port);
    let _ = writeln!(out, "username = {}", q(gateway_id));
    let _ = writeln!(out, "password_file = {}", q(&paths.password_file));
    if broker.tls {
        let _ = writeln!(out, "tls = true");
        let _ = writeln!(out, "ca_file = {}", q("/etc/pv-edge/hub-ca.pem"));
    }
    for (bus, devs) in &buses {
        let _ = writeln!(out);
        let _ = writeln!(out, "[[bus]]");
        let _ = writeln!(out, "name = {}", q(&bus_name(bus)));
        match bus {
            BusKind::Rtu(path) => {
                let _ = writeln!(out, "transport = \"rtu\"");
                let _ = writeln!(out, "path = {}", q(path));
                let _ = writeln!(out, "baud = 9600");
                let _ = writeln!(out, "parity = \"none\"");
            }
            BusKind::Tcp(a) => {
                let _ = writeln!(out, "transport = \"tcp\"");
                let _ = writeln!(out, "address = {}", q(&a.to_string()));
            }
            BusKind::RtuOverTcp(a) => {
                let _ = writeln!(out, "transport = \"rtu-over-tcp\"");
                let _ = writeln!(out, "address = {}", q(&a.to_string()));
            }
        }
        for (d, interval) in devs {
            let _ = writeln!(out);
            let _ = writeln!(out, "[[bus.device]]    # {} {}", d.kind, comment(&d.name));
            let _ = writeln!(out, "id = {}", q(&d.sn));
            let _ = writeln!(out, "map = {}", q(d.map.as_deref().unwrap_or_default()));
            let _ = writeln!(out, "unit = {}", d.unit.unwrap_or_default());
            let _ = writeln!(out, "interval_ms = {interval}");
        }
    }
    out
}

/// Downloads the gateway's generated `pv-edge.toml`: its devices (inverters, meters, weather
/// station) with register maps and unit ids, the broker to dial, username = gateway id and the
/// `password_file` the password goes into (also in the `X-Password-File` header).
#[utoipa::path(get, path = "/api/station/gateway/config", tag = "station", params(StationQuery),
    responses((status = 200, description = "pv-edge.toml (UTF-8 text)", content_type = "application/toml", body = String),
        (status = 400), (status = 403), (status = 404)))]
pub async fn download_config(
    State(state): State<StationCtx>,
    who: Scoped,
    Query(q): Query<StationQuery>,
) -> Result<Response, ApiError> {
    let GeneratedConfig { gateway_id, text } = generate_config(
        &state,
        &who,
        q.station_id,
        &GatewayPaths::installed(&state.config),
    )
    .await?;
    let mut response = text.into_response();
    let h = response.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/toml; charset=utf-8"),
    );
    // The gateway id is letters, digits, '-' and '_' only (checked above).
    if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"pv-edge-{gateway_id}.toml\"")) {
        h.insert(header::CONTENT_DISPOSITION, v);
    }
    if let Ok(v) = HeaderValue::from_str(&state.config.broker.gateway_password_file) {
        h.insert("x-password-file", v);
    }
    Ok(response)
}

/// The `pv-edge.toml` of a station the caller may see and manage gateways of, with the files
/// named by `paths`: what the download and the demo provisioner both call.
pub async fn generate_config(
    state: &Core,
    who: &Scoped,
    station_id: Id,
    paths: &GatewayPaths,
) -> Result<GeneratedConfig, ApiError> {
    who.caller.require(state, PERMISSION).await?;
    let station = station_gateway(state, &who.stations, station_id).await?;
    let gateway_id = usable_gateway_id(&station)?;
    let broker = broker_endpoint(&state.config).ok_or(ApiError::BadRequest(NO_BROKER))?;
    let devices = station_devices(state, &who.stations, &station).await?;
    let text = render_config(paths, &broker, &station, &gateway_id, &devices);
    Ok(GeneratedConfig { gateway_id, text })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broker_urls() {
        let e = |host: &str, port, tls| {
            Some(BrokerEndpoint {
                host: host.into(),
                port,
                tls,
            })
        };
        assert_eq!(
            parse_broker_url("mqtt://hub.example.com:1884"),
            e("hub.example.com", 1884, false)
        );
        assert_eq!(
            parse_broker_url("mqtts://hub.example.com"),
            e("hub.example.com", 8883, true)
        );
        assert_eq!(parse_broker_url("10.0.0.1:1883"), e("10.0.0.1", 1883, false));
        assert_eq!(parse_broker_url("mqtt://[::1]:1883"), e("::1", 1883, false));
        assert_eq!(
            parse_broker_url("mqtt://pv-hub:s3cret@broker.example:1884"),
            e("broker.example", 1884, false),
            "the hub's login is not the gateway's"
        );
        assert_eq!(parse_broker_url("mqtt://0.0.0.0:1883"), None);
        assert_eq!(parse_broker_url("http://x"), None);
        assert_eq!(parse_broker_url("mqtt://a:b"), None);
    }

    #[test]
    fn buses_from_addresses() {
        assert_eq!(bus_of(None), Some(BusKind::Rtu("/dev/ttyUSB0".into())));
        assert_eq!(
            bus_of(Some("/dev/ttyS1")),
            Some(BusKind::Rtu("/dev/ttyS1".into()))
        );
        assert!(matches!(bus_of(Some("192.168.1.5:502")), Some(BusKind::Tcp(_))));
        assert!(matches!(
            bus_of(Some("tcp://192.168.1.5:502")),
            Some(BusKind::Tcp(_))
        ));
        assert!(matches!(
            bus_of(Some("rtu-over-tcp://192.168.1.6:4001")),
            Some(BusKind::RtuOverTcp(_))
        ));
        assert_eq!(bus_of(Some("plc.local:502")), None);
        assert_eq!(bus_name(&BusKind::Rtu("/dev/ttyUSB0".into())), "rtu-ttyUSB0");
    }
}
