//! The processes of this product: leave requests, repair dispatch approval (and repair working
//! as before without it), inspection plan approval.

use pv_cloud::kernel::sql::Value;
use serde_json::json;

use super::site::*;
use crate::support::int;

#[tokio::test]
async fn leave_requests_are_approved_or_rejected_with_a_comment() {
    let s = site().await;
    let m1 = s.app().as_user(&s.r.m1);
    let body = json!({"taskUser": s.r.mgr_id.to_string(), "startTime": "2026-12-01 08:00:00",
        "endTime": "2026-12-03 18:00:00", "reason": "family"});
    // Not deployed: refused, saying so.
    let r = m1
        .post_json("/api/blade-desk/process/leave/start-process", body.clone())
        .await
        .fails(400);
    assert!(r.msg().contains("未部署"), "{}", r.body);
    s.deploy_default("leave").await;
    let leave = m1
        .post_data("/api/blade-desk/process/leave/start-process", body.clone())
        .await;
    assert_eq!(leave["approval"], 1);
    let inst = leave["processInstanceId"].as_str().unwrap().to_owned();
    let todo = s.list(&s.r.mgr, "todo-list").await;
    let task = todo
        .iter()
        .find(|t| t["processInstanceId"] == inst.as_str())
        .expect("the approver's to-do");
    assert_eq!(task["businessTable"], "desk_leave");
    assert_eq!(task["category"], "flow_1");
    let task = task["taskId"].as_str().unwrap().to_owned();
    // Only the approver may complete it.
    s.complete(&s.r.m2, &task, Some(true), "", json!({}))
        .await
        .fails(403);
    s.complete(&s.r.mgr, &task, Some(false), "busy week", json!({}))
        .await
        .ok();
    let id = leave["id"].as_str().unwrap();
    let detail = m1
        .get_data(&format!("/api/blade-desk/process/leave/detail?businessId={id}"))
        .await;
    assert_eq!(detail["approval"], 3);
    assert_eq!(detail["comment"], "busy week");
    s.app()
        .as_user(&s.r.m3)
        .get(&format!("/api/blade-desk/process/leave/detail?businessId={id}"))
        .await
        .fails(404);
    let history = m1
        .get_data(&format!(
            "/api/blade-flow/process/history-flow-list?processInstanceId={inst}"
        ))
        .await;
    assert!(
        history
            .as_array()
            .unwrap()
            .iter()
            .any(|h| h["comment"] == "busy week" && h["assigneeName"] == "mgr")
    );
    // Approved this time.
    let again = m1
        .post_data("/api/blade-desk/process/leave/start-process", body)
        .await;
    let inst = again["processInstanceId"].as_str().unwrap();
    let task = s.open_tasks(&s.r.mgr, inst).await.pop().unwrap();
    s.complete(&s.r.mgr, &task, Some(true), "ok", json!({}))
        .await
        .ok();
    let id = again["id"].as_str().unwrap();
    assert_eq!(
        m1.get_data(&format!("/api/blade-desk/process/leave/detail?businessId={id}"))
            .await["approval"],
        2
    );
    assert_eq!(s.list(&s.r.mgr, "done-list").await.len(), 2);
}

async fn order(s: &Site, level: i64, assignee: Option<i64>) -> serde_json::Value {
    let mut body =
        json!({"title": "Broken string", "description": "0 A", "stationId": s.r.s1, "level": level});
    if let Some(a) = assignee {
        body["assigneeId"] = json!(a.to_string());
    }
    s.app().as_user(&s.r.mgr).post_data("/api/repair", body).await
}

#[tokio::test]
async fn repair_dispatch_waits_for_approval_above_the_level() {
    let s = site().await;
    // Without the process: as before, assigned at once.
    let before = order(&s, 4, Some(s.r.m1_id)).await;
    assert_eq!(before["approval"], 0);
    assert_eq!(before["status"], 2);
    s.deploy_default("repair_approval").await;
    // Below the process's level: no approval.
    let minor = order(&s, 2, None).await;
    assert_eq!(minor["approval"], 0);
    assert!(minor["actions"].as_array().unwrap().contains(&json!("assign")));
    // A critical order from an alarm waits for the station's O&M manager.
    let alarm = s.r.raise("fault:flow:1").await;
    let pending = s
        .app()
        .as_user(&s.r.mgr)
        .post_data(
            "/api/repair",
            json!({"alarmId": alarm, "assigneeId": s.r.m1_id.to_string()}),
        )
        .await;
    assert_eq!(pending["approval"], 1, "{pending}");
    assert_eq!(pending["status"], 1, "not assigned yet");
    assert!(!pending["actions"].as_array().unwrap().contains(&json!("assign")));
    let id = pending["id"].as_str().unwrap().to_owned();
    let r =
        s.r.act(
            &s.r.mgr,
            "assign",
            json!({"id": id, "assigneeId": s.r.m2_id.to_string()}),
        )
        .await
        .fails(400);
    assert!(r.msg().contains("审批"), "{}", r.body);
    let claims = s.list(&s.r.mgr, "claim-list").await;
    let task = claims
        .iter()
        .find(|t| t["businessId"] == id.as_str())
        .expect("the manager is a candidate");
    assert_eq!(task["businessTable"], "pv_repair_order");
    let inst = task["processInstanceId"].as_str().unwrap().to_owned();
    assert_eq!(pending["approvalInstance"], inst.as_str());
    let task = task["taskId"].as_str().unwrap().to_owned();
    // Maintenance staff are not candidates.
    s.complete(&s.r.m1, &task, Some(true), "", json!({}))
        .await
        .fails(403);
    s.complete(&s.r.mgr, &task, Some(true), "go ahead", json!({}))
        .await
        .ok();
    let approved = s
        .app()
        .as_user(&s.r.mgr)
        .get_data(&format!("/api/repair/{id}"))
        .await;
    assert_eq!(approved["approval"], 2);
    assert_eq!(
        approved["status"], 2,
        "assigned to the assignee named at creation"
    );
    assert_eq!(approved["assigneeId"], s.r.m1_id.to_string());
    let actions: Vec<&str> = approved["logs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, vec!["create", "approve", "assign"]);
    // Rejected: returned with the comment, not assignable.
    let other = order(&s, 3, None).await;
    assert_eq!(other["approval"], 1);
    let oid = other["id"].as_str().unwrap().to_owned();
    let inst2 = other["approvalInstance"].as_str().unwrap().to_owned();
    let task = s.open_tasks(&s.r.mgr, &inst2).await.pop().unwrap();
    s.complete(
        &s.r.mgr,
        &task,
        Some(false),
        "use the spare inverter first",
        json!({}),
    )
    .await
    .ok();
    let rejected = s
        .app()
        .as_user(&s.r.mgr)
        .get_data(&format!("/api/repair/{oid}"))
        .await;
    assert_eq!(rejected["approval"], 3);
    assert_eq!(rejected["approvalComment"], "use the spare inverter first");
    assert_eq!(rejected["status"], 1);
    assert!(!rejected["actions"].as_array().unwrap().contains(&json!("assign")));
    assert!(rejected["actions"].as_array().unwrap().contains(&json!("cancel")));
    // The diagram of the approved instance: start, gateways, task and end finished.
    let view = s
        .app()
        .as_user(&s.r.mgr)
        .get_data(&format!(
            "/api/blade-flow/process/model-view?processInstanceId={inst}"
        ))
        .await;
    let done: Vec<&str> = view["flow"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| !f["endTime"].is_null() && f["historyActivityType"] != "sequenceFlow")
        .map(|f| f["historyActivityId"].as_str().unwrap())
        .collect();
    assert_eq!(
        done,
        vec!["start", "level", "manager_approval", "verdict", "approved"]
    );
    let started = s
        .app()
        .scalar_i64(
            "SELECT COUNT(*) FROM flow_instance WHERE business_table = 'pv_repair_order'",
            vec![],
        )
        .await;
    assert_eq!(started, 2, "orders needing no approval start no instance");
    let _ = Value::Int(int(&id));
}

#[tokio::test]
async fn the_leave_form_offers_the_tenants_other_users_as_approvers() {
    let s = site().await;
    let m1 = s.app().as_user(&s.r.m1);
    let all = m1.get_data("/api/blade-desk/process/leave/approvers").await;
    let accounts: Vec<&str> = all
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["account"].as_str().unwrap())
        .collect();
    assert!(accounts.contains(&"mgr"), "{accounts:?}");
    assert!(accounts.contains(&"fadmin"), "{accounts:?}");
    // Not the applicant, nobody of another tenant.
    assert!(!accounts.contains(&"m1"), "{accounts:?}");
    assert!(!accounts.contains(&"mgr2"), "{accounts:?}");
    let found = m1
        .get_data("/api/blade-desk/process/leave/approvers?keyword=MG")
        .await;
    let found = found.as_array().unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["id"], s.r.mgr_id.to_string());
    assert_eq!(found[0]["name"], "mgr");
    let none = m1
        .get_data("/api/blade-desk/process/leave/approvers?keyword=%25")
        .await;
    assert_eq!(none.as_array().unwrap().len(), 0, "a % is a character");
    s.app()
        .get("/api/blade-desk/process/leave/approvers")
        .await
        .fails(401);
}
