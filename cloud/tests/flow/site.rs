//! The workflow tests' shared site: the repair site (two tenants, stations, dispatcher `mgr`,
//! maintenance staff) plus a workflow administrator and helpers to deploy and act.

use serde_json::{Value as Json, json};

pub use crate::repair::site::{Site as RepairSite, T1, T2, site as repair_site};
use crate::support::{Reply, TestApp};

pub const FLOW_MENUS: &[&str] = &[
    "flow",
    "flow_model",
    "flow_model_add",
    "flow_model_edit",
    "flow_model_delete",
    "flow_model_deploy",
    "flow_manager",
    "flow_manager_state",
    "flow_manager_delete",
    "flow_manager_upload",
    "flow_follow",
    "flow_follow_delete",
    "work",
];

pub struct Site {
    pub r: RepairSite,
    /// Workflow administrator of T1.
    pub admin: String,
    pub admin_id: i64,
    /// Workflow administrator of T2.
    pub admin2: String,
}

pub async fn site() -> Site {
    let r = repair_site().await;
    let (_, admin_id) = r
        .app
        .create_tenant_user(T1, "fadmin", "secret1", FLOW_MENUS, None)
        .await;
    let admin = r.app.token_of(T1, "fadmin", "secret1").await;
    r.app
        .create_tenant_user(T2, "fadmin2", "secret1", FLOW_MENUS, None)
        .await;
    let admin2 = r.app.token_of(T2, "fadmin2", "secret1").await;
    Site {
        r,
        admin,
        admin_id,
        admin2,
    }
}

/// A BPMN document of process `key` around `body`.
pub fn bpmn(key: &str, body: &str) -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:flowable="http://flowable.org/bpmn" id="d">
  <process id="{key}" name="{key} name">{body}</process>
</definitions>"#
    )
}

impl Site {
    pub fn app(&self) -> &TestApp {
        &self.r.app
    }

    /// Saves and deploys `xml` as the admin; the definition's id.
    pub async fn deploy(&self, xml: &str) -> String {
        let model = self
            .app()
            .as_user(&self.admin)
            .post_data(
                "/api/blade-flow/model/submit",
                json!({"xml": xml, "category": "flow_1"}),
            )
            .await;
        let id = model["id"].as_str().expect("model id").to_owned();
        let defs = self
            .app()
            .as_user(&self.admin)
            .post_query("/api/blade-flow/model/deploy", &[("modelId", &id)])
            .await
            .ok()
            .data();
        defs[0]["id"].as_str().expect("definition id").to_owned()
    }

    /// Deploys the seeded model `key` (listing the models seeds them).
    pub async fn deploy_default(&self, key: &str) -> String {
        let list = self
            .app()
            .as_user(&self.admin)
            .get_data("/api/blade-flow/model/list?size=50")
            .await;
        let model = list["records"]
            .as_array()
            .expect("records")
            .iter()
            .find(|m| m["modelKey"] == key)
            .unwrap_or_else(|| panic!("no default {key} in {list}"));
        let id = model["id"].as_str().expect("id").to_owned();
        let defs = self
            .app()
            .as_user(&self.admin)
            .post_query("/api/blade-flow/model/deploy", &[("modelId", &id)])
            .await
            .ok()
            .data();
        defs[0]["id"].as_str().expect("definition id").to_owned()
    }

    pub async fn list(&self, token: &str, which: &str) -> Vec<Json> {
        self.app()
            .as_user(token)
            .get_data(&format!("/api/blade-flow/work/{which}?size=100"))
            .await["records"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    /// The caller's open task ids (to do and to claim) of instance `instance`.
    pub async fn open_tasks(&self, token: &str, instance: &str) -> Vec<String> {
        let mut out = Vec::new();
        for which in ["todo-list", "claim-list"] {
            for t in self.list(token, which).await {
                if t["processInstanceId"] == instance {
                    out.push(t["taskId"].as_str().expect("taskId").to_owned());
                }
            }
        }
        out
    }

    pub async fn complete(
        &self,
        token: &str,
        task: &str,
        pass: Option<bool>,
        comment: &str,
        vars: Json,
    ) -> Reply {
        let mut body = json!({"taskId": task, "comment": comment, "variables": vars});
        if let Some(p) = pass {
            body["pass"] = json!(p);
        }
        self.app()
            .as_user(token)
            .post_json("/api/blade-flow/work/complete-task", body)
            .await
    }

    /// The names of the open tasks of `instance` (from the database).
    pub async fn open_nodes(&self, instance: &str) -> Vec<String> {
        let rows = self.app().state.core.db.pool().clone();
        let mut sql = pv_cloud::kernel::sql::Sql::new(
            "SELECT node_id FROM flow_task WHERE status = 1 AND instance_id = ? ORDER BY node_id",
        );
        sql.push_bind(
            "",
            [pv_cloud::kernel::sql::Value::Int(crate::support::int(instance))],
        );
        sql.scalars::<String, _>(&rows).await.expect("open nodes")
    }

    pub async fn instance_status(&self, instance: &str) -> i64 {
        self.app()
            .scalar_i64(
                "SELECT status FROM flow_instance WHERE id = ?",
                vec![pv_cloud::kernel::sql::Value::Int(crate::support::int(instance))],
            )
            .await
    }
}
