//! The engine through the API: each element of the subset, racing completions and claims,
//! timers fired once, refusals, suspension and tenant isolation.

use pv_cloud::flow::{job, runtime, store};
use pv_cloud::kernel::sql::Value;
use serde_json::{Map, Value as Json, json};

use super::site::*;
use crate::support::int;

/// Starts an instance of definition `def` as user `user` of T1 with `vars`; its id.
pub async fn start(s: &Site, def: &str, user: i64, vars: Json) -> String {
    let core = &s.app().state.core;
    let row = store::definition(core.db.pool(), T1, int(def))
        .await
        .expect("read")
        .expect("definition");
    let variables: Map<String, Json> = vars.as_object().cloned().unwrap_or_default();
    let mut tx = core.db.begin_write().await.expect("tx");
    let args = runtime::StartArgs {
        tenant_id: T1,
        user_id: user,
        business_table: "",
        business_id: None,
        title: "test",
        variables,
    };
    let (id, _) = runtime::start(&mut tx, core, &row, args, pv_cloud::kernel::time::now_ms())
        .await
        .expect("start");
    tx.commit().await.expect("commit");
    id.0.to_string()
}

const ALL: &str = r#"
  <startEvent id="start"/>
  <exclusiveGateway id="level" default="low"/>
  <parallelGateway id="split"/>
  <userTask id="a" name="A" flowable:assignee="ADMIN"/>
  <userTask id="b" name="B" flowable:candidateUsers="M1,M2"/>
  <parallelGateway id="join"/>
  <userTask id="c" name="C" flowable:assignee="${reviewer}"/>
  <endEvent id="end"/>
  <endEvent id="quick"/>
  <sequenceFlow id="f1" sourceRef="start" targetRef="level"/>
  <sequenceFlow id="high" sourceRef="level" targetRef="split"><conditionExpression>${level &gt;= 3}</conditionExpression></sequenceFlow>
  <sequenceFlow id="low" sourceRef="level" targetRef="quick"/>
  <sequenceFlow id="fa" sourceRef="split" targetRef="a"/>
  <sequenceFlow id="fb" sourceRef="split" targetRef="b"/>
  <sequenceFlow id="ja" sourceRef="a" targetRef="join"/>
  <sequenceFlow id="jb" sourceRef="b" targetRef="join"/>
  <sequenceFlow id="fc" sourceRef="join" targetRef="c"/>
  <sequenceFlow id="fe" sourceRef="c" targetRef="end"/>"#;

#[tokio::test]
async fn every_element_through_the_api() {
    let s = site().await;
    let body = ALL
        .replace("ADMIN", &s.admin_id.to_string())
        .replace("M1", &s.r.m1_id.to_string())
        .replace("M2", &s.r.m2_id.to_string());
    let def = s.deploy(&bpmn("all", &body)).await;
    // Exclusive gateway, default flow: ends at once.
    let quick = start(&s, &def, s.admin_id, json!({"level": 1})).await;
    assert_eq!(s.instance_status(&quick).await, 2);
    // Condition true: parallel split opens A and B.
    let inst = start(&s, &def, s.admin_id, json!({"level": 4, "reviewer": s.r.mgr_id})).await;
    assert_eq!(s.open_nodes(&inst).await, vec!["a", "b"]);
    let a = s.open_tasks(&s.admin, &inst).await;
    assert_eq!(a.len(), 1, "the admin is A's assignee");
    // B is offered to m1 and m2 (candidates), to do for nobody yet.
    let m1_claims = s.list(&s.r.m1, "claim-list").await;
    assert!(
        m1_claims
            .iter()
            .any(|t| t["processInstanceId"] == inst && t["taskName"] == "B")
    );
    assert!(
        s.list(&s.r.m2, "claim-list")
            .await
            .iter()
            .any(|t| t["processInstanceId"] == inst)
    );
    assert!(
        s.list(&s.r.m3, "claim-list")
            .await
            .iter()
            .all(|t| t["processInstanceId"] != inst)
    );
    // A done: the join waits for B.
    s.complete(&s.admin, &a[0], None, "A done", json!({})).await.ok();
    assert_eq!(s.open_nodes(&inst).await, vec!["b"]);
    // m1 claims B: gone from m2's claim list, on m1's to-do list.
    let b = m1_claims.iter().find(|t| t["processInstanceId"] == inst).unwrap()["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    s.app()
        .as_user(&s.r.m1)
        .post_query("/api/blade-flow/work/claim-task", &[("taskId", &b)])
        .await
        .ok();
    assert!(
        s.list(&s.r.m2, "claim-list")
            .await
            .iter()
            .all(|t| t["processInstanceId"] != inst)
    );
    assert!(
        s.list(&s.r.m1, "todo-list")
            .await
            .iter()
            .any(|t| t["taskId"] == b.as_str())
    );
    // m2 can no longer complete it.
    s.complete(&s.r.m2, &b, None, "", json!({})).await.fails(400);
    s.complete(&s.r.m1, &b, None, "B done", json!({})).await.ok();
    // The join passed: C for the reviewer named by a variable.
    assert_eq!(s.open_nodes(&inst).await, vec!["c"]);
    let c = s.open_tasks(&s.r.mgr, &inst).await;
    assert_eq!(c.len(), 1);
    s.complete(&s.r.mgr, &c[0], Some(true), "ok", json!({}))
        .await
        .ok();
    assert_eq!(s.instance_status(&inst).await, 2);
    // Done lists and the history.
    assert!(
        s.list(&s.r.m1, "done-list")
            .await
            .iter()
            .any(|t| t["taskId"] == b.as_str() && t["comment"] == "B done")
    );
    assert!(
        s.list(&s.admin, "send-list")
            .await
            .iter()
            .any(|i| i["processInstanceId"] == inst && i["processIsFinished"] == true)
    );
    let history = s
        .app()
        .as_user(&s.admin)
        .get_data(&format!(
            "/api/blade-flow/process/history-flow-list?processInstanceId={inst}"
        ))
        .await;
    let kinds: Vec<&str> = history
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["historyActivityType"].as_str().unwrap())
        .collect();
    assert_eq!(kinds.iter().filter(|k| **k == "userTask").count(), 3);
    assert!(
        kinds.contains(&"startEvent") && kinds.contains(&"endEvent") && kinds.contains(&"parallelGateway")
    );
    let view = s
        .app()
        .as_user(&s.admin)
        .get_data(&format!(
            "/api/blade-flow/process/model-view?processInstanceId={inst}"
        ))
        .await;
    assert!(view["xml"].as_str().unwrap().contains("<process id=\"all\""));
    let flow = view["flow"].as_array().unwrap();
    assert!(
        flow.iter()
            .any(|f| f["historyActivityType"] == "sequenceFlow" && f["historyActivityId"] == "high")
    );
    assert!(
        flow.iter().all(|f| !f["endTime"].is_null()),
        "everything finished"
    );
    assert!(
        !flow.iter().any(|f| f["historyActivityId"] == "low"),
        "the flow not taken is not drawn"
    );
}

#[tokio::test]
async fn candidates_by_role_and_missing_people_refused() {
    let s = site().await;
    let def = s
        .deploy(&bpmn(
            "roles",
            r#"<startEvent id="s"/><userTask id="t" flowable:candidateGroups="maintenance"/><endEvent id="e"/>
               <sequenceFlow id="f1" sourceRef="s" targetRef="t"/><sequenceFlow id="f2" sourceRef="t" targetRef="e"/>"#,
        ))
        .await;
    let inst = start(&s, &def, s.admin_id, json!({})).await;
    for m in [&s.r.m1, &s.r.m2, &s.r.m3] {
        assert_eq!(
            s.open_tasks(m, &inst).await.len(),
            1,
            "maintenance role holders are candidates"
        );
    }
    assert!(s.open_tasks(&s.r.mgr, &inst).await.is_empty());
    // A variable that names nobody refuses the start.
    let nobody = s
        .deploy(&bpmn(
            "nobody",
            r#"<startEvent id="s"/><userTask id="t" name="T" flowable:assignee="${who}"/><endEvent id="e"/>
               <sequenceFlow id="f1" sourceRef="s" targetRef="t"/><sequenceFlow id="f2" sourceRef="t" targetRef="e"/>"#,
        ))
        .await;
    let core = &s.app().state.core;
    let row = store::definition(core.db.pool(), T1, int(&nobody))
        .await
        .unwrap()
        .unwrap();
    let mut tx = core.db.begin_write().await.unwrap();
    let args = runtime::StartArgs {
        tenant_id: T1,
        user_id: s.admin_id,
        business_table: "",
        business_id: None,
        title: "",
        variables: Map::new(),
    };
    let err = runtime::start(&mut tx, core, &row, args, 0).await.unwrap_err();
    assert!(err.to_string().contains("no assignee"), "{err}");
}

const PAIR: &str = r#"<startEvent id="s"/><userTask id="t" flowable:candidateUsers="M1,M2"/><userTask id="next" flowable:assignee="M1"/><endEvent id="e"/>
   <sequenceFlow id="f1" sourceRef="s" targetRef="t"/><sequenceFlow id="f2" sourceRef="t" targetRef="next"/><sequenceFlow id="f3" sourceRef="next" targetRef="e"/>"#;

#[tokio::test]
async fn of_two_racing_completions_exactly_one_wins() {
    let s = site().await;
    let body = PAIR
        .replace("M1", &s.r.m1_id.to_string())
        .replace("M2", &s.r.m2_id.to_string());
    let def = s.deploy(&bpmn("race", &body)).await;
    for round in 0..6 {
        let inst = start(&s, &def, s.admin_id, json!({})).await;
        let task = s.open_tasks(&s.r.m1, &inst).await.pop().expect("task");
        let (r1, r2) = if round % 2 == 0 {
            // Two users completing the unclaimed task at once.
            tokio::join!(
                s.complete(&s.r.m1, &task, None, "m1", json!({})),
                s.complete(&s.r.m2, &task, None, "m2", json!({}))
            )
        } else {
            // Two claims at once.
            let (u1, u2) = (s.app().as_user(&s.r.m1), s.app().as_user(&s.r.m2));
            let q = [("taskId", task.as_str())];
            tokio::join!(
                u1.post_query("/api/blade-flow/work/claim-task", &q),
                u2.post_query("/api/blade-flow/work/claim-task", &q)
            )
        };
        let wins = [&r1, &r2].iter().filter(|r| r.status == 200).count();
        assert_eq!(wins, 1, "round {round}: {} / {}", r1.body, r2.body);
        let loser = if r1.status == 200 { r2 } else { r1 };
        let loser = loser.fails(400);
        assert!(loser.msg().contains("已被"), "{}", loser.body);
        if round % 2 == 0 {
            // The next task was opened once.
            let next = s
                .app()
                .scalar_i64(
                    "SELECT COUNT(*) FROM flow_task WHERE instance_id = ? AND node_id = 'next'",
                    vec![Value::Int(int(&inst))],
                )
                .await;
            assert_eq!(next, 1, "round {round}");
        }
    }
}

fn timer_process(key: &str, cancel: bool, assignee: i64, escalate_to: i64) -> String {
    bpmn(
        key,
        &format!(
            r#"<startEvent id="s"/><userTask id="t" flowable:assignee="{assignee}"/>
  <boundaryEvent id="late" attachedToRef="t" cancelActivity="{cancel}"><timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition></boundaryEvent>
  <userTask id="escalated" flowable:assignee="{escalate_to}"/><endEvent id="e"/><endEvent id="e2"/>
  <sequenceFlow id="f1" sourceRef="s" targetRef="t"/><sequenceFlow id="f2" sourceRef="t" targetRef="e"/>
  <sequenceFlow id="f3" sourceRef="late" targetRef="escalated"/><sequenceFlow id="f4" sourceRef="escalated" targetRef="e2"/>"#
        ),
    )
}

#[tokio::test]
async fn a_boundary_timer_fires_once_when_two_replicas_pass_at_once() {
    let s = site().await;
    let def = s
        .deploy(&timer_process("timer_a", true, s.r.m1_id, s.r.mgr_id))
        .await;
    let inst = start(&s, &def, s.admin_id, json!({})).await;
    let core = &s.app().state.core;
    let now = pv_cloud::kernel::time::now_ms();
    // Not due yet.
    assert_eq!(job::run_once(core, now).await.unwrap(), 0);
    let later = now + 2 * 3_600_000;
    let (a, b) = tokio::join!(job::run_once(core, later), job::run_once(core, later));
    assert_eq!(a.unwrap() + b.unwrap(), 1, "fired once");
    assert_eq!(
        s.open_nodes(&inst).await,
        vec!["escalated"],
        "interrupting: the task was cancelled"
    );
    assert_eq!(job::run_once(core, later).await.unwrap(), 0);
    // Non-interrupting: the task stays, the escalation opens beside it.
    let def = s
        .deploy(&timer_process("timer_b", false, s.r.m1_id, s.r.mgr_id))
        .await;
    let inst = start(&s, &def, s.admin_id, json!({})).await;
    assert_eq!(job::run_once(core, later).await.unwrap(), 1);
    assert_eq!(s.open_nodes(&inst).await, vec!["escalated", "t"]);
    // Completing the task first cancels its timer.
    let inst = start(&s, &def, s.admin_id, json!({})).await;
    let task = s.open_tasks(&s.r.m1, &inst).await.pop().unwrap();
    s.complete(&s.r.m1, &task, None, "", json!({})).await.ok();
    assert_eq!(job::run_once(core, later).await.unwrap(), 0);
    assert_eq!(s.instance_status(&inst).await, 2);
}

#[tokio::test]
async fn refusals_versions_suspension_upload_and_tenants() {
    let s = site().await;
    let admin = s.app().as_user(&s.admin);
    // The defaults are seeded on first read.
    let models = admin.get_data("/api/blade-flow/model/list").await;
    assert_eq!(models["total"], 3, "{models}");
    // Outside the subset: refused, naming the element.
    let bad = bpmn(
        "bad",
        r#"<startEvent id="s"/><serviceTask id="x"/><endEvent id="e"/>"#,
    );
    let r = admin
        .post_json("/api/blade-flow/model/submit", json!({"xml": bad}))
        .await
        .fails(400);
    assert!(r.msg().contains("serviceTask"), "{}", r.body);
    let r = s
        .app()
        .as_user(&s.admin)
        .en()
        .post_json("/api/blade-flow/model/submit", json!({"xml": bad}))
        .await
        .fails(400);
    assert!(
        r.msg().contains("Unsupported BPMN element: serviceTask"),
        "{}",
        r.body
    );
    // Uploading deploys new versions.
    let good = bpmn(
        "up",
        &format!(
            r#"<startEvent id="s"/><userTask id="t" flowable:assignee="{}"/><endEvent id="e"/>
               <sequenceFlow id="f1" sourceRef="s" targetRef="t"/><sequenceFlow id="f2" sourceRef="t" targetRef="e"/>"#,
            s.r.m1_id
        ),
    );
    let upload = |name: &'static str, xml: String| {
        let form = reqwest::multipart::Form::new().text("category", "flow_1").part(
            "files",
            reqwest::multipart::Part::bytes(xml.into_bytes()).file_name(name),
        );
        crate::support::client::send(
            admin
                .request(reqwest::Method::POST, "/api/blade-flow/manager/deploy-upload")
                .multipart(form),
        )
    };
    let first = upload("up.bpmn", good.clone()).await.ok().data();
    assert_eq!(first[0]["version"], 1);
    let second = upload("up.bpmn20.xml", good.clone()).await.ok().data();
    assert_eq!(second[0]["version"], 2);
    let r = upload("bad.bpmn", bad.clone()).await.fails(400);
    assert!(
        r.msg().contains("bad.bpmn") && r.msg().contains("serviceTask"),
        "{}",
        r.body
    );
    let list = admin.get_data("/api/blade-flow/manager/list?keyword=up").await;
    assert_eq!(list["total"], 2);
    let def = second[0]["id"].as_str().unwrap().to_owned();
    // Suspended: no claim or completion until active again.
    let inst = start(&s, &def, s.admin_id, json!({})).await;
    let task = s.open_tasks(&s.r.m1, &inst).await.pop().unwrap();
    admin
        .post_query(
            "/api/blade-flow/manager/change-state",
            &[("state", "suspend"), ("processId", &def)],
        )
        .await
        .ok();
    let r = s.complete(&s.r.m1, &task, None, "", json!({})).await.fails(400);
    assert!(r.msg().contains("挂起"), "{}", r.body);
    let starts = s.list(&s.r.m1, "start-list").await;
    assert!(
        starts.iter().all(|d| d["key"] != "up"),
        "a suspended definition is not offered"
    );
    admin
        .post_query(
            "/api/blade-flow/manager/change-state",
            &[("state", "active"), ("processId", &def)],
        )
        .await
        .ok();
    // Another tenant sees and touches nothing of it.
    let other = s.app().as_user(&s.admin2);
    assert_eq!(other.get_data("/api/blade-flow/follow/list").await["total"], 0);
    other
        .get(&format!(
            "/api/blade-flow/process/model-view?processInstanceId={inst}"
        ))
        .await
        .fails(404);
    s.complete(&s.admin2, &task, None, "", json!({})).await.fails(404);
    other
        .post_query(
            "/api/blade-flow/manager/change-state",
            &[("state", "suspend"), ("processId", &def)],
        )
        .await
        .fails(404);
    // Someone without the menu cannot list deployments, and an outsider cannot view the instance.
    s.app()
        .as_user(&s.r.m1)
        .get("/api/blade-flow/manager/list")
        .await
        .fails(403);
    s.app()
        .as_user(&s.r.m3)
        .get(&format!(
            "/api/blade-flow/process/history-flow-list?processInstanceId={inst}"
        ))
        .await
        .fails(404);
    // Following: the admin lists and deletes the instance; its task is gone from m1's list.
    let follow = admin
        .get_data(&format!("/api/blade-flow/follow/list?processInstanceId={inst}"))
        .await;
    assert_eq!(follow["records"][0]["currentTask"], "t");
    admin
        .post_query(
            "/api/blade-flow/follow/delete-process-instance",
            &[("processInstanceId", &inst), ("deleteReason", "test")],
        )
        .await
        .ok();
    assert_eq!(s.instance_status(&inst).await, 3);
    assert!(s.open_tasks(&s.r.m1, &inst).await.is_empty());
    s.complete(&s.r.m1, &task, None, "", json!({})).await.fails(400);
    // Deleting the deployment: gone from the list.
    admin
        .post_query(
            "/api/blade-flow/manager/delete-deployment",
            &[("deploymentIds", &def)],
        )
        .await
        .ok();
    assert_eq!(
        admin.get_data("/api/blade-flow/manager/list?keyword=up").await["total"],
        1
    );
}
