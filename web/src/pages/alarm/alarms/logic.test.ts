import dayjs from 'dayjs'
import { describe, expect, it } from 'vitest'
import type { AlarmRule } from '../../../api/alarm/alarm'
import {
  allowedActions,
  buildAlarmQuery,
  feedSignature,
  formatMeasure,
  idFromSearch,
  levelColor,
  noteTooLong,
  statusColor,
  validateRule,
  valueVsThreshold,
  warningLink,
  withoutId,
} from './logic'

const rule: AlarmRule = {
  temperatureMaxC: 85,
  gridVoltageMinV: 187,
  gridVoltageMaxV: 253,
  gridFrequencyMinHz: 49.5,
  gridFrequencyMaxHz: 50.5,
  zeroOutputIrradianceWm2: 200,
  deviceSilenceSeconds: 300,
  clearHoldSeconds: 60,
  raiseAfterSamples: 3,
}

describe('buildAlarmQuery', () => {
  it('sends paging and only the filters that are set', () => {
    expect(buildAlarmQuery({}, 1, 10)).toEqual({ current: 1, size: 10 })
    expect(
      buildAlarmQuery(
        { stationId: '12', keyword: '  INV-1 ', status: 0, level: '3', category: 'fault' },
        2,
        30,
      ),
    ).toEqual({
      current: 2,
      size: 30,
      stationId: '12',
      keyword: 'INV-1',
      status: '0',
      level: '3',
      category: 'fault',
    })
  })

  it('keeps status 0 (active) but drops blank text', () => {
    const q = buildAlarmQuery({ status: 0, keyword: '   ', stationId: '' }, 1, 10)
    expect(q.status).toBe('0')
    expect(q).not.toHaveProperty('keyword')
    expect(q).not.toHaveProperty('stationId')
  })

  it('sends the time range as startTime/endTime in the wire format', () => {
    const q = buildAlarmQuery(
      { range: [dayjs('2026-11-01T08:00:00'), dayjs('2026-11-02T17:30:05')] },
      1,
      10,
    )
    expect(q.startTime).toBe('2026-11-01 08:00:00')
    expect(q.endTime).toBe('2026-11-02 17:30:05')
    expect(buildAlarmQuery({ range: null }, 1, 10)).not.toHaveProperty('startTime')
  })
})

describe('tags and values', () => {
  it('colours levels from notice to critical and statuses by urgency', () => {
    expect([1, 2, 3, 4].map(levelColor)).toEqual(['blue', 'gold', 'orange', 'red'])
    expect(levelColor('4')).toBe('red')
    expect(levelColor(9)).toBe('default')
    expect([0, 1, 2].map(statusColor)).toEqual(['red', 'orange', 'green'])
  })

  it('formats values with at most 3 decimals, "-" when absent', () => {
    expect(formatMeasure(253.4)).toBe('253.4')
    expect(formatMeasure(49.123456)).toBe('49.123')
    expect(formatMeasure(0)).toBe('0')
    expect(formatMeasure(null)).toBe('-')
    expect(formatMeasure(undefined)).toBe('-')
  })

  it('shows value against threshold', () => {
    expect(valueVsThreshold({ value: 262.5, threshold: 253 })).toBe('262.5 / 253')
    expect(valueVsThreshold({ value: 3, threshold: null })).toBe('3')
    expect(valueVsThreshold({ value: null, threshold: 253 })).toBe('- / 253')
    expect(valueVsThreshold({ value: null, threshold: null })).toBe('-')
  })
})

describe('actions', () => {
  it('acknowledges only active alarms; clears active or acknowledged ones', () => {
    expect(allowedActions(0)).toEqual(['ack', 'clear'])
    expect(allowedActions('1')).toEqual(['clear'])
    expect(allowedActions(2)).toEqual([])
  })

  it('limits a note to 500 characters, counting characters not UTF-16 units', () => {
    expect(noteTooLong(undefined)).toBe(false)
    expect(noteTooLong('好'.repeat(500))).toBe(false)
    expect(noteTooLong('a'.repeat(501))).toBe(true)
    // 500 emoji are 1000 UTF-16 units but 500 characters.
    expect(noteTooLong('😀'.repeat(500))).toBe(false)
  })
})

describe('?id= from the bell', () => {
  it('reads a non-blank id', () => {
    expect(idFromSearch('?id=42')).toBe('42')
    expect(idFromSearch(new URLSearchParams('id=%2042%20'))).toBe('42')
    expect(idFromSearch('?id=')).toBeNull()
    expect(idFromSearch('?other=1')).toBeNull()
  })

  it('drops only the id when the detail closes', () => {
    expect(withoutId('?id=42&tab=x').toString()).toBe('tab=x')
    expect(withoutId('id=42').toString()).toBe('')
  })
})

describe('validateRule', () => {
  it('accepts a sound rule', () => {
    expect(validateRule(rule)).toEqual([])
  })

  it('wants each minimum below its maximum', () => {
    expect(validateRule({ ...rule, gridVoltageMinV: 253 })).toEqual([
      { field: 'gridVoltageMinV', problem: 'minBelowMax' },
    ])
    expect(validateRule({ ...rule, gridFrequencyMinHz: 51 })).toEqual([
      { field: 'gridFrequencyMinHz', problem: 'minBelowMax' },
    ])
  })

  it('wants positive durations and a positive whole number of samples', () => {
    expect(validateRule({ ...rule, deviceSilenceSeconds: 0 })).toEqual([
      { field: 'deviceSilenceSeconds', problem: 'positive' },
    ])
    expect(validateRule({ ...rule, clearHoldSeconds: -5 })).toEqual([
      { field: 'clearHoldSeconds', problem: 'positive' },
    ])
    expect(validateRule({ ...rule, raiseAfterSamples: 0 })).toEqual([
      { field: 'raiseAfterSamples', problem: 'positive' },
    ])
    expect(validateRule({ ...rule, raiseAfterSamples: 1.5 })).toEqual([
      { field: 'raiseAfterSamples', problem: 'integer' },
    ])
    expect(validateRule({ ...rule, zeroOutputIrradianceWm2: -1 })).toEqual([
      { field: 'zeroOutputIrradianceWm2', problem: 'nonNegative' },
    ])
  })

  it('reports missing or non-numeric fields as required', () => {
    const errors = validateRule({ ...rule, temperatureMaxC: undefined, clearHoldSeconds: 'x' })
    expect(errors).toEqual([
      { field: 'temperatureMaxC', problem: 'required' },
      { field: 'clearHoldSeconds', problem: 'required' },
    ])
  })
})

describe('feedSignature', () => {
  it('changes when the count or the ids change, not on an identical message', () => {
    const a = feedSignature(2, [{ id: '1' }, { id: '2' }])
    expect(feedSignature(2, [{ id: '1' }, { id: '2' }])).toBe(a)
    expect(feedSignature(3, [{ id: '1' }, { id: '2' }])).not.toBe(a)
    expect(feedSignature(2, [{ id: '3' }, { id: '1' }])).not.toBe(a)
  })
})

describe('warningLink', () => {
  it('leads a dispersion warning to its station and a full-load-hours one to hdayRate', () => {
    expect(
      warningLink({ category: 'dispersion', kind: 'warn:dispersion', stationId: '9' }),
    ).toEqual({
      to: '/intelligentOperation/discreteRate?stationId=9',
      label: 'alarmUi.action.openDispersion',
    })
    expect(warningLink({ category: '', kind: 'warn:hday', stationId: '9' })?.to).toBe(
      '/intelligentOperation/hdayRate',
    )
    expect(warningLink({ category: 'fault', kind: 'fault:x:1', stationId: '9' })).toBeNull()
  })
})
