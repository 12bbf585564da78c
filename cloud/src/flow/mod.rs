//! Workflow (流程): process definitions in a BPMN 2.0 subset, deployed per tenant and run by a
//! small state machine in the hub. `bpmn` reads and checks a definition, `expr` is the condition
//! language, `engine` the pure walk from node to node; `store` and `runtime` keep instances,
//! tasks, timers and history in the database with exactly-once claims, completions and timer
//! firings; `hook` hands an ended instance back to its business record (repair dispatch
//! approval, inspection plan approval, leave). `job` fires due timers. Calls: `model_api`,
//! `manager_api`, `follow_api` (with the diagram and history), `work_api`, and the desk's
//! `leave`. The subset and its semantics are in `docs/workflow.md`.

pub mod bpmn;
pub mod definition;
pub mod engine;
pub mod expr;
pub mod follow_api;
pub mod hook;
pub mod job;
pub mod leave;
pub mod manager_api;
pub mod model_api;
pub mod runtime;
pub mod seed;
pub mod store;
pub mod view;
pub mod work_api;

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::kernel::Core;

/// The workflow routes (`/api/blade-flow/...`, `/api/blade-desk/...`).
pub fn routes<S>() -> OpenApiRouter<S>
where
    S: Clone + Send + Sync + 'static,
    Core: axum::extract::FromRef<S>,
{
    OpenApiRouter::new()
        .routes(routes!(model_api::list))
        .routes(routes!(model_api::detail))
        .routes(routes!(model_api::submit))
        .routes(routes!(model_api::remove))
        .routes(routes!(model_api::deploy))
        .routes(routes!(manager_api::list))
        .routes(routes!(manager_api::change_state))
        .routes(routes!(manager_api::delete_deployment))
        .routes(routes!(manager_api::deploy_upload))
        .routes(routes!(follow_api::list))
        .routes(routes!(follow_api::delete_instance))
        .routes(routes!(follow_api::model_view))
        .routes(routes!(follow_api::history_flow_list))
        .routes(routes!(work_api::start_list))
        .routes(routes!(work_api::claim_list))
        .routes(routes!(work_api::todo_list))
        .routes(routes!(work_api::send_list))
        .routes(routes!(work_api::done_list))
        .routes(routes!(work_api::claim_task))
        .routes(routes!(work_api::complete_task))
        .routes(routes!(leave::start_process))
        .routes(routes!(leave::detail))
        .routes(routes!(leave::approvers))
}
