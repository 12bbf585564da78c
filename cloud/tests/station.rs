//! The station domain over a real server and database: stations, assignment scoping, device
//! registries, station prices and electricity price schedules.

use crate::support;

use pv_cloud::kernel::sql::Value;
use serde_json::{Value as Json, json};
use support::{Client, Device, Reply, TestApp, assert_failure, row_ids};

/// "Sunny Roof": the whole form of a commercial station in Dongcheng, Beijing, owned by
/// `owner1`, with two images; returns its id.
async fn sunny_roof(caller: &Client<'_>) -> String {
    let owner = caller
        .app()
        .user_with_alias("100001", "owner1", "owner", &[])
        .await;
    let images = [caller.upload("p0.jpg").await, caller.upload("p1.jpg").await];
    caller
        .station_with(json!({
            "name": "Sunny Roof", "address": "1 Road", "contact": "Li", "contactPhone": "13900000000",
            "azimuth": 180, "inclination": 25.5, "componentCount": 120, "componentCapacity": 66.0,
            "capacity": 60, "gridConnectionTime": "2026-03-01 10:00:00", "installer": "ACME",
            "installerPhone": "13700000000", "ownerId": owner.to_string(), "gatewayId": "GW-1",
            "gatewaySn": "GWSN1", "remark1": "r1", "electricityPriceType": "1", "feedInTariff": 0.3949,
            "state": "1", "stationType": "2", "inverterManufacturer": "1", "contributionWay": "4",
            "connectedType": "2", "latitude": 39.9042, "longitude": 116.4074,
            "provinceCode": "110000", "cityCode": "110100", "districtCode": "110101",
            "images": [images[0], images[1]], "installationStatus": "2"
        }))
        .await
}

#[tokio::test]
async fn station_forms_are_validated_in_the_callers_language_and_nothing_is_half_saved() {
    let app = TestApp::start().await;
    let t = app.as_user(&app.station_manager("100001", "mgr").await);

    // Validation in the caller's language.
    let Reply { status, body, .. } = t.post_json("/api/station", json!({"address": "x"})).await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "请输入电站名称");
    let Reply { status, body, .. } = t.en().post_json("/api/station", json!({"address": "x"})).await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "Please enter the station name");
    for (bad, zh) in [
        (json!({"name": "s", "latitude": 91}), "纬度必须在-90到90之间"),
        (json!({"name": "s", "longitude": "abc"}), "经度：请输入正确的数字"),
        (
            json!({"name": "s", "ownerPhone": "12345"}),
            "业主电话：请输入正确的11位手机号码",
        ),
        (json!({"name": "s", "stationType": "9"}), "电站类型无效：9"),
        (
            json!({"name": "s", "provinceCode": "999999"}),
            "行政区划不存在：999999",
        ),
        (
            json!({"name": "s", "provinceCode": "110000", "cityCode": "310100"}),
            "行政区划不存在：310100",
        ),
        (json!({"name": "s", "cityCode": "110100"}), "请先选择省份"),
        (json!({"name": "s".repeat(101)}), "电站名称长度不能超过100个字符"),
        (json!({"name": "s", "ownerId": "12345"}), "业主不存在"),
    ] {
        let Reply { status, body, .. } = t.post_json("/api/station", bad.clone()).await;
        assert_failure(status, &body, 400);
        assert_eq!(body["msg"], zh, "{bad}");
    }

    // Images: at most 5, jpg/png only, uploaded to this tenant.
    let mut images = Vec::new();
    for i in 0..6 {
        images.push(t.upload(&format!("p{i}.jpg")).await);
    }
    let Reply { status, body, .. } = t
        .post_json("/api/station", json!({"name": "s", "images": images}))
        .await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "电站图片最多5张");
    let Reply { status, body, .. } = t
        .en()
        .post_json("/api/station", json!({"name": "s", "images": images}))
        .await;
    assert_eq!(
        (status, body["msg"].as_str()),
        (400, Some("A station can have at most 5 images"))
    );
    let text = t.upload("notes.txt").await;
    let Reply { status, body, .. } = t
        .post_json("/api/station", json!({"name": "s", "images": [text]}))
        .await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "图片只能是jpg或png格式");
    assert_eq!(
        app.scalar_i64("SELECT COUNT(*) FROM pv_station", vec![]).await,
        0,
        "nothing half-saved"
    );
}

#[tokio::test]
async fn a_blank_state_takes_the_default_and_an_edit_sending_it_blank_keeps_the_stored_one() {
    let app = TestApp::start().await;
    let t = app.as_user(&app.station_manager("100001", "mgr").await);

    // A blank state (the column is NOT NULL) takes the default instead of failing the insert,
    // and an edit sending it blank keeps the stored one.
    let Reply { status, body, .. } = t
        .post_json("/api/station", json!({"name": "blank state", "state": null}))
        .await;
    assert_eq!(status, 200, "{body}");
    let blank = body["data"].as_str().expect("id").to_owned();
    let Reply { body, .. } = t.get(&format!("/api/station/{blank}")).await;
    assert_eq!(body["data"]["state"], "1", "{body}");
    let Reply { status, body, .. } = t
        .put_json(
            "/api/station",
            json!({"id": blank, "name": "blank state", "state": "2"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let Reply { status, body, .. } = t
        .put_json(
            "/api/station",
            json!({"id": blank, "name": "blank state", "state": ""}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let Reply { body, .. } = t.get(&format!("/api/station/{blank}")).await;
    assert_eq!(body["data"]["state"], "2", "{body}");
    let Reply { status, .. } = t.delete(&format!("/api/station/{blank}")).await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn a_full_station_is_created_commissioning_with_its_owner_and_updated_field_by_field() {
    let app = TestApp::start().await;
    let t = app.as_user(&app.station_manager("100001", "mgr").await);

    let mut images = Vec::new();
    for i in 0..6 {
        images.push(t.upload(&format!("p{i}.jpg")).await);
    }
    // A full station.
    let owner = app.user_with_alias("100001", "owner1", "owner", &[]).await;
    app.exec(
        "UPDATE blade_user SET phone = ? WHERE id = ?",
        vec!["13800000001".into(), Value::Int(owner)],
    )
    .await;
    let Reply { status, body, .. } = t
        .post_json(
            "/api/station",
            json!({
                "name": "Sunny Roof", "address": "1 Road", "contact": "Li", "contactPhone": "13900000000",
                "azimuth": 180, "inclination": 25.5, "componentCount": 120, "componentCapacity": 66.0,
                "capacity": 60, "gridConnectionTime": "2026-03-01 10:00:00", "installer": "ACME",
                "installerPhone": "13700000000", "ownerId": owner.to_string(), "gatewayId": "GW-1",
                "gatewaySn": "GWSN1", "remark1": "r1", "electricityPriceType": "1", "feedInTariff": 0.3949,
                "state": "1", "stationType": "2", "inverterManufacturer": "1", "contributionWay": "4",
                "connectedType": "2", "latitude": 39.9042, "longitude": 116.4074,
                "provinceCode": "110000", "cityCode": "110100", "districtCode": "110101",
                "images": [images[0], images[1]], "installationStatus": "2"
            }),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let id = body["data"].as_str().unwrap().to_owned();
    let d = t.get_data(&format!("/api/station/{id}")).await;
    assert_eq!(
        d["installationStatus"], "1",
        "created commissioning whatever the form says"
    );
    assert_eq!(d["ownerName"], "owner1", "owner's name filled in");
    assert_eq!(d["ownerPhone"], "13800000001");
    assert_eq!(d["gridConnectionTime"], "2026-03-01 10:00:00");
    assert_eq!(d["latitude"], 39.9042);
    assert_eq!(d["componentCount"], 120);
    assert_eq!(d["images"].as_array().unwrap().len(), 2);
    assert_eq!(d["images"][0]["attachId"], images[0].as_str());
    assert!(
        d["images"][0]["link"]
            .as_str()
            .unwrap()
            .contains("/oss/endpoint/file/")
    );
    assert_eq!(
        app.scalar_i64(
            "SELECT COUNT(*) FROM pv_user_station WHERE user_id = ?",
            vec![Value::Int(owner)]
        )
        .await,
        1,
        "the owner is given his station"
    );

    // Update: only named fields change; images replaced when sent.
    let Reply { status, body, .. } = t
        .put_json(
            "/api/station",
            json!({"id": id, "name": "Sunny Roof 2", "images": [images[2]]}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let d = t.get_data(&format!("/api/station/{id}")).await;
    assert_eq!(d["name"], "Sunny Roof 2");
    assert_eq!(d["address"], "1 Road");
    assert_eq!(d["images"].as_array().unwrap().len(), 1);
    let Reply { status, body, .. } = t
        .put_json("/api/station", json!({"id": id, "latitude": -91}))
        .await;
    assert_failure(status, &body, 400);
}

#[tokio::test]
async fn station_lists_filter_and_page_and_the_form_lists_come_from_the_dictionaries() {
    let app = TestApp::start().await;
    let t = app.as_user(&app.station_manager("100001", "mgr").await);

    let id = sunny_roof(&t).await;
    // Lists.
    t.station("Other").await;
    let page = t
        .get_data("/api/station/page?name=sunny&stationType=2&regionCode=110000")
        .await;
    assert_eq!(page["total"], 1, "{page}");
    assert_eq!(page["records"][0]["id"], id.as_str());
    let page = t.get_data("/api/station/page?installationStatus=1").await;
    assert_eq!(page["total"], 2);
    let Reply { status, body, .. } = t.get("/api/station/page?password=1").await;
    assert_failure(status, &body, 400);
    let list = t.get_data("/api/station/list").await;
    assert_eq!(row_ids(&list).len(), 2);
    let names = t.get_data("/api/station/listStationNameAndId").await;
    assert_eq!(names[0]["name"], "Other");
    assert_eq!(names[1]["id"], id.as_str());
    for (path, first) in [
        ("listStationState", "正常"),
        ("listStationType", "户用"),
        ("listManufacturerInverter", "华为"),
        ("listContributionWay", "自投"),
        ("listConnectedType", "全额上网"),
    ] {
        let l = t.get_data(&format!("/api/station/{path}")).await;
        assert_eq!(l[0]["dictValue"], first, "{path}");
        assert_eq!(l[0]["dictKey"], "1");
    }
    let maps = t.get_data("/api/station/listMapModel?kind=meter").await;
    assert!(row_ids(&maps).contains(&"eastron-sdm630".to_owned()), "{maps}");
}

#[tokio::test]
async fn a_station_switches_from_commissioning_to_running_once() {
    let app = TestApp::start().await;
    let t = app.as_user(&app.station_manager("100001", "mgr").await);

    let id = sunny_roof(&t).await;
    // Lifecycle: commissioning → running, once.
    let Reply { status, body, .. } = t
        .put_json(&format!("/api/station/switchStation/{id}"), json!({}))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["msg"], "调试完成后电站变为运行状态");
    let d = t.get_data(&format!("/api/station/{id}")).await;
    assert_eq!(d["installationStatus"], "2");
    let Reply { status, body, .. } = t
        .put_json(&format!("/api/station/switchStation/{id}"), json!({}))
        .await;
    assert_failure(status, &body, 400);
    assert_eq!(body["msg"], "电站已是运行状态");
    let page = t.get_data("/api/station/page?installationStatus=2").await;
    assert_eq!(row_ids(&page["records"]), vec![id.clone()]);
}

#[tokio::test]
async fn a_station_without_devices_is_deleted_without_confirmation() {
    let app = TestApp::start().await;
    let t = app.as_user(&app.station_manager("100001", "mgr").await);

    let other = t.station("Other").await;
    // Delete without devices needs no confirmation.
    let Reply { status, body, .. } = t.delete(&format!("/api/station/{other}")).await;
    assert_eq!(status, 200, "{body}");
    let Reply { status, .. } = t.get(&format!("/api/station/{other}")).await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn a_user_without_the_station_buttons_can_neither_create_nor_switch_nor_delete() {
    let app = TestApp::start().await;
    let t = app.station_manager("100001", "mgr").await;

    let id = sunny_roof(&app.as_user(&t)).await;
    // Permissions: a user without the buttons can read but not change.
    app.create_tenant_user("100001", "reader", "secret1", &[], None)
        .await;
    let r = app.as_user(&app.token_of("100001", "reader", "secret1").await);
    let Reply { status, body, .. } = r.post_json("/api/station", json!({"name": "x"})).await;
    assert_failure(status, &body, 403);
    let Reply { status, body, .. } = r
        .put_json(&format!("/api/station/switchStation/{id}"), json!({}))
        .await;
    assert_failure(status, &body, 403);
    let Reply { status, body, .. } = r.delete(&format!("/api/station/{id}")).await;
    assert_failure(status, &body, 403);
}

#[tokio::test]
async fn the_station_domain_is_in_the_openapi_document() {
    let app = TestApp::start().await;
    // The OpenAPI document lists the domain.
    let Reply { body: doc, .. } = app.get("/api/openapi.json").await;
    for p in [
        "/api/station/page",
        "/api/station/{id}",
        "/api/station/switchStation/{id}",
        "/api/station/updateUserStation",
        "/api/inverter/{id}",
        "/api/inverterThird/listThirdAccount",
        "/api/camera/live/web/url",
        "/api/weather/list",
        "/api/meter/{id}",
        "/api/stationPrice/getLastPrice",
        "/api/electricPrice/getByStationId/{id}",
    ] {
        assert!(doc["paths"].get(p).is_some(), "{p} missing from OpenAPI");
    }
}

/// The form of inverter INV-1 (SN HW001, three strings) on `station`.
fn hw001(station: &str) -> Json {
    let s1 = station;
    json!({"stationId": s1, "name": "INV-1", "deviceType": "1", "manufacturer": "1",
        "sn": "HW001", "collectorSn": "C1", "verificationCode": "abc", "gatewayId": "GW-1",
        "ratedPower": 50, "stringsCount": 3, "modulesPerString": [20, 20, 18],
        "purchasingCompany": "P", "mapModel": "huawei-sun2000-ktl", "unitId": 1})
}

#[tokio::test]
async fn inverters_are_validated_moved_between_stations_paged_and_listed() {
    let app = TestApp::start().await;
    let t = app.as_user(&app.station_manager("100001", "mgr").await);
    let s1 = t.station("S1").await;
    let s2 = t.station("S2").await;

    // Inverter.
    let inv = hw001(&s1);
    let Reply { status, body, .. } = t.post_json("/api/inverter", inv.clone()).await;
    assert_eq!(status, 200, "{body}");
    let inv_id = body["data"].as_str().unwrap().to_owned();
    let d = t.get_data(&format!("/api/inverter/{inv_id}")).await;
    assert_eq!(d["stationName"], "S1");
    assert_eq!(d["modulesPerString"], json!([20, 20, 18]));
    assert_eq!(d["mapModel"], "huawei-sun2000-ktl");
    for (change, zh) in [
        (json!({"sn": "HW002", "mapModel": "nope"}), "点表模型不存在：nope"),
        (
            json!({"sn": "HW002", "mapModel": "eastron-sdm630"}),
            "点表模型不存在：eastron-sdm630",
        ),
        (json!({"sn": "HW002", "stringsCount": 0}), "组串数必须在1到64之间"),
        (
            json!({"sn": "HW002", "modulesPerString": [20, 20]}),
            "每串组件数的个数（2）必须等于组串数（3）",
        ),
        (
            json!({"sn": "HW002", "unitId": 300}),
            "Modbus从站地址必须在1到247之间",
        ),
        (json!({"sn": "HW002", "manufacturer": "99"}), "厂家无效：99"),
        (json!({"sn": ""}), "请输入逆变器SN"),
        (json!({"sn": "HW001"}), "设备SN已存在：HW001"),
        (json!({"sn": "HW002", "stationId": "999"}), "电站不存在"),
    ] {
        let mut body = inv.clone();
        for (k, v) in change.as_object().unwrap() {
            body[k] = v.clone();
        }
        let Reply {
            status, body: res, ..
        } = t.post_json("/api/inverter", body).await;
        assert_failure(status, &res, 400);
        assert_eq!(res["msg"], zh, "{change}");
    }
    let Reply {
        status, body: res, ..
    } = t.en().post_json("/api/inverter", inv.clone()).await;
    assert_eq!(
        (status, res["msg"].as_str()),
        (400, Some("A device with SN HW001 already exists in this tenant"))
    );
    let Reply { status, body, .. } = t
        .put_json(
            "/api/inverter",
            json!({"id": inv_id, "name": "INV-1b", "stationId": s2}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let d = t.get_data(&format!("/api/inverter/{inv_id}")).await;
    assert_eq!(
        (d["name"].as_str(), d["stationName"].as_str(), d["sn"].as_str()),
        (Some("INV-1b"), Some("S2"), Some("HW001"))
    );
    let page = t
        .get_data(&format!(
            "/api/inverter/page?stationId={s2}&manufacturer=1&name=inv"
        ))
        .await;
    assert_eq!(page["total"], 1, "{page}");
    let l = t.get_data("/api/inverter/listDeviceType").await;
    assert_eq!(l[0]["dictValue"], "逆变器");
    let l = t.get_data("/api/inverter/listManufacturer").await;
    assert_eq!(l[1]["dictValue"], "阳光电源");
}

#[tokio::test]
async fn meter_sns_are_unique_across_device_kinds_and_meters_are_validated() {
    let app = TestApp::start().await;
    let t = app.as_user(&app.station_manager("100001", "mgr").await);
    let s1 = t.station("S1").await;

    let _inverter = t.device(Device::Inverter, hw001(&s1)).await;
    // Meter: SN unique across device kinds too.
    let meter = json!({"stationId": s1, "name": "Grid meter", "meterRole": "1", "sn": "HW001",
        "ctRatio": 200, "ptRatio": 1, "mapModel": "eastron-sdm630", "unitId": 2});
    let Reply {
        status, body: res, ..
    } = t.post_json("/api/meter", meter.clone()).await;
    assert_failure(status, &res, 400);
    assert_eq!(res["msg"], "设备SN已存在：HW001");
    let mut m = meter.clone();
    m["sn"] = json!("M001");
    m["meterRole"] = json!("7");
    let Reply {
        status, body: res, ..
    } = t.post_json("/api/meter", m.clone()).await;
    assert_eq!((status, res["msg"].as_str()), (400, Some("电表用途无效：7")));
    m["meterRole"] = json!("1");
    m["ctRatio"] = json!(0);
    let Reply {
        status, body: res, ..
    } = t.post_json("/api/meter", m.clone()).await;
    assert_eq!(status, 400, "{res}");
    m["ctRatio"] = json!(200);
    let Reply {
        status, body: res, ..
    } = t.post_json("/api/meter", m.clone()).await;
    assert_eq!(status, 200, "{res}");
    let meter_id = res["data"].as_str().unwrap().to_owned();
    let d = t.get_data(&format!("/api/meter/{meter_id}")).await;
    assert_eq!(
        (d["ctRatio"].as_f64(), d["meterRole"].as_str()),
        (Some(200.0), Some("1"))
    );
    let Reply { status, .. } = t
        .put_json("/api/meter", json!({"id": meter_id, "ptRatio": 10}))
        .await;
    assert_eq!(status, 200);
    assert_eq!(
        t.get_data(&format!("/api/meter/{meter_id}")).await["ptRatio"],
        10.0
    );
    assert_eq!(t.get_data("/api/meter/page?meterRole=1").await["total"], 1);
}

#[tokio::test]
async fn a_station_has_at_most_one_weather_station() {
    let app = TestApp::start().await;
    let t = app.as_user(&app.station_manager("100001", "mgr").await);
    let s1 = t.station("S1").await;
    let s2 = t.station("S2").await;

    // Weather: one per station.
    let Reply {
        status, body: res, ..
    } = t
        .post_json(
            "/api/weather",
            json!({"stationId": s1, "name": "W1", "sn": "W001", "mapModel": "sunspec-met-station"}),
        )
        .await;
    assert_eq!(status, 200, "{res}");
    let weather_id = res["data"].as_str().unwrap().to_owned();
    let Reply {
        status, body: res, ..
    } = t
        .post_json(
            "/api/weather",
            json!({"stationId": s1, "name": "W2", "sn": "W002"}),
        )
        .await;
    assert_failure(status, &res, 400);
    assert_eq!(res["msg"], "每个电站最多只能添加一个气象站");
    let Reply { body: res, .. } = t
        .en()
        .post_json(
            "/api/weather",
            json!({"stationId": s1, "name": "W2", "sn": "W002"}),
        )
        .await;
    assert_eq!(res["msg"], "A station can have at most one weather station");
    let Reply { status, .. } = t
        .post_json(
            "/api/weather",
            json!({"stationId": s2, "name": "W2", "sn": "W002"}),
        )
        .await;
    assert_eq!(status, 200);
    let Reply {
        status, body: res, ..
    } = t
        .put_json("/api/weather", json!({"id": weather_id, "stationId": s2}))
        .await;
    assert_eq!(
        (status, res["msg"].as_str()),
        (400, Some("每个电站最多只能添加一个气象站"))
    );
    let l = t.get_data(&format!("/api/weather/list?stationId={s1}")).await;
    assert_eq!(row_ids(&l), vec![weather_id.clone()]);
    assert_eq!(t.get_data("/api/weather/page").await["total"], 2);
}

#[tokio::test]
async fn camera_app_keys_are_write_only_and_live_urls_follow_the_brand() {
    let app = TestApp::start().await;
    let t = app.as_user(&app.station_manager("100001", "mgr").await);
    let s1 = t.station("S1").await;

    // Camera: the app key is write-only; the live URL comes from the brand's template.
    let Reply {
        status, body: res, ..
    } = t
        .post_json(
            "/api/camera",
            json!({"stationId": s1, "cameraType": "1", "name": "Gate",
        "sn": "CAM 01", "verificationCode": "ABC", "applicationKey": "ak1", "appKey": "topsecret"}),
        )
        .await;
    assert_eq!(status, 200, "{res}");
    let cam = res["data"].as_str().unwrap().to_owned();
    let page = t.get_data("/api/camera/page").await;
    let row = &page["records"][0];
    assert_eq!(row["appKeySet"], true);
    assert!(row.get("appKey").is_none(), "{row}");
    assert!(!page.to_string().contains("topsecret"));
    let stored = app
        .scalar_text(
            "SELECT app_key_enc FROM pv_camera WHERE sn = ?",
            vec!["CAM 01".into()],
        )
        .await
        .unwrap();
    assert!(
        stored.starts_with("v1:") && !stored.contains("topsecret"),
        "{stored}"
    );
    let url = t.get_data(&format!("/api/camera/live/web/url?id={cam}")).await;
    assert_eq!(
        url,
        "https://open.ys7.com/ezopen/h5/iframe?url=ezopen://ABC@open.ys7.com/CAM%2001/1.hd.live&appKey=ak1"
    );
    let Reply { status, .. } = t
        .put_json("/api/camera", json!({"id": cam, "name": "Gate 2", "appKey": ""}))
        .await;
    assert_eq!(status, 200);
    assert_eq!(
        app.scalar_text(
            "SELECT app_key_enc FROM pv_camera WHERE sn = ?",
            vec!["CAM 01".into()]
        )
        .await
        .unwrap(),
        stored,
        "a blank write-only field keeps the stored value"
    );
    let l = t
        .get_data(&format!("/api/camera/listCamera?stationId={s1}"))
        .await;
    assert_eq!(l[0]["name"], "Gate 2");
    assert_eq!(t.get_data("/api/camera/listCameraType").await[0]["dictKey"], "1");
}

#[tokio::test]
async fn third_party_passwords_are_required_encrypted_and_never_answered() {
    let app = TestApp::start().await;
    let t = app.as_user(&app.station_manager("100001", "mgr").await);
    let s1 = t.station("S1").await;

    // Third-party accounts: password required, encrypted, never answered.
    let Reply {
        status, body: res, ..
    } = t
        .post_json(
            "/api/inverterThird",
            json!({"platform": "1", "account": "fusion"}),
        )
        .await;
    assert_eq!((status, res["msg"].as_str()), (400, Some("请输入密码")));
    let Reply {
        status, body: res, ..
    } = t
        .post_json(
            "/api/inverterThird",
            json!({"stationId": s1, "platform": "1", "account": "fusion", "password": "vendor-pw"}),
        )
        .await;
    assert_eq!(status, 200, "{res}");
    let third = res["data"].as_str().unwrap().to_owned();
    let l = t.get_data("/api/inverterThird/listThirdAccount").await;
    assert_eq!(l[0]["account"], "fusion");
    let page = t.get_data("/api/inverterThird/page").await;
    assert_eq!(page["records"][0]["passwordSet"], true);
    assert!(!page.to_string().contains("vendor-pw") && !l.to_string().contains("vendor-pw"));
    let sealed = app
        .scalar_text(
            "SELECT password_enc FROM pv_inverter_third WHERE account = ?",
            vec!["fusion".into()],
        )
        .await
        .unwrap();
    assert_eq!(app.state.station.open(&sealed).as_deref(), Some("vendor-pw"));
    let Reply { status, .. } = t
        .put_json("/api/inverterThird", json!({"id": third, "remark": "r"}))
        .await;
    assert_eq!(status, 200);
    let Reply { status, .. } = t.delete(&format!("/api/inverterThird/{third}")).await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn removed_devices_free_their_sn_and_slot_and_a_delete_stays_in_its_kind() {
    let app = TestApp::start().await;
    let t = app.as_user(&app.station_manager("100001", "mgr").await);
    let s1 = t.station("S1").await;

    let inv_id = t.device(Device::Inverter, hw001(&s1)).await;
    let meter_id = t
        .device(
            Device::Meter,
            json!({"stationId": s1, "name": "Grid meter", "meterRole": "1", "sn": "M001",
                "ctRatio": 200, "ptRatio": 1, "mapModel": "eastron-sdm630", "unitId": 2}),
        )
        .await;
    let weather_id = t
        .device(
            Device::Weather,
            json!({"stationId": s1, "name": "W1", "sn": "W001", "mapModel": "sunspec-met-station"}),
        )
        .await;
    let cam = t
        .device(
            Device::Camera,
            json!({"stationId": s1, "cameraType": "1", "name": "Gate",
                "sn": "CAM 01", "verificationCode": "ABC", "applicationKey": "ak1", "appKey": "topsecret"}),
        )
        .await;

    // Deletes.
    let Reply { status, .. } = t.delete(&format!("/api/camera/{cam}")).await;
    assert_eq!(status, 200);
    let Reply { status, .. } = t.delete(&format!("/api/weather/{weather_id}")).await;
    assert_eq!(status, 200);
    let Reply { status, .. } = t
        .post_json(
            "/api/weather",
            json!({"stationId": s1, "name": "W3", "sn": "W001"}),
        )
        .await;
    assert_eq!(
        status, 200,
        "a removed device frees its SN and its station's slot"
    );
    // An inverter id in a meter delete is not a meter: the whole delete is refused.
    let Reply { status, .. } = t.delete(&format!("/api/meter/{meter_id},{inv_id}")).await;
    assert_eq!(status, 404);
    let Reply { status, .. } = t.get(&format!("/api/meter/{meter_id}")).await;
    assert_eq!(status, 200, "all or nothing");
    let Reply { status, .. } = t.delete(&format!("/api/meter/{meter_id}")).await;
    assert_eq!(status, 200);
    let Reply { status, .. } = t.get(&format!("/api/meter/{meter_id}")).await;
    assert_eq!(status, 404);
    let Reply { status, .. } = t.get(&format!("/api/inverter/{inv_id}")).await;
    assert_eq!(
        status, 200,
        "an inverter id in the meter delete touches no inverter"
    );
}

#[tokio::test]
async fn tenants_never_see_or_change_each_others_stations_and_devices() {
    let app = TestApp::start().await;
    let a = app.as_user(&app.station_manager("100001", "mgr_a").await);
    let b = app.as_user(&app.station_manager("100002", "mgr_b").await);
    let sa = a.station("A").await;
    let Reply { body: res, .. } = a
        .post_json(
            "/api/inverter",
            json!({"stationId": sa, "name": "I", "sn": "SN-A", "stringsCount": 1}),
        )
        .await;
    let inv = res["data"].as_str().unwrap().to_owned();

    let Reply { status, .. } = b.get(&format!("/api/station/{sa}")).await;
    assert_eq!(status, 404);
    assert_eq!(b.get_data("/api/station/page").await["total"], 0);
    assert!(
        b.get_data("/api/station/list")
            .await
            .as_array()
            .unwrap()
            .is_empty()
    );
    let Reply { status, .. } = b
        .put_json("/api/station", json!({"id": sa, "name": "hacked"}))
        .await;
    assert_eq!(status, 404);
    let Reply { status, .. } = b
        .put_json(&format!("/api/station/switchStation/{sa}"), json!({}))
        .await;
    assert_eq!(status, 404);
    let Reply { status, .. } = b.delete(&format!("/api/station/{sa}?confirm=true")).await;
    assert_eq!(status, 404);
    let Reply {
        status, body: res, ..
    } = b
        .post_json(
            "/api/inverter",
            json!({"stationId": sa, "name": "I", "sn": "SN-B", "stringsCount": 1}),
        )
        .await;
    assert_failure(status, &res, 400);
    assert_eq!(res["msg"], "电站不存在");
    let Reply { status, .. } = b.get(&format!("/api/inverter/{inv}")).await;
    assert_eq!(status, 404);
    let Reply { status, .. } = b
        .put_json("/api/inverter", json!({"id": inv, "name": "hacked"}))
        .await;
    assert_eq!(status, 404);
    let Reply { status, .. } = b.delete(&format!("/api/inverter/{inv}")).await;
    assert_eq!(status, 404);
    assert_eq!(b.get_data("/api/inverter/page").await["total"], 0);
    let Reply { status, .. } = b
        .get(&format!("/api/stationPrice/getLastPrice?stationId={sa}"))
        .await;
    assert_eq!(status, 404);
    let Reply { status, .. } = b.get(&format!("/api/electricPrice/getByStationId/{sa}")).await;
    assert_eq!(status, 404);
    let Reply {
        status, body: res, ..
    } = b
        .put_json(
            "/api/electricPrice",
            json!({"stationId": sa, "priceType": "1", "fixedPrice": 1}),
        )
        .await;
    assert_eq!((status, res["msg"].as_str()), (400, Some("电站不存在")));
    // SNs are unique per tenant, not across tenants.
    let sb = b.station("B").await;
    let Reply { status, .. } = b
        .post_json(
            "/api/inverter",
            json!({"stationId": sb, "name": "I", "sn": "SN-A", "stringsCount": 1}),
        )
        .await;
    assert_eq!(status, 200);
    // Assignment across tenants is refused.
    let (_, user_a) = app
        .create_tenant_user("100001", "someone", "secret1", &[], None)
        .await;
    let Reply { status, .. } = b
        .post_json(
            "/api/station/updateUserStation",
            json!({"userId": user_a.to_string(), "stationIds": [sb]}),
        )
        .await;
    assert_eq!(status, 400);

    let d = a.get_data(&format!("/api/station/{sa}")).await;
    assert_eq!(
        (d["name"].as_str(), d["installationStatus"].as_str()),
        (Some("A"), Some("1"))
    );
    let d = a.get_data(&format!("/api/inverter/{inv}")).await;
    assert_eq!(d["name"], "I");
}

#[tokio::test]
async fn a_station_with_devices_is_deleted_only_when_confirmed_and_takes_them_along() {
    let app = TestApp::start().await;
    let t = app.as_user(&app.station_manager("100001", "mgr").await);
    let s = t.station("S").await;
    for (path, body) in [
        (
            "/api/inverter",
            json!({"stationId": s, "name": "I", "sn": "I1", "stringsCount": 1}),
        ),
        (
            "/api/meter",
            json!({"stationId": s, "name": "M", "sn": "M1", "meterRole": "1", "ctRatio": 1, "ptRatio": 1}),
        ),
        ("/api/weather", json!({"stationId": s, "name": "W", "sn": "W1"})),
        (
            "/api/stationPrice",
            json!({"stationId": s, "effectiveDate": "2026-01-01", "price": 0.4}),
        ),
    ] {
        let Reply {
            status, body: res, ..
        } = t.post_json(path, body).await;
        assert_eq!(status, 200, "{path}: {res}");
    }
    let Reply {
        status, body: res, ..
    } = t.delete(&format!("/api/station/{s}")).await;
    assert_failure(status, &res, 400);
    assert_eq!(res["msg"], "电站下存在3台设备，确认删除将同时删除这些设备");
    assert_eq!(
        t.get_data("/api/station/page").await["total"],
        1,
        "nothing removed"
    );
    let Reply {
        status, body: res, ..
    } = t.delete(&format!("/api/station/{s}?confirm=true")).await;
    assert_eq!(status, 200, "{res}");
    for table in ["pv_inverter", "pv_meter", "pv_weather", "pv_station_price"] {
        let live = app
            .scalar_i64(
                &format!("SELECT COUNT(*) FROM {table} WHERE is_deleted = 0 AND station_id = ?"),
                vec![Value::Int(s.parse().unwrap())],
            )
            .await;
        assert_eq!(live, 0, "{table} rows of the removed station");
    }
    assert_eq!(t.get_data("/api/inverter/page").await["total"], 0);
    let s2 = t.station("S2").await;
    let Reply { status, .. } = t
        .post_json(
            "/api/inverter",
            json!({"stationId": s2, "name": "I", "sn": "I1", "stringsCount": 1}),
        )
        .await;
    assert_eq!(status, 200, "the removed devices' SNs are free again");
}

#[tokio::test]
async fn owners_and_staff_see_only_their_assigned_stations() {
    let app = TestApp::start().await;
    let t = app.as_user(&app.station_manager("100001", "mgr").await);
    let s1 = t.station("S1").await;
    let s2 = t.station("S2").await;
    let s3 = t.station("S3").await;
    for (s, sn) in [(&s1, "I1"), (&s2, "I2")] {
        let Reply { status, .. } = t
            .post_json(
                "/api/inverter",
                json!({"stationId": s, "name": sn, "sn": sn, "stringsCount": 1}),
            )
            .await;
        assert_eq!(status, 200);
    }
    let owner = app
        .user_with_alias("100001", "owner1", "owner", &["inverter_add"])
        .await;
    let o = app.as_user(&app.token_of("100001", "owner1", "secret1").await);
    assert!(
        o.get_data("/api/station/list")
            .await
            .as_array()
            .unwrap()
            .is_empty(),
        "an owner with no assignment sees nothing"
    );

    let Reply {
        status, body: res, ..
    } = t
        .post_json(
            "/api/station/updateUserStation",
            json!({"userId": owner.to_string(), "stationIds": [s1, s3]}),
        )
        .await;
    assert_eq!(status, 200, "{res}");
    let Reply { status, .. } = t
        .post_json(
            "/api/station/updateUserStation",
            json!({"userId": owner.to_string(), "stationIds": format!("{s1}")}),
        )
        .await;
    assert_eq!(status, 200, "replaces");
    let Reply {
        status, body: res, ..
    } = t
        .post_json(
            "/api/station/updateUserStation",
            json!({"userId": owner.to_string(), "stationIds": ["424242"]}),
        )
        .await;
    assert_eq!((status, res["msg"].as_str()), (400, Some("电站不存在")));

    let page = t.get_data("/api/station/pageAssignment?roleAlias=owner").await;
    assert_eq!(page["total"], 1, "{page}");
    assert_eq!(page["records"][0]["account"], "owner1");
    assert_eq!(page["records"][0]["stationIds"], json!([s1]));
    assert_eq!(page["records"][0]["stations"][0]["name"], "S1");

    assert_eq!(row_ids(&o.get_data("/api/station/list").await), vec![s1.clone()]);
    assert_eq!(
        row_ids(&o.get_data("/api/station/page").await["records"]),
        vec![s1.clone()]
    );
    assert_eq!(
        row_ids(&o.get_data("/api/station/listStationNameAndId").await),
        vec![s1.clone()]
    );
    assert_eq!(o.get_data(&format!("/api/station/{s1}")).await["name"], "S1");
    let Reply { status, .. } = o.get(&format!("/api/station/{s2}")).await;
    assert_eq!(status, 404);
    let inverters = o.get_data("/api/inverter/page").await;
    assert_eq!(inverters["total"], 1);
    assert_eq!(inverters["records"][0]["stationId"], s1.as_str());
    let Reply {
        status, body: res, ..
    } = o
        .post_json(
            "/api/inverter",
            json!({"stationId": s2, "name": "x", "sn": "X", "stringsCount": 1}),
        )
        .await;
    assert_eq!(
        (status, res["msg"].as_str()),
        (400, Some("电站不存在")),
        "not on a station he cannot see"
    );
    let Reply { status, .. } = o
        .post_json(
            "/api/inverter",
            json!({"stationId": s1, "name": "x", "sn": "X", "stringsCount": 1}),
        )
        .await;
    assert_eq!(status, 200);

    // Staff too; the administrator-like manager sees everything.
    let staff = app.user_with_alias("100001", "tech", "maintenance", &[]).await;
    let m = app.token_of("100001", "tech", "secret1").await;
    t.post_json(
        "/api/station/updateUserStation",
        json!({"userId": staff.to_string(), "stationIds": [s2]}),
    )
    .await;
    assert_eq!(
        row_ids(&app.as_user(&m).get_data("/api/station/list").await),
        vec![s2.clone()]
    );
    assert_eq!(t.get_data("/api/station/page").await["total"], 3);

    // A station's owner is given it; changing the owner moves it.
    let Reply {
        status, body: res, ..
    } = t
        .put_json("/api/station", json!({"id": s3, "ownerId": owner.to_string()}))
        .await;
    assert_eq!(status, 200, "{res}");
    let mut seen = row_ids(&o.get_data("/api/station/list").await);
    seen.sort();
    let mut want = vec![s1.clone(), s3.clone()];
    want.sort();
    assert_eq!(seen, want);
    let other_owner = app.user_with_alias("100001", "owner2", "owner", &[]).await;
    t.put_json(
        "/api/station",
        json!({"id": s3, "ownerId": other_owner.to_string()}),
    )
    .await;
    assert_eq!(row_ids(&o.get_data("/api/station/list").await), vec![s1.clone()]);
    assert_eq!(
        t.get_data(&format!("/api/station/{s3}")).await["ownerName"],
        "owner2"
    );

    // Without the assignment button nothing changes.
    let Reply { status, .. } = o
        .post_json(
            "/api/station/updateUserStation",
            json!({"userId": owner.to_string(), "stationIds": [s2]}),
        )
        .await;
    assert_eq!(status, 403);
}

#[tokio::test]
async fn station_prices_and_the_price_in_force() {
    let app = TestApp::start().await;
    let t = app.as_user(&app.station_manager("100001", "mgr").await);
    let s = t.station("S").await;
    let Reply {
        status, body: res, ..
    } = t
        .get(&format!("/api/stationPrice/getLastPrice?stationId={s}"))
        .await;
    assert_eq!(status, 200);
    assert!(res["data"].is_null(), "{res}");
    let mut ids = Vec::new();
    for (date, price) in [("2020-01-01", 0.35), ("2024-07-01", 0.4), ("2099-01-01", 0.9)] {
        let Reply {
            status, body: res, ..
        } = t
            .post_json(
                "/api/stationPrice",
                json!({"stationId": s, "effectiveDate": date, "price": price}),
            )
            .await;
        assert_eq!(status, 200, "{res}");
        ids.push(res["data"].as_str().unwrap().to_owned());
    }
    let last = t
        .get_data(&format!("/api/stationPrice/getLastPrice?stationId={s}"))
        .await;
    assert_eq!(
        (last["effectiveDate"].as_str(), last["price"].as_f64()),
        (Some("2024-07-01"), Some(0.4))
    );
    let Reply {
        status, body: res, ..
    } = t
        .post_json(
            "/api/stationPrice",
            json!({"stationId": s, "effectiveDate": "2024-07-01", "price": 1}),
        )
        .await;
    assert_eq!(
        (status, res["msg"].as_str()),
        (400, Some("该电站在此生效日期已有电价"))
    );
    let Reply {
        status, body: res, ..
    } = t
        .post_json(
            "/api/stationPrice",
            json!({"stationId": s, "effectiveDate": "2025-01-01", "price": 0.12345}),
        )
        .await;
    assert_eq!(
        (status, res["msg"].as_str()),
        (400, Some("电价(元/kWh)：请输入正确的数字"))
    );
    let Reply {
        status, body: res, ..
    } = t
        .post_json(
            "/api/stationPrice",
            json!({"stationId": s, "effectiveDate": "someday", "price": 1}),
        )
        .await;
    assert_eq!(
        (status, res["msg"].as_str()),
        (400, Some("生效日期无效：someday"))
    );
    let Reply { status, .. } = t
        .put_json("/api/stationPrice", json!({"id": ids[1], "price": 0.41}))
        .await;
    assert_eq!(status, 200);
    assert_eq!(
        t.get_data(&format!("/api/stationPrice/{}", ids[1])).await["price"],
        0.41
    );
    let page = t.get_data(&format!("/api/stationPrice/page?stationId={s}")).await;
    assert_eq!(page["total"], 3);
    assert_eq!(page["records"][0]["effectiveDate"], "2099-01-01");
    let Reply { status, .. } = t.delete(&format!("/api/stationPrice/{}", ids[1])).await;
    assert_eq!(status, 200);
    let last = t
        .get_data(&format!("/api/stationPrice/getLastPrice?stationId={s}"))
        .await;
    assert_eq!(last["price"], 0.35);
}

fn day(date: &str, segs: &[(&str, &str, &str, f64)]) -> Json {
    json!({"effectiveDate": date, "segments": segs.iter().map(|(a, b, k, p)| json!({"startTime": a, "endTime": b, "type": k, "price": p})).collect::<Vec<_>>()})
}

#[tokio::test]
async fn price_schedules_beyond_the_limits_or_with_gaps_are_refused_and_nothing_is_half_saved() {
    let app = TestApp::start().await;
    let t = app.as_user(&app.station_manager("100001", "mgr").await);
    let s = t.station("S").await;
    let good = [
        ("00:00", "08:00", "4", 0.3),
        ("08:00", "11:00", "2", 0.9),
        ("11:00", "13:00", "1", 1.2),
        ("13:00", "22:00", "3", 0.6),
        ("22:00", "24:00", "4", 0.3),
    ];
    let save = |schedules: Vec<Json>| json!({"stationId": s, "priceType": "2", "schedules": schedules});

    let eleven: Vec<Json> = (1..=11).map(|i| day(&format!("2026-{i:02}-01"), &good)).collect();
    let Reply {
        status, body: res, ..
    } = t.put_json("/api/electricPrice", save(eleven.clone())).await;
    assert_failure(status, &res, 400);
    assert_eq!(res["msg"], "峰谷电价最多设置10个日期");
    let Reply { body: res, .. } = t.en().put_json("/api/electricPrice", save(eleven)).await;
    assert_eq!(res["msg"], "At most 10 effective dates can be set");

    let mut six = good.to_vec();
    six[4] = ("22:00", "23:00", "4", 0.3);
    six.push(("23:00", "24:00", "4", 0.2));
    let Reply {
        status, body: res, ..
    } = t
        .put_json("/api/electricPrice", save(vec![day("2026-01-01", &six)]))
        .await;
    assert_eq!(
        (status, res["msg"].as_str()),
        (400, Some("2026-01-01：每个日期最多设置5个时段"))
    );

    let mut overlap = good.to_vec();
    overlap[1] = ("07:00", "11:00", "2", 0.9);
    let Reply {
        status, body: res, ..
    } = t
        .put_json("/api/electricPrice", save(vec![day("2026-01-01", &overlap)]))
        .await;
    assert_eq!(
        (status, res["msg"].as_str()),
        (400, Some("2026-01-01：时段重叠：00:00-08:00 与 07:00-11:00"))
    );
    let Reply { body: res, .. } = t
        .en()
        .put_json("/api/electricPrice", save(vec![day("2026-01-01", &overlap)]))
        .await;
    assert_eq!(
        res["msg"],
        "2026-01-01: time segments overlap: 00:00-08:00 and 07:00-11:00"
    );

    let mut gap = good.to_vec();
    gap[1] = ("09:00", "11:00", "2", 0.9);
    let Reply {
        status, body: res, ..
    } = t
        .put_json("/api/electricPrice", save(vec![day("2026-01-01", &gap)]))
        .await;
    assert_eq!(
        (status, res["msg"].as_str()),
        (400, Some("2026-01-01：时段未覆盖全天，缺少 08:00-09:00"))
    );
    let short = &good[..4];
    let Reply {
        status, body: res, ..
    } = t
        .put_json("/api/electricPrice", save(vec![day("2026-01-01", short)]))
        .await;
    assert_eq!(
        (status, res["msg"].as_str()),
        (400, Some("2026-01-01：时段未覆盖全天，缺少 22:00-24:00"))
    );
    let mut bad_type = good.to_vec();
    bad_type[0].2 = "9";
    let Reply {
        status, body: res, ..
    } = t
        .put_json("/api/electricPrice", save(vec![day("2026-01-01", &bad_type)]))
        .await;
    assert_eq!(
        (status, res["msg"].as_str()),
        (400, Some("2026-01-01：电价时段类型无效：9"))
    );
    let Reply {
        status, body: res, ..
    } = t
        .put_json(
            "/api/electricPrice",
            save(vec![day("2026-01-01", &good), day("2026-01-01", &good)]),
        )
        .await;
    assert_eq!(
        (status, res["msg"].as_str()),
        (400, Some("生效日期重复：2026-01-01"))
    );
    assert_eq!(
        app.scalar_i64("SELECT COUNT(*) FROM pv_electric_price", vec![])
            .await,
        0,
        "nothing half-saved"
    );
}

#[tokio::test]
async fn ten_dates_of_five_segments_are_saved_and_the_schedule_in_force_follows_the_date() {
    let app = TestApp::start().await;
    let t = app.as_user(&app.station_manager("100001", "mgr").await);
    let s = t.station("S").await;
    let good = [
        ("00:00", "08:00", "4", 0.3),
        ("08:00", "11:00", "2", 0.9),
        ("11:00", "13:00", "1", 1.2),
        ("13:00", "22:00", "3", 0.6),
        ("22:00", "24:00", "4", 0.3),
    ];
    let save = |schedules: Vec<Json>| json!({"stationId": s, "priceType": "2", "schedules": schedules});

    // Ten dates, five segments each: accepted.
    let mut summer = good.to_vec();
    summer[2].3 = 1.5;
    let mut ten: Vec<Json> = (1..=9).map(|i| day(&format!("2025-{i:02}-01"), &good)).collect();
    ten.push(day("2026-07-01", &summer));
    let Reply {
        status, body: res, ..
    } = t.put_json("/api/electricPrice", save(ten)).await;
    assert_eq!(status, 200, "{res}");
    let got = t
        .get_data(&format!("/api/electricPrice/getByStationId/{s}"))
        .await;
    assert_eq!(got["priceType"], "2");
    assert_eq!(got["schedules"].as_array().unwrap().len(), 10);
    assert_eq!(got["schedules"][9]["effectiveDate"], "2026-07-01");
    assert_eq!(
        got["schedules"][9]["segments"][2],
        json!({"startTime": "11:00", "endTime": "13:00", "type": "1", "price": 1.5})
    );
    assert_eq!(got["schedules"][0]["segments"][4]["endTime"], "24:00");
    assert_eq!(
        t.get_data(&format!("/api/station/{s}")).await["electricityPriceType"],
        "2"
    );

    // The schedule in force on a day.
    let sid = pv_cloud::kernel::Id(s.parse().unwrap());
    let on = |d: &str| chrono::NaiveDate::parse_from_str(d, "%Y-%m-%d").unwrap();
    let v = pv_cloud::station::electric_price::schedule_on(&app.state.station_ctx(), sid, on("2026-06-30"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (v.effective_date.as_str(), v.segments[2].price),
        ("2025-09-01", 1.2)
    );
    let v = pv_cloud::station::electric_price::schedule_on(&app.state.station_ctx(), sid, on("2026-07-01"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (v.effective_date.as_str(), v.segments[2].price),
        ("2026-07-01", 1.5)
    );
    let v = pv_cloud::station::electric_price::schedule_on(&app.state.station_ctx(), sid, on("2025-01-15"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(v.effective_date, "2025-01-01");
    assert!(
        pv_cloud::station::electric_price::schedule_on(&app.state.station_ctx(), sid, on("2024-12-31"))
            .await
            .unwrap()
            .is_none()
    );
}

#[tokio::test]
async fn a_fixed_price_replaces_the_schedule_keeping_the_old_versions_and_needs_the_button() {
    let app = TestApp::start().await;
    let t = app.as_user(&app.station_manager("100001", "mgr").await);
    let s = t.station("S").await;
    let good = [
        ("00:00", "08:00", "4", 0.3),
        ("08:00", "11:00", "2", 0.9),
        ("11:00", "13:00", "1", 1.2),
        ("13:00", "22:00", "3", 0.6),
        ("22:00", "24:00", "4", 0.3),
    ];
    let save = |schedules: Vec<Json>| json!({"stationId": s, "priceType": "2", "schedules": schedules});

    // Ten dates, five segments each: accepted.
    let mut summer = good.to_vec();
    summer[2].3 = 1.5;
    let mut ten: Vec<Json> = (1..=9).map(|i| day(&format!("2025-{i:02}-01"), &good)).collect();
    ten.push(day("2026-07-01", &summer));
    t.put_json("/api/electricPrice", save(ten)).await.ok();
    let sid = pv_cloud::kernel::Id(s.parse().unwrap());
    let on = |d: &str| chrono::NaiveDate::parse_from_str(d, "%Y-%m-%d").unwrap();
    // A fixed price replaces the schedule; the replaced versions are kept for audit.
    let Reply {
        status, body: res, ..
    } = t
        .put_json("/api/electricPrice", json!({"stationId": s, "priceType": "1"}))
        .await;
    assert_eq!((status, res["msg"].as_str()), (400, Some("请输入固定电价")));
    let Reply {
        status, body: res, ..
    } = t
        .put_json(
            "/api/electricPrice",
            json!({"stationId": s, "priceType": "1", "fixedPrice": 0.55}),
        )
        .await;
    assert_eq!(status, 200, "{res}");
    let got = t
        .get_data(&format!("/api/electricPrice/getByStationId/{s}"))
        .await;
    assert_eq!(
        (got["priceType"].as_str(), got["fixedPrice"].as_f64()),
        (Some("1"), Some(0.55))
    );
    let v = pv_cloud::station::electric_price::schedule_on(&app.state.station_ctx(), sid, on("2026-07-01"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!((v.segments.len(), v.segments[0].price), (1, 0.55));
    assert_eq!(
        app.scalar_i64(
            "SELECT COUNT(*) FROM pv_electric_price WHERE is_deleted = 1 AND revision = 1",
            vec![]
        )
        .await,
        10
    );
    app.create_tenant_user("100001", "reader", "secret1", &[], None)
        .await;
    let r = app.token_of("100001", "reader", "secret1").await;
    let Reply { status, .. } = app
        .as_user(&r)
        .put_json(
            "/api/electricPrice",
            json!({"stationId": s, "priceType": "1", "fixedPrice": 1}),
        )
        .await;
    assert_eq!(status, 403);
}
