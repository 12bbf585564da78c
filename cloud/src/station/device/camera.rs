//! Cameras (`/api/camera`): brand, serial number, verification code, the brand's application
//! key and its secret app key (write-only, stored encrypted). `live/web/url` builds the brand's
//! live-view address from a template in configuration (`station.camera_live_url`): the console
//! shows it in an iframe; nothing here calls the vendor.

use axum::extract::State;
use serde::{Deserialize, Serialize};
use sqlx::any::AnyRow;
use utoipa::{IntoParams, ToSchema};

use super::row::DeviceRow;
use super::{DeviceDef, StationParam, device_routes, no_check};
use crate::auth::Caller;
use crate::auth::scope::Scoped;
use crate::kernel::extract::Query;
use crate::kernel::sql::{Sql, Value};
use crate::kernel::{ApiError, ApiResult, Data, Envelope, Id};
use crate::station::context::StationCtx;
use crate::station::fields::{Col, Ty};
use crate::station::listing::dict_route;

pub static COLS: &[Col] = &[
    Col::new("stationId", "station_id", Ty::Id, "电站", "station").required(),
    Col::new(
        "cameraType",
        "camera_type",
        Ty::Dict("camera_brand"),
        "摄像头类型",
        "camera type",
    )
    .required()
    .filter(),
    Col::new("name", "name", Ty::Text(100), "摄像头名称", "camera name")
        .required()
        .filter(),
    Col::new("sn", "sn", Ty::Text(64), "序列号", "serial number")
        .required()
        .filter(),
    Col::new(
        "channel",
        "channel",
        Ty::Int { min: 1, max: 256 },
        "通道号",
        "channel",
    ),
    Col::new(
        "verificationCode",
        "verification_code",
        Ty::Text(64),
        "验证码",
        "verification code",
    ),
    Col::new(
        "applicationKey",
        "application_key",
        Ty::Text(100),
        "应用密钥",
        "application key",
    ),
    Col::new("appKey", "app_key_enc", Ty::Secret(200), "AppKey", "app key"),
    Col::new("remark", "remark", Ty::Text(500), "备注", "remark"),
];

pub static CAMERA: DeviceDef = DeviceDef {
    table: "pv_camera",
    menu: "camera",
    cols: COLS,
    has_sn: true,
    one_per_station: None,
    duplicate: None,
    check: no_check,
    order: "create_time DESC, id DESC",
};

device_routes!(
    CAMERA,
    "camera",
    "/api/camera/page",
    "/api/camera",
    "/api/camera/{id}",
    Camera
);
dict_route!(
    list_camera_type,
    "/api/camera/listCameraType",
    "camera_brand",
    "camera",
    "Camera brands (dictionary `camera_brand`)."
);

/// A camera of the light list (fields in their wire order).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CameraItem {
    /// Dictionary `camera_brand`.
    pub camera_type: Option<String>,
    pub channel: Option<i64>,
    pub id: Id,
    pub name: Option<String>,
    pub sn: Option<String>,
    pub station_id: Option<Id>,
    pub station_name: Option<String>,
}

impl CameraItem {
    fn from_row(r: &AnyRow) -> Result<CameraItem, ApiError> {
        let r = DeviceRow(r);
        Ok(CameraItem {
            camera_type: r.text("camera_type")?,
            channel: r.int("channel")?,
            id: r.id()?,
            name: r.text("name")?,
            sn: r.text("sn")?,
            station_id: r.id_of("station_id")?,
            station_name: r.station_name()?,
        })
    }
}

/// The caller's cameras `{id, name, cameraType, sn, channel, stationId, stationName}`.
#[utoipa::path(get, path = "/api/camera/listCamera", tag = "camera", params(StationParam),
    responses((status = 200, body = Envelope<Vec<CameraItem>>), (status = 401)))]
pub async fn list_camera(
    State(state): State<StationCtx>,
    caller: Caller,
    Query(p): Query<StationParam>,
) -> ApiResult<Data<Vec<CameraItem>>> {
    Ok(Data(
        super::list_as(&CAMERA, &state, &caller, p.station_id, CameraItem::from_row).await?,
    ))
}

#[derive(Debug, Deserialize, IntoParams)]
pub struct CameraParam {
    pub id: Id,
}

/// Percent-encodes everything but RFC 3986 unreserved characters.
fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Fills a live-view template; placeholders without a value become empty.
pub fn live_url(
    template: &str,
    serial: &str,
    channel: i64,
    verification: &str,
    application_key: &str,
) -> String {
    template
        .replace("{serial}", &encode(serial))
        .replace("{channel}", &channel.to_string())
        .replace("{verificationCode}", &encode(verification))
        .replace("{applicationKey}", &encode(application_key))
}

/// The camera's live-view address, from its brand's template in configuration.
#[utoipa::path(get, path = "/api/camera/live/web/url", tag = "camera", params(CameraParam),
    responses((status = 200, body = Envelope<String>), (status = 400), (status = 404)))]
pub async fn live_web_url(
    State(state): State<StationCtx>,
    Scoped { stations, .. }: Scoped,
    Query(p): Query<CameraParam>,
) -> ApiResult<Data<String>> {
    let mut sql = Sql::new(
        "SELECT camera_type, sn, channel, verification_code, application_key FROM pv_camera c WHERE ",
    );
    sql.append(&stations.rows("c", "station_id"));
    sql.push_bind(" AND c.id = ?", [Value::Int(p.id.0)]);
    let row = sql
        .fetch_optional::<(String, String, Option<i64>, Option<String>, Option<String>), _>(state.db.pool())
        .await?
        .ok_or_else(ApiError::not_found)?;
    let (brand, serial, channel, verification, application_key) = row;
    let template = state.services.camera_live_url.get(&brand).ok_or_else(|| {
        ApiError::bad_request(
            "该品牌摄像头未配置直播地址",
            "No live-view address is configured for this camera brand",
        )
    })?;
    Ok(Data(live_url(
        template,
        &serial,
        channel.unwrap_or(1),
        verification.as_deref().unwrap_or(""),
        application_key.as_deref().unwrap_or(""),
    )))
}

/// A camera: its declared fields (`null` when unset; the app key only as whether it is set),
/// `stationName` and the audit times, in their wire order.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Camera {
    pub app_key_set: bool,
    pub application_key: Option<String>,
    /// Dictionary `camera_brand`.
    pub camera_type: Option<String>,
    pub channel: Option<i64>,
    pub create_time: String,
    pub id: Id,
    pub name: Option<String>,
    pub remark: Option<String>,
    pub sn: Option<String>,
    pub station_id: Option<Id>,
    pub station_name: Option<String>,
    pub update_time: Option<String>,
    pub verification_code: Option<String>,
}

impl Camera {
    fn from_row(r: &AnyRow) -> Result<Camera, ApiError> {
        let r = DeviceRow(r);
        Ok(Camera {
            app_key_set: r.is_set("app_key_enc")?,
            application_key: r.text("application_key")?,
            camera_type: r.text("camera_type")?,
            channel: r.int("channel")?,
            create_time: r.create_time()?,
            id: r.id()?,
            name: r.text("name")?,
            remark: r.text("remark")?,
            sn: r.text("sn")?,
            station_id: r.id_of("station_id")?,
            station_name: r.station_name()?,
            update_time: r.update_time()?,
            verification_code: r.text("verification_code")?,
        })
    }
}
