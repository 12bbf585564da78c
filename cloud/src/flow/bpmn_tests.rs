use super::*;

use super::tests_doc as doc;

const LINE: &str = r#"
  <bpmn:startEvent id="start"><bpmn:outgoing>f1</bpmn:outgoing></bpmn:startEvent>
  <bpmn:userTask id="t1" name="审批" flowable:assignee="${manager}" flowable:candidateUsers="1,2" flowable:candidateGroups="manager" flowable:candidateDepts="9">
    <bpmn:documentation>doc</bpmn:documentation><bpmn:extensionElements><flowable:formProperty id="x"/></bpmn:extensionElements>
  </bpmn:userTask>
  <bpmn:endEvent id="end"/>
  <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="t1"/>
  <bpmn:sequenceFlow id="f2" sourceRef="t1" targetRef="end"/>"#;

#[test]
fn reads_a_line_with_a_user_task_and_ignores_the_diagram() {
    let d = parse(&doc(LINE)).unwrap();
    assert_eq!(d.key, "p1");
    assert_eq!(d.name, "Test");
    assert_eq!(d.nodes.len(), 3);
    let Kind::UserTask(spec) = &d.node("t1").unwrap().kind else {
        panic!("task")
    };
    assert_eq!(spec.assignee.as_deref(), Some("${manager}"));
    assert_eq!(spec.candidate_users, vec!["1", "2"]);
    assert_eq!(spec.candidate_groups, vec!["manager"]);
    assert_eq!(spec.candidate_depts, vec!["9"]);
    assert_eq!(d.flows.len(), 2);
}

#[test]
fn reads_conditions_with_escaped_text_and_cdata() {
    let body = r#"
  <bpmn:startEvent id="start"/>
  <bpmn:exclusiveGateway id="g" default="fb"/>
  <bpmn:userTask id="t1" flowable:assignee="1"/>
  <bpmn:endEvent id="end"/>
  <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="g"/>
  <bpmn:sequenceFlow id="fa" sourceRef="g" targetRef="t1"><bpmn:conditionExpression xsi:type="bpmn:tFormalExpression" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">${level &gt;= 3 &amp;&amp; kind == 'x'}</bpmn:conditionExpression></bpmn:sequenceFlow>
  <bpmn:sequenceFlow id="fc" sourceRef="g" targetRef="end"><bpmn:conditionExpression><![CDATA[${level < 1}]]></bpmn:conditionExpression></bpmn:sequenceFlow>
  <bpmn:sequenceFlow id="fb" sourceRef="g" targetRef="end"/>
  <bpmn:sequenceFlow id="f2" sourceRef="t1" targetRef="end"/>"#;
    let d = parse(&doc(body)).unwrap();
    let fa = d.flows.iter().find(|f| f.id == "fa").unwrap();
    assert_eq!(
        fa.condition,
        Some(expr::parse("${level >= 3 && kind == 'x'}").unwrap())
    );
    let fc = d.flows.iter().find(|f| f.id == "fc").unwrap();
    assert_eq!(fc.condition, Some(expr::parse("level < 1").unwrap()));
    assert_eq!(
        d.node("g").unwrap().kind,
        Kind::Exclusive {
            default: Some("fb".into())
        }
    );
}

#[test]
fn reads_timer_boundary_events() {
    let body = r#"
  <bpmn:startEvent id="start"/>
  <bpmn:userTask id="t1" flowable:assignee="1"/>
  <bpmn:boundaryEvent id="late" attachedToRef="t1" cancelActivity="false"><bpmn:outgoing>f3</bpmn:outgoing><bpmn:timerEventDefinition id="td"><bpmn:timeDuration>PT30M</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:boundaryEvent>
  <bpmn:userTask id="t2" flowable:assignee="2"/>
  <bpmn:endEvent id="end"/>
  <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="t1"/>
  <bpmn:sequenceFlow id="f2" sourceRef="t1" targetRef="end"/>
  <bpmn:sequenceFlow id="f3" sourceRef="late" targetRef="t2"/>
  <bpmn:sequenceFlow id="f4" sourceRef="t2" targetRef="end"/>"#;
    let d = parse(&doc(body)).unwrap();
    let timers: Vec<_> = d.timers_of("t1").collect();
    assert_eq!(timers.len(), 1);
    assert_eq!(timers[0].1.duration_ms, 30 * 60_000);
    assert!(!timers[0].1.cancel);
}

#[test]
fn durations() {
    assert_eq!(duration_ms("PT30M"), Some(1_800_000));
    assert_eq!(duration_ms("P1DT12H"), Some(129_600_000));
    assert_eq!(duration_ms("PT1.5S"), Some(1500));
    assert_eq!(duration_ms("P1W"), Some(604_800_000));
    for bad in ["", "P", "PT", "30M", "P1M2", "PT0S", "P1Y"] {
        assert_eq!(duration_ms(bad), None, "{bad}");
    }
}

fn refused(body: &str) -> BpmnError {
    parse(&doc(body)).expect_err(body)
}

#[test]
fn refuses_elements_outside_the_subset_naming_them() {
    let cases = [
        (r#"<bpmn:serviceTask id="s"/>"#, "serviceTask"),
        (r#"<bpmn:scriptTask id="s"/>"#, "scriptTask"),
        (r#"<bpmn:inclusiveGateway id="s"/>"#, "inclusiveGateway"),
        (r#"<bpmn:subProcess id="s"/>"#, "subProcess"),
        (r#"<bpmn:laneSet id="s"/>"#, "laneSet"),
        (
            r#"<bpmn:startEvent id="s"><bpmn:timerEventDefinition/></bpmn:startEvent>"#,
            "timerEventDefinition",
        ),
        (
            r#"<bpmn:endEvent id="s"><bpmn:terminateEventDefinition/></bpmn:endEvent>"#,
            "terminateEventDefinition",
        ),
        (
            r#"<bpmn:userTask id="s"><bpmn:multiInstanceLoopCharacteristics/></bpmn:userTask>"#,
            "multiInstanceLoopCharacteristics",
        ),
        (
            r#"<bpmn:boundaryEvent id="b" attachedToRef="t1"><bpmn:timerEventDefinition><bpmn:timeCycle>R3/PT1H</bpmn:timeCycle></bpmn:timerEventDefinition></bpmn:boundaryEvent>"#,
            "timeCycle",
        ),
    ];
    for (body, element) in cases {
        let full = format!("{LINE}{body}");
        assert_eq!(refused(&full), BpmnError::Unsupported(element.into()), "{body}");
    }
    let outside = doc(LINE).replace(
        "<bpmndi:BPMNDiagram",
        "<bpmn:message id=\"m\"/><bpmndi:BPMNDiagram",
    );
    assert_eq!(
        parse(&outside).unwrap_err(),
        BpmnError::Unsupported("message".into())
    );
    let error = format!(
        "{LINE}<bpmn:boundaryEvent id=\"b\" attachedToRef=\"t1\"><bpmn:errorEventDefinition/></bpmn:boundaryEvent>"
    );
    assert_eq!(
        refused(&error),
        BpmnError::Unsupported("errorEventDefinition".into())
    );
}

#[test]
fn refuses_broken_structures() {
    let no_people = LINE.replace(
        r#"flowable:assignee="${manager}" flowable:candidateUsers="1,2" flowable:candidateGroups="manager" flowable:candidateDepts="9""#,
        "",
    );
    for body in [
        no_people,
        LINE.replace(r#"<bpmn:endEvent id="end"/>"#, ""),
        LINE.replace(r#"id="f2""#, r#"id="f1""#),
        LINE.replace(r#"targetRef="end""#, r#"targetRef="nowhere""#),
        format!("{LINE}<bpmn:startEvent id=\"s2\"/>"),
        format!("{LINE}<bpmn:userTask id=\"lonely\" flowable:assignee=\"1\"/>"),
        format!(
            "{LINE}<bpmn:sequenceFlow id=\"bad\" sourceRef=\"t1\" targetRef=\"end\"><bpmn:conditionExpression>${{a ==}}</bpmn:conditionExpression></bpmn:sequenceFlow>"
        ),
    ] {
        assert!(matches!(refused(&body), BpmnError::Invalid { .. }), "{body}");
    }
    assert!(parse("<x/>").is_err());
    assert!(parse("<bpmn:definitions><bpmn:process id=\"p\">").is_err());
    assert!(parse("not xml <<").is_err());
    let two = doc(LINE).replace(
        "</bpmn:process>",
        "</bpmn:process><bpmn:process id=\"p2\"><bpmn:startEvent id=\"x\"/></bpmn:process>",
    );
    assert!(matches!(parse(&two), Err(BpmnError::Invalid { .. })));
    let bad_key = doc(LINE).replace("id=\"p1\"", "id=\"1 p\"");
    assert!(matches!(parse(&bad_key), Err(BpmnError::Invalid { .. })));
}
