import { describe, expect, it } from 'vitest'
import { existingOrderId, toOrder, toStats } from '../../api/repair/repair'
import i18n from '../../locales/i18n'
import {
  actionBody,
  actionNeeds,
  buildRepairQuery,
  filtersFromSearch,
  durationText,
  formatHours,
  isOpen,
  isOverdue,
  logActionLabel,
  primaryAction,
  repairDetailPath,
  repairStatusColor,
  repairStatusLabel,
  sortedActions,
} from './logic'

const t = i18n.getFixedT('zh')
const tEn = i18n.getFixedT('en')

describe('repair labels', () => {
  it('names the contract statuses in both languages, the server name for others', () => {
    const zh = [1, 2, 3, 4, 5, 6, 7, 8].map((s) => repairStatusLabel(t, s))
    expect(zh).toEqual([
      '已提交',
      '待受理',
      '已受理',
      '待维修',
      '已维修',
      '待评价',
      '已完成',
      '已取消',
    ])
    expect(repairStatusLabel(tEn, 2)).toBe('To be accepted')
    expect(repairStatusLabel(tEn, 7)).toBe('Completed')
    expect(repairStatusLabel(t, 9, '挂起')).toBe('挂起')
    expect(logActionLabel(t, 'accept')).toBe('受理')
    expect(logActionLabel(t, 'reopen')).toBe('reopen')
  })

  it('colours done green, canceled grey', () => {
    expect(repairStatusColor(7)).toBe('green')
    expect(repairStatusColor(8)).toBe('default')
    expect(repairStatusColor('2')).toBe('orange')
  })

  it('links an order by id', () => {
    expect(repairDetailPath('12 3')).toBe('/intelligentOperation/repair-detail?id=12%203')
  })
})

describe('repair list', () => {
  it('builds the page query without blank filters', () => {
    expect(buildRepairQuery({}, 1, 10)).toEqual({ current: 1, size: 10 })
    expect(
      buildRepairQuery(
        { stationId: '5', status: '2', level: '4', keyword: '  WO  ', mine: true, overdue: false },
        2,
        20,
      ),
    ).toEqual({
      current: 2,
      size: 20,
      stationId: '5',
      status: '2',
      level: '4',
      keyword: 'WO',
      mine: true,
    })
  })

  it('reads the filters the home page links with', () => {
    expect(filtersFromSearch(new URLSearchParams('overdue=true&mine=true&status=3'))).toEqual({
      overdue: true,
      mine: true,
      status: '3',
    })
    expect(filtersFromSearch(new URLSearchParams('overdue=false'))).toEqual({})
  })

  it('an order is overdue when either deadline passed; open until completed or canceled', () => {
    expect(isOverdue({ responseOverdue: false, repairOverdue: false })).toBe(false)
    expect(isOverdue({ responseOverdue: true, repairOverdue: false })).toBe(true)
    expect(isOverdue({ responseOverdue: false, repairOverdue: true })).toBe(true)
    expect([1, 4, 6, 7, 8].map(isOpen)).toEqual([true, true, true, false, false])
  })

  it('formats hours with one decimal', () => {
    expect(formatHours(null)).toBe('--')
    expect(formatHours(2.345)).toBe('2.3')
    // A one-minute repair reads in minutes, not "0.0 h".
    expect(durationText(1 / 60)).toBe('1 min')
    expect(durationText(0.5)).toBe('30 min')
    expect(durationText(2.345)).toBe('2.3 h')
    expect(durationText(null)).toBe('--')
  })
})

describe('repair actions', () => {
  it('orders the buttons: the next step first and primary, cancel last', () => {
    expect(sortedActions(['cancel', 'transfer', 'accept'])).toEqual([
      'accept',
      'transfer',
      'cancel',
    ])
    expect(primaryAction(['cancel', 'transfer', 'accept'])).toBe('accept')
    expect(primaryAction(['cancel', 'transfer'])).toBeUndefined()
    expect(primaryAction(['assign', 'cancel'])).toBe('assign')
  })

  it('asks each action for what it needs', () => {
    expect(actionNeeds('assign')).toEqual({ user: 'required', note: 'optional' })
    expect(actionNeeds('transfer')).toEqual({ user: 'required', reason: 'required' })
    expect(actionNeeds('finish')).toEqual({ work: true })
    expect(actionNeeds('evaluate')).toEqual({ rating: true })
    expect(actionNeeds('cancel')).toEqual({ reason: 'required' })
    expect(actionNeeds('accept')).toEqual({ note: 'optional' })
  })

  it('builds the bodies of the contract, leaving blank optional fields out', () => {
    expect(actionBody('accept', '1', { note: '  ' })).toEqual({ id: '1' })
    expect(actionBody('start', '1', { note: ' on site ' })).toEqual({ id: '1', note: 'on site' })
    expect(actionBody('assign', '1', { assigneeId: '9' })).toEqual({ id: '1', assigneeId: '9' })
    expect(actionBody('transfer', '1', { assigneeId: '9', reason: ' busy ' })).toEqual({
      id: '1',
      assigneeId: '9',
      reason: 'busy',
    })
    expect(actionBody('finish', '1', { workDone: 'swapped fuse', parts: '', photos: [] })).toEqual({
      id: '1',
      workDone: 'swapped fuse',
    })
    expect(
      actionBody('finish', '1', { workDone: 'w', parts: 'fuse', photos: ['/oss/a.png'] }),
    ).toEqual({ id: '1', workDone: 'w', parts: 'fuse', photos: ['/oss/a.png'] })
    expect(actionBody('evaluate', '1', { rating: 5, comment: 'quick' })).toEqual({
      id: '1',
      rating: 5,
      comment: 'quick',
    })
    expect(actionBody('cancel', '1', { reason: 'dup' })).toEqual({ id: '1', reason: 'dup' })
  })
})

describe('repair wire', () => {
  it('makes an order safe: ids as strings, lists, flags, known actions only', () => {
    const order = toOrder({
      id: 7,
      code: 'WO202611260001',
      status: '2',
      level: 3,
      deviceId: null,
      alarmId: 42,
      actions: ['accept', 'transfer', 'fly'],
      responseOverdue: 1,
      photos: null,
      logs: [{ action: 'create', toStatus: 1, userName: 'admin', createTime: 't' }],
    })
    expect(order.id).toBe('7')
    expect(order.status).toBe(2)
    expect(order.deviceId).toBeNull()
    expect(order.alarmId).toBe('42')
    expect(order.actions).toEqual(['accept', 'transfer'])
    expect(order.responseOverdue).toBe(true)
    expect(order.repairOverdue).toBe(false)
    expect(order.photos).toEqual([])
    expect(order.logs[0]).toMatchObject({ action: 'create', toStatus: 1, fromStatus: null })
  })

  it('reads the statistics with unknown MTTR as null', () => {
    expect(toStats(null)).toEqual({
      open: 0,
      overdue: 0,
      completed30d: 0,
      mttrHours: null,
      stations: [],
    })
    expect(
      toStats({ open: 2, mttrHours: 1.5, stations: [{ stationId: 3, open: 1 }] }),
    ).toMatchObject({
      open: 2,
      mttrHours: 1.5,
      stations: [{ stationId: '3', open: 1, overdue: 0, mttrHours: null }],
    })
  })

  it('finds the existing order an "already has an order" refusal names', () => {
    const refusal = (data: unknown) => ({ response: { data: { code: 400, data } } })
    expect(existingOrderId(refusal('55'))).toBe('55')
    expect(existingOrderId(refusal({ id: 56 }))).toBe('56')
    expect(existingOrderId(refusal(null))).toBeNull()
    expect(existingOrderId(new Error('x'))).toBeNull()
  })
})
