import dayjs from 'dayjs'
import { describe, expect, it } from 'vitest'
import type { HdayRow } from '../../../api/analytics/hdayRate'
import {
  FLAGGED_COLOR,
  NORMAL_COLOR,
  commonReference,
  defaultRange,
  formatPct,
  rankingOption,
  validateHdaySetting,
} from './logic'

const row = (
  id: string,
  hours: number | null,
  refHours: number | null,
  flagged = false,
): HdayRow => ({
  id,
  name: `N${id}`,
  stationName: 'S',
  capacityKwp: 100,
  energyKwh: hours === null ? null : hours * 100,
  hours,
  refHours,
  deviationPct: hours === null || refHours === null ? null : ((hours - refHours) / refHours) * 100,
  flagged,
})

const labels = {
  hours: 'h',
  reference: (v: string) => `ref ${v}`,
  referenceSeries: 'ref',
}

type Option = {
  xAxis: { data: string[] }
  series: {
    type: string
    data: ({ value: number | null; itemStyle: { color: string } } | number | null)[]
    markLine?: { data: { yAxis: number }[] }
  }[]
}

describe('full-load hours page logic', () => {
  it('defaults to the last 7 days, today included', () => {
    const [from, to] = defaultRange(dayjs('2026-11-23T15:00:00'))
    expect(from.format('YYYY-MM-DD')).toBe('2026-11-17')
    expect(to.format('YYYY-MM-DD')).toBe('2026-11-23')
    expect(to.diff(from, 'day') + 1).toBe(7)
  })

  it('ranks highest first, flagged bars red, one reference line when shared', () => {
    const option = rankingOption(
      [row('a', 3, 4, false), row('b', 5, 4), row('c', 2, 4, true), row('d', null, 4)],
      labels,
    ) as unknown as Option
    expect(option.xAxis.data).toEqual(['Nb', 'Na', 'Nc', 'Nd'])
    const bars = option.series[0].data as { value: number | null; itemStyle: { color: string } }[]
    expect(bars.map((b) => b.value)).toEqual([5, 3, 2, null])
    expect(bars.map((b) => b.itemStyle.color)).toEqual([
      NORMAL_COLOR,
      NORMAL_COLOR,
      FLAGGED_COLOR,
      NORMAL_COLOR,
    ])
    expect(option.series[0].markLine?.data[0].yAxis).toBe(4)
    expect(option.series).toHaveLength(1)
  })

  it('draws the reference per bar when the rows have different ones', () => {
    const rows = [row('a', 3, 4), row('b', 5, 6)]
    expect(commonReference(rows)).toBeNull()
    const option = rankingOption(rows, labels) as unknown as Option
    expect(option.series[0].markLine).toBeUndefined()
    expect(option.series[1].type).toBe('line')
    expect(option.series[1].data).toEqual([6, 4])
  })

  it('formats deviations with a sign', () => {
    expect(formatPct(-12.345)).toBe('-12.3%')
    expect(formatPct(3)).toBe('+3.0%')
    expect(formatPct(null)).toBe('--')
  })

  it('validates the threshold setting as the server does', () => {
    expect(validateHdaySetting({ thresholdPct: -10, minDays: 1 })).toEqual([])
    expect(validateHdaySetting({ thresholdPct: 0, minDays: 0 })).toEqual([
      { field: 'thresholdPct', message: 'analytics.hday.validation.thresholdNegative' },
    ])
    expect(validateHdaySetting({ thresholdPct: undefined, minDays: -1 })).toEqual([
      { field: 'thresholdPct', message: 'analytics.hday.validation.thresholdRequired' },
      { field: 'minDays', message: 'analytics.hday.validation.minDaysInteger' },
    ])
    expect(validateHdaySetting({ thresholdPct: -5, minDays: 2.5 })[0].field).toBe('minDays')
  })
})
