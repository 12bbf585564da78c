//! Workflow (流程): process definitions in a BPMN 2.0 subset, deployed per tenant, run by a small
//! state machine in the hub. `bpmn` reads and checks a definition, `expr` is the condition
//! language, `engine` the pure walk from node to node. The subset and its semantics are in
//! `docs/workflow.md`.

pub mod bpmn;
pub mod engine;
pub mod expr;
