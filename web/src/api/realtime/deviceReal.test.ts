import { describe, expect, it } from 'vitest'
import { deviceCurveOption, readingText, unitsOf } from '../../components/realtime/deviceLive'
import { formatMoney } from '../../utils/money'
import {
  defaultCurveNames,
  toDeviceCurves,
  toDeviceReal,
  toReading,
  type DeviceCurveSeries,
} from './deviceReal'
import { currencyOf, fleetRevenue, toFleetSummary, toMapStation } from './home'

describe('revenue on the wire', () => {
  it('reads the fleet revenue and its currency from the home totals', () => {
    const s = toFleetSummary({ todayRevenue: 1234.56, monthRevenue: '20345.1', currency: 'cny' })
    expect(s).toMatchObject({ todayRevenue: 1234.56, monthRevenue: 20345.1, currency: 'CNY' })
    expect(fleetRevenue(s)).toEqual({ today: 1234.56, month: 20345.1, currency: 'CNY' })
  })

  it('keeps missing amounts missing (never 0) and defaults the currency to CNY', () => {
    const s = toFleetSummary({})
    expect(s.todayRevenue).toBeNull()
    expect(s.monthRevenue).toBeNull()
    expect(s.currency).toBe('CNY')
    expect(fleetRevenue(undefined)).toEqual({ today: null, month: null, currency: 'CNY' })
    expect(currencyOf({ currency: 'not a code' })).toBe('CNY')
    expect(currencyOf({ currency: 'EUR' })).toBe('EUR')
  })

  it("reads each map station's revenue of today and this month", () => {
    const s = toMapStation({ id: '7', todayRevenue: 12.5, monthRevenue: 300 })
    expect(s).toMatchObject({ todayRevenue: 12.5, monthRevenue: 300 })
    expect(toMapStation({ id: '8' })).toMatchObject({ todayRevenue: null, monthRevenue: null })
  })
})

describe('money', () => {
  it('writes CNY with ¥ and two decimals in Chinese', () => {
    expect(formatMoney(1234.5, 'CNY', 'zh')).toBe('¥1,234.50')
    expect(formatMoney(0, 'CNY', 'zh')).toBe('¥0.00')
  })

  it('uses the currency in English too, and its own symbol for other codes', () => {
    expect(formatMoney(1234.5, 'CNY', 'en')).toMatch(/^CN¥1,234\.50$/)
    expect(formatMoney(99.999, 'USD', 'en')).toBe('$100.00')
    expect(formatMoney(10, 'EUR', 'en')).toBe('€10.00')
  })

  it('shows a missing amount as "--" and an unknown code before the number', () => {
    expect(formatMoney(null)).toBe('--')
    expect(formatMoney(undefined, 'CNY', 'en')).toBe('--')
    expect(formatMoney(Number.NaN)).toBe('--')
    expect(formatMoney(-0.001, 'CNY', 'zh')).toBe('¥0.00')
    expect(formatMoney(5, 'XX1', 'zh')).toBe('XX1 5.00')
  })
})

const weather = {
  id: '31',
  name: '1#气象站',
  sn: 'WS-1',
  kind: 'weather',
  online: true,
  updateTime: '2026-03-01 12:00:00',
  values: [
    { name: 'irradiance_poa', label: '斜面辐照度', unit: 'W/m²', value: 812.5, plausible: true },
    { name: 'ambient_temperature', label: '环境温度', unit: '°C', value: 95, plausible: false },
    { name: 'module_temperature', label: '组件温度', unit: '°C', value: null },
  ],
}

describe('weather stations and meters live', () => {
  it('reads a device with its readings, labels and units as sent', () => {
    const d = toDeviceReal(weather)
    expect(d).toMatchObject({
      id: '31',
      name: '1#气象站',
      kind: 'weather',
      meterRole: null,
      online: true,
    })
    expect(d.updatedAt).toBe(new Date(2026, 2, 1, 12, 0, 0).getTime())
    expect(d.values[0]).toEqual({
      name: 'irradiance_poa',
      label: '斜面辐照度',
      unit: 'W/m²',
      value: 812.5,
      plausible: true,
    })
  })

  it('keeps an implausible value marked and a missing one null', () => {
    const [, hot, none] = toDeviceReal(weather).values
    expect(hot).toMatchObject({ value: 95, plausible: false })
    expect(none).toMatchObject({ value: null, plausible: true })
    expect(toReading({ name: 'x', value: 'abc', plausible: 'false' })).toMatchObject({
      value: null,
      plausible: false,
      label: 'x',
    })
  })

  it('reads a meter with its role; a device that never reported has no time and no values', () => {
    const m = toDeviceReal({ id: 9, name: '关口表', kind: 'meter', meterRole: '1', online: false })
    expect(m).toMatchObject({ id: '9', kind: 'meter', meterRole: '1', online: false })
    expect(m.updatedAt).toBeNull()
    expect(m.values).toEqual([])
  })

  it('shows readings with their unit, a power factor with three decimals, "--" when absent', () => {
    expect(readingText({ name: 'irradiance_poa', value: 812.5, unit: 'W/m²' })).toBe('812.5 W/m²')
    expect(readingText({ name: 'power_factor', value: 0.98765, unit: '' })).toBe('0.988')
    expect(readingText({ name: 'energy_import', value: 123456.78, unit: 'kWh' })).toBe(
      '123,457 kWh',
    )
    expect(readingText({ name: 'ambient_temperature', value: null, unit: '°C' })).toBe('--')
  })

  it('reads day curves: times to epoch ms, sorted, null gaps kept, implausible buckets counted', () => {
    const c = toDeviceCurves({
      deviceId: '31',
      date: '2026-03-01',
      series: [
        {
          name: 'irradiance_poa',
          label: '斜面辐照度',
          unit: 'W/m²',
          points: [
            ['2026-03-01 10:05:00', 500],
            ['2026-03-01 10:00:00', 480.5],
            ['2026-03-01 10:10:00', null],
            ['garbage'],
          ],
          implausiblePoints: 2,
        },
      ],
    })
    expect(c.deviceId).toBe('31')
    const [s] = c.series
    expect(s.points).toEqual([
      [new Date(2026, 2, 1, 10, 0).getTime(), 480.5],
      [new Date(2026, 2, 1, 10, 5).getTime(), 500],
      [new Date(2026, 2, 1, 10, 10).getTime(), null],
    ])
    expect(s.implausiblePoints).toBe(2)
    expect(toDeviceCurves({}).series).toEqual([])
  })

  it('charts irradiance and temperatures for weather, power and energy for a grid meter', () => {
    expect(defaultCurveNames({ kind: 'weather', meterRole: null })).toEqual([
      'irradiance_poa',
      'irradiance_ghi',
      'ambient_temperature',
      'module_temperature',
    ])
    expect(defaultCurveNames({ kind: 'meter', meterRole: '1' })).toEqual([
      'ac_power',
      'energy_import',
      'energy_export',
    ])
    expect(defaultCurveNames({ kind: 'meter', meterRole: '2' })).toEqual([])
  })

  it('gives each unit its own y axis and each series the axis of its unit', () => {
    const series: DeviceCurveSeries[] = [
      { name: 'irradiance_poa', label: 'POA', unit: 'W/m²', points: [], implausiblePoints: 0 },
      { name: 'ambient_temperature', label: 'Amb', unit: '°C', points: [], implausiblePoints: 0 },
      { name: 'irradiance_ghi', label: 'GHI', unit: 'W/m²', points: [], implausiblePoints: 0 },
    ]
    expect(unitsOf(series)).toEqual(['W/m²', '°C'])
    const option = deviceCurveOption(series, { date: '2026-03-01' }) as {
      yAxis: { name: string; position: string }[]
      series: { name: string; yAxisIndex: number }[]
      xAxis: { min: number; max: number }
    }
    expect(option.yAxis.map((a) => [a.name, a.position])).toEqual([
      ['W/m²', 'left'],
      ['°C', 'right'],
    ])
    expect(option.series.map((s) => [s.name, s.yAxisIndex])).toEqual([
      ['POA', 0],
      ['Amb', 1],
      ['GHI', 0],
    ])
    expect(option.xAxis.min).toBe(new Date(2026, 2, 1).getTime())
  })
})
