//! Filling tasks, records, scope across tenants and stations, and repair orders from results.

use pv_cloud::kernel::sql::Value;
use reqwest::Method;
use serde_json::json;

use super::site::*;
use crate::support::int;

#[tokio::test]
async fn a_task_is_filled_once_by_its_staff_with_every_check_and_real_photos() {
    let (s, plan, tasks) = site_with_tasks().await;
    let t = &tasks[0];
    let m1 = s.maint(0);
    let d = m1.get_data(&format!("/api/inspectTask/{t}")).await;
    let photo = m1.upload_file(PUT_IMAGE, "p.png", png_bytes()).await.ok().data()["link"]
        .as_str()
        .unwrap()
        .to_owned();
    let good = answers(t, &d, Some("Cracked panel"), json!([photo]));

    // Who may fill it: m4 sees station A but is not on the plan; m3 cannot see A; the manager
    // is neither staff of the task nor an administrator; another tenant sees nothing.
    refused(
        s.maint(3).post_json("/api/inspectRecord", good.clone()).await,
        403,
        "只有该任务的运维人员可以填写",
    );
    s.maint(2)
        .post_json("/api/inspectRecord", good.clone())
        .await
        .fails(404);
    s.mgr()
        .post_json("/api/inspectRecord", good.clone())
        .await
        .fails(403);
    s.app
        .as_user(&s.other)
        .post_json("/api/inspectRecord", good.clone())
        .await
        .fails(404);
    s.app
        .create_tenant_user(T1, "nofill", "secret1", &["inspectionTask"], None)
        .await;
    let nofill = s.app.token_of(T1, "nofill", "secret1").await;
    s.app
        .as_user(&nofill)
        .post_json("/api/inspectRecord", good.clone())
        .await
        .fails(403);

    // What it must answer.
    let mut missing = good.clone();
    missing["results"].as_array_mut().unwrap().pop();
    refused(
        m1.post_json("/api/inspectRecord", missing).await,
        400,
        "请完成所有检查项",
    );
    let mut twice = good.clone();
    let first = twice["results"][0].clone();
    twice["results"].as_array_mut().unwrap().push(first);
    refused(
        m1.post_json("/api/inspectRecord", twice).await,
        400,
        "检查项重复填写：Clean",
    );
    let mut foreign = good.clone();
    foreign["results"][0]["check"] = json!("Made up");
    refused(
        m1.post_json("/api/inspectRecord", foreign).await,
        400,
        "检查项不属于该任务：Made up",
    );
    let no_note = answers(t, &d, Some(" "), json!([]));
    refused(
        m1.post_json("/api/inspectRecord", no_note.clone()).await,
        400,
        "请填写异常说明",
    );
    refused(
        m1.en().post_json("/api/inspectRecord", no_note).await,
        400,
        "Describe what is abnormal",
    );
    let mut bad_result = good.clone();
    bad_result["results"][0]["result"] = json!("3");
    m1.post_json("/api/inspectRecord", bad_result).await.fails(400);
    let mut no_situation = good.clone();
    no_situation["runSituation"] = json!("");
    refused(
        m1.post_json("/api/inspectRecord", no_situation).await,
        400,
        "请选择运行情况",
    );
    // Photos: an HTML page as .png is refused at upload; a text file, another tenant's image, a
    // made-up link: all refused as photos.
    m1.upload_file(
        "/api/blade-resource/oss/endpoint/put-file",
        "evil.png",
        b"<html><script>alert(1)</script></html>".to_vec(),
    )
    .await
    .fails(400);
    let html = m1
        .upload_file(
            "/api/blade-resource/oss/endpoint/put-file",
            "evil.txt",
            b"<html><script>alert(1)</script></html>".to_vec(),
        )
        .await
        .ok()
        .data()["link"]
        .as_str()
        .unwrap()
        .to_owned();
    let theirs = s
        .app
        .as_user(&s.other)
        .upload_file(PUT_IMAGE, "p.png", png_bytes())
        .await
        .ok()
        .data()["link"]
        .as_str()
        .unwrap()
        .to_owned();
    for bad in [
        html,
        theirs,
        "/api/blade-resource/oss/endpoint/file/100001/20260101/1.png".to_owned(),
    ] {
        refused(
            m1.post_json("/api/inspectRecord", answers(t, &d, None, json!([bad])))
                .await,
            400,
            "照片须为本租户上传的图片",
        );
    }
    assert_eq!(
        count(&s.app, "SELECT COUNT(*) FROM pv_inspect_record", vec![]).await,
        0
    );

    // Filled by m2 (on the plan): the record, the task filled.
    let r = s.maint(1).post_data("/api/inspectRecord", good.clone()).await;
    assert_eq!(r["status"], "1");
    assert_eq!(r["runSituation"], "2");
    assert_eq!(r["runSituationName"], "异常");
    assert_eq!(r["abnormalCount"], 1);
    assert_eq!(r["filledBy"], s.uid(1));
    assert_eq!(r["filledByName"], "m2");
    assert_eq!(r["planId"], plan);
    let results = r["results"].as_array().unwrap();
    assert_eq!(results.len(), 3);
    assert_eq!(results[0]["check"], "Clean");
    assert_eq!(results[1]["result"], "2");
    assert_eq!(results[1]["note"], "Cracked panel");
    assert_eq!(results[2]["itemTitle"], "Fence");
    assert_eq!(results[0]["photos"], json!([photo]));
    assert!(results[0]["repairId"].is_null());
    let rid = r["id"].as_str().unwrap().to_owned();
    let task = m1.get_data(&format!("/api/inspectTask/{t}")).await;
    assert_eq!(task["status"], "1");
    assert_eq!(task["statusName"], "已填写");
    assert_eq!(task["recordId"], rid);
    refused(
        m1.post_json("/api/inspectRecord", good.clone()).await,
        400,
        "该任务已填写",
    );
    refused(
        m1.en().post_json("/api/inspectRecord", good.clone()).await,
        400,
        "This task is already filled",
    );

    // An administrator of the tenant may fill any task.
    s.app
        .user_with_alias(T1, "boss", "administrator", INSPECT_MENUS)
        .await;
    let boss = s.app.token_of(T1, "boss", "secret1").await;
    let d1 = m1.get_data(&format!("/api/inspectTask/{}", tasks[1])).await;
    s.app
        .as_user(&boss)
        .post_data("/api/inspectRecord", answers(&tasks[1], &d1, None, json!([])))
        .await;

    // Records: lists, filters, detail, workbook; scoped like their stations.
    let page = m1.get_data("/api/inspectRecord/page?size=10").await;
    assert_eq!(page["total"], 2);
    assert!(page["records"][0].get("results").is_none());
    assert_eq!(
        m1.get_data("/api/inspectRecord/page?runSituation=2").await["total"],
        1
    );
    assert_eq!(
        m1.get_data(&format!(
            "/api/inspectRecord/page?planId={plan}&stationId={}",
            s.a
        ))
        .await["total"],
        2
    );
    assert_eq!(
        m1.get_data("/api/inspectRecord/page?filledTime_gt=2000-01-01%2000:00:00")
            .await["total"],
        2
    );
    assert_eq!(
        m1.get_data("/api/inspectRecord/page?filledTime_lt=2000-01-01")
            .await["total"],
        0
    );
    m1.get("/api/inspectRecord/page?filledTime_gt=yesterday")
        .await
        .fails(400);
    let doc = s.app.get("/api/openapi.json").await.body;
    let names: Vec<&str> = doc["paths"]["/api/inspectRecord/page"]["get"]["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"filledTime_gt") && names.contains(&"runSituation"),
        "{names:?}"
    );
    assert_eq!(
        m1.get_data(&format!("/api/inspectRecord/{rid}")).await["results"][1]["note"],
        "Cracked panel"
    );
    s.maint(2)
        .get(&format!("/api/inspectRecord/{rid}"))
        .await
        .fails(404);
    assert_eq!(s.maint(2).get_data("/api/inspectRecord/page").await["total"], 0);
    s.app
        .as_user(&s.other)
        .get(&format!("/api/inspectRecord/{rid}"))
        .await
        .fails(404);
    let (status, _, bytes) = m1
        .raw(Method::GET, "/api/inspectRecord/export-data?runSituation=2")
        .await;
    assert_eq!(status, 200);
    let rows = sheet(bytes, "巡检记录");
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[1][3], "异常");
    assert_eq!(rows[1][5], "m2");

    // Removing a record: refused outside its station or tenant (nothing changes), else the task
    // is unfilled again and can be filled anew.
    refused(
        s.maint(2).delete(&format!("/api/inspectRecord/{rid}")).await,
        400,
        "删除失败",
    );
    refused(
        s.app
            .as_user(&s.other)
            .delete(&format!("/api/inspectRecord/{rid}"))
            .await,
        400,
        "删除失败",
    );
    assert_eq!(m1.get_data(&format!("/api/inspectTask/{t}")).await["status"], "1");
    let del = m1.delete(&format!("/api/inspectRecord/{rid}")).await.ok();
    assert_eq!(del.msg(), "删除成功");
    m1.get(&format!("/api/inspectRecord/{rid}")).await.fails(404);
    let task = m1.get_data(&format!("/api/inspectTask/{t}")).await;
    assert_eq!(task["status"], "0");
    assert!(task["recordId"].is_null());
    m1.post_data("/api/inspectRecord", answers(t, &d, None, json!([])))
        .await;
}

#[tokio::test]
async fn other_tenants_and_other_stations_see_and_change_no_task() {
    let (s, plan, tasks) = site_with_tasks().await;
    let t = &tasks[0];
    let o = s.app.as_user(&s.other);
    o.get(&format!("/api/inspectTask/{t}")).await.fails(404);
    assert_eq!(o.get_data("/api/inspectTask/page").await["total"], 0);
    refused(o.delete(&format!("/api/inspectTask/{t}")).await, 400, "删除失败");
    let (status, _, bytes) = o.raw(Method::GET, "/api/inspectTask/export-data").await;
    assert_eq!(status, 200);
    assert_eq!(sheet(bytes, "巡检任务").len(), 1, "headers only");
    // m3 sees station B only.
    let m3 = s.maint(2);
    m3.get(&format!("/api/inspectTask/{t}")).await.fails(404);
    assert_eq!(
        m3.get_data(&format!("/api/inspectTask/page?planId={plan}")).await["total"],
        0
    );
    m3.get(&format!("/api/inspectPlan/{plan}")).await.fails(404);
    refused(
        m3.delete(&format!("/api/inspectPlan/{plan}")).await,
        400,
        "删除失败",
    );
    assert_eq!(
        count(
            &s.app,
            "SELECT COUNT(*) FROM pv_inspect_task WHERE plan_id = ? AND is_deleted = 0 AND status = 0",
            vec![Value::Int(int(&plan))]
        )
        .await,
        tasks.len() as i64
    );
    assert_eq!(
        count(
            &s.app,
            "SELECT COUNT(*) FROM pv_inspect_plan WHERE id = ? AND is_deleted = 0",
            vec![Value::Int(int(&plan))]
        )
        .await,
        1
    );
}

/// A second hub on the same database (PostgreSQL) — the way a cluster runs.

#[tokio::test]
async fn an_abnormal_result_opens_one_repair_order_that_the_record_shows() {
    let (s, _plan, tasks) = site_with_tasks().await;
    let t = &tasks[0];
    let m2 = s.maint(1);
    let d = m2.get_data(&format!("/api/inspectTask/{t}")).await;
    let r = m2
        .post_data(
            "/api/inspectRecord",
            answers(t, &d, Some("Cracked panel"), json!([])),
        )
        .await;
    let rid = r["id"].as_str().unwrap().to_owned();
    let repair_menus: Vec<&str> = INSPECT_MENUS
        .iter()
        .chain(&["repair", "repair_add", "repair_view"])
        .copied()
        .collect();
    s.app
        .user_with_alias(T1, "disp", "administrator", &repair_menus)
        .await;
    let disp = s.app.token_of(T1, "disp", "secret1").await;
    let d = s.app.as_user(&disp);
    let open = |index: i64| json!({"inspectRecordId": rid, "inspectResultIndex": index});

    // A normal result needs no order; a result that does not exist is named.
    refused(
        d.post_json("/api/repair", open(0)).await,
        400,
        "该检查项正常，无需维修工单",
    );
    refused(d.post_json("/api/repair", open(9)).await, 400, "巡检结果不存在");

    // The abnormal one: station, title and description come from the record.
    let order = d.post_data("/api/repair", open(1)).await;
    assert_eq!(order["source"], "3");
    assert_eq!(order["stationId"], s.a);
    assert_eq!(order["inspectRecordId"], rid);
    assert_eq!(order["title"], "巡检异常：Panels - No cracks");
    assert_eq!(order["description"], "Cracked panel");
    let oid = order["id"].as_str().unwrap().to_owned();
    let rec = m2.get_data(&format!("/api/inspectRecord/{rid}")).await;
    assert_eq!(rec["results"][1]["repairId"], oid);
    assert!(rec["results"][0]["repairId"].is_null());

    // A second tap answers the open order instead of opening another.
    let again = d.post_json("/api/repair", open(1)).await;
    assert_eq!(again.status, 400, "{}", again.body);
    assert_eq!(again.body["data"], json!(oid));
    assert!(again.msg().contains("该巡检结果已有工单"));
    assert_eq!(
        count(&s.app, "SELECT COUNT(*) FROM pv_repair_order", vec![]).await,
        1
    );

    // Another tenant's dispatcher finds no such record.
    s.app
        .user_with_alias(T2, "disp2", "administrator", &repair_menus)
        .await;
    let disp2 = s.app.token_of(T2, "disp2", "secret1").await;
    s.app
        .as_user(&disp2)
        .post_json("/api/repair", open(1))
        .await
        .fails(404);
    assert_eq!(
        count(&s.app, "SELECT COUNT(*) FROM pv_repair_order", vec![]).await,
        1
    );
}
