//! What the workflow calls answer: models, deployed definitions, instances (follow-up and sent
//! lists), tasks (to claim, to do, done) and an instance's history, each read with the names
//! it is shown with.

use serde::Serialize;
use utoipa::ToSchema;

use crate::kernel::Id;
use crate::kernel::time::Timestamp;

fn ts(v: Option<i64>) -> Option<Timestamp> {
    v.map(Timestamp)
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct ModelRow {
    pub id: i64,
    pub model_key: String,
    pub name: String,
    pub description: String,
    pub category: String,
    pub xml: String,
    pub version: i64,
    pub create_time: i64,
    pub update_time: i64,
    pub deployed_version: Option<i64>,
}

pub const MODEL_SELECT: &str = "SELECT m.id, m.model_key, m.name, m.description, m.category, m.xml, m.version, \
     m.create_time, m.update_time, (SELECT MAX(d.version) FROM flow_definition d WHERE d.tenant_id = m.tenant_id \
     AND d.process_key = m.model_key AND d.is_deleted = 0) AS deployed_version FROM flow_model m";

/// A process model (the editable BPMN XML).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FlowModel {
    pub id: Id,
    /// The process id (key) in the XML.
    pub model_key: String,
    pub name: String,
    pub description: String,
    /// Flow route entry (`flow_` + dictionary key).
    pub category: String,
    /// Saved this many times.
    pub version: i64,
    /// The newest deployed version of the key, if any.
    pub deployed_version: Option<i64>,
    /// The BPMN 2.0 XML (detail only; empty in lists).
    pub xml: String,
    pub create_time: Timestamp,
    pub update_time: Timestamp,
}

impl FlowModel {
    pub fn of(r: ModelRow, with_xml: bool) -> Self {
        FlowModel {
            id: Id(r.id),
            model_key: r.model_key,
            name: r.name,
            description: r.description,
            category: r.category,
            version: r.version,
            deployed_version: r.deployed_version,
            xml: if with_xml { r.xml } else { String::new() },
            create_time: Timestamp(r.create_time),
            update_time: Timestamp(r.update_time),
        }
    }
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct DefinitionListRow {
    pub id: i64,
    pub tenant_id: String,
    pub process_key: String,
    pub name: String,
    pub category: String,
    pub version: i64,
    pub suspended: i64,
    pub deploy_time: i64,
}

pub const DEFINITION_SELECT: &str =
    "SELECT id, tenant_id, process_key, name, category, version, suspended, deploy_time FROM flow_definition";

/// A deployed process definition.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProcessDefinition {
    pub id: Id,
    /// One definition per deployment: the same id.
    pub deployment_id: Id,
    pub tenant_id: String,
    pub key: String,
    pub name: String,
    pub category: String,
    pub version: i64,
    /// 1 active, 2 suspended.
    pub suspension_state: i64,
    pub deployment_time: Timestamp,
}

impl From<DefinitionListRow> for ProcessDefinition {
    fn from(r: DefinitionListRow) -> Self {
        ProcessDefinition {
            id: Id(r.id),
            deployment_id: Id(r.id),
            tenant_id: r.tenant_id,
            key: r.process_key,
            name: r.name,
            category: r.category,
            version: r.version,
            suspension_state: if r.suspended == 0 { 1 } else { 2 },
            deployment_time: Timestamp(r.deploy_time),
        }
    }
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct InstanceListRow {
    pub id: i64,
    pub definition_id: i64,
    pub process_key: String,
    pub definition_name: String,
    pub definition_version: i64,
    pub category: String,
    pub business_table: String,
    pub business_id: Option<i64>,
    pub title: String,
    pub status: i64,
    pub start_user_id: i64,
    pub start_user_name: String,
    pub start_time: i64,
    pub end_time: Option<i64>,
    pub delete_reason: String,
    pub current_tasks: Option<String>,
}

pub const INSTANCE_SELECT: &str = "SELECT i.id, i.definition_id, i.process_key, d.name AS definition_name, \
     d.version AS definition_version, d.category, i.business_table, i.business_id, i.title, i.status, \
     i.start_user_id, COALESCE(u.real_name, u.account, '') AS start_user_name, i.start_time, i.end_time, \
     i.delete_reason, (SELECT MIN(t.name) FROM flow_task t WHERE t.instance_id = i.id AND t.status = 1) AS current_tasks \
     FROM flow_instance i JOIN flow_definition d ON d.id = i.definition_id \
     LEFT JOIN blade_user u ON u.id = i.start_user_id";

/// A process instance (follow-up, sent list).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProcessInstance {
    pub process_instance_id: Id,
    pub process_definition_id: Id,
    pub process_definition_key: String,
    pub process_definition_name: String,
    pub process_definition_version: i64,
    pub category: String,
    /// The record it was started for (`desk_leave`, `pv_repair_order`, `pv_inspect_plan`).
    pub business_table: String,
    pub business_id: Option<Id>,
    pub title: String,
    /// 1 running, 2 completed, 3 deleted.
    pub status: i64,
    pub process_is_finished: bool,
    pub start_user: Id,
    pub start_user_name: String,
    pub start_time: Timestamp,
    pub end_time: Option<Timestamp>,
    pub delete_reason: String,
    /// The name of an open task, when running.
    pub current_task: Option<String>,
}

impl From<InstanceListRow> for ProcessInstance {
    fn from(r: InstanceListRow) -> Self {
        ProcessInstance {
            process_instance_id: Id(r.id),
            process_definition_id: Id(r.definition_id),
            process_definition_key: r.process_key,
            process_definition_name: r.definition_name,
            process_definition_version: r.definition_version,
            category: r.category,
            business_table: r.business_table,
            business_id: r.business_id.map(Id),
            title: r.title,
            status: r.status,
            process_is_finished: r.status != 1,
            start_user: Id(r.start_user_id),
            start_user_name: r.start_user_name,
            start_time: Timestamp(r.start_time),
            end_time: ts(r.end_time),
            delete_reason: r.delete_reason,
            current_task: r.current_tasks,
        }
    }
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct TaskListRow {
    pub id: i64,
    pub name: String,
    pub node_id: String,
    pub assignee_id: Option<i64>,
    pub assignee_name: String,
    pub status: i64,
    pub create_time: i64,
    pub claim_time: Option<i64>,
    pub end_time: Option<i64>,
    pub comment: String,
    pub instance_id: i64,
    pub definition_id: i64,
    pub process_key: String,
    pub definition_name: String,
    pub category: String,
    pub business_table: String,
    pub business_id: Option<i64>,
    pub title: String,
    pub instance_status: i64,
    pub start_user_name: String,
}

pub const TASK_SELECT: &str = "SELECT t.id, t.name, t.node_id, t.assignee_id, \
     COALESCE(a.real_name, a.account, '') AS assignee_name, t.status, t.create_time, t.claim_time, t.end_time, \
     t.comment, i.id AS instance_id, i.definition_id, i.process_key, d.name AS definition_name, d.category, \
     i.business_table, i.business_id, i.title, i.status AS instance_status, \
     COALESCE(s.real_name, s.account, '') AS start_user_name \
     FROM flow_task t JOIN flow_instance i ON i.id = t.instance_id JOIN flow_definition d ON d.id = i.definition_id \
     LEFT JOIN blade_user a ON a.id = t.assignee_id LEFT JOIN blade_user s ON s.id = i.start_user_id";

/// A user task in the caller's work lists.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WorkTask {
    pub task_id: Id,
    pub task_name: String,
    pub task_definition_key: String,
    pub assignee: Option<Id>,
    pub assignee_name: String,
    /// 1 open, 2 completed, 3 cancelled.
    pub status: i64,
    pub create_time: Timestamp,
    pub claim_time: Option<Timestamp>,
    pub end_time: Option<Timestamp>,
    pub comment: String,
    pub process_instance_id: Id,
    pub process_definition_id: Id,
    pub process_definition_key: String,
    pub process_definition_name: String,
    pub category: String,
    pub business_table: String,
    pub business_id: Option<Id>,
    pub title: String,
    pub process_is_finished: bool,
    pub start_user_name: String,
}

impl From<TaskListRow> for WorkTask {
    fn from(r: TaskListRow) -> Self {
        WorkTask {
            task_id: Id(r.id),
            task_name: r.name,
            task_definition_key: r.node_id,
            assignee: r.assignee_id.map(Id),
            assignee_name: r.assignee_name,
            status: r.status,
            create_time: Timestamp(r.create_time),
            claim_time: ts(r.claim_time),
            end_time: ts(r.end_time),
            comment: r.comment,
            process_instance_id: Id(r.instance_id),
            process_definition_id: Id(r.definition_id),
            process_definition_key: r.process_key,
            process_definition_name: r.definition_name,
            category: r.category,
            business_table: r.business_table,
            business_id: r.business_id.map(Id),
            title: r.title,
            process_is_finished: r.instance_status != 1,
            start_user_name: r.start_user_name,
        }
    }
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct HistoryRow {
    pub activity_id: String,
    pub activity_type: String,
    pub activity_name: String,
    pub assignee_id: Option<i64>,
    pub assignee_name: String,
    pub comment: String,
    pub start_time: i64,
    pub end_time: Option<i64>,
}

pub const HISTORY_SELECT: &str = "SELECT h.activity_id, h.activity_type, h.activity_name, h.assignee_id, \
     COALESCE(u.real_name, u.account, '') AS assignee_name, h.comment, h.start_time, h.end_time \
     FROM flow_history h LEFT JOIN blade_user u ON u.id = h.assignee_id";

/// One activity of an instance's diagram (`model-view`'s `flow`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FlowActivity {
    pub history_activity_id: String,
    /// The BPMN element (`startEvent`, `userTask`, ..., `sequenceFlow` for a taken flow).
    pub history_activity_type: String,
    /// Set once the activity is finished.
    pub end_time: Option<Timestamp>,
}

/// The diagram of a definition or an instance: its XML and, for an instance, what ran.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ModelView {
    pub xml: String,
    pub flow: Vec<FlowActivity>,
}

/// One step of an instance's history (who did what, when, with which comment).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HistoryFlow {
    pub history_activity_id: String,
    pub history_activity_name: String,
    pub history_activity_type: String,
    pub assignee: Option<Id>,
    pub assignee_name: String,
    pub comment: String,
    pub create_time: Timestamp,
    pub end_time: Option<Timestamp>,
    /// Milliseconds from start to end (finished steps).
    pub duration_in_millis: Option<i64>,
}

impl HistoryFlow {
    pub fn of(r: HistoryRow) -> Self {
        HistoryFlow {
            duration_in_millis: r.end_time.map(|e| e - r.start_time),
            history_activity_id: r.activity_id,
            history_activity_name: r.activity_name,
            history_activity_type: r.activity_type,
            assignee: r.assignee_id.map(Id),
            assignee_name: r.assignee_name,
            comment: r.comment,
            create_time: Timestamp(r.start_time),
            end_time: ts(r.end_time),
        }
    }
}
