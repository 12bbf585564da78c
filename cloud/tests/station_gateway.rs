//! Gateway provisioning over a real server and database: MQTT credentials (shown once, stored
//! hashed, rotated), the generated edge configuration (checked by the edge agent's own parser),
//! and tenant isolation.

use crate::support;

use pv_cloud::kernel::Id;
use pv_cloud::kernel::sql::Value;
use pv_cloud::station::gateway::verify_gateway;
use reqwest::Method;
use serde_json::{Value as Json, json};
use support::{Client, Device, Reply, TestApp, assert_failure};

fn repo_maps_dir() -> String {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../firmware-configs")
        .canonicalize()
        .expect("firmware-configs")
        .display()
        .to_string()
}

async fn configured_app() -> TestApp {
    TestApp::start_configured(|c| {
        c.broker.public_url = "mqtt://hub.example.com:1884".into();
        c.broker.gateway_maps_dir = repo_maps_dir();
        c.broker.gateway_password_file = "mqtt-password".into();
    })
    .await
}

#[tokio::test]
async fn credentials_are_shown_once_stored_hashed_and_rotated() {
    let app = configured_app().await;
    let t = app.gateway_manager("100001", "mgr").await;

    // No gateway id yet, or one that cannot be an MQTT identity.
    let bare = app.as_user(&t).station_with(json!({"name": "Bare"})).await;
    let Reply { status, body, .. } = app.as_user(&t).gateway_credentials(&bare).await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "请先填写电站的网关ID");
    let Reply { status, body, .. } = app
        .as_user(&t)
        .en()
        .post(&format!("/api/station/gateway/credentials?stationId={bare}"))
        .await;
    assert_eq!(
        (status, body["msg"].as_str()),
        (400, Some("Set the station's gateway id first"))
    );
    let spaced = app
        .as_user(&t)
        .station_with(json!({"name": "Spaced", "gatewayId": "GW 1/x"}))
        .await;
    let Reply { status, body, .. } = app.as_user(&t).gateway_credentials(&spaced).await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "网关ID只能包含1-64个字母、数字、“-”或“_”");

    let s = app
        .as_user(&t)
        .station_with(json!({"name": "Plant", "gatewayId": "GW-0001"}))
        .await;
    let info = app
        .as_user(&t)
        .get_data(&format!("/api/station/gateway?stationId={s}"))
        .await;
    assert_eq!(info["gatewayId"], "GW-0001");
    assert_eq!(info["credentialsIssued"], false);
    assert_eq!(info["issuedAt"], Json::Null);

    // Issued: the password is answered this once.
    let Reply { status, body, .. } = app.as_user(&t).gateway_credentials(&s).await;
    assert_eq!(status, 200, "{body}");
    let pw1 = body["data"]["password"].as_str().expect("password").to_owned();
    assert_eq!(pw1.len(), 32);
    assert_eq!(body["data"]["username"], "GW-0001");
    assert_eq!(body["data"]["passwordFile"], "mqtt-password");
    let stored: Vec<String> = {
        let mut sql = pv_cloud::kernel::sql::Sql::default();
        sql.push_bind(
            "SELECT password_hash FROM pv_gateway_credential WHERE gateway_id = ?",
            [Value::from("GW-0001")],
        );
        let (text, args) = sql.build().expect("sql");
        sqlx::query_scalar_with::<sqlx::Any, String, _>(sqlx::AssertSqlSafe(text), args)
            .fetch_all(app.state.db.pool())
            .await
            .expect("query")
    };
    assert_eq!(stored.len(), 1);
    assert!(stored[0].starts_with("$argon2id$"), "{}", stored[0]);
    assert!(!stored[0].contains(&pw1), "only a hash is stored");

    let Reply { body: raw, .. } = app
        .as_user(&t)
        .get(&format!("/api/station/gateway?stationId={s}"))
        .await;
    assert_eq!(raw["data"]["credentialsIssued"], true);
    assert!(raw["data"]["issuedAt"].as_str().is_some_and(|t| t.len() == 19));
    assert!(!raw.to_string().contains(&pw1), "never shown again");

    let station_id = Id(s.parse().expect("id"));
    let who = verify_gateway(&app.state, "GW-0001", &pw1).await.expect("verify");
    assert_eq!(who.as_ref().map(|w| w.station), Some(station_id));
    assert_eq!(who.map(|w| w.tenant).as_deref(), Some("100001"));
    assert_eq!(
        verify_gateway(&app.state, "GW-0001", "wrong")
            .await
            .expect("verify"),
        None
    );
    assert_eq!(
        verify_gateway(&app.state, "GW-0002", &pw1).await.expect("verify"),
        None
    );

    // Rotation: the old password stops working.
    let Reply { status, body, .. } = app.as_user(&t).gateway_credentials(&s).await;
    assert_eq!(status, 200, "{body}");
    let pw2 = body["data"]["password"].as_str().expect("password").to_owned();
    assert_ne!(pw1, pw2);
    assert_eq!(
        verify_gateway(&app.state, "GW-0001", &pw1).await.expect("verify"),
        None
    );
    assert!(
        verify_gateway(&app.state, "GW-0001", &pw2)
            .await
            .expect("verify")
            .is_some()
    );
    assert_eq!(
        app.scalar_i64("SELECT COUNT(*) FROM pv_gateway_credential", vec![])
            .await,
        1
    );

    // A station that changes its gateway id leaves the old credentials behind.
    let Reply { status, body, .. } = app
        .as_user(&t)
        .put_json("/api/station", json!({"id": s, "gatewayId": "GW-0002"}))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        verify_gateway(&app.state, "GW-0001", &pw2).await.expect("verify"),
        None
    );
    assert_eq!(
        verify_gateway(&app.state, "GW-0002", &pw2).await.expect("verify"),
        None
    );
    let info = app
        .as_user(&t)
        .get_data(&format!("/api/station/gateway?stationId={s}"))
        .await;
    assert_eq!(info["credentialsIssued"], false);

    // Without the gateway button: no credentials, no config; reading the state is allowed.
    app.create_tenant_user("100001", "plain", "secret1", support::STATION_MENUS, None)
        .await;
    let p = app.as_user(&app.token_of("100001", "plain", "secret1").await);
    let Reply { status, .. } = p.gateway_credentials(&s).await;
    assert_eq!(status, 403);
    let (status, _, _) = p
        .raw(Method::GET, &format!("/api/station/gateway/config?stationId={s}"))
        .await;
    assert_eq!(status, 403);
    let Reply { status, .. } = p.get(&format!("/api/station/gateway?stationId={s}")).await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn gateway_ids_are_unique_across_tenants_and_tenants_see_nothing_of_each_other() {
    let app = configured_app().await;
    let a = app.as_user(&app.gateway_manager("100001", "mgr_a").await);
    let b = app.as_user(&app.gateway_manager("100002", "mgr_b").await);
    let sa = a
        .station_with(json!({"name": "A", "gatewayId": "GW-SHARED"}))
        .await;
    let Reply { status, body, .. } = a.gateway_credentials(&sa).await;
    assert_eq!(status, 200, "{body}");
    let pa = body["data"]["password"].as_str().expect("password").to_owned();

    // Another tenant cannot see, rotate or download anything of A's station.
    for path in [
        format!("/api/station/gateway?stationId={sa}"),
        format!("/api/station/gateway/config?stationId={sa}"),
    ] {
        let (status, _, _) = b.raw(Method::GET, &path).await;
        assert_eq!(status, 404, "{path}");
    }
    let Reply { status, .. } = b.gateway_credentials(&sa).await;
    assert_eq!(status, 404);
    assert!(
        verify_gateway(&app.state, "GW-SHARED", &pa)
            .await
            .expect("verify")
            .is_some()
    );

    // The gateway id is the MQTT username: one per installation.
    let sb = b
        .station_with(json!({"name": "B", "gatewayId": "GW-SHARED"}))
        .await;
    let Reply { status, body, .. } = b.gateway_credentials(&sb).await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "该网关ID已被其他电站使用");
    assert!(
        verify_gateway(&app.state, "GW-SHARED", &pa)
            .await
            .expect("verify")
            .is_some()
    );

    // Once A's station is gone, its credentials die with it and the id is free.
    let Reply { status, body, .. } = a.delete(&format!("/api/station/{sa}?confirm=true")).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        verify_gateway(&app.state, "GW-SHARED", &pa)
            .await
            .expect("verify"),
        None
    );
    let Reply { status, body, .. } = b.gateway_credentials(&sb).await;
    assert_eq!(status, 200, "{body}");
    let pb = body["data"]["password"].as_str().expect("password").to_owned();
    let who = verify_gateway(&app.state, "GW-SHARED", &pb)
        .await
        .expect("verify");
    assert_eq!(who.map(|w| w.tenant).as_deref(), Some("100002"));
}

#[tokio::test]
async fn the_generated_config_lists_the_devices_and_passes_the_edge_check() {
    let app = configured_app().await;
    let t = app.as_user(&app.gateway_manager("100001", "mgr").await);
    let s = t
        .station_with(json!({"name": "Plant", "gatewayId": "GW-CFG-1"}))
        .await;
    for (path, body) in [
        (
            "/api/inverter",
            json!({"stationId": s, "name": "INV-1", "sn": "INV-SN-1", "stringsCount": 2,
                "mapModel": "huawei-sun2000-ktl", "unitId": 1}),
        ),
        (
            "/api/inverter",
            json!({"stationId": s, "name": "INV-2", "sn": "INV-SN-2", "stringsCount": 2,
                "mapModel": "sungrow-sg-cx", "unitId": 2, "modbusAddress": "/dev/ttyUSB0",
                "gatewayId": "GW-CFG-1"}),
        ),
        (
            "/api/inverter",
            json!({"stationId": s, "name": "No map", "sn": "INV-NOMAP", "stringsCount": 1, "unitId": 3}),
        ),
        (
            "/api/inverter",
            json!({"stationId": s, "name": "Elsewhere", "sn": "INV-OTHER", "stringsCount": 1,
                "mapModel": "sungrow-sg-cx", "unitId": 4, "gatewayId": "GW-OTHER"}),
        ),
        (
            "/api/meter",
            json!({"stationId": s, "name": "Grid", "meterRole": "1", "sn": "MTR-1", "ctRatio": 40,
                "ptRatio": 1, "mapModel": "chint-dtsu666", "unitId": 10}),
        ),
        (
            "/api/weather",
            json!({"stationId": s, "name": "Met", "sn": "MET-1", "mapModel": "sunspec-met-station",
                "unitId": 1, "modbusAddress": "192.168.10.20:502"}),
        ),
    ] {
        let Reply {
            status, body: res, ..
        } = t.post_json(path, body.clone()).await;
        assert_eq!(status, 200, "{body}: {res}");
    }
    let Reply { status, body, .. } = t.gateway_credentials(&s).await;
    assert_eq!(status, 200, "{body}");
    let password = body["data"]["password"].as_str().expect("password").to_owned();

    let (status, headers, bytes) = t
        .raw(Method::GET, &format!("/api/station/gateway/config?stationId={s}"))
        .await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&bytes));
    let disposition = headers
        .get("content-disposition")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    assert_eq!(disposition, "attachment; filename=\"pv-edge-GW-CFG-1.toml\"");
    assert_eq!(
        headers.get("x-password-file").and_then(|v| v.to_str().ok()),
        Some("mqtt-password")
    );
    let text = String::from_utf8(bytes).expect("utf-8");
    assert!(!text.contains(&password), "the password is never in the config");
    assert!(text.contains("# not included: inverter INV-NOMAP"), "{text}");
    assert!(text.contains("# not included: inverter INV-OTHER"), "{text}");

    let parsed: toml::Table = toml::from_str(&text).expect("TOML");
    assert_eq!(parsed["gateway_id"].as_str(), Some("GW-CFG-1"));
    assert_eq!(parsed["mqtt"]["host"].as_str(), Some("hub.example.com"));
    assert_eq!(parsed["mqtt"]["port"].as_integer(), Some(1884));
    assert_eq!(parsed["mqtt"]["username"].as_str(), Some("GW-CFG-1"));
    assert_eq!(parsed["mqtt"]["password_file"].as_str(), Some("mqtt-password"));
    let mut devices: Vec<(String, String, i64)> = parsed["bus"]
        .as_array()
        .expect("buses")
        .iter()
        .flat_map(|b| b["device"].as_array().cloned().unwrap_or_default())
        .map(|d| {
            (
                d["id"].as_str().unwrap_or_default().to_owned(),
                d["map"].as_str().unwrap_or_default().to_owned(),
                d["unit"].as_integer().unwrap_or_default(),
            )
        })
        .collect();
    devices.sort();
    assert_eq!(
        devices,
        vec![
            ("INV-SN-1".into(), "huawei-sun2000-ktl".into(), 1),
            ("INV-SN-2".into(), "sungrow-sg-cx".into(), 2),
            ("MET-1".into(), "sunspec-met-station".into(), 1),
            ("MTR-1".into(), "chint-dtsu666".into(), 10),
        ]
    );

    // The edge agent's own parser accepts it (with the password where the config says).
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("pv-edge.toml");
    std::fs::write(&file, &text).expect("write config");
    std::fs::write(dir.path().join("mqtt-password"), format!("{password}\n")).expect("write password");
    let out = std::process::Command::new(support::pv_edge_binary())
        .arg("check")
        .arg("--config")
        .arg(&file)
        .output()
        .expect("run pv-edge check");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "pv-edge check refused:\n{stdout}\n{}\n{text}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("gateway GW-CFG-1, 2 buses, 4 devices: ok"),
        "{stdout}"
    );
}

// ---- Excel ----

/// A refused import: the failure envelope with the row-level report in `data.errors`.
fn assert_report(status: u16, body: &Json) {
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["code"], 400, "{body}");
    assert_eq!(body["success"], false, "{body}");
    assert!(
        body["data"]["errors"].as_array().is_some_and(|e| !e.is_empty()),
        "{body}"
    );
}

/// An .xlsx of one sheet: the header row, then the rows (numbers as numbers).
fn xlsx(header: &[&str], rows: &[Vec<&str>]) -> Vec<u8> {
    let mut book = rust_xlsxwriter::Workbook::new();
    let ws = book.add_worksheet();
    for (c, h) in header.iter().enumerate() {
        ws.write_string(0, c as u16, *h).expect("write");
    }
    for (r, row) in rows.iter().enumerate() {
        for (c, v) in row.iter().enumerate() {
            let (r, c) = (r as u32 + 1, c as u16);
            if v.is_empty() {
                continue;
            }
            match v.parse::<f64>() {
                Ok(n) if !v.starts_with('0') || v.len() == 1 => ws.write_number(r, c, n).expect("write"),
                _ => ws.write_string(r, c, *v).expect("write"),
            };
        }
    }
    book.save_to_buffer().expect("xlsx")
}

/// The cells of the first sheet of an .xlsx as text.
fn cells(bytes: Vec<u8>) -> Vec<Vec<String>> {
    use calamine::Reader;
    let mut book = calamine::open_workbook_auto_from_rs(std::io::Cursor::new(bytes)).expect("workbook");
    let range = book.worksheet_range_at(0).expect("sheet").expect("range");
    range
        .rows()
        .map(|r| r.iter().map(|c| c.to_string()).collect())
        .collect()
}

async fn download(caller: &Client<'_>, path: &str) -> Vec<Vec<String>> {
    let (status, headers, bytes) = caller.raw(Method::GET, path).await;
    assert_eq!(status, 200, "{path}: {}", String::from_utf8_lossy(&bytes));
    assert_eq!(
        headers.get("content-type").and_then(|v| v.to_str().ok()),
        Some("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")
    );
    assert!(
        headers
            .get("content-disposition")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("attachment")),
        "{path}"
    );
    cells(bytes)
}

/// The header of the station import template.
const STATION_HEADER: [&str; 6] = ["电站名称*", "电站地址", "纬度", "经度", "业主电话", "网关ID"];

/// The header of the inverter import template.
const INVERTER_HEADER: [&str; 7] = [
    "电站名称*",
    "逆变器名称*",
    "逆变器SN*",
    "组串数*",
    "每串组件数",
    "点表模型",
    "Modbus从站地址",
];

/// Imports stations S-A and S-C, then inverters SN-1 (on S-A) and SN-2 (on S-C), as the good
/// files of the import test do.
async fn imported(caller: &Client<'_>) {
    let good = xlsx(
        &STATION_HEADER,
        &[
            vec!["S-A", "Road 1", "30.5", "120.1", "13800000001", "GW-A"],
            vec!["S-C", "Road 3", "31", "121", "", ""],
        ],
    );
    caller
        .upload_file("/api/station/import", "stations.xlsx", good)
        .await
        .ok();
    let good = xlsx(
        &INVERTER_HEADER,
        &[
            vec!["S-A", "INV-1", "SN-1", "2", "20,20", "huawei-sun2000-ktl", "1"],
            vec!["S-C", "INV-2", "SN-2", "1", "", "sungrow-sg-cx", "2"],
        ],
    );
    caller
        .upload_file("/api/inverter/import", "inv.xlsx", good)
        .await
        .ok();
}

#[tokio::test]
async fn import_templates_carry_the_form_labels_and_only_excel_files_are_taken() {
    let app = TestApp::start().await;
    let t = app.as_user(&app.gateway_manager("100001", "mgr").await);

    // Templates parse back with calamine and carry the forms' labels.
    let st = download(&t, "/api/station/import-template").await;
    assert_eq!(st.len(), 1, "header only");
    assert_eq!(st[0][0], "电站名称*");
    assert!(
        st[0].contains(&"纬度".to_owned()) && st[0].contains(&"网关ID".to_owned()),
        "{:?}",
        st[0]
    );
    assert!(!st[0].contains(&"业主".to_owned()), "ids do not travel in sheets");
    let it = download(&t, "/api/inverter/import-template").await;
    for h in [
        "电站名称*",
        "逆变器名称*",
        "逆变器SN*",
        "组串数*",
        "点表模型",
        "Modbus从站地址",
    ] {
        assert!(it[0].contains(&h.to_owned()), "{h} in {:?}", it[0]);
    }

    // Only .xls/.xlsx.
    let Reply { status, body, .. } = t
        .upload_file("/api/station/import", "stations.txt", b"name\nS".to_vec())
        .await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "请上传 .xls 或 .xlsx 格式的文件");
    let Reply { status, body, .. } = t
        .upload_file("/api/inverter/import", "x.csv", b"a,b".to_vec())
        .await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "请上传 .xls 或 .xlsx 格式的文件");
    let Reply { status, body, .. } = t
        .upload_file("/api/station/import", "fake.xlsx", b"not a workbook".to_vec())
        .await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "无法读取该Excel文件，请使用导入模板");
}

#[tokio::test]
async fn a_station_file_with_a_bad_row_imports_nothing_and_reports_each_problem_in_the_callers_language() {
    let app = TestApp::start().await;
    let t = app.as_user(&app.gateway_manager("100001", "mgr").await);

    // One bad row: nothing imported, every problem of that row reported.
    let bad = xlsx(
        &STATION_HEADER,
        &[
            vec!["S-A", "Road 1", "30.5", "120.1", "13800000001", "GW-A"],
            vec!["S-B", "Road 2", "91", "120.2", "12345", ""],
            vec!["S-C", "Road 3", "31", "121", "", ""],
        ],
    );
    let Reply { status, body, .. } = t.upload_file("/api/station/import", "stations.xlsx", bad).await;
    assert_report(status, &body);
    assert_eq!(body["msg"], "导入失败：共2处错误，未导入任何数据");
    let errors = body["data"]["errors"].as_array().expect("errors").clone();
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(errors.iter().all(|e| e["row"] == 3), "{errors:?}");
    assert_eq!(errors[0]["field"], "ownerPhone");
    assert_eq!(errors[0]["label"], "业主电话");
    assert_eq!(errors[0]["message"], "业主电话：请输入正确的11位手机号码");
    assert_eq!(errors[1]["field"], "latitude");
    assert_eq!(errors[1]["label"], "纬度");
    assert_eq!(errors[1]["message"], "纬度必须在-90到90之间");
    assert_eq!(app.scalar_i64("SELECT COUNT(*) FROM pv_station", vec![]).await, 0);
    // The report in English.
    let bad_en = xlsx(&STATION_HEADER, &[vec!["S-B", "", "91", "", "", ""]]);
    let form = reqwest::multipart::Form::new().part(
        "file",
        reqwest::multipart::Part::bytes(bad_en).file_name("s.XLSX"),
    );
    let Reply { status, body, .. } = app
        .send(
            t.request(Method::POST, "/api/station/import")
                .header("Accept-Language", "en")
                .multipart(form),
        )
        .await;
    assert_report(status, &body);
    assert_eq!(body["data"]["errors"][0]["label"], "latitude");
    assert_eq!(
        body["data"]["errors"][0]["message"],
        "The latitude must be between -90 and 90"
    );
}

#[tokio::test]
async fn a_good_station_file_creates_every_row_commissioning() {
    let app = TestApp::start().await;
    let t = app.as_user(&app.gateway_manager("100001", "mgr").await);

    // A good file creates every row.
    let good = xlsx(
        &STATION_HEADER,
        &[
            vec!["S-A", "Road 1", "30.5", "120.1", "13800000001", "GW-A"],
            vec!["S-C", "Road 3", "31", "121", "", ""],
        ],
    );
    let Reply { status, body, .. } = t.upload_file("/api/station/import", "stations.xlsx", good).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["imported"], 2);
    let page = t.get_data("/api/station/page?name=S-A").await;
    assert_eq!(page["total"], 1);
    assert_eq!(page["records"][0]["latitude"], 30.5);
    assert_eq!(page["records"][0]["gatewayId"], "GW-A");
    assert_eq!(
        page["records"][0]["installationStatus"], "1",
        "imported stations are commissioning"
    );
}

#[tokio::test]
async fn inverter_imports_find_stations_by_name_check_the_form_and_keep_sns_unique() {
    let app = TestApp::start().await;
    let t = app.as_user(&app.gateway_manager("100001", "mgr").await);

    let good = xlsx(
        &STATION_HEADER,
        &[
            vec!["S-A", "Road 1", "30.5", "120.1", "13800000001", "GW-A"],
            vec!["S-C", "Road 3", "31", "121", "", ""],
        ],
    );
    t.upload_file("/api/station/import", "stations.xlsx", good)
        .await
        .ok();

    // Inverters: stations by name, the form's rules, SNs unique in the file and the tenant.
    let bad = xlsx(
        &INVERTER_HEADER,
        &[
            vec!["S-A", "INV-1", "SN-1", "2", "20,20", "huawei-sun2000-ktl", "1"],
            vec!["S-A", "INV-2", "SN-1", "2", "", "", ""],
            vec!["Nowhere", "INV-3", "SN-3", "1", "", "", ""],
            vec!["S-C", "INV-4", "SN-4", "2", "20", "eastron-sdm630", "300"],
        ],
    );
    let Reply { status, body, .. } = t.upload_file("/api/inverter/import", "inv.xlsx", bad).await;
    assert_report(status, &body);
    let errors: Vec<(i64, String, String)> = body["data"]["errors"]
        .as_array()
        .expect("errors")
        .iter()
        .map(|e| {
            (
                e["row"].as_i64().unwrap_or_default(),
                e["field"].as_str().unwrap_or_default().to_owned(),
                e["message"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        errors,
        vec![
            (3, "sn".into(), "SN与第2行重复：SN-1".into()),
            (4, "stationId".into(), "电站不存在：Nowhere".into()),
            (5, "mapModel".into(), "点表模型不存在：eastron-sdm630".into()),
            (5, "unitId".into(), "Modbus从站地址必须在1到247之间".into()),
        ]
    );
    assert_eq!(
        app.scalar_i64("SELECT COUNT(*) FROM pv_inverter", vec![]).await,
        0
    );

    let good = xlsx(
        &INVERTER_HEADER,
        &[
            vec!["S-A", "INV-1", "SN-1", "2", "20,20", "huawei-sun2000-ktl", "1"],
            vec!["S-C", "INV-2", "SN-2", "1", "", "sungrow-sg-cx", "2"],
        ],
    );
    let Reply { status, body, .. } = t
        .upload_file("/api/inverter/import", "inv.xls.xlsx", good.clone())
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["imported"], 2);
    let page = t.get_data("/api/inverter/page?sn=SN-1").await;
    assert_eq!(page["records"][0]["stationName"], "S-A");
    assert_eq!(page["records"][0]["modulesPerString"], json!([20, 20]));
    // The same file again: the SNs are taken now, nothing more is imported.
    let Reply { status, body, .. } = t.upload_file("/api/inverter/import", "inv.xlsx", good).await;
    assert_report(status, &body);
    assert_eq!(body["data"]["errors"][0]["message"], "设备SN已存在：SN-1");
    assert_eq!(
        app.scalar_i64("SELECT COUNT(*) FROM pv_inverter", vec![]).await,
        2
    );
}

#[tokio::test]
async fn exports_list_the_filtered_rows_in_the_template_layout() {
    let app = TestApp::start().await;
    let t = app.as_user(&app.gateway_manager("100001", "mgr").await);

    imported(&t).await;

    // Exports: the filtered list in the template's layout.
    let rows = download(&t, "/api/station/export").await;
    assert_eq!(rows[0][0], "电站名称*");
    let mut names: Vec<&str> = rows[1..].iter().map(|r| r[0].as_str()).collect();
    names.sort();
    assert_eq!(names, vec!["S-A", "S-C"]);
    let rows = download(&t, "/api/station/export?name=S-C").await;
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[1][0], "S-C");
    let rows = download(&t, "/api/inverter/export").await;
    let sn_col = rows[0].iter().position(|h| h == "逆变器SN*").expect("SN column");
    let mut sns: Vec<&str> = rows[1..].iter().map(|r| r[sn_col].as_str()).collect();
    sns.sort();
    assert_eq!(sns, vec!["SN-1", "SN-2"]);
    assert!(
        rows[1..]
            .iter()
            .any(|r| r[0] == "S-A" && r.contains(&"20,20".to_owned()))
    );
}

#[tokio::test]
async fn another_tenant_exports_nothing_and_cannot_import_onto_these_stations() {
    let app = TestApp::start().await;
    let t = app.gateway_manager("100001", "mgr").await;

    imported(&app.as_user(&t)).await;

    // Another tenant: sees none of it, cannot import onto these stations.
    let b = app.as_user(&app.gateway_manager("100002", "mgr_b").await);
    let rows = download(&b, "/api/station/export").await;
    assert_eq!(rows.len(), 1, "header only");
    let rows = download(&b, "/api/inverter/export").await;
    assert_eq!(rows.len(), 1, "header only");
    let onto_a = xlsx(&INVERTER_HEADER, &[vec!["S-A", "INV-X", "SN-X", "1", "", "", ""]]);
    let Reply { status, body, .. } = b.upload_file("/api/inverter/import", "inv.xlsx", onto_a).await;
    assert_report(status, &body);
    assert_eq!(body["data"]["errors"][0]["message"], "电站不存在：S-A");
    assert_eq!(
        app.scalar_i64("SELECT COUNT(*) FROM pv_inverter", vec![]).await,
        2
    );
}

#[tokio::test]
async fn without_the_buttons_there_is_no_import_or_export() {
    let app = TestApp::start().await;
    app.gateway_manager("100001", "mgr").await;

    // Without the buttons: no import, no export.
    app.create_tenant_user("100001", "plain", "secret1", support::STATION_MENUS, None)
        .await;
    let p = app.as_user(&app.token_of("100001", "plain", "secret1").await);
    let Reply { status, .. } = p
        .upload_file(
            "/api/station/import",
            "s.xlsx",
            xlsx(&STATION_HEADER, &[vec!["S-Z"]]),
        )
        .await;
    assert_eq!(status, 403);
    let (status, _, _) = p.raw(Method::GET, "/api/inverter/export").await;
    assert_eq!(status, 403);
}

// ---- flexible brackets ----

/// A gateway manager of tenant 100001 with "Tracker plant" (gateway GW-FLEX, inverter INV-9) and
/// "Fixed plant", and the form of bracket "Row 1" (TRK-1, two sensors) for the tracker plant;
/// returns (app, token, tracker station, fixed station, bracket form).
async fn bracket_plant() -> (TestApp, String, String, String, Json) {
    let app = configured_app().await;
    let t = app.gateway_manager("100001", "mgr").await;
    let s = app
        .as_user(&t)
        .station_with(json!({"name": "Tracker plant", "gatewayId": "GW-FLEX"}))
        .await;
    let other = app.as_user(&t).station_with(json!({"name": "Fixed plant"})).await;
    let Reply { status, body, .. } = app
        .as_user(&t)
        .post_json(
            "/api/inverter",
            json!({"stationId": s, "name": "I", "sn": "INV-9", "stringsCount": 1}),
        )
        .await;
    assert_eq!(status, 200, "{body}");

    let good = json!({"stationId": s, "name": "Row 1", "sn": "TRK-1", "mapModel": "pv-reference-tracker",
    "unitId": 5, "modbusAddress": "rtu-over-tcp://192.168.10.30:4001",
    "sensors": [
        {"name": "Inclinometer", "kind": "angle", "unitId": 6},
        {"name": "Anemometer", "kind": "wind", "point": "wind_speed"},
    ]});
    (app, t, s, other, good)
}

#[tokio::test]
async fn bracket_forms_are_validated_and_a_refused_one_saves_nothing() {
    let (app, t, _s, _other, good) = bracket_plant().await;
    let with = |patch: Json| {
        let mut b = good.clone();
        for (k, v) in patch.as_object().expect("object") {
            b[k] = v.clone();
        }
        b
    };
    for (bad, zh) in [
        (with(json!({"name": ""})), "请输入支架名称"),
        (with(json!({"sn": null})), "请输入控制器SN"),
        (
            with(json!({"mapModel": "sunspec-inverter"})),
            "点表模型不存在：sunspec-inverter",
        ),
        (with(json!({"unitId": 0})), "Modbus从站地址必须在1到247之间"),
        (with(json!({"stationId": "424242"})), "电站不存在"),
        (with(json!({"sn": "INV-9"})), "设备SN已存在：INV-9"),
        (
            with(json!({"sensors": [{"name": "x", "kind": "laser", "unitId": 1}]})),
            "第1个传感器：传感器类型无效：laser",
        ),
        (
            with(json!({"sensors": [{"kind": "angle", "unitId": 1}]})),
            "第1个传感器：请输入传感器名称",
        ),
        (
            with(json!({"sensors": [{"name": "a", "kind": "angle"}]})),
            "第1个传感器：请填写从站地址或测点",
        ),
        (
            with(
                json!({"sensors": [{"name": "a", "kind": "angle", "unitId": 1}, {"name": "a", "kind": "wind", "unitId": 2}]}),
            ),
            "传感器名称重复：a",
        ),
    ] {
        let Reply { status, body, .. } = app.as_user(&t).post_json("/api/flex", bad.clone()).await;
        assert_failure(status, &body, 400);
        assert_eq!(body["msg"], zh, "{bad}");
    }
    let Reply { status, body, .. } = app
        .as_user(&t)
        .en()
        .post_json(
            "/api/flex",
            with(json!({"sensors": [{"name": "x", "kind": "laser", "unitId": 1}]})),
        )
        .await;
    assert_eq!(status, 400);
    assert!(
        body["msg"]
            .as_str()
            .is_some_and(|m| m.starts_with("Sensor 1: unknown kind laser")),
        "{body}"
    );
    assert_eq!(
        app.scalar_i64("SELECT COUNT(*) FROM pv_flex", vec![]).await,
        0,
        "nothing half-saved"
    );
    assert_eq!(
        app.scalar_i64("SELECT COUNT(*) FROM pv_flex_sensor", vec![])
            .await,
        0
    );
}

#[tokio::test]
async fn a_station_has_one_bracket_its_sn_is_a_device_sn_and_the_lists_show_it() {
    let (app, t, s, other, good) = bracket_plant().await;
    let with = |patch: Json| {
        let mut b = good.clone();
        for (k, v) in patch.as_object().expect("object") {
            b[k] = v.clone();
        }
        b
    };
    let Reply { status, body, .. } = app.as_user(&t).post_json("/api/flex", good.clone()).await;
    assert_eq!(status, 200, "{body}");
    let Reply { status, body, .. } = app
        .as_user(&t)
        .post_json("/api/flex", with(json!({"sn": "TRK-2"})))
        .await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "该电站已配置柔性支架");
    // Its SN is a device SN of the tenant like any other.
    let Reply { status, body, .. } = app
        .as_user(&t)
        .post_json(
            "/api/inverter",
            json!({"stationId": other, "name": "I2", "sn": "TRK-1", "stringsCount": 1}),
        )
        .await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "设备SN已存在：TRK-1");

    let d = app
        .as_user(&t)
        .get_data(&format!("/api/flex/getEditData?stationId={s}"))
        .await;
    assert_eq!(d["name"], "Row 1");
    assert_eq!(d["stationName"], "Tracker plant");
    assert_eq!(d["mapModel"], "pv-reference-tracker");
    assert_eq!(d["sensors"][0]["name"], "Inclinometer");
    assert_eq!(d["sensors"][1]["point"], "wind_speed");
    assert_eq!(
        app.as_user(&t)
            .get_data(&format!("/api/flex/getEditData?stationId={other}"))
            .await,
        Json::Null
    );
    let sensors = app
        .as_user(&t)
        .get_data(&format!("/api/flex/sensorList?stationId={s}"))
        .await;
    assert_eq!(sensors.as_array().map(Vec::len), Some(2));
    let list = app.as_user(&t).get_data("/api/flex/list").await;
    assert_eq!(list.as_array().map(Vec::len), Some(1));
    assert_eq!(list[0]["sensorCount"], 2);
    let names = app.as_user(&t).get_data("/api/flex/listStationName").await;
    let has: Vec<(String, bool)> = names
        .as_array()
        .expect("names")
        .iter()
        .map(|n| {
            (
                n["name"].as_str().unwrap_or_default().to_owned(),
                n["hasFlex"] == true,
            )
        })
        .collect();
    assert_eq!(
        has,
        vec![("Fixed plant".into(), false), ("Tracker plant".into(), true)]
    );
}

#[tokio::test]
async fn bracket_edits_change_named_fields_and_replace_the_sensors_only_when_sent() {
    let (app, t, s, other, good) = bracket_plant().await;
    app.as_user(&t).device(Device::Bracket, good.clone()).await;
    // Edit: named fields change, sensors replaced only when sent.
    let Reply { status, body, .. } = app
        .as_user(&t)
        .put_json("/api/flex", json!({"stationId": s, "name": "Row 1A"}))
        .await;
    assert_eq!(status, 200, "{body}");
    let d = app
        .as_user(&t)
        .get_data(&format!("/api/flex/getEditData?stationId={s}"))
        .await;
    assert_eq!(
        (d["name"].as_str(), d["sensors"].as_array().map(Vec::len)),
        (Some("Row 1A"), Some(2))
    );
    let Reply { status, body, .. } = app
        .as_user(&t)
        .put_json(
            "/api/flex",
            json!({"stationId": s, "sensors": [{"name": "Motor", "kind": "motor", "unitId": 7}]}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let sensors = app
        .as_user(&t)
        .get_data(&format!("/api/flex/sensorList?stationId={s}"))
        .await;
    assert_eq!(sensors.as_array().map(Vec::len), Some(1));
    assert_eq!(sensors[0]["kind"], "motor");
    let Reply { status, body, .. } = app
        .as_user(&t)
        .put_json("/api/flex", json!({"stationId": s, "unitId": 300}))
        .await;
    assert_failure(status, &body, 400);
    let Reply { status, body, .. } = app
        .as_user(&t)
        .put_json("/api/flex", json!({"stationId": other, "name": "x"}))
        .await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "该电站未配置柔性支架");
}

#[tokio::test]
async fn the_tracker_controller_is_polled_by_the_station_gateway() {
    let (app, t, s, _other, good) = bracket_plant().await;
    app.as_user(&t).device(Device::Bracket, good.clone()).await;
    // The tracker controller is polled by the station's gateway.
    let (status, _, bytes) = app
        .as_user(&t)
        .raw(Method::GET, &format!("/api/station/gateway/config?stationId={s}"))
        .await;
    assert_eq!(status, 200);
    let cfg: toml::Table = toml::from_str(&String::from_utf8_lossy(&bytes)).expect("TOML");
    let bus = cfg["bus"]
        .as_array()
        .and_then(|b| b.iter().find(|b| b["transport"].as_str() == Some("rtu-over-tcp")))
        .expect("tracker bus");
    assert_eq!(bus["address"].as_str(), Some("192.168.10.30:4001"));
    assert_eq!(bus["device"][0]["id"].as_str(), Some("TRK-1"));
    assert_eq!(bus["device"][0]["map"].as_str(), Some("pv-reference-tracker"));
    assert_eq!(bus["device"][0]["unit"].as_integer(), Some(5));
}

#[tokio::test]
async fn another_tenant_or_a_user_without_the_buttons_cannot_change_a_bracket() {
    let (app, t, s, _other, good) = bracket_plant().await;
    let with = |patch: Json| {
        let mut b = good.clone();
        for (k, v) in patch.as_object().expect("object") {
            b[k] = v.clone();
        }
        b
    };
    app.as_user(&t).device(Device::Bracket, good.clone()).await;
    app.as_user(&t)
        .put_json("/api/flex", json!({"stationId": s, "name": "Row 1A"}))
        .await
        .ok();
    // Another tenant sees and changes nothing.
    let b = app.gateway_manager("100002", "mgr_b").await;
    assert_eq!(app.as_user(&b).get_data("/api/flex/list").await, json!([]));
    assert_eq!(
        app.as_user(&b).get_data("/api/flex/listStationName").await,
        json!([])
    );
    for path in [
        format!("/api/flex/getEditData?stationId={s}"),
        format!("/api/flex/sensorList?stationId={s}"),
    ] {
        let Reply { status, .. } = app.as_user(&b).get(&path).await;
        assert_eq!(status, 404, "{path}");
    }
    let Reply { status, .. } = app
        .as_user(&b)
        .put_json("/api/flex", json!({"stationId": s, "name": "hacked"}))
        .await;
    assert_eq!(status, 404);
    let Reply { status, body, .. } = app
        .as_user(&b)
        .post_json("/api/flex", with(json!({"sn": "TRK-B"})))
        .await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "电站不存在");
    let Reply { status, .. } = app
        .as_user(&b)
        .delete(&format!("/api/flex/delete?stationId={s}"))
        .await;
    assert_eq!(status, 404);
    assert_eq!(
        app.as_user(&t)
            .get_data(&format!("/api/flex/getEditData?stationId={s}"))
            .await["name"],
        "Row 1A"
    );

    // Without the buttons: reads only.
    app.create_tenant_user("100001", "plain", "secret1", support::STATION_MENUS, None)
        .await;
    let p = app.token_of("100001", "plain", "secret1").await;
    let Reply { status, .. } = app
        .as_user(&p)
        .put_json("/api/flex", json!({"stationId": s, "name": "x"}))
        .await;
    assert_eq!(status, 403);
}

#[tokio::test]
async fn removing_a_bracket_takes_its_sensors_and_frees_the_station_and_the_sn() {
    let (app, t, s, _other, good) = bracket_plant().await;
    app.as_user(&t).device(Device::Bracket, good.clone()).await;
    // Removal takes the sensors along and frees the station and the SN.
    let Reply { status, body, .. } = app
        .as_user(&t)
        .delete(&format!("/api/flex/delete?stationId={s}"))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        app.as_user(&t)
            .get_data(&format!("/api/flex/getEditData?stationId={s}"))
            .await,
        Json::Null
    );
    assert_eq!(
        app.scalar_i64("SELECT COUNT(*) FROM pv_flex_sensor", vec![])
            .await,
        0
    );
    let Reply { status, body, .. } = app.as_user(&t).post_json("/api/flex", good).await;
    assert_eq!(status, 200, "{body}");
}
