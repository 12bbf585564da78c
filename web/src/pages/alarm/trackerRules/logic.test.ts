import { describe, expect, it } from 'vitest'
import {
  alarmDataFlexQuery,
  settingFromWire,
  settingToWire,
  type FlexVariable,
} from '../../../api/alarm/flex'
import { comparisonLabel, validateFlexSetting, variableText } from './logic'

const known: FlexVariable[] = [
  { key: 'wind_speed', name: '风速', unit: 'm/s' },
  { key: 'angle', name: '角度', unit: '°' },
]

const valid = {
  variable: 'wind_speed',
  comparison: '>',
  threshold: 15,
  thresholdHigh: null,
  durationSeconds: 60,
}

const fields = (draft: Record<string, unknown>, list: FlexVariable[] | null = known) =>
  validateFlexSetting(draft, list).map((i) => `${i.field}:${i.message.split('.').pop()}`)

describe('bracket alarm rule validation', () => {
  it('accepts a complete single-threshold rule', () => {
    expect(fields(valid)).toEqual([])
    expect(fields({ ...valid, threshold: 0, durationSeconds: 0 })).toEqual([])
  })

  it('requires a threshold', () => {
    expect(fields({ ...valid, threshold: null })).toEqual(['threshold:thresholdRequired'])
    expect(fields({ ...valid, threshold: '' })).toEqual(['threshold:thresholdRequired'])
  })

  it('wants the upper threshold above the threshold for ranges only', () => {
    expect(fields({ ...valid, comparison: 'inside' })).toEqual([
      'thresholdHigh:thresholdHighRequired',
    ])
    expect(fields({ ...valid, comparison: 'outside', thresholdHigh: 15 })).toEqual([
      'thresholdHigh:thresholdHighAbove',
    ])
    expect(fields({ ...valid, comparison: 'outside', thresholdHigh: 10 })).toEqual([
      'thresholdHigh:thresholdHighAbove',
    ])
    expect(fields({ ...valid, comparison: 'inside', thresholdHigh: 20 })).toEqual([])
    expect(fields({ ...valid, comparison: '<', thresholdHigh: 1 })).toEqual([])
  })

  it('wants a whole duration of at least 0', () => {
    expect(fields({ ...valid, durationSeconds: -1 })).toEqual([
      'durationSeconds:durationNonNegative',
    ])
    expect(fields({ ...valid, durationSeconds: 1.5 })).toEqual([
      'durationSeconds:durationNonNegative',
    ])
    expect(fields({ ...valid, durationSeconds: undefined })).toEqual([
      'durationSeconds:durationRequired',
    ])
  })

  it('refuses an unknown variable or comparison once the list is known', () => {
    expect(fields({ ...valid, variable: 'humidity' })).toEqual(['variable:variableUnknown'])
    expect(fields({ ...valid, variable: 'humidity' }, null)).toEqual([])
    expect(fields({ ...valid, variable: undefined }, null)).toEqual(['variable:variableRequired'])
    expect(fields({ ...valid, comparison: '==' })).toEqual(['comparison:comparisonRequired'])
  })

  it('labels comparisons and variables', () => {
    expect(comparisonLabel('>=')).toBe('analytics.flexSetting.cmp.ge')
    expect(comparisonLabel('inside')).toBe('analytics.flexSetting.cmp.inside')
    expect(comparisonLabel('==')).toBeNull()
    expect(variableText(known[0])).toBe('风速 (m/s)')
    expect(variableText({ key: 'k', name: 'K', unit: null })).toBe('K')
  })
})

describe('bracket alarm wire forms', () => {
  it('sends enabled as a boolean and drops the upper threshold of a single comparison', () => {
    expect(
      settingToWire({ ...valid, comparison: '>', thresholdHigh: 30, enabled: 1, level: 3 }),
    ).toMatchObject({ thresholdHigh: null, enabled: true, level: 3, threshold: 15 })
    expect(
      settingToWire({ ...valid, comparison: 'inside', thresholdHigh: 30, enabled: 0 }),
    ).toMatchObject({ thresholdHigh: 30, enabled: false })
  })

  it('reads a wire rule into form values', () => {
    expect(
      settingFromWire({
        id: '5',
        stationId: '9',
        enabled: true,
        level: '2' as unknown as number,
        durationSeconds: null as unknown as number,
      }),
    ).toMatchObject({ id: '5', stationId: '9', enabled: 1, level: 2, durationSeconds: 0 })
    expect(settingFromWire({ enabled: false }).enabled).toBe(0)
  })

  it('turns the generic time range into startTime / endTime', () => {
    expect(
      alarmDataFlexQuery({
        current: 2,
        size: 10,
        stationId: '3',
        status: 2,
        time_datege: '2026-11-01 00:00:00',
        time_datelt: '2026-11-08 00:00:00',
        keyword: '',
      }),
    ).toEqual({
      current: 2,
      size: 10,
      stationId: '3',
      status: 2,
      startTime: '2026-11-01 00:00:00',
      endTime: '2026-11-08 00:00:00',
    })
  })
})
