import { describe, expect, it } from 'vitest'
import {
  DEFAULT_DISPERSION_SETTING,
  type DispersionRecord,
  type StringFigure,
} from '../../../api/analytics/discreteRate'
import {
  LEVEL_COLORS,
  deviationOf,
  formatDeviation,
  formatRate,
  gradeRate,
  inverterMean,
  legendBands,
  levelColor,
  stringChartOption,
  validateSetting,
  weakStrings,
} from './logic'

const s = DEFAULT_DISPERSION_SETTING

const str = (index: number, normalisedA: number | null, deviationPct: number | null = null) =>
  ({ index, modules: 20, currentA: normalisedA, normalisedA, deviationPct }) satisfies StringFigure

describe('level colouring and grading', () => {
  it('gives each level its own colour and unknown levels the "none" grey', () => {
    const colours = Object.values(LEVEL_COLORS)
    expect(new Set(colours).size).toBe(colours.length)
    expect(levelColor('poor')).toBe(LEVEL_COLORS.poor)
    expect(levelColor('excellent')).toBe(LEVEL_COLORS.excellent)
    expect(levelColor('bogus')).toBe(LEVEL_COLORS.none)
    expect(levelColor('toString')).toBe(LEVEL_COLORS.none)
  })

  it('grades on the bounds inclusively, as the server does', () => {
    expect(gradeRate(0, s)).toBe('excellent')
    expect(gradeRate(5, s)).toBe('excellent')
    expect(gradeRate(5.01, s)).toBe('good')
    expect(gradeRate(10, s)).toBe('good')
    expect(gradeRate(10.5, s)).toBe('attention')
    expect(gradeRate(20, s)).toBe('attention')
    expect(gradeRate(20.1, s)).toBe('poor')
    expect(gradeRate(null, s)).toBe('none')
    expect(gradeRate(Number.NaN, s)).toBe('none')
    expect(gradeRate(7, { ...s, excellentMax: 8 })).toBe('excellent')
  })

  it('builds the legend from the setting', () => {
    const bands = legendBands({ ...s, excellentMax: 4, goodMax: 9, attentionMax: 18 })
    expect(bands.map((b) => b.level)).toEqual(['excellent', 'good', 'attention', 'poor', 'none'])
    expect(bands[0].values).toEqual({ max: 4 })
    expect(bands[1].values).toEqual({ min: 4, max: 9 })
    expect(bands[2].values).toEqual({ min: 9, max: 18 })
    expect(bands[3].values).toEqual({ min: 18 })
  })

  it('formats rates and signed deviations', () => {
    expect(formatRate(12.345)).toBe('12.3%')
    expect(formatRate(null)).toBe('--')
    expect(formatDeviation(1.25)).toBe('+1.3%')
    expect(formatDeviation(-15)).toBe('-15.0%')
    expect(formatDeviation(0)).toBe('0.0%')
    expect(formatDeviation(null)).toBe('--')
  })
})

describe('setting validation', () => {
  it('accepts the defaults', () => {
    expect(validateSetting(s)).toEqual([])
  })

  it('wants 0 < excellent < good < attention <= 100', () => {
    expect(validateSetting({ ...s, excellentMax: 0 }).map((i) => i.message)).toEqual([
      'analytics.discrete.validation.excellentPositive',
    ])
    expect(validateSetting({ ...s, goodMax: 5 })).toEqual([
      { field: 'goodMax', message: 'analytics.discrete.validation.goodAboveExcellent' },
    ])
    expect(validateSetting({ ...s, attentionMax: 10 })).toEqual([
      { field: 'attentionMax', message: 'analytics.discrete.validation.attentionAboveGood' },
    ])
    expect(validateSetting({ ...s, attentionMax: 100 })).toEqual([])
    expect(validateSetting({ ...s, attentionMax: 100.5 })).toEqual([
      { field: 'attentionMax', message: 'analytics.discrete.validation.attentionMax100' },
    ])
  })

  it('wants the other figures present, non-negative, poor days whole', () => {
    const issues = validateSetting({ ...s, minIrradianceWm2: -1, minPowerRatio: undefined })
    expect(issues.map((i) => [i.field, i.message])).toEqual([
      ['minPowerRatio', 'analytics.discrete.validation.required'],
      ['minIrradianceWm2', 'analytics.discrete.validation.nonNegative'],
    ])
    expect(validateSetting({ ...s, minIrradianceWm2: 0, minPowerRatio: 0, poorDays: 0 })).toEqual(
      [],
    )
    expect(validateSetting({ ...s, poorDays: 1.5 }).map((i) => i.message)).toEqual([
      'analytics.discrete.validation.integer',
    ])
  })
})

describe('weak strings', () => {
  const strings = [str(1, 8), str(2, 8), str(3, 8), str(4, 8), str(5, 8), str(6, 4)]

  it('computes the mean and a missing deviation from it', () => {
    expect(inverterMean(strings)).toBeCloseTo(44 / 6)
    expect(deviationOf(strings[5], 8)).toBeCloseTo(-50)
    expect(deviationOf(str(1, 8, 3.5), 8)).toBe(3.5)
    expect(inverterMean([str(1, null)])).toBeNull()
  })

  it('picks only the string well below the mean', () => {
    expect(weakStrings(strings, 5)).toEqual([6])
  })

  it('prefers the server deviations and orders weakest first, at most max', () => {
    const list = [str(1, 8, -6), str(2, 8, -30), str(3, 8, 2), str(4, 8, -12), str(5, 8, -4)]
    expect(weakStrings(list, 5)).toEqual([2, 4, 1])
    expect(weakStrings(list, 5, 2)).toEqual([2, 4])
    expect(weakStrings(list, 20)).toEqual([2])
  })

  it('finds none in an even inverter', () => {
    expect(weakStrings([str(1, 8), str(2, 8.1), str(3, 7.9)], 5)).toEqual([])
  })
})

describe('string chart option', () => {
  const record: DispersionRecord = {
    inverterId: '7',
    inverterName: 'INV-7',
    stationId: '1',
    stationName: 'S',
    stringCount: 3,
    rate: 30,
    level: 'poor',
    instants: 12,
    strings: [str(1, 10, 25), str(2, 10, 25), str(3, 4, -50)],
  }
  const labels = {
    title: 'T',
    normalised: 'A',
    mean: (v: string) => `mean ${v}`,
    string: 'S',
    deviation: 'D',
    modules: 'M',
    current: 'C',
  }

  it('draws a bar per string, the weak one red, and the mean line', () => {
    const option = stringChartOption(record, [3], labels) as {
      xAxis: { data: string[] }
      series: {
        data: { value: number; itemStyle: { color: string } }[]
        markLine: { data: { yAxis: number }[]; label: { formatter: string } }
        label: { formatter: (p: { dataIndex: number }) => string }
      }[]
    }
    expect(option.xAxis.data).toEqual(['PV1', 'PV2', 'PV3'])
    const bars = option.series[0]
    expect(bars.data.map((d) => d.value)).toEqual([10, 10, 4])
    expect(bars.data.map((d) => d.itemStyle.color === LEVEL_COLORS.poor)).toEqual([
      false,
      false,
      true,
    ])
    expect(bars.markLine.data[0].yAxis).toBeCloseTo(8)
    expect(bars.markLine.label.formatter).toBe('mean 8.00')
    expect(bars.label.formatter({ dataIndex: 2 })).toBe('-50.0%')
  })
})
