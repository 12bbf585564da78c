//! Inspection plan approval: with the process deployed, a new plan generates no task until
//! approved; a rejected one stays inactive with the comment; without it plans are active at once.

use serde_json::json;

use super::site::FLOW_MENUS;
use crate::inspection::site::{T1, item, pass, plan_body, site, tasks_of, today_at};

#[tokio::test]
async fn a_plan_waits_for_approval_when_the_process_is_deployed() {
    let s = site().await;
    let m = s.mgr();
    let i1 = item(&m, "Panels", &["Clean"]).await;
    // Without the process: active at once.
    let before = m
        .post_data("/api/inspectPlan", plan_body(&s, &[&i1], "1", today_at(0), 1))
        .await;
    assert_eq!(before["approval"], 0);
    // The O&M manager: dispatches repairs (approver of the station) and administers workflow.
    let mut menus: Vec<&str> = FLOW_MENUS.to_vec();
    menus.extend(["repair", "repair_assign"]);
    s.app
        .create_tenant_user(T1, "boss", "secret1", &menus, None)
        .await;
    let boss = s.app.token_of(T1, "boss", "secret1").await;
    let b = s.app.as_user(&boss);
    let models = b.get_data("/api/blade-flow/model/list").await;
    let model = models["records"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["modelKey"] == "inspection_plan_approval")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    b.post_query("/api/blade-flow/model/deploy", &[("modelId", &model)])
        .await
        .ok();
    let plan = m
        .post_data("/api/inspectPlan", plan_body(&s, &[&i1], "1", today_at(0), 1))
        .await;
    assert_eq!(plan["approval"], 1);
    assert!(plan["nextDueDate"].is_null(), "not active while pending");
    let id = plan["id"].as_str().unwrap().to_owned();
    pass(&s.app).await;
    assert!(tasks_of(&s.app, &id).await.is_empty(), "no task while pending");
    let claims = b.get_data("/api/blade-flow/work/claim-list").await;
    let task = claims["records"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["businessId"] == id.as_str())
        .expect("the approver's claim list")["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    b.post_json(
        "/api/blade-flow/work/complete-task",
        json!({"taskId": task, "pass": true, "comment": "ok"}),
    )
    .await
    .ok();
    assert_eq!(m.get_data(&format!("/api/inspectPlan/{id}")).await["approval"], 2);
    pass(&s.app).await;
    assert!(
        !tasks_of(&s.app, &id).await.is_empty(),
        "approved: tasks generated"
    );
    // Rejected: stays inactive with the comment.
    let other = m
        .post_data("/api/inspectPlan", plan_body(&s, &[&i1], "1", today_at(0), 1))
        .await;
    let oid = other["id"].as_str().unwrap().to_owned();
    let claims = b.get_data("/api/blade-flow/work/claim-list").await;
    let task = claims["records"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["businessId"] == oid.as_str())
        .unwrap()["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    b.post_json(
        "/api/blade-flow/work/complete-task",
        json!({"taskId": task, "pass": false, "comment": "too often"}),
    )
    .await
    .ok();
    let rejected = m.get_data(&format!("/api/inspectPlan/{oid}")).await;
    assert_eq!(rejected["approval"], 3);
    assert_eq!(rejected["approvalComment"], "too often");
    pass(&s.app).await;
    assert!(tasks_of(&s.app, &oid).await.is_empty());
}
