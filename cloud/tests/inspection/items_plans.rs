//! Items, plans (validation, copies, dictionaries, workbooks, scope) and photo uploads.

use chrono::Duration;
use reqwest::Method;
use serde_json::{Value as Json, json};

use super::site::*;

#[tokio::test]
async fn items_are_validated_listed_changed_and_removed_within_the_tenant() {
    let s = site().await;
    let m = s.mgr();
    let en = m.en();
    refused(
        m.post_json("/api/inspectItem", json!({"checkItems": ["a"]}))
            .await,
        400,
        "请输入巡检项标题",
    );
    refused(
        en.post_json("/api/inspectItem", json!({"title": " ", "checkItems": ["a"]}))
            .await,
        400,
        "Please enter the item title",
    );
    refused(
        m.post_json("/api/inspectItem", json!({"title": "t", "checkItems": [" ", ""]}))
            .await,
        400,
        "请至少添加一个检查项",
    );
    refused(
        en.post_json("/api/inspectItem", json!({"title": "t"})).await,
        400,
        "Please add at least one check item",
    );
    let long = "x".repeat(101);
    refused(
        m.post_json("/api/inspectItem", json!({"title": long, "checkItems": ["a"]}))
            .await,
        400,
        "巡检项标题不能超过100个字符",
    );
    refused(
        m.post_json(
            "/api/inspectItem",
            json!({"title": "t", "checkItems": ["y".repeat(201)]}),
        )
        .await,
        400,
        "检查项不能超过200个字符",
    );
    let many: Vec<String> = (0..51).map(|i| format!("c{i}")).collect();
    refused(
        m.post_json("/api/inspectItem", json!({"title": "t", "checkItems": many}))
            .await,
        400,
        "检查项最多50个",
    );
    refused(
        m.post_json(
            "/api/inspectItem",
            json!({"title": "t", "checkItems": ["a", " a"]}),
        )
        .await,
        400,
        "检查项不能重复",
    );

    let created = m
        .post_data(
            "/api/inspectItem",
            json!({"title": " Inverter room ", "checkItems": ["Fans", " Cables "], "remark": "weekly"}),
        )
        .await;
    assert_eq!(created["title"], "Inverter room");
    assert_eq!(created["checkItems"], json!(["Fans", "Cables"]));
    assert_eq!(created["remark"], "weekly");
    assert!(created["createTime"].as_str().is_some_and(|t| t.len() == 19));
    let id = created["id"].as_str().unwrap().to_owned();
    let second = item(&m, "Fence", &["Gate locked"]).await;

    let page = m
        .get_data("/api/inspectItem/page?current=1&size=10&title=inverter")
        .await;
    assert_eq!(page["total"], 1);
    assert_eq!(page["records"][0]["id"], id);
    let list = m.get_data("/api/inspectItem/list").await;
    assert_eq!(list.as_array().map(Vec::len), Some(2));
    assert_eq!(
        m.get_data(&format!("/api/inspectItem/{id}")).await["title"],
        "Inverter room"
    );

    let changed = s
        .mgr()
        .send(
            Method::PUT,
            "/api/inspectItem",
            Some(json!({"id": id, "title": "Inverter room 2", "checkItems": ["Fans"]})),
        )
        .await
        .ok()
        .data();
    assert_eq!(changed["checkItems"], json!(["Fans"]));
    m.put_json(
        "/api/inspectItem",
        json!({"id": "1", "title": "x", "checkItems": ["a"]}),
    )
    .await
    .fails(404);

    // Another tenant sees and changes nothing.
    let o = s.app.as_user(&s.other);
    o.get(&format!("/api/inspectItem/{id}")).await.fails(404);
    assert_eq!(o.get_data("/api/inspectItem/page").await["total"], 0);
    o.put_json(
        "/api/inspectItem",
        json!({"id": id, "title": "hijack", "checkItems": ["a"]}),
    )
    .await
    .fails(404);
    refused(o.delete(&format!("/api/inspectItem/{id}")).await, 400, "删除失败");
    assert_eq!(
        m.get_data(&format!("/api/inspectItem/{id}")).await["title"],
        "Inverter room 2"
    );

    // In use by a live plan: stays.
    let plan = m
        .post_data("/api/inspectPlan", plan_body(&s, &[&id], "3", today_at(8), 0))
        .await;
    refused(
        m.delete(&format!("/api/inspectItem/{id},{second}")).await,
        400,
        "该巡检项正被巡检计划使用",
    );
    refused(
        en.delete(&format!("/api/inspectItem/{id}")).await,
        400,
        "This item is used by an inspection plan",
    );
    let r = m.delete(&format!("/api/inspectItem/{second}")).await.ok();
    assert_eq!(r.msg(), "删除成功");
    refused(
        m.delete(&format!("/api/inspectItem/{second}")).await,
        400,
        "删除失败",
    );
    assert_eq!(
        en.delete(&format!("/api/inspectItem/{second}")).await.msg(),
        "Delete failed"
    );
    // Once the plan is gone the item may go.
    m.delete(&format!("/api/inspectPlan/{}", plan["id"].as_str().unwrap()))
        .await
        .ok();
    let r = en.delete(&format!("/api/inspectItem/{id}")).await.ok();
    assert_eq!(r.msg(), "Deleted successfully");
    // Writes need their buttons.
    s.app
        .create_tenant_user(T1, "viewer", "secret1", &["inspectionItem"], None)
        .await;
    let viewer = s.app.token_of(T1, "viewer", "secret1").await;
    s.app
        .as_user(&viewer)
        .post_json("/api/inspectItem", json!({"title": "t", "checkItems": ["a"]}))
        .await
        .fails(403);
}

#[tokio::test]
async fn plans_are_validated_copied_listed_exported_and_scoped() {
    let s = site().await;
    let m = s.mgr();
    let en = m.en();
    let it = item(&m, "Panels", &["Clean", "No cracks"]).await;
    let start = today_at(8);
    let good = plan_body(&s, &[&it], "2", start, 1);
    let with = |k: &str, v: Json| {
        let mut b = good.clone();
        b[k] = v;
        b
    };
    for (body, zh, en_msg) in [
        (
            with("name", json!("")),
            "请输入计划名称",
            "Please enter the plan name",
        ),
        (
            with("stationIds", json!([])),
            "请至少选择一个电站",
            "Please choose at least one station",
        ),
        (
            with("itemIds", json!([])),
            "请至少选择一个巡检项",
            "Please choose at least one inspection item",
        ),
        (
            with("maintenanceIds", json!([])),
            "请至少选择一名运维人员",
            "Please choose at least one maintenance user",
        ),
        (
            with("cyclePeriod", json!("9")),
            "请选择巡检周期",
            "Please choose the inspection cycle",
        ),
        (
            with("alarmDay", json!(4)),
            "请选择提醒时间",
            "Please choose when to remind",
        ),
        (
            with("startDate", json!(null)),
            "请选择开始日期",
            "Please choose the start date",
        ),
        (
            with("startDate", json!("2026/01/01")),
            "日期格式不正确（应为yyyy-MM-dd）",
            "Invalid date (expected yyyy-MM-dd)",
        ),
        (
            with("endDate", json!((start - Duration::days(1)).to_string())),
            "结束日期不能早于开始日期",
            "The end date must not be before the start date",
        ),
        (
            with("stationIds", json!(["1"])),
            "所选电站不存在或无权查看",
            "A chosen station does not exist or is not visible to you",
        ),
        (
            with("itemIds", json!(["1"])),
            "所选巡检项不存在",
            "A chosen inspection item does not exist",
        ),
        // m3 cannot see station A.
        (
            with("maintenanceIds", json!([s.uid(2)])),
            "运维人员须为本租户能查看所选全部电站的运维人员",
            "Each maintenance user must be maintenance staff of the tenant who can see every chosen station",
        ),
        // The manager is not maintenance staff.
        (
            with("maintenanceIds", json!([s.uid(0), "1"])),
            "运维人员须为本租户能查看所选全部电站的运维人员",
            "Each maintenance user must be maintenance staff of the tenant who can see every chosen station",
        ),
    ] {
        refused(m.post_json("/api/inspectPlan", body.clone()).await, 400, zh);
        refused(en.post_json("/api/inspectPlan", body).await, 400, en_msg);
    }
    // m1 cannot see B: a plan over A and B may name only m2.
    let both = with("stationIds", json!([s.a, s.b]));
    m.post_json("/api/inspectPlan", both.clone()).await.fails(400);
    let mut ok_both = both;
    ok_both["maintenanceIds"] = json!([s.uid(1)]);
    ok_both["name"] = json!("Both stations");
    let p2 = m.post_data("/api/inspectPlan", ok_both).await;
    assert_eq!(p2["stationNames"], json!(["Station A", "Station B"]));

    let p = m.post_data("/api/inspectPlan", good.clone()).await;
    assert_eq!(p["name"], "Daily walk");
    assert_eq!(p["cyclePeriod"], "2");
    assert_eq!(p["cyclePeriodName"], "每周");
    assert_eq!(p["alarmDay"], 1);
    assert_eq!(p["status"], 1);
    assert_eq!(p["startDate"], start.to_string());
    assert!(p["endDate"].is_null());
    assert_eq!(p["nextDueDate"], start.to_string());
    assert_eq!(p["stationIds"], json!([s.a]));
    assert_eq!(p["itemIds"], json!([it]));
    assert_eq!(p["items"][0]["checkItems"], json!(["Clean", "No cracks"]));
    assert_eq!(p["maintenanceIds"], json!([s.uid(0), s.uid(1)]));
    assert_eq!(p["maintenanceNames"], json!(["m1", "m2"]));
    let id = p["id"].as_str().unwrap().to_owned();
    assert_eq!(
        en.get_data(&format!("/api/inspectPlan/{id}")).await["cyclePeriodName"],
        "Weekly"
    );

    // Lists and filters.
    let page = m
        .get_data(&format!(
            "/api/inspectPlan/page?current=1&size=10&stationId={}",
            s.b
        ))
        .await;
    assert_eq!(page["total"], 1);
    assert_eq!(page["records"][0]["name"], "Both stations");
    assert_eq!(
        m.get_data("/api/inspectPlan/page?name=walk&status=1").await["total"],
        1
    );
    assert_eq!(m.get_data("/api/inspectPlan/page?status=0").await["total"], 0);
    // m1 sees only plans wholly inside its stations.
    let mine = s.maint(0).get_data("/api/inspectPlan/page").await;
    assert_eq!(mine["total"], 1);
    assert_eq!(mine["records"][0]["id"], id);
    s.maint(0)
        .get(&format!("/api/inspectPlan/{}", p2["id"].as_str().unwrap()))
        .await
        .fails(404);

    // Copy: disabled, named as a copy, same links.
    let c = m.get_data(&format!("/api/inspectPlan/copy?id={id}")).await;
    assert_eq!(c["name"], "Daily walk (副本)");
    assert_eq!(c["status"], 0);
    assert!(c["nextDueDate"].is_null());
    assert_eq!(c["stationIds"], p["stationIds"]);
    assert_ne!(c["id"], p["id"]);
    assert_eq!(
        en.get_data(&format!("/api/inspectPlan/copy?id={id}")).await["name"],
        "Daily walk (copy)"
    );

    // Dictionaries and staff.
    let cycles = m.get_data("/api/inspectPlan/cyclePeriodList").await;
    assert_eq!(cycles.as_array().unwrap().len(), 6);
    assert_eq!(cycles[3], json!({"dictKey": "4", "dictValue": "每季度"}));
    assert_eq!(
        en.get_data("/api/inspectPlan/cyclePeriodList").await[5]["dictValue"],
        "Yearly"
    );
    let days = m.get_data("/api/inspectPlan/alarmDayList").await;
    let keys: Vec<&str> = days
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["dictKey"].as_str().unwrap())
        .collect();
    assert_eq!(keys, ["0", "1", "2", "3", "5", "7"]);
    assert_eq!(days[0]["dictValue"], "当天");
    assert_eq!(days[4]["dictValue"], "提前5天");
    assert_eq!(
        en.get_data("/api/inspectPlan/alarmDayList").await[2]["dictValue"],
        "2 days before"
    );
    let staff = m
        .get_data(&format!(
            "/api/inspectPlan/maintenanceList?stationIds={},{}",
            s.a, s.b
        ))
        .await;
    let names: Vec<&str> = staff
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["account"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["m2"]);
    let staff = m
        .get_data(&format!("/api/inspectPlan/maintenanceList?stationIds={}", s.a))
        .await;
    assert_eq!(staff.as_array().unwrap().len(), 3, "{staff}");
    assert_eq!(
        m.get_data("/api/inspectPlan/maintenanceList")
            .await
            .as_array()
            .unwrap()
            .len(),
        4
    );
    // An item made from inside the plan form.
    let made = m
        .post_data(
            "/api/inspectPlan/saveItemAndReturn",
            json!({"title": "Meter", "checkItems": ["Reading"]}),
        )
        .await;
    assert_eq!(made["title"], "Meter");
    refused(
        m.post_json("/api/inspectPlan/saveItemAndReturn", json!({"title": ""}))
            .await,
        400,
        "请输入巡检项标题",
    );

    // Update replaces every field.
    let mut change = good.clone();
    change["id"] = json!(id);
    change["name"] = json!("Renamed");
    change["cyclePeriod"] = json!(3);
    change["itemIds"] = json!([it, made["id"]]);
    change["endDate"] = json!((start + Duration::days(400)).to_string());
    let u = m.put_json("/api/inspectPlan", change.clone()).await.ok().data();
    assert_eq!(u["name"], "Renamed");
    assert_eq!(u["cyclePeriod"], "3");
    assert_eq!(u["items"].as_array().unwrap().len(), 2);
    let mut blank = change.clone();
    blank["startDate"] = json!("");
    refused(m.put_json("/api/inspectPlan", blank).await, 400, "请选择开始日期");
    refused(
        m.put_json("/api/inspectPlan", with("startDate", json!(""))).await,
        400,
        "请选择至少一条数据",
    );

    // The workbook opens, with human headers and names.
    let (status, headers, bytes) = m
        .raw(Method::GET, "/api/inspectPlan/export-data?name=Renamed")
        .await;
    assert_eq!(status, 200);
    assert!(
        headers["content-type"]
            .to_str()
            .unwrap()
            .contains("spreadsheetml")
    );
    let rows = sheet(bytes, "巡检计划");
    assert_eq!(rows[0][0], "计划名称");
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[1][0], "Renamed");
    assert_eq!(rows[1][1], "Station A");
    assert_eq!(rows[1][4], "每月");
    assert_eq!(rows[1][8], "启用");
    let (status, _, bytes) = s.maint(0).raw(Method::GET, "/api/inspectPlan/export-data").await;
    assert_eq!(status, 200);
    assert_eq!(
        sheet(bytes, "巡检计划").len(),
        4,
        "the plan over A and its two copies, not the one over A and B"
    );

    // Another tenant: nothing seen, nothing changed.
    let o = s.app.as_user(&s.other);
    o.get(&format!("/api/inspectPlan/{id}")).await.fails(404);
    o.get(&format!("/api/inspectPlan/copy?id={id}")).await.fails(404);
    assert_eq!(o.get_data("/api/inspectPlan/page").await["total"], 0);
    let mut hijack = change.clone();
    hijack["name"] = json!("Hijacked");
    o.put_json("/api/inspectPlan", hijack).await.fails(404);
    refused(o.delete(&format!("/api/inspectPlan/{id}")).await, 400, "删除失败");
    assert_eq!(
        m.get_data(&format!("/api/inspectPlan/{id}")).await["name"],
        "Renamed"
    );

    let r = m
        .delete(&format!("/api/inspectPlan/{id},{}", c["id"].as_str().unwrap()))
        .await
        .ok();
    assert_eq!(r.msg(), "删除成功");
    m.get(&format!("/api/inspectPlan/{id}")).await.fails(404);
}

/// The cells of sheet `name` as text.

#[tokio::test]
async fn put_image_takes_images_by_their_content_only() {
    let s = site().await;
    let m = s.mgr();
    let before = count(&s.app, "SELECT COUNT(*) FROM blade_attach", vec![]).await;
    let html = b"<!DOCTYPE html><html><script>alert(1)</script></html>".to_vec();
    refused(
        m.upload_file(PUT_IMAGE, "photo.png", html.clone()).await,
        400,
        "仅支持 JPG、PNG、WebP 图片",
    );
    refused(
        m.en().upload_file(PUT_IMAGE, "photo.png", html).await,
        400,
        "Only JPG, PNG or WebP images",
    );
    refused(
        m.upload_file(PUT_IMAGE, "x.png", b"\x89PNG fake image".to_vec())
            .await,
        400,
        "仅支持 JPG、PNG、WebP 图片",
    );
    assert_eq!(
        count(&s.app, "SELECT COUNT(*) FROM blade_attach", vec![]).await,
        before
    );

    let up = m
        .upload_file(PUT_IMAGE, "site photo.png", png_bytes())
        .await
        .ok()
        .data();
    assert!(up["name"].as_str().unwrap().ends_with(".png"), "{up}");
    assert_eq!(up["originalName"], "site photo.png");
    // A JPEG named .txt is stored as what it is.
    let jpeg = b"\xFF\xD8\xFF\xE0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00\xFF\xD9".to_vec();
    let j = m.upload_file(PUT_IMAGE, "notes.txt", jpeg).await.ok().data();
    assert!(j["name"].as_str().unwrap().ends_with(".jpg"), "{j}");
    let webp = b"RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00\x2f\x00\x00\x00\x10\x07\x10\x11\x11\x88\x88\xfe\x07\x00".to_vec();
    let w = m.upload_file(PUT_IMAGE, "w", webp).await.ok().data();
    assert!(w["name"].as_str().unwrap().ends_with(".webp"), "{w}");
    // It is served back inline as an image.
    let (status, headers, bytes) = s.app.anon().raw(Method::GET, up["link"].as_str().unwrap()).await;
    assert_eq!(status, 200);
    assert_eq!(headers["content-type"], "image/png");
    assert_eq!(bytes, png_bytes());
    // Too big.
    let mut big = png_bytes();
    big.resize(10 * 1024 * 1024 + 1, 0);
    refused(m.upload_file(PUT_IMAGE, "big.png", big).await, 400, "文件过大");
    m.upload_file(PUT_IMAGE, "a.png", vec![]).await.fails(400);
    s.app
        .anon()
        .upload_file(PUT_IMAGE, "a.png", png_bytes())
        .await
        .fails(401);
}
