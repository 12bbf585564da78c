import { describe, expect, it } from 'vitest'
import { markings } from '../../api/flow/flow'
import { editable, validKey } from './subset'

describe('the flow chart marks', () => {
  it('marks finished nodes done, open ones active and taken flows', () => {
    const m = markings([
      {
        historyActivityId: 'start',
        historyActivityType: 'startEvent',
        endTime: '2026-01-01 00:00:00',
      },
      {
        historyActivityId: 'f1',
        historyActivityType: 'sequenceFlow',
        endTime: '2026-01-01 00:00:00',
      },
      { historyActivityId: 'a', historyActivityType: 'userTask', endTime: '2026-01-01 00:00:00' },
      { historyActivityId: 'a', historyActivityType: 'userTask', endTime: null },
      { historyActivityId: 'b', historyActivityType: 'userTask', endTime: null },
    ])
    expect(m.done).toEqual(['start'])
    expect(m.active).toEqual(['a', 'b'])
    expect(m.flows).toEqual(['f1'])
  })
})

describe('the modeler subset', () => {
  it('offers people on user tasks, conditions on flows, durations on timers only', () => {
    expect(editable('bpmn:UserTask', false)).toEqual({
      people: true,
      condition: false,
      duration: false,
    })
    expect(editable('bpmn:SequenceFlow', false).condition).toBe(true)
    expect(editable('bpmn:BoundaryEvent', true).duration).toBe(true)
    expect(editable('bpmn:BoundaryEvent', false).duration).toBe(false)
    expect(editable('bpmn:ServiceTask', false)).toEqual({
      people: false,
      condition: false,
      duration: false,
    })
  })
  it('accepts the process keys the hub accepts', () => {
    expect(validKey('repair_approval')).toBe(true)
    expect(validKey('1abc')).toBe(false)
    expect(validKey('a b')).toBe(false)
  })
})
