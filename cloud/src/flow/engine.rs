//! The state machine, pure: from a node being left (the start, a completed task, a fired timer)
//! it walks the sequence flows through gateways until every token rests at a user task, a
//! waiting parallel join or an end event, and answers what happened as [`Step`]s. The store
//! applies them in the same transaction as the change that caused them.
//!
//! Tokens: a user task holds one while open; a parallel join holds the arrivals it still waits
//! for (`joins`, kept with the instance). The instance ends when no task is open and no join
//! waits.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::bpmn::{Definition, Kind};
use super::expr;

/// One thing the walk did, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// A node passed through at once (start, gateway, end, timer): history with an end time.
    Passed {
        node: String,
        kind: &'static str,
        name: String,
    },
    /// A sequence flow taken.
    Took { flow: String },
    /// A user task to open.
    Open { node: String },
    /// A token reached an end event.
    Ended { node: String },
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    #[error("no outgoing flow of gateway {0} matches and it has no default")]
    NoWay(String),
    #[error("the process loops through gateways without reaching a task or an end ({0})")]
    Loop(String),
    #[error("element {0} is not in the definition")]
    Missing(String),
}

/// Arrivals a parallel join has seen and not yet passed on, by join id.
pub type Joins = BTreeMap<String, u32>;

const MAX_STEPS: usize = 10_000;

/// The flows a token leaving `node` takes.
fn leave<'a>(def: &'a Definition, node: &str, vars: &Map<String, Value>) -> Result<Vec<&'a str>, RunError> {
    let n = def
        .node(node)
        .ok_or_else(|| RunError::Missing(node.to_string()))?;
    let outs: Vec<_> = def.outgoing(node).collect();
    match &n.kind {
        Kind::Exclusive { default } => {
            let chosen = outs
                .iter()
                .find(|f| {
                    Some(&f.id) != default.as_ref()
                        && f.condition.as_ref().is_some_and(|c| expr::eval(c, vars))
                })
                .or_else(|| {
                    outs.iter()
                        .find(|f| Some(&f.id) != default.as_ref() && f.condition.is_none())
                })
                .or_else(|| outs.iter().find(|f| Some(&f.id) == default.as_ref()));
            chosen
                .map(|f| vec![f.id.as_str()])
                .ok_or_else(|| RunError::NoWay(node.to_string()))
        }
        Kind::Parallel => Ok(outs.iter().map(|f| f.id.as_str()).collect()),
        // Elsewhere a conditional flow is taken when its condition holds, the others always.
        _ => Ok(outs
            .iter()
            .filter(|f| f.condition.as_ref().is_none_or(|c| expr::eval(c, vars)))
            .map(|f| f.id.as_str())
            .collect()),
    }
}

/// Walks on from `from`, which the token is leaving now.
pub fn advance(
    def: &Definition,
    from: &str,
    vars: &Map<String, Value>,
    joins: &mut Joins,
) -> Result<Vec<Step>, RunError> {
    let mut steps = Vec::new();
    let mut pending: Vec<String> = leave(def, from, vars)?.into_iter().map(str::to_string).collect();
    pending.reverse();
    let mut count = 0;
    while let Some(flow_id) = pending.pop() {
        count += 1;
        if count > MAX_STEPS {
            return Err(RunError::Loop(flow_id));
        }
        let flow = def
            .flows
            .iter()
            .find(|f| f.id == flow_id)
            .ok_or_else(|| RunError::Missing(flow_id.clone()))?;
        steps.push(Step::Took {
            flow: flow.id.clone(),
        });
        let target = def
            .node(&flow.target)
            .ok_or_else(|| RunError::Missing(flow.target.clone()))?;
        let passed = |steps: &mut Vec<Step>| {
            steps.push(Step::Passed {
                node: target.id.clone(),
                kind: target.kind.bpmn_name(),
                name: target.name.clone(),
            })
        };
        let next = match &target.kind {
            Kind::UserTask(_) => {
                steps.push(Step::Open {
                    node: target.id.clone(),
                });
                continue;
            }
            Kind::End => {
                passed(&mut steps);
                steps.push(Step::Ended {
                    node: target.id.clone(),
                });
                continue;
            }
            Kind::Parallel => {
                let need = def.incoming_count(&target.id) as u32;
                if need > 1 {
                    let arrived = joins.entry(target.id.clone()).or_insert(0);
                    *arrived += 1;
                    if *arrived < need {
                        continue;
                    }
                    joins.remove(&target.id);
                }
                passed(&mut steps);
                leave(def, &target.id, vars)?
            }
            Kind::Exclusive { .. } => {
                passed(&mut steps);
                leave(def, &target.id, vars)?
            }
            // Validation keeps flows off start events and boundary events.
            Kind::Start | Kind::Timer(_) => return Err(RunError::Missing(target.id.clone())),
        };
        for f in next.into_iter().rev() {
            pending.push(f.to_string());
        }
    }
    Ok(steps)
}

/// The steps of starting an instance: the start event passed, then on from it.
pub fn start(def: &Definition, vars: &Map<String, Value>, joins: &mut Joins) -> Result<Vec<Step>, RunError> {
    let s = def
        .start()
        .ok_or_else(|| RunError::Missing("startEvent".into()))?;
    let mut steps = vec![Step::Passed {
        node: s.id.clone(),
        kind: "startEvent",
        name: s.name.clone(),
    }];
    steps.extend(advance(def, &s.id, vars, joins)?);
    Ok(steps)
}

/// The steps of timer `timer` firing: the timer passed, then on from it.
pub fn fire(
    def: &Definition,
    timer: &str,
    vars: &Map<String, Value>,
    joins: &mut Joins,
) -> Result<Vec<Step>, RunError> {
    let t = def
        .node(timer)
        .ok_or_else(|| RunError::Missing(timer.to_string()))?;
    let mut steps = vec![Step::Passed {
        node: t.id.clone(),
        kind: "boundaryEvent",
        name: t.name.clone(),
    }];
    steps.extend(advance(def, timer, vars, joins)?);
    Ok(steps)
}

#[cfg(test)]
#[path = "engine_tests.rs"]
mod tests;
