use serde_json::json;

use super::*;
use crate::flow::bpmn::{self, tests_doc};

fn def(body: &str) -> Definition {
    bpmn::parse(&tests_doc(body)).expect("valid definition")
}

fn vars(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

fn opened(steps: &[Step]) -> Vec<&str> {
    steps
        .iter()
        .filter_map(|s| match s {
            Step::Open { node } => Some(node.as_str()),
            _ => None,
        })
        .collect()
}

fn ended(steps: &[Step]) -> Vec<&str> {
    steps
        .iter()
        .filter_map(|s| match s {
            Step::Ended { node } => Some(node.as_str()),
            _ => None,
        })
        .collect()
}

const FLOW: &str = r#"
  <startEvent id="start"/>
  <userTask id="t1" flowable:assignee="1"/>
  <endEvent id="end"/>
  <sequenceFlow id="f1" sourceRef="start" targetRef="t1"/>
  <sequenceFlow id="f2" sourceRef="t1" targetRef="end"/>"#;

#[test]
fn start_event_passes_to_the_first_task_and_the_task_to_the_end() {
    let d = def(FLOW);
    let mut joins = Joins::new();
    let steps = start(&d, &Map::new(), &mut joins).unwrap();
    assert_eq!(
        steps,
        vec![
            Step::Passed {
                node: "start".into(),
                kind: "startEvent",
                name: String::new()
            },
            Step::Took { flow: "f1".into() },
            Step::Open { node: "t1".into() },
        ]
    );
    let steps = advance(&d, "t1", &Map::new(), &mut joins).unwrap();
    assert_eq!(ended(&steps), vec!["end"]);
    assert!(opened(&steps).is_empty());
}

const CHOICE: &str = r#"
  <startEvent id="start"/>
  <exclusiveGateway id="g" default="low"/>
  <userTask id="approve" flowable:assignee="1"/>
  <userTask id="review" flowable:assignee="2"/>
  <endEvent id="end"/>
  <sequenceFlow id="f1" sourceRef="start" targetRef="g"/>
  <sequenceFlow id="high" sourceRef="g" targetRef="approve"><conditionExpression>${level &gt;= 3}</conditionExpression></sequenceFlow>
  <sequenceFlow id="mid" sourceRef="g" targetRef="review"><conditionExpression>${level == 2}</conditionExpression></sequenceFlow>
  <sequenceFlow id="low" sourceRef="g" targetRef="end"/>
  <sequenceFlow id="f2" sourceRef="approve" targetRef="end"/>
  <sequenceFlow id="f3" sourceRef="review" targetRef="end"/>"#;

#[test]
fn exclusive_gateway_takes_the_first_true_condition_else_the_default() {
    let d = def(CHOICE);
    let run = |v: Value| start(&d, &vars(v), &mut Joins::new()).unwrap();
    assert_eq!(opened(&run(json!({"level": 4}))), vec!["approve"]);
    assert_eq!(opened(&run(json!({"level": "2"}))), vec!["review"]);
    let low = run(json!({"level": 1}));
    assert!(opened(&low).is_empty());
    assert_eq!(ended(&low), vec!["end"]);
    assert!(low.contains(&Step::Took { flow: "low".into() }));
    assert!(low.contains(&Step::Passed {
        node: "g".into(),
        kind: "exclusiveGateway",
        name: String::new()
    }));
}

#[test]
fn exclusive_gateway_without_a_match_or_default_is_an_error() {
    let d = def(&CHOICE.replace(r#" default="low""#, "").replace(
        r#"<sequenceFlow id="low" sourceRef="g" targetRef="end"/>"#,
        r#"<sequenceFlow id="low" sourceRef="g" targetRef="end"><conditionExpression>${level == 1}</conditionExpression></sequenceFlow>"#,
    ));
    assert_eq!(
        start(&d, &vars(json!({"level": 0})), &mut Joins::new()),
        Err(RunError::NoWay("g".into()))
    );
}

const PARALLEL: &str = r#"
  <startEvent id="start"/>
  <parallelGateway id="split"/>
  <userTask id="a" flowable:assignee="1"/>
  <userTask id="b" flowable:assignee="2"/>
  <parallelGateway id="join"/>
  <userTask id="after" flowable:assignee="3"/>
  <endEvent id="end"/>
  <sequenceFlow id="f1" sourceRef="start" targetRef="split"/>
  <sequenceFlow id="fa" sourceRef="split" targetRef="a"/>
  <sequenceFlow id="fb" sourceRef="split" targetRef="b"/>
  <sequenceFlow id="ja" sourceRef="a" targetRef="join"/>
  <sequenceFlow id="jb" sourceRef="b" targetRef="join"/>
  <sequenceFlow id="f2" sourceRef="join" targetRef="after"/>
  <sequenceFlow id="f3" sourceRef="after" targetRef="end"/>"#;

#[test]
fn parallel_split_opens_every_branch_and_the_join_waits_for_all() {
    let d = def(PARALLEL);
    let mut joins = Joins::new();
    let steps = start(&d, &Map::new(), &mut joins).unwrap();
    assert_eq!(opened(&steps), vec!["a", "b"]);
    let first = advance(&d, "b", &Map::new(), &mut joins).unwrap();
    assert!(opened(&first).is_empty(), "the join waits for a");
    assert_eq!(joins.get("join"), Some(&1));
    let second = advance(&d, "a", &Map::new(), &mut joins).unwrap();
    assert_eq!(opened(&second), vec!["after"]);
    assert!(joins.is_empty(), "a passed join forgets its arrivals");
    assert!(second.contains(&Step::Passed {
        node: "join".into(),
        kind: "parallelGateway",
        name: String::new()
    }));
}

const TIMER: &str = r#"
  <startEvent id="start"/>
  <userTask id="t1" flowable:assignee="1"/>
  <boundaryEvent id="late" attachedToRef="t1"><timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition></boundaryEvent>
  <userTask id="escalated" flowable:assignee="2"/>
  <endEvent id="end"/>
  <sequenceFlow id="f1" sourceRef="start" targetRef="t1"/>
  <sequenceFlow id="f2" sourceRef="t1" targetRef="end"/>
  <sequenceFlow id="f3" sourceRef="late" targetRef="escalated"/>
  <sequenceFlow id="f4" sourceRef="escalated" targetRef="end"/>"#;

#[test]
fn a_fired_boundary_timer_walks_on_from_the_timer() {
    let d = def(TIMER);
    let timers: Vec<_> = d
        .timers_of("t1")
        .map(|(n, t)| (n.id.clone(), t.duration_ms, t.cancel))
        .collect();
    assert_eq!(timers, vec![("late".to_string(), 3_600_000, true)]);
    let steps = fire(&d, "late", &Map::new(), &mut Joins::new()).unwrap();
    assert_eq!(
        steps[0],
        Step::Passed {
            node: "late".into(),
            kind: "boundaryEvent",
            name: String::new()
        }
    );
    assert_eq!(opened(&steps), vec!["escalated"]);
}

#[test]
fn a_loop_of_gateways_is_stopped() {
    let d = def(r#"
  <startEvent id="start"/>
  <exclusiveGateway id="g1"/>
  <exclusiveGateway id="g2"/>
  <userTask id="t" flowable:assignee="1"/>
  <endEvent id="end"/>
  <sequenceFlow id="f1" sourceRef="start" targetRef="g1"/>
  <sequenceFlow id="f2" sourceRef="g1" targetRef="g2"/>
  <sequenceFlow id="f3" sourceRef="g2" targetRef="g1"/>
  <sequenceFlow id="f4" sourceRef="g2" targetRef="t"><conditionExpression>${never}</conditionExpression></sequenceFlow>
  <sequenceFlow id="f5" sourceRef="t" targetRef="end"/>"#);
    assert!(matches!(
        start(&d, &Map::new(), &mut Joins::new()),
        Err(RunError::Loop(_))
    ));
}
