//! Reads a BPMN 2.0 document into the subset the engine runs (`docs/workflow.md`): one process of
//! start and end events, user tasks, exclusive and parallel gateways, sequence flows (with
//! conditions) and timer boundary events on user tasks. Anything else inside the process is
//! refused, naming the element, so a definition never deploys with parts the engine would
//! silently skip. The diagram (`BPMNDiagram`), documentation and extension elements are kept in
//! the stored XML but play no part in running.
//!
//! Task attributes are read by local name in any prefix (`flowable:assignee`, `camunda:assignee`,
//! `activiti:assignee` alike): `assignee`, `candidateUsers`, `candidateGroups` (role ids or role
//! aliases) and `candidateDepts` (department ids), each a literal or a `${variable}`.

use std::collections::{HashMap, HashSet};

use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};

use super::expr::{self, Expr};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BpmnError {
    #[error("unsupported BPMN element `{0}`")]
    Unsupported(String),
    #[error("{en}")]
    Invalid { zh: String, en: String },
}

fn invalid(zh: impl Into<String>, en: impl Into<String>) -> BpmnError {
    BpmnError::Invalid {
        zh: zh.into(),
        en: en.into(),
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct TaskSpec {
    pub assignee: Option<String>,
    pub candidate_users: Vec<String>,
    pub candidate_groups: Vec<String>,
    pub candidate_depts: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TimerSpec {
    pub attached_to: String,
    pub duration_ms: i64,
    /// Interrupting (the BPMN default): the task is cancelled when the timer fires.
    pub cancel: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    Start,
    End,
    UserTask(TaskSpec),
    Exclusive { default: Option<String> },
    Parallel,
    Timer(TimerSpec),
}

impl Kind {
    /// The BPMN element name (the history's activity type).
    pub fn bpmn_name(&self) -> &'static str {
        match self {
            Kind::Start => "startEvent",
            Kind::End => "endEvent",
            Kind::UserTask(_) => "userTask",
            Kind::Exclusive { .. } => "exclusiveGateway",
            Kind::Parallel => "parallelGateway",
            Kind::Timer(_) => "boundaryEvent",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub id: String,
    pub name: String,
    pub kind: Kind,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Flow {
    pub id: String,
    pub name: String,
    pub source: String,
    pub target: String,
    pub condition: Option<Expr>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Definition {
    /// The process id: the definition's key (a new deployment of one key is a new version).
    pub key: String,
    pub name: String,
    pub nodes: Vec<Node>,
    pub flows: Vec<Flow>,
}

impl Definition {
    pub fn node(&self, id: &str) -> Option<&Node> {
        self.nodes.iter().find(|n| n.id == id)
    }

    pub fn start(&self) -> Option<&Node> {
        self.nodes.iter().find(|n| n.kind == Kind::Start)
    }

    pub fn outgoing(&self, node: &str) -> impl Iterator<Item = &Flow> {
        self.flows.iter().filter(move |f| f.source == node)
    }

    pub fn incoming_count(&self, node: &str) -> usize {
        self.flows.iter().filter(|f| f.target == node).count()
    }

    /// The timer boundary events attached to task `task`.
    pub fn timers_of(&self, task: &str) -> impl Iterator<Item = (&Node, &TimerSpec)> {
        self.nodes.iter().filter_map(move |n| match &n.kind {
            Kind::Timer(t) if t.attached_to == task => Some((n, t)),
            _ => None,
        })
    }
}

/// Elements inside the process (or inside its elements) that are read or harmlessly ignored.
const IGNORED: &[&str] = &[
    "documentation",
    "incoming",
    "outgoing",
    "textAnnotation",
    "association",
    "text",
];

fn local(name: &str) -> String {
    name.rsplit(':').next().unwrap_or_default().to_string()
}

fn attrs(e: &BytesStart<'_>) -> Result<HashMap<String, String>, BpmnError> {
    let mut out = HashMap::new();
    for a in e.attributes() {
        let a =
            a.map_err(|err| invalid(format!("XML属性错误: {err}"), format!("bad XML attribute: {err}")))?;
        let value = a
            .normalized_value(quick_xml::XmlVersion::Implicit1_0)
            .map_err(|err| invalid(format!("XML属性错误: {err}"), format!("bad XML attribute: {err}")))?;
        out.insert(local(a.key.as_ref()), value.into_owned());
    }
    Ok(out)
}

fn list(v: Option<&String>) -> Vec<String> {
    let Some(v) = v else { return vec![] };
    if expr::reference(v).is_some() {
        return vec![v.trim().to_string()];
    }
    v.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// An ISO 8601 duration of days, hours, minutes and seconds (`P2D`, `PT30M`, `P1DT12H`, `PT1.5S`).
pub fn duration_ms(s: &str) -> Option<i64> {
    let rest = s.trim().strip_prefix('P')?;
    let (date, time) = match rest.split_once('T') {
        Some((d, t)) => (d, Some(t)),
        None => (rest, None),
    };
    let mut total = 0f64;
    let mut take = |part: &str, units: &[(char, f64)]| -> Option<()> {
        let mut num = String::new();
        for c in part.chars() {
            if c.is_ascii_digit() || c == '.' {
                num.push(c);
            } else {
                let (_, ms) = units.iter().find(|(u, _)| *u == c)?;
                total += num.parse::<f64>().ok()? * ms;
                num.clear();
            }
        }
        num.is_empty().then_some(())
    };
    take(date, &[('W', 604_800_000.0), ('D', 86_400_000.0)])?;
    if let Some(t) = time {
        if t.is_empty() {
            return None;
        }
        take(t, &[('H', 3_600_000.0), ('M', 60_000.0), ('S', 1000.0)])?;
    }
    (total > 0.0).then_some(total.round() as i64)
}

/// What the reader is inside of, to know what a child element may be.
#[derive(Debug, Clone, PartialEq)]
enum Ctx {
    Root,
    Definitions,
    Process,
    /// An element of the process whose children are only ignorable ones.
    Plain,
    Flow(usize),
    Boundary(usize),
    Timer(usize),
    /// Text collected into the flow's condition or the timer's duration.
    Text(Target),
    /// Skipped with everything inside (diagram, extension elements).
    Skip,
}

#[derive(Debug, Clone, PartialEq)]
enum Target {
    Condition(usize),
    Duration(usize),
}

struct Raw {
    key: String,
    name: String,
    nodes: Vec<Node>,
    flows: Vec<(String, String, String, String, Option<String>)>,
    boundary: Vec<(usize, HashMap<String, String>, Option<String>)>,
    processes: usize,
}

fn open(raw: &mut Raw, ctx: &Ctx, name: &str, a: HashMap<String, String>) -> Result<Ctx, BpmnError> {
    let unsupported = || Err(BpmnError::Unsupported(name.to_string()));
    let id = a.get("id").cloned().unwrap_or_default();
    let label = a.get("name").cloned().unwrap_or_default();
    match ctx {
        Ctx::Skip => Ok(Ctx::Skip),
        Ctx::Root if name == "definitions" => Ok(Ctx::Definitions),
        Ctx::Root => Err(invalid("不是BPMN 2.0文档", "not a BPMN 2.0 document")),
        Ctx::Definitions => match name {
            "process" => {
                raw.processes += 1;
                raw.key = id;
                raw.name = label;
                Ok(Ctx::Process)
            }
            "BPMNDiagram" | "documentation" | "extensionElements" => Ok(Ctx::Skip),
            _ => unsupported(),
        },
        Ctx::Process => {
            let kind = match name {
                "startEvent" => Kind::Start,
                "endEvent" => Kind::End,
                "userTask" => Kind::UserTask(TaskSpec {
                    assignee: a
                        .get("assignee")
                        .map(|s| s.trim().to_string())
                        .filter(|s| !s.is_empty()),
                    candidate_users: list(a.get("candidateUsers")),
                    candidate_groups: list(a.get("candidateGroups")),
                    candidate_depts: list(a.get("candidateDepts")),
                }),
                "exclusiveGateway" => Kind::Exclusive {
                    default: a.get("default").cloned(),
                },
                "parallelGateway" => Kind::Parallel,
                "sequenceFlow" => {
                    raw.flows.push((
                        id,
                        label,
                        a.get("sourceRef").cloned().unwrap_or_default(),
                        a.get("targetRef").cloned().unwrap_or_default(),
                        None,
                    ));
                    return Ok(Ctx::Flow(raw.flows.len() - 1));
                }
                "boundaryEvent" => {
                    raw.nodes.push(Node {
                        id,
                        name: label,
                        kind: Kind::Parallel,
                    });
                    raw.boundary.push((raw.nodes.len() - 1, a, None));
                    return Ok(Ctx::Boundary(raw.boundary.len() - 1));
                }
                "documentation" | "extensionElements" => return Ok(Ctx::Skip),
                n if IGNORED.contains(&n) => return Ok(Ctx::Plain),
                _ => return unsupported(),
            };
            raw.nodes.push(Node {
                id,
                name: label,
                kind,
            });
            Ok(Ctx::Plain)
        }
        Ctx::Plain | Ctx::Text(_) => match name {
            "documentation" | "extensionElements" => Ok(Ctx::Skip),
            n if IGNORED.contains(&n) => Ok(Ctx::Plain),
            _ => unsupported(),
        },
        Ctx::Flow(i) => match name {
            "conditionExpression" => Ok(Ctx::Text(Target::Condition(*i))),
            "documentation" | "extensionElements" => Ok(Ctx::Skip),
            _ => unsupported(),
        },
        Ctx::Boundary(i) => match name {
            "timerEventDefinition" => Ok(Ctx::Timer(*i)),
            "documentation" | "extensionElements" => Ok(Ctx::Skip),
            n if IGNORED.contains(&n) => Ok(Ctx::Plain),
            _ => unsupported(),
        },
        Ctx::Timer(i) => match name {
            "timeDuration" => Ok(Ctx::Text(Target::Duration(*i))),
            _ => unsupported(),
        },
    }
}

/// Parses and checks `xml`.
pub fn parse(xml: &str) -> Result<Definition, BpmnError> {
    let mut reader = Reader::from_str(xml);
    let mut stack = vec![Ctx::Root];
    let mut raw = Raw {
        key: String::new(),
        name: String::new(),
        nodes: vec![],
        flows: vec![],
        boundary: vec![],
        processes: 0,
    };
    let bad_xml = |e: quick_xml::Error| invalid(format!("XML格式错误: {e}"), format!("malformed XML: {e}"));
    loop {
        let event = reader.read_event().map_err(bad_xml)?;
        let top = stack.last().cloned().unwrap_or(Ctx::Root);
        match event {
            Event::Start(e) => {
                let next = open(&mut raw, &top, &local(e.name().as_ref()), attrs(&e)?)?;
                stack.push(next);
            }
            Event::Empty(e) => {
                let next = open(&mut raw, &top, &local(e.name().as_ref()), attrs(&e)?)?;
                if next == Ctx::Process {
                    return Err(invalid("流程为空", "the process is empty"));
                }
                if matches!(next, Ctx::Timer(_)) {
                    return Err(invalid(
                        "定时器缺少时长(timeDuration)",
                        "the timer has no timeDuration",
                    ));
                }
            }
            Event::End(_) => {
                stack.pop();
                if stack.is_empty() {
                    return Err(invalid("XML格式错误", "malformed XML"));
                }
            }
            Event::Text(t) => {
                if let Ctx::Text(target) = &top {
                    let text = AsRef::<str>::as_ref(&t).to_string();
                    append(&mut raw, target, &text);
                }
            }
            Event::GeneralRef(r) => {
                if let Ctx::Text(target) = &top {
                    let text = match AsRef::<str>::as_ref(&r) {
                        "lt" => "<",
                        "gt" => ">",
                        "amp" => "&",
                        "quot" => "\"",
                        "apos" => "'",
                        _ => "",
                    };
                    append(&mut raw, target, text);
                }
            }
            Event::CData(c) => {
                if let Ctx::Text(target) = &top {
                    let text = AsRef::<str>::as_ref(&c).to_string();
                    append(&mut raw, target, &text);
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if stack.len() != 1 {
        return Err(invalid(
            "XML格式错误: 元素未闭合",
            "malformed XML: an element is not closed",
        ));
    }
    build(raw)
}

fn append(raw: &mut Raw, target: &Target, text: &str) {
    match target {
        Target::Condition(i) => {
            if let Some(f) = raw.flows.get_mut(*i) {
                f.4.get_or_insert_with(String::new).push_str(text);
            }
        }
        Target::Duration(i) => {
            if let Some(b) = raw.boundary.get_mut(*i) {
                b.2.get_or_insert_with(String::new).push_str(text);
            }
        }
    }
}

fn build(raw: Raw) -> Result<Definition, BpmnError> {
    if raw.processes != 1 {
        return Err(invalid(
            "须恰好包含一个流程(process)",
            "the document must hold exactly one process",
        ));
    }
    let key_ok = !raw.key.is_empty()
        && raw.key.len() <= 64
        && raw
            .key
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && raw
            .key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if !key_ok {
        return Err(invalid(
            "流程标识须以字母开头，仅含字母、数字、_、-，最长64位",
            "the process id must start with a letter and hold only letters, digits, _ and - (at most 64)",
        ));
    }
    let mut nodes = raw.nodes;
    for (index, a, duration) in raw.boundary {
        let node = &mut nodes[index];
        let Some(text) = duration else {
            return Err(BpmnError::Unsupported(format!(
                "boundaryEvent {} (only timer boundary events)",
                node.id
            )));
        };
        let ms = duration_ms(&text).ok_or_else(|| {
            invalid(
                format!("定时器时长无效: {text}（示例: PT30M、P1D）"),
                format!("invalid timer duration {text} (e.g. PT30M, P1D)"),
            )
        })?;
        node.kind = Kind::Timer(TimerSpec {
            attached_to: a.get("attachedToRef").cloned().unwrap_or_default(),
            duration_ms: ms,
            cancel: a.get("cancelActivity").map(String::as_str) != Some("false"),
        });
    }
    let mut flows = Vec::new();
    for (id, name, source, target, cond) in raw.flows {
        let condition = match cond.as_deref().map(str::trim).filter(|c| !c.is_empty()) {
            Some(c) => Some(expr::parse(c).map_err(|e| {
                invalid(
                    format!("连线{id}的条件无效: {e}"),
                    format!("the condition of flow {id} is invalid: {e}"),
                )
            })?),
            None => None,
        };
        flows.push(Flow {
            id,
            name,
            source,
            target,
            condition,
        });
    }
    let def = Definition {
        key: raw.key,
        name: raw.name,
        nodes,
        flows,
    };
    check(&def)?;
    Ok(def)
}

fn check(def: &Definition) -> Result<(), BpmnError> {
    let mut ids = HashSet::new();
    for id in def
        .nodes
        .iter()
        .map(|n| &n.id)
        .chain(def.flows.iter().map(|f| &f.id))
    {
        if id.is_empty() || !ids.insert(id.as_str()) {
            return Err(invalid(
                format!("元素标识为空或重复: {id}"),
                format!("empty or repeated element id: {id}"),
            ));
        }
    }
    let starts = def.nodes.iter().filter(|n| n.kind == Kind::Start).count();
    if starts != 1 {
        return Err(invalid(
            "须恰好有一个开始事件",
            "the process needs exactly one start event",
        ));
    }
    if !def.nodes.iter().any(|n| n.kind == Kind::End) {
        return Err(invalid("须至少有一个结束事件", "the process needs an end event"));
    }
    for f in &def.flows {
        if def.node(&f.source).is_none() || def.node(&f.target).is_none() {
            return Err(invalid(
                format!("连线{}的端点不存在", f.id),
                format!("flow {} joins a missing element", f.id),
            ));
        }
    }
    for n in &def.nodes {
        let outs = def.outgoing(&n.id).count();
        let ins = def.incoming_count(&n.id);
        let (zh_name, id) = (&n.name, &n.id);
        match &n.kind {
            Kind::Start if ins > 0 => {
                return Err(invalid(
                    "开始事件不能有进入的连线",
                    "the start event cannot have incoming flows",
                ));
            }
            Kind::End if outs > 0 => {
                return Err(invalid(
                    format!("结束事件{id}不能有离开的连线"),
                    format!("end event {id} cannot have outgoing flows"),
                ));
            }
            Kind::Timer(t) => {
                if !matches!(def.node(&t.attached_to).map(|a| &a.kind), Some(Kind::UserTask(_))) {
                    return Err(invalid(
                        format!("定时器{id}须附在用户任务上"),
                        format!("timer {id} must be attached to a user task"),
                    ));
                }
                if ins > 0 {
                    return Err(invalid(
                        format!("定时器{id}不能有进入的连线"),
                        format!("timer {id} cannot have incoming flows"),
                    ));
                }
            }
            Kind::Start | Kind::End => {}
            _ if ins == 0 => {
                return Err(invalid(
                    format!("元素{id}没有进入的连线"),
                    format!("element {id} has no incoming flow"),
                ));
            }
            _ => {}
        }
        if n.kind != Kind::End && outs == 0 {
            return Err(invalid(
                format!("元素{id}没有离开的连线"),
                format!("element {id} has no outgoing flow"),
            ));
        }
        if let Kind::UserTask(spec) = &n.kind
            && spec.assignee.is_none()
            && spec.candidate_users.is_empty()
            && spec.candidate_groups.is_empty()
            && spec.candidate_depts.is_empty()
        {
            return Err(invalid(
                format!("用户任务{zh_name}({id})未设置办理人或候选人"),
                format!("user task {id} has no assignee and no candidates"),
            ));
        }
        if let Kind::Exclusive { default: Some(d) } = &n.kind
            && !def.outgoing(&n.id).any(|f| &f.id == d)
        {
            return Err(invalid(
                format!("网关{id}的默认连线不是它的出线"),
                format!("the default flow of gateway {id} does not leave it"),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "bpmn_tests.rs"]
mod tests;

/// A document around `body` (the process's elements, unprefixed or `bpmn:`-prefixed), for tests.
#[cfg(test)]
pub fn tests_doc(body: &str) -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:flowable="http://flowable.org/bpmn" xmlns:bpmndi="http://www.omg.org/spec/BPMN/20100524/DI" id="d">
  <bpmn:process id="p1" name="Test" isExecutable="true">{body}</bpmn:process>
  <bpmndi:BPMNDiagram id="diagram"><bpmndi:BPMNPlane id="plane" bpmnElement="p1"><bpmndi:BPMNShape id="s" bpmnElement="start"/></bpmndi:BPMNPlane></bpmndi:BPMNDiagram>
</bpmn:definitions>"#
    )
}
