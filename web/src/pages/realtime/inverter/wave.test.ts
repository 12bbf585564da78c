import { describe, expect, it } from 'vitest'
import {
  axisScale,
  breakGaps,
  buildWave,
  clockedDevices,
  downsampleMinMax,
  type Point,
} from './wave'

const min = 60_000

describe('gaps', () => {
  it('breaks the line inside a silence longer than the limit, after sorting', () => {
    const pts: Point[] = [
      [10 * min, 3],
      [0, 1],
      [5 * min, 2],
      [60 * min, 4],
    ]
    expect(breakGaps(pts, 15 * min)).toEqual([
      [0, 1],
      [5 * min, 2],
      [10 * min, 3],
      [35 * min, null],
      [60 * min, 4],
    ])
  })

  it('leaves regular data alone', () => {
    const pts: Point[] = [
      [0, 1],
      [5 * min, 2],
    ]
    expect(breakGaps(pts, 15 * min)).toEqual(pts)
  })
})

describe('min/max thinning', () => {
  const ramp = (n: number): Point[] => Array.from({ length: n }, (_, i) => [i * 1000, i % 10])

  it('keeps short series as they are', () => {
    expect(downsampleMinMax(ramp(50), 100)).toHaveLength(50)
  })

  it('thins to about the limit and keeps spikes and dips', () => {
    const pts = ramp(10_000)
    pts[4321] = [4321 * 1000, 500]
    pts[7777] = [7777 * 1000, -80]
    const out = downsampleMinMax(pts, 200)
    expect(out.length).toBeLessThanOrEqual(200)
    expect(out.length).toBeGreaterThan(100)
    expect(out).toContainEqual([4321 * 1000, 500])
    expect(out).toContainEqual([7777 * 1000, -80])
    // still in time order
    for (let i = 1; i < out.length; i++) expect(out[i][0]).toBeGreaterThanOrEqual(out[i - 1][0])
  })

  it('keeps the null points that separate runs', () => {
    const pts: Point[] = [
      ...ramp(500),
      [500_500, null],
      ...ramp(500).map(([t, v]): Point => [t + 600_000, v]),
    ]
    const out = downsampleMinMax(pts, 100)
    expect(out.filter((p) => p[1] === null)).toEqual([[500_500, null]])
  })
})

describe('axes', () => {
  it('scales power and energy axes to a readable unit', () => {
    expect(axisScale('W', 800)).toEqual({ unit: 'W', factor: 1 })
    expect(axisScale('W', 45_000)).toEqual({ unit: 'kW', factor: 1000 })
    expect(axisScale('W', 2_500_000)).toEqual({ unit: 'MW', factor: 1e6 })
    expect(axisScale('Wh', 12_000)).toEqual({ unit: 'kWh', factor: 1000 })
    expect(axisScale('degC', 80)).toEqual({ unit: '°C', factor: 1 })
    expect(axisScale('Ohm', 2_000_000)).toEqual({ unit: 'MΩ', factor: 1e6 })
  })
})

describe('building the wave chart', () => {
  const day = [0, 5, 10].map((m) => m * min)
  it('puts one axis per unit, scales values and names series by device when several', () => {
    const chart = buildWave([
      {
        device: 'INV-1',
        metric: 'ac_power',
        label: 'AC power',
        points: day.map((t, i): Point => [t, 1000 * (i + 1)]),
      },
      {
        device: 'INV-1',
        metric: 'pv1_voltage',
        label: 'PV1 voltage',
        points: day.map((t): Point => [t, 600]),
      },
      {
        device: 'INV-2',
        metric: 'dc_power',
        label: 'DC power',
        points: day.map((t): Point => [t, 500]),
      },
    ])
    expect(chart.axes).toEqual([
      { unit: 'W', scale: { unit: 'kW', factor: 1000 } },
      { unit: 'V', scale: { unit: 'V', factor: 1 } },
    ])
    expect(chart.series.map((s) => [s.name, s.yAxisIndex])).toEqual([
      ['INV-1 · AC power', 0],
      ['INV-1 · PV1 voltage', 1],
      ['INV-2 · DC power', 0],
    ])
    expect(chart.series[0].data).toEqual([
      [0, 1],
      [5 * min, 2],
      [10 * min, 3],
    ])
    expect(chart.series[2].data[0]).toEqual([0, 0.5])
  })

  it('uses the metric label alone for one device and drops non-finite values', () => {
    const chart = buildWave([
      {
        device: 'INV-1',
        metric: 'grid_frequency',
        label: 'Frequency',
        points: [
          [0, 50],
          [min, Number.NaN],
        ],
      },
    ])
    expect(chart.series[0].name).toBe('Frequency')
    expect(chart.series[0].data).toEqual([
      [0, 50],
      [min, null],
    ])
    expect(buildWave([])).toEqual({ axes: [], series: [] })
  })
})

describe('clockedDevices', () => {
  it('names each series clock when the stations keep different ones', () => {
    const got = clockedDevices(
      [
        { deviceName: 'INV-DL', utcOffset: '-12:00' },
        { deviceName: 'INV-HUB', utcOffset: '+08:00' },
      ],
      '-12:00',
    )
    expect(got).toEqual({ names: ['INV-DL (UTC-12:00)', 'INV-HUB (UTC+08:00)'], mixed: true })
  })

  it('keeps bare names on one clock, a series without its own taking the answer clock', () => {
    const got = clockedDevices(
      [{ deviceName: 'A', utcOffset: '+08:00' }, { deviceName: 'B' }],
      '+08:00',
    )
    expect(got).toEqual({ names: ['A', 'B'], mixed: false })
  })
})
