import { describe, expect, it } from 'vitest'
import { toFleetSummary, toMapStation, toProvinceStat } from './home'
import { toInverterLive, toCurves } from './inverterReal'
import { toFlexLive } from './flex'
import { sumSeries, toFleetCurve, withClockShifts } from './station'
import { clockShiftFromRemark, clockShiftOf, time } from './wire'
import { metricUnit, parseMetric } from './metrics'
import type { CurveSeries } from './types'

describe('home answers', () => {
  const mapItem = {
    id: '1888',
    name: '武汉一号',
    latitude: 30.59,
    longitude: 114.3,
    provinceCode: '420000',
    installationStatus: '2',
    status: 'producing',
    online: true,
    currentPowerKw: 45.5,
    capacityKwp: 99.6,
    capacityKw: 80,
    todayEnergyKwh: 120.25,
    updateTime: '2026-03-01 12:00:00',
  }

  it('reads a map station in canonical units with its colour key', () => {
    const s = toMapStation(mapItem)
    expect(s).toMatchObject({
      id: '1888',
      status: 'producing',
      powerW: 45_500,
      capacityWp: 99_600,
      todayWh: 120_250,
      latitude: 30.59,
      clockShift: null,
    })
    expect(s.updatedAt).toBe(new Date(2026, 2, 1, 12, 0, 0).getTime())
  })

  it('derives the status when the server names none', () => {
    expect(toMapStation({ id: '1', installationStatus: '1', online: true }).status).toBe(
      'commissioning',
    )
    expect(toMapStation({ id: '1', installationStatus: '2', online: false }).status).toBe('offline')
    expect(
      toMapStation({ id: '1', installationStatus: '2', online: true, currentPowerKw: 0 }).status,
    ).toBe('standby')
  })

  it('reads the totals, counts statuses from the stations and takes the server CO2 figure', () => {
    const summary = toFleetSummary(
      {
        stationCount: 3,
        commissioningCount: 1,
        offlineCount: 1,
        faultCount: 0,
        capacityKwp: 300,
        currentPowerKw: 120.5,
        todayEnergyKwh: 800,
        monthEnergyKwh: 9000,
        yearEnergyKwh: 20000,
        totalEnergyKwh: 1_000_000,
        co2AvoidedT: 997,
        factors: { co2KgPerKwh: 0.997 },
        equivalentHoursToday: 2.67,
        updateTime: '2026-03-01 12:00:00',
      },
      [toMapStation(mapItem), toMapStation({ ...mapItem, id: '2', status: 'fault' })],
    )
    expect(summary).toMatchObject({
      stations: 3,
      capacityWp: 300_000,
      powerW: 120_500,
      todayWh: 800_000,
      totalWh: 1e9,
      co2Kg: 997_000,
      co2Factor: 0.997,
      hoursToday: 2.67,
    })
    expect(summary.byStatus).toEqual({
      producing: 1,
      standby: 0,
      offline: 0,
      commissioning: 0,
      fault: 1,
    })
  })

  it('falls back on the counters and computes CO2 when not given', () => {
    const summary = toFleetSummary({
      stationCount: 5,
      commissioningCount: 1,
      offlineCount: 2,
      faultCount: 1,
      totalEnergyKwh: 1000,
    })
    expect(summary.byStatus).toEqual({
      producing: 2,
      standby: 0,
      offline: 1,
      commissioning: 1,
      fault: 1,
    })
    expect(summary.co2Kg).toBeCloseTo(997, 6)
  })

  it('reads province statistics (figures flattened)', () => {
    expect(
      toProvinceStat({
        provinceCode: '420000',
        provinceName: '湖北省',
        stationCount: 2,
        capacityKwp: 1500,
        currentPowerKw: 3,
        todayEnergyKwh: 10,
        totalEnergyKwh: 50,
      }),
    ).toEqual({
      provinceCode: '420000',
      provinceName: '湖北省',
      stations: 2,
      capacityWp: 1_500_000,
      powerW: 3000,
      todayWh: 10_000,
      totalWh: 50_000,
    })
  })
})

describe('the fleet power curve', () => {
  it("keeps the hub's instants and span, whatever the browser's day", () => {
    const start = Date.UTC(2026, 10, 27, 14)
    const c = toFleetCurve({
      start,
      end: start + 86_400_000,
      intervalMinutes: 5,
      points: [
        [start + 300_000, 5_360_000.5],
        [start + 600_000, null],
        ['x', 1],
      ],
    })
    expect(c.range).toEqual([start, start + 86_400_000])
    expect(c.points).toEqual([[start + 300_000, 5_360_000.5]])
  })

  it('answers no points for an empty fleet', () => {
    expect(toFleetCurve({ points: [] }).points).toEqual([])
  })
})

describe('inverter rows', () => {
  const row = {
    id: '77',
    name: 'INV-01',
    sn: 'SN01',
    stationId: '1888',
    stationName: '武汉一号',
    ratedPowerKw: 50,
    stringsCount: 3,
    online: true,
    acPowerKw: 20.5,
    todayEnergyKwh: 88.2,
    totalEnergyKwh: 12345.6,
    dcPowerKw: 21,
    efficiency: 97.6,
    temperature: 41.2,
    statusCode: 512,
    faultCode: 0,
    gridVoltage: 230.1,
    gridVoltages: [229.9, 230.2, null],
    gridFrequency: 50.01,
    acCurrent: 29.7,
    pvCurrents: [9.1, 9.0, null],
    pvVoltages: [610, 612, 0],
    updateTime: '2026-03-01 12:00:05',
  }

  it('maps the row to vocabulary names in canonical units', () => {
    const d = toInverterLive(row)
    expect(d).toMatchObject({
      id: '77',
      status: 'producing',
      online: true,
      powerW: 20_500,
      todayWh: 88_200,
      ratedPowerW: 50_000,
    })
    expect(d.totalWh).toBeCloseTo(12_345_600, 3)
    expect(d.values).toMatchObject({
      ac_power: 20_500,
      dc_power: 21_000,
      grid_voltage_a: 229.9,
      grid_voltage_b: 230.2,
      pv1_current: 9.1,
      pv2_current: 9,
      pv3_voltage: 0,
      status_code: 512,
    })
    expect('grid_voltage_c' in d.values).toBe(false)
    expect('pv3_current' in d.values).toBe(false)
  })

  it('shows a fault code as fault, and offline over everything but commissioning', () => {
    expect(toInverterLive({ ...row, faultCode: 33 }).status).toBe('fault')
    expect(toInverterLive({ ...row, online: false, faultCode: 33 }).status).toBe('offline')
    expect(toInverterLive({ ...row, acPowerKw: 0 }).status).toBe('standby')
  })

  it("carries the gateway's reason when the inverter's values are withheld", () => {
    const reason = 'layout changed: model 1 expected at 40002, found 160'
    expect(toInverterLive({ ...row, withheld: reason }).withheld).toBe(reason)
    expect(toInverterLive(row).withheld).toBeNull()
  })

  it('turns curves back into canonical units with parsed local times', () => {
    const curves = toCurves({
      date: '2026-03-01',
      intervalMinutes: 5,
      series: [
        {
          inverterId: '77',
          inverterName: 'INV-01',
          name: 'ac_power',
          label: '有功功率',
          unit: 'kW',
          points: [
            ['2026-03-01 10:00:00', 12.5],
            ['2026-03-01 10:05:00', 13],
          ],
        },
        {
          inverterId: '77',
          inverterName: 'INV-01',
          name: 'pv1_voltage',
          label: 'PV1电压',
          unit: 'V',
          points: [
            ['bad', 1],
            ['2026-03-01 10:00:00', 600],
          ],
        },
      ],
    })
    expect(curves[0]).toMatchObject({ deviceId: '77', metric: 'ac_power', unit: 'W' })
    expect(curves[0].points).toEqual([
      [new Date(2026, 2, 1, 10, 0).getTime(), 12_500],
      [new Date(2026, 2, 1, 10, 5).getTime(), 13_000],
    ])
    expect(curves[1].points).toEqual([[new Date(2026, 2, 1, 10, 0).getTime(), 600]])
  })

  it('sums inverter curves bucket by bucket into the station curve', () => {
    const s = (points: [number, number | null][]): CurveSeries => ({
      deviceId: '',
      deviceName: '',
      metric: 'ac_power',
      label: '',
      unit: 'W',
      points,
    })
    expect(
      sumSeries([
        s([
          [2, 10],
          [1, 5],
        ]),
        s([
          [1, 1],
          [3, null],
        ]),
        s([[3, 7]]),
      ]),
    ).toEqual([
      [1, 6],
      [2, 10],
      [3, 7],
    ])
  })
})

describe('brackets', () => {
  it('reads a tracker controller with its sensors', () => {
    const f = toFlexLive({
      stationId: '1',
      stationName: 'S',
      flexId: '9',
      name: 'Row 1',
      sn: 'FX1',
      online: true,
      updateTime: '2026-03-01 12:00:00',
      angle: 12.5,
      targetAngle: 13,
      mode: 0,
      modeName: '自动',
      stow: false,
      windSpeed: 3.2,
      motorCurrent: 0.4,
      faultWord: 0,
      sensors: [
        { id: '5', name: 'tilt', kind: 'angle', metric: 'tracker_angle', value: 12.5, unit: 'deg' },
      ],
    })
    expect(f).toMatchObject({
      id: '9',
      status: 'producing',
      angle: 12.5,
      stow: false,
      modeName: '自动',
    })
    expect(f.sensors).toEqual([
      { id: '5', name: 'tilt', kind: 'angle', metric: 'tracker_angle', value: 12.5, unit: 'deg' },
    ])
    expect(toFlexLive({ online: true, faultWord: 4 }).status).toBe('fault')
    expect(toFlexLive({ online: false }).status).toBe('offline')
  })
})

describe('shifted site clocks', () => {
  it('reads the fields a station row may carry', () => {
    expect(clockShiftOf({ clockOffsetMs: 43_200_000 })).toEqual({
      offsetMs: 43_200_000,
      note: undefined,
    })
    expect(clockShiftOf({ clockOffsetHours: -2 })).toEqual({
      offsetMs: -7_200_000,
      note: undefined,
    })
    expect(clockShiftOf({ clockShifted: true, clockNote: 'demo' })).toEqual({
      offsetMs: 0,
      note: 'demo',
    })
    expect(clockShiftOf({ clockOffsetMs: 0 })).toBeNull()
    expect(clockShiftOf({})).toBeNull()
  })

  it('reads a remark in either language', () => {
    expect(clockShiftFromRemark('时钟偏移 +12h (演示)')?.offsetMs).toBe(12 * 3_600_000)
    // The demo stations' remark as cloud/src/demo writes it.
    expect(
      clockShiftFromRemark(
        '时钟偏移 -3 h：模拟现场时间 = 实际时间 -3 h（每次启动重新选择）。Clock offset -3 h: …',
      )?.offsetMs,
    ).toBe(-3 * 3_600_000)
    expect(clockShiftFromRemark('clock offset: -90 min')?.offsetMs).toBe(-90 * 60_000)
    expect(clockShiftFromRemark('Demo site, clock shift 6 hours')?.offsetMs).toBe(6 * 3_600_000)
    expect(clockShiftFromRemark('站点时钟偏移30分钟')?.offsetMs).toBe(30 * 60_000)
    expect(clockShiftFromRemark('runs on a shifted clock')).toEqual({
      offsetMs: 0,
      note: 'runs on a shifted clock',
    })
    expect(clockShiftFromRemark('屋顶电站，南向')).toBeNull()
    expect(clockShiftFromRemark(null)).toBeNull()
  })

  it('fills remark shifts in without overriding what live data says', () => {
    const stations = [
      { id: '1', clockShift: null },
      { id: '2', clockShift: { offsetMs: 5 } },
      { id: '3', clockShift: null },
    ]
    const out = withClockShifts(
      stations,
      new Map([
        ['1', { offsetMs: 9 }],
        ['2', { offsetMs: 7 }],
      ]),
    )
    expect(out.map((s) => s.clockShift?.offsetMs ?? null)).toEqual([9, 5, null])
  })
})

describe('wire helpers and metric names', () => {
  it('parses times as epoch ms, seconds or local date-times', () => {
    expect(time(1_700_000_000_000)).toBe(1_700_000_000_000)
    expect(time(1_700_000_000)).toBe(1_700_000_000_000)
    expect(time('2026-03-01 08:30:00')).toBe(new Date(2026, 2, 1, 8, 30).getTime())
    expect(time('')).toBeNull()
    expect(time('nope')).toBeNull()
  })

  it('knows indexed and phased metrics and their units', () => {
    expect(parseMetric('pv12_current')).toEqual({ base: 'pv{n}_current', n: 12 })
    expect(parseMetric('grid_voltage_ab')).toEqual({ base: 'grid_voltage_{pp}', phase: 'ab' })
    expect(parseMetric('ac_power')).toEqual({ base: 'ac_power' })
    expect(metricUnit('mppt2_power')).toBe('W')
    expect(metricUnit('irradiance_poa')).toBe('W/m2')
    expect(metricUnit('made_up')).toBe('')
  })
})
