//! The state machine through the API, who may act, the alarm link and concurrent actions.

use crate::support::int;
use pv_cloud::kernel::sql::Value;
use serde_json::json;

use super::site::*;

#[tokio::test]
async fn every_allowed_and_every_refused_transition() {
    let s = site().await;
    let mut n = 0;
    for status in 1..=8 {
        for action in ACTIONS {
            n += 1;
            let order = s.order_in(status, &format!("fault:t:{n}")).await;
            let logs_before = s
                .app
                .scalar_i64(
                    "SELECT COUNT(*) FROM pv_repair_log WHERE order_id = ?",
                    vec![Value::Int(int(&order))],
                )
                .await;
            let reply = s.take(&order, action).await;
            match ALLOWED.iter().find(|(f, a, _)| *f == status && *a == action) {
                Some((_, _, to)) => {
                    let reply = reply.ok();
                    assert_eq!(reply.data()["status"], *to, "{status} {action}");
                    assert_eq!(s.status(&order).await, *to);
                    let logs = reply.data()["logs"].as_array().cloned().unwrap_or_default();
                    assert_eq!(logs.last().expect("timeline")["action"], action);
                }
                None => {
                    let reply = reply.fails(400);
                    assert!(
                        reply.msg().contains("当前状态不允许该操作"),
                        "{status} {action}: {}",
                        reply.body
                    );
                    assert_eq!(
                        s.status(&order).await,
                        status,
                        "{status} {action} changed nothing"
                    );
                    let logs_after = s
                        .app
                        .scalar_i64(
                            "SELECT COUNT(*) FROM pv_repair_log WHERE order_id = ?",
                            vec![Value::Int(int(&order))],
                        )
                        .await;
                    assert_eq!(logs_before, logs_after);
                }
            }
        }
    }
}

#[tokio::test]
async fn who_may_act_and_what_they_see() {
    let s = site().await;
    let order = s.manual().await;
    let d = s.detail(&s.mgr, &order).await;
    assert_eq!(d["status"], 1);
    assert_eq!(d["code"].as_str().unwrap().len(), 14, "{d}");
    assert!(d["code"].as_str().unwrap().starts_with("WO"));
    assert_eq!(d["actions"], json!(["assign", "cancel"]));
    // A maintenance user cannot dispatch; only to maintenance staff who see the station.
    s.act(
        &s.m1,
        "assign",
        json!({"id": order, "assigneeId": s.m1_id.to_string()}),
    )
    .await
    .fails(403);
    s.act(
        &s.mgr,
        "assign",
        json!({"id": order, "assigneeId": s.owner_id.to_string()}),
    )
    .await
    .fails(400);
    // Assign also works as a GET with query parameters.
    s.as_(&s.mgr)
        .get_query(
            "/api/repair/assign",
            &[("id", &order), ("assigneeId", &s.m1_id.to_string())],
        )
        .await
        .ok();
    assert_eq!(
        s.detail(&s.m1, &order).await["actions"],
        json!(["accept", "transfer"])
    );
    assert_eq!(
        s.detail(&s.mgr, &order).await["actions"],
        json!(["transfer", "cancel"])
    );
    assert_eq!(s.detail(&s.owner, &order).await["actions"], json!([]));
    // Not the assignee: the other maintenance user, the owner, the dispatcher.
    for token in [&s.m2, &s.owner, &s.mgr] {
        s.act(token, "accept", json!({"id": order})).await.fails(403);
    }
    s.act(
        &s.m2,
        "transfer",
        json!({"id": order, "assigneeId": s.m2_id.to_string(), "reason": "mine"}),
    )
    .await
    .fails(403);
    s.act(&s.m1, "cancel", json!({"id": order, "reason": "no"}))
        .await
        .fails(403);
    // A reason is required to transfer.
    s.act(
        &s.m1,
        "transfer",
        json!({"id": order, "assigneeId": s.m2_id.to_string()}),
    )
    .await
    .fails(400);
    s.act(
        &s.m1,
        "transfer",
        json!({"id": order, "assigneeId": s.m2_id.to_string(), "reason": "on leave"}),
    )
    .await
    .ok();
    s.act(&s.m1, "accept", json!({"id": order})).await.fails(403);
    s.act(&s.m2, "accept", json!({"id": order})).await.ok();
    s.act(&s.m2, "start", json!({"id": order})).await.ok();
    s.act(&s.m2, "finish", json!({"id": order})).await.fails(400);
    let photo = s
        .as_(&s.m2)
        .upload_file(
            "/api/blade-resource/oss/endpoint/put-file",
            "fixed.png",
            b"\x89PNG\r\n\x1a\nfake".to_vec(),
        )
        .await
        .ok()
        .data()["link"]
        .as_str()
        .unwrap()
        .to_owned();
    s.act(
        &s.m2,
        "finish",
        json!({"id": order, "workDone": "x", "photos": ["http://elsewhere/x.png"]}),
    )
    .await
    .fails(400);
    // No alarm: verified at once, to be evaluated.
    let d = s
        .act(
            &s.m2,
            "finish",
            json!({"id": order, "workDone": "Fuse replaced", "photos": [photo]}),
        )
        .await
        .ok()
        .data();
    assert_eq!(d["status"], 6);
    assert_eq!(d["finishPhotos"], json!([photo]));
    // The station has an owner: only the owner evaluates.
    s.act(&s.mgr, "evaluate", json!({"id": order, "rating": 4}))
        .await
        .fails(403);
    s.act(&s.m2, "evaluate", json!({"id": order, "rating": 4}))
        .await
        .fails(403);
    s.act(&s.owner, "evaluate", json!({"id": order, "rating": 9}))
        .await
        .fails(400);
    let d = s
        .act(
            &s.owner,
            "evaluate",
            json!({"id": order, "rating": 4, "comment": "ok"}),
        )
        .await
        .ok()
        .data();
    assert_eq!((d["status"].clone(), d["rating"].clone()), (json!(7), json!(4)));
    let actions: Vec<&str> = d["logs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["action"].as_str().unwrap())
        .collect();
    assert_eq!(
        actions,
        [
            "create", "assign", "transfer", "accept", "start", "finish", "verify", "evaluate"
        ]
    );
    // The owner was told it awaited evaluation; the dispatcher that it was repaired.
    let messages = |user: i64, like: &'static str| {
        let app = &s.app;
        let order = order.clone();
        async move {
            app.scalar_i64(
                "SELECT COUNT(*) FROM pv_message WHERE user_id = ? AND biz_id = ? AND type = 4 AND title LIKE ?",
                vec![Value::Int(user), Value::Int(int(&order)), like.into()],
            )
            .await
        }
    };
    assert_eq!(messages(s.owner_id, "%待评价%").await, 1);
    assert_eq!(messages(s.mgr_id, "%已维修%").await, 1);
    assert_eq!(messages(s.m1_id, "%新维修工单%").await, 1);
    assert_eq!(messages(s.m2_id, "%新维修工单%").await, 1);

    // A station without owner: the dispatcher evaluates.
    let o2 = s
        .as_(&s.mgr)
        .post_json(
            "/api/repair",
            json!({"title": "Fence", "description": "Gate broken", "stationId": s.s2, "level": 1}),
        )
        .await
        .ok()
        .data()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    // m1 does not see station 2: not assignable to it.
    s.act(
        &s.mgr,
        "assign",
        json!({"id": o2, "assigneeId": s.m1_id.to_string()}),
    )
    .await
    .fails(400);
    s.as_(&s.mgr).get(&format!("/api/repair/{o2}")).await.ok();
    s.as_(&s.m1).get(&format!("/api/repair/{o2}")).await.fails(404);
    s.act(&s.mgr, "cancel", json!({"id": o2})).await.fails(400);
    s.act(&s.mgr, "cancel", json!({"id": o2, "reason": "Wrong station"}))
        .await
        .ok();
}

#[tokio::test]
async fn an_order_from_an_alarm_keeps_it_open_until_completed() {
    let s = site().await;
    let alarm = s.raise("fault:a:1").await;
    let created = s
        .as_(&s.mgr)
        .post_json("/api/repair", json!({"alarmId": alarm}))
        .await
        .ok()
        .data();
    let order = created["id"].as_str().unwrap().to_owned();
    assert_eq!(created["stationId"], json!(s.s1));
    assert_eq!(created["deviceId"], json!("77"));
    assert_eq!(created["deviceName"], "INV-7");
    assert_eq!(
        (created["level"].clone(), created["alarmLevel"].clone()),
        (json!(4), json!(4))
    );
    assert_eq!(created["alarmName"], "直流过压");
    assert_eq!(created["description"], "直流电压 1100 V");
    assert_eq!(created["source"], "2");
    // Critical: respond within 1 h, repair within 8 h (defaults).
    let created_ms = pv_cloud::kernel::time::parse_ms(created["createTime"].as_str().unwrap()).unwrap();
    let repair_ms = pv_cloud::kernel::time::parse_ms(created["repairDeadline"].as_str().unwrap()).unwrap();
    assert_eq!(repair_ms - created_ms, 8 * H);
    // One open order per alarm: the second answers the first's id.
    let again = s
        .as_(&s.mgr)
        .post_json("/api/repair", json!({"alarmId": alarm}))
        .await;
    assert_eq!(again.status, 400, "{}", again.body);
    assert_eq!(again.body["data"], json!(order));
    assert!(again.msg().contains("该告警已有工单"));
    // The alarm shows its order.
    let a = s.as_(&s.mgr).get_data(&format!("/api/alarmData/{alarm}")).await;
    assert_eq!(
        (a["repairId"].clone(), a["repairStatus"].clone()),
        (json!(order), json!(1))
    );
    let page = s.as_(&s.mgr).get_data("/api/alarmData/page").await;
    assert_eq!(page["records"][0]["repairId"], json!(order));
    let plain = s.raise("fault:a:plain").await;
    let p = s.as_(&s.mgr).get_data(&format!("/api/alarmData/{plain}")).await;
    assert!(
        p.get("repairId").is_none() && p.get("repairStatus").is_none(),
        "{p}"
    );

    for a in ["assign", "accept", "start"] {
        s.take(&order, a).await.ok();
    }
    // The condition ends: the alarm stays open while the order is.
    assert_eq!(s.condition_ends("fault:a:1").await, None);
    let alarm_status = |id: String| {
        let app = &s.app;
        async move {
            app.scalar_i64(
                "SELECT status FROM pv_alarm WHERE id = ?",
                vec![Value::Int(int(&id))],
            )
            .await
        }
    };
    assert_eq!(alarm_status(alarm.clone()).await, 0);
    // Finished after the condition ended: verified at once; completed: the alarm closes.
    assert_eq!(s.take(&order, "finish").await.ok().data()["status"], 6);
    s.take(&order, "evaluate").await.ok();
    assert_eq!(alarm_status(alarm.clone()).await, 2);
    let a = s.as_(&s.mgr).get_data(&format!("/api/alarmData/{alarm}")).await;
    let code = s.detail(&s.mgr, &order).await["code"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(a["clearNote"].as_str().unwrap().contains(&code), "{a}");
    assert_eq!(a["repairStatus"], 7);

    // Repaired while the condition persists: 5, then 6 when the condition ends.
    let (o2, a2) = s.order_from_alarm("fault:a:2").await;
    for a in ["assign", "accept", "start"] {
        s.take(&o2, a).await.ok();
    }
    assert_eq!(s.take(&o2, "finish").await.ok().data()["status"], 5);
    assert_eq!(s.condition_ends("fault:a:2").await, None);
    assert_eq!(s.status(&o2).await, 6);
    let logs = s.detail(&s.mgr, &o2).await["logs"].clone();
    assert_eq!(logs.as_array().unwrap().last().unwrap()["userId"], "0");
    assert_eq!(alarm_status(a2.clone()).await, 0);
    s.take(&o2, "evaluate").await.ok();
    assert_eq!(alarm_status(a2).await, 2);

    // Verified by a dispatcher while the condition persists: completed, the alarm stays open;
    // a new order may then be opened for it.
    let (o3, a3) = s.order_from_alarm("fault:a:3").await;
    for a in ["assign", "accept", "start", "finish", "verify", "evaluate"] {
        s.take(&o3, a).await.ok();
    }
    assert_eq!(alarm_status(a3.clone()).await, 0);
    let o4 = s
        .as_(&s.mgr)
        .post_json("/api/repair", json!({"alarmId": a3}))
        .await
        .ok()
        .data()["id"]
        .clone();
    assert_ne!(o4, json!(o3));
    // The condition ended, then came back before completion: the alarm stays open.
    let (o5, a5) = s.order_from_alarm("fault:a:5").await;
    s.condition_ends("fault:a:5").await;
    s.raise("fault:a:5").await;
    for a in ["assign", "accept", "start", "finish", "verify", "evaluate"] {
        s.take(&o5, a).await.ok();
    }
    assert_eq!(alarm_status(a5).await, 0);
    // Without an order the condition's end closes the alarm as before.
    assert_eq!(s.condition_ends("fault:a:plain").await, Some(plain.clone()));
    assert_eq!(alarm_status(plain).await, 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_accepting_at_once_exactly_one_wins() {
    let s = site().await;
    for round in 0..5 {
        let order = s.order_in(2, &format!("fault:c:{round}")).await;
        let body = json!({"id": order});
        let (a, b) = tokio::join!(
            s.act(&s.m1, "accept", body.clone()),
            s.act(&s.m1, "accept", body.clone())
        );
        let ok = [&a, &b].iter().filter(|r| r.status == 200).count();
        assert_eq!(ok, 1, "round {round}: {} / {}", a.body, b.body);
        let refused = if a.status == 200 { b } else { a };
        refused.fails(400);
        let accepts = s
            .app
            .scalar_i64(
                "SELECT COUNT(*) FROM pv_repair_log WHERE order_id = ? AND action = 'accept'",
                vec![Value::Int(int(&order))],
            )
            .await;
        assert_eq!(accepts, 1);
    }
}
