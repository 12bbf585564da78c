/**
 * The BPMN subset the hub runs (docs/workflow.md), as the modeler sees it: the `flowable:`
 * attributes of user tasks (a moddle extension so bpmn-js reads and writes them), which
 * properties each element offers, and a new model's starting document.
 */
export const flowableModdle = {
  name: 'Flowable',
  uri: 'http://flowable.org/bpmn',
  prefix: 'flowable',
  xml: { tagAlias: 'lowerCase' },
  associations: [],
  types: [
    {
      name: 'UserTaskPeople',
      extends: ['bpmn:UserTask'],
      properties: [
        { name: 'assignee', isAttr: true, type: 'String' },
        { name: 'candidateUsers', isAttr: true, type: 'String' },
        { name: 'candidateGroups', isAttr: true, type: 'String' },
        { name: 'candidateDepts', isAttr: true, type: 'String' },
      ],
    },
  ],
}

export const peopleFields = [
  'assignee',
  'candidateUsers',
  'candidateGroups',
  'candidateDepts',
] as const
export type PeopleField = (typeof peopleFields)[number]

/** What the properties panel offers for an element of `type`. */
export function editable(
  type: string,
  timer: boolean,
): { people: boolean; condition: boolean; duration: boolean } {
  return {
    people: type === 'bpmn:UserTask',
    condition: type === 'bpmn:SequenceFlow',
    duration: type === 'bpmn:BoundaryEvent' && timer,
  }
}

/** A process id the hub accepts (letters, digits, _ and -, starting with a letter). */
export const validKey = (key: string): boolean => /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/.test(key)

export function newModelXml(key: string, name: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:bpmndi="http://www.omg.org/spec/BPMN/20100524/DI" xmlns:dc="http://www.omg.org/spec/DD/20100524/DC" xmlns:di="http://www.omg.org/spec/DD/20100524/DI" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:flowable="http://flowable.org/bpmn" id="Definitions_${key}" targetNamespace="http://flowable.org/bpmn">
  <bpmn:process id="${key}" name="${name}" isExecutable="true">
    <bpmn:startEvent id="start" />
  </bpmn:process>
  <bpmndi:BPMNDiagram id="BPMNDiagram_${key}">
    <bpmndi:BPMNPlane id="BPMNPlane_${key}" bpmnElement="${key}">
      <bpmndi:BPMNShape id="start_di" bpmnElement="start">
        <dc:Bounds x="152" y="182" width="36" height="36" />
      </bpmndi:BPMNShape>
    </bpmndi:BPMNPlane>
  </bpmndi:BPMNDiagram>
</bpmn:definitions>`
}
