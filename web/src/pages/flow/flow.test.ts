import { describe, expect, it } from 'vitest'
import { markings } from '../../api/flow/flow'
import { contextKept, keepOnly, paletteKept, replaceKept } from './restrict'
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

describe('the modeler offers only the subset', () => {
  it('keeps the tools, events and gateways of the palette, not other tasks or containers', () => {
    const entries = Object.fromEntries(
      [
        'hand-tool',
        'create.start-event',
        'create.intermediate-event',
        'create.task',
        'create.subprocess-expanded',
        'create.participant-expanded',
        'create.data-object',
        'create.exclusive-gateway',
      ].map((id) => [id, {}]),
    )
    expect(Object.keys(keepOnly(entries, paletteKept))).toEqual([
      'hand-tool',
      'create.start-event',
      'create.exclusive-gateway',
    ])
  })

  it('replaces only with elements of the subset', () => {
    for (const action of replaceKept)
      expect(action).toMatch(
        /^replace-with-(none-(start|end)|user-task|(exclusive|parallel)-gateway|(non-interrupting-)?timer-boundary|(sequence|default|conditional)-flow)$/,
      )
    expect(contextKept.has('append.append-task')).toBe(false)
    expect(contextKept.has('append.intermediate-event')).toBe(false)
  })
})
