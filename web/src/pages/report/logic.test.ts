import { describe, expect, it } from 'vitest'
import type {
  InverterGeneration,
  MeterRows,
  StationBill,
  StationGeneration,
  StationPerformance,
} from '../../api/report/types'
import { breakdown, kindsOf, priceText, touChart } from './electricityBill/logic'
import { comboOption } from './common/chart'
import { cellText, chartPct, fmt, pct, sumOrNull } from './common/format'
import { inverterChart, slotRows, summaryTotal } from './inverterElectricity/logic'
import { allResets, countersOf, defaultMeter, meterChart } from './meterReport/logic'
import { stationChart, stationRows } from './stationElectricity/logic'

describe('figures', () => {
  it('shows no data as a dash, never as 0', () => {
    expect(fmt(null)).toBe('—')
    expect(fmt(undefined)).toBe('—')
    expect(fmt(0, 3)).toBe('0.000')
    expect(fmt(1234.5678, 2)).toBe('1234.57')
    expect(pct(null)).toBe('—')
    expect(pct(0.8123)).toBe('81.2')
    expect(chartPct(null)).toBeNull()
    expect(chartPct(0.81234)).toBe(81.23)
    expect(sumOrNull([null, undefined])).toBeNull()
    expect(sumOrNull([null, 2, 3])).toBe(5)
    expect(
      cellText({ key: 'k', title: 'k', value: (r: { v: number | null }) => r.v }, { v: null }),
    ).toBe('—')
  })
})

const gen = (energy: (number | null)[]): StationGeneration => ({
  stationId: '5',
  stationName: 'S',
  capacityKwp: 100,
  title: '2026-11-26',
  timeType: 'day',
  points: energy.map((e, i) => ({
    label: `${String(i).padStart(2, '0')}:00`,
    energyKwh: e,
    equivalentHours: e === null ? null : e / 100,
    irradiationKwhM2: null,
    exportKwh: null,
    importKwh: null,
  })),
  total: {
    label: 'total',
    energyKwh: sumOrNull(energy),
    equivalentHours: null,
    irradiationKwhM2: null,
    exportKwh: null,
    importKwh: null,
  },
})

describe('station generation', () => {
  it('puts the PR of each slot next to its generation, null where the rate has none', () => {
    const perf = {
      points: [{ label: '01:00', pr: 0.8, prTemperatureCorrected: 0.83 }],
      total: { pr: 0.79, prTemperatureCorrected: null },
    } as unknown as StationPerformance
    const { rows, total } = stationRows(gen([null, 12.5]), perf)
    expect(rows.map((r) => [r.energyKwh, r.pr, r.prTemperatureCorrected])).toEqual([
      [null, null, null],
      [12.5, 0.8, 0.83],
    ])
    expect(total).toMatchObject({ energyKwh: 12.5, pr: 0.79, prTemperatureCorrected: null })
    const chart = stationChart(rows, {
      energy: 'E',
      pr: 'PR',
      prT: 'PRT',
      kwh: 'kWh',
      percent: '%',
    })
    expect(chart.bars[0].data).toEqual([null, 12.5])
    expect(chart.lines[0].data).toEqual([null, 80])
    expect(stationRows(gen([1]), undefined).total.pr).toBeNull()
  })
})

describe('inverter comparison', () => {
  const inv = (
    id: string,
    energy: (number | null)[],
    share: number | null,
  ): InverterGeneration => ({
    inverterId: id,
    inverterName: `INV-${id}`,
    stationId: '5',
    stationName: 'S',
    capacityKwp: 50,
    title: '2026-11',
    timeType: 'month',
    points: energy.map((e, i) => ({
      label: `d${i}`,
      energyKwh: e,
      equivalentHours: null,
      sharePct: null,
    })),
    total: { label: 'total', energyKwh: sumOrNull(energy), equivalentHours: null, sharePct: share },
  })

  it('lays slots as rows and inverters as columns, totals from each inverter', () => {
    const list = [inv('1', [1, null], 40), inv('2', [null, null], null)]
    const { rows, total } = slotRows(list)
    expect(rows).toEqual([
      { label: 'd0', energy: { '1': 1, '2': null } },
      { label: 'd1', energy: { '1': null, '2': null } },
    ])
    expect(total.energy).toEqual({ '1': 1, '2': null })
    expect(summaryTotal(list)).toEqual({ energyKwh: 1, capacityKwp: 100, sharePct: 40 })
    expect(inverterChart(list, 'kWh').bars.map((b) => b.data)).toEqual([
      [1, null],
      [null, null],
    ])
    expect(slotRows([]).rows).toEqual([])
  })
})

describe('meters', () => {
  const meter: MeterRows = {
    meterId: '9',
    meterName: 'M',
    sn: 'SN',
    meterRole: '1',
    points: [
      { label: '00:00', missingHours: 1 },
      {
        label: '01:00',
        missingHours: 0,
        energyImport: { energy: 2, startReading: 10, endReading: 12, resets: [] },
        energyExport: {
          energy: null,
          startReading: 99,
          endReading: 3,
          resets: ['2026-11-26 01:00'],
        },
      },
    ],
    total: {
      label: 'total',
      missingHours: 1,
      energyImport: { energy: 2, startReading: 10, endReading: 12, resets: [] },
    },
  }

  it('marks the slots with a counter reset and keeps no-data gaps', () => {
    expect(countersOf(meter)).toEqual(['energyImport', 'energyExport'])
    expect(allResets(meter)).toEqual(['2026-11-26 01:00'])
    const chart = meterChart(meter, { energyImport: 'I', energyExport: 'E', reset: 'R' })
    expect(chart.bars[0].data).toEqual([null, 2])
    expect(chart.bars[1].data).toEqual([null, null])
    expect(chart.marks).toEqual([{ at: '01:00', text: 'R' }])
    const option = comboOption(chart) as { series: { markLine?: { data: unknown[] } }[] }
    expect(option.series[0].markLine?.data).toEqual([{ xAxis: '01:00', name: 'R' }])
    expect(defaultMeter([{ ...meter, meterId: '1', meterRole: '2' }, meter])).toBe('9')
    expect(defaultMeter([])).toBeUndefined()
  })
})

describe('bill', () => {
  const seg = (kind: string, gen: number, selfAmt: number, expAmt: number) => ({
    kind,
    generationKwh: gen,
    selfConsumedKwh: 0,
    exportedKwh: gen,
    selfConsumedAmount: selfAmt,
    exportedAmount: expAmt,
    minPrice: 0.3,
    maxPrice: 0.3,
  })
  const figures = (segments: ReturnType<typeof seg>[]) => ({
    generationKwh: 0,
    selfConsumedKwh: 0,
    exportedKwh: 0,
    importedKwh: 0,
    selfConsumedAmount: 0,
    exportedAmount: 0,
    amount: 0,
    segments,
  })
  const bill = {
    points: [
      { label: '2026-11-01', ...figures([seg('4', 3, 0, 1)]) },
      { label: '2026-11-02', ...figures([seg('2', 5, 0, 2), seg('4', 1, 0, 0.3)]) },
    ],
    total: figures([seg('2', 5, 1, 2), seg('4', 4, 0, 1.3)]),
  } as unknown as StationBill

  it('stacks generation by segment in sharp-peak-flat-valley order', () => {
    expect(kindsOf(bill)).toEqual(['2', '4'])
    const chart = touChart(bill, (k) => `k${k}`)
    expect(chart.bars.map((b) => [b.name, b.stack, b.data])).toEqual([
      ['k2', 'tou', [null, 5]],
      ['k4', 'tou', [3, 1]],
    ])
    expect(breakdown(bill, (k) => `k${k}`, { selfConsumed: 'S', exported: 'E' })).toEqual([
      { name: 'k2 · S', value: 1, color: '#fa8c16' },
      { name: 'k2 · E', value: 2, color: '#fa8c1680' },
      { name: 'k4 · E', value: 1.3, color: '#52c41a80' },
    ])
    expect(priceText({ ...seg('1', 0, 0, 0), maxPrice: 0.5 })).toBe('0.3000 ~ 0.5000')
    expect(priceText({ ...seg('1', 0, 0, 0), minPrice: null })).toBe('—')
  })
})
