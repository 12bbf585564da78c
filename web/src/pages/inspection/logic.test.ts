import dayjs from 'dayjs'
import { describe, expect, it } from 'vitest'
import type { InspectTask } from '../../api/inspection/types'
import {
  answeredCount,
  cleanChecks,
  emptyFill,
  exportFilters,
  fillBody,
  fillProblems,
  fillReady,
  isImageFile,
  itemFormProblems,
  mayFill,
  mayOpenRepair,
  pageAfterDelete,
  planBody,
  planQuery,
  recordQuery,
  runSituationOf,
  taskQuery,
  withAnswer,
} from './logic'

const task: InspectTask = {
  id: '1',
  planId: '2',
  planName: 'P',
  stationId: '3',
  stationName: 'S',
  dueDate: '2026-11-26',
  status: '0',
  overdue: false,
  maintenanceIds: ['10'],
  maintenanceNames: ['m'],
  recordId: null,
  items: [
    { itemId: '5', title: 'A', checkItems: ['a1', 'a2'] },
    { itemId: '6', title: 'B', checkItems: ['b1'] },
  ],
}

describe('item form', () => {
  it('needs a title and at least one non-blank check', () => {
    expect(itemFormProblems('', ['', '  '])).toEqual(['titleRequired', 'checkRequired'])
    expect(itemFormProblems('T', ['x'])).toEqual([])
    expect(itemFormProblems('x'.repeat(101), ['x'])).toEqual(['titleTooLong'])
    expect(itemFormProblems('T', ['y'.repeat(201)])).toEqual(['checkTooLong'])
    expect(
      itemFormProblems(
        'T',
        Array.from({ length: 51 }, () => 'c'),
      ),
    ).toEqual(['tooManyChecks'])
  })

  it('sends checks trimmed, blanks dropped', () => {
    expect(cleanChecks([' a ', '', undefined, 'b'])).toEqual(['a', 'b'])
  })
})

describe('list queries', () => {
  it('leave out empty filters', () => {
    expect(planQuery({ name: ' x ', stationId: undefined, status: '' }, 1, 10)).toEqual({
      current: 1,
      size: 10,
      name: 'x',
    })
  })

  it('send overdue and mine only when ticked', () => {
    expect(taskQuery({ overdue: false, mine: true, status: '0' }, 2, 30)).toEqual({
      current: 2,
      size: 30,
      status: '0',
      mine: true,
    })
  })

  it('turn a day range into filledTime_gt / filledTime_lt including the last day', () => {
    const q = recordQuery(
      { runSituation: '2', range: [dayjs('2026-11-01'), dayjs('2026-11-30')] },
      1,
      10,
    )
    expect(q).toMatchObject({
      runSituation: '2',
      filledTime_gt: '2026-11-01 00:00:00',
      filledTime_lt: '2026-12-01 00:00:00',
    })
    expect(exportFilters(q)).not.toHaveProperty('current')
  })
})

describe('who may fill', () => {
  const caller = {
    userId: '10',
    roleName: 'maintenance',
    permission: { inspectionTask_fill: true } as const,
  }
  it('a maintenance user of the task with the fill permission', () => {
    expect(mayFill(task, caller)).toBe(true)
    expect(mayFill(task, { ...caller, permission: {} })).toBe(false)
    expect(mayFill(task, { ...caller, userId: '11' })).toBe(false)
  })
  it('an administrator, any unfilled task', () => {
    expect(mayFill(task, { userId: '1', roleName: 'administrator', permission: {} })).toBe(true)
    expect(
      mayFill({ ...task, status: '1' }, { userId: '1', roleName: 'administrator', permission: {} }),
    ).toBe(false)
  })
})

describe('fill form', () => {
  it('lists what is missing: results, then notes of abnormal checks', () => {
    let s = emptyFill()
    expect(fillProblems(task, s)).toEqual({ unanswered: ['0:0', '0:1', '1:0'], noteMissing: [] })
    s = withAnswer(s, '0:0', { result: '1' })
    s = withAnswer(s, '0:1', { result: '2' })
    s = withAnswer(s, '1:0', { result: '1' })
    expect(fillProblems(task, s)).toEqual({ unanswered: [], noteMissing: ['0:1'] })
    expect(answeredCount(task, s)).toBe(3)
    s = withAnswer(s, '0:1', { note: '  ' })
    expect(fillReady(fillProblems(task, s))).toBe(false)
    s = withAnswer(s, '0:1', { note: ' 松动 ', photos: ['/oss/p.png'] })
    expect(fillReady(fillProblems(task, s))).toBe(true)
  })

  it('run situation follows the answers unless chosen', () => {
    let s = withAnswer(emptyFill(), '0:0', { result: '1' })
    expect(runSituationOf(s)).toBe('1')
    s = withAnswer(s, '1:0', { result: '2' })
    expect(runSituationOf(s)).toBe('2')
    expect(runSituationOf({ ...s, runSituation: '1' })).toBe('1')
  })

  it('sends every check once, in order, notes trimmed and photos only when given', () => {
    let s = emptyFill()
    s = withAnswer(s, '0:0', { result: '1' })
    s = withAnswer(s, '0:1', { result: '2', note: ' 松动 ', photos: ['/oss/p.png'] })
    s = withAnswer(s, '1:0', { result: '1' })
    expect(fillBody(task, { ...s, remark: ' ok ' })).toEqual({
      taskId: '1',
      runSituation: '2',
      remark: 'ok',
      results: [
        { itemId: '5', check: 'a1', result: '1' },
        { itemId: '5', check: 'a2', result: '2', note: '松动', photos: ['/oss/p.png'] },
        { itemId: '6', check: 'b1', result: '1' },
      ],
    })
  })

  it('accepts the image types the server takes', () => {
    expect(isImageFile({ type: 'image/png', name: 'a' })).toBe(true)
    expect(isImageFile({ type: '', name: 'IMG_1.JPG' })).toBe(true)
    expect(isImageFile({ type: 'image/gif', name: 'a.gif' })).toBe(false)
  })
})

describe('plan form', () => {
  it('builds the body with days and the status', () => {
    expect(
      planBody(
        {
          name: ' 日常 ',
          stationIds: ['1'],
          itemIds: ['2'],
          maintenanceIds: ['3'],
          cyclePeriod: '1',
          alarmDay: '2',
          startDate: dayjs('2026-11-26'),
          endDate: null,
          enabled: false,
          remark: '',
        },
        '9',
      ),
    ).toEqual({
      id: '9',
      name: '日常',
      stationIds: ['1'],
      itemIds: ['2'],
      maintenanceIds: ['3'],
      cyclePeriod: '1',
      alarmDay: 2,
      startDate: '2026-11-26',
      endDate: null,
      status: 0,
    })
  })
})

describe('records', () => {
  it('an abnormal result without an order may open one', () => {
    const r = { itemId: '1', itemTitle: 'A', check: 'c', result: '2', photos: [], repairId: null }
    expect(mayOpenRepair(r)).toBe(true)
    expect(mayOpenRepair({ ...r, repairId: '5' })).toBe(false)
    expect(mayOpenRepair({ ...r, result: '1' })).toBe(false)
  })

  it('steps back a page when its last rows are deleted', () => {
    expect(pageAfterDelete(3, 2, 2)).toBe(2)
    expect(pageAfterDelete(1, 1, 1)).toBe(1)
    expect(pageAfterDelete(2, 5, 1)).toBe(2)
  })
})
