import i18n from 'i18next'
import { describe, expect, it } from 'vitest'
import '../../locales/i18n'
import { offsetText } from './clock'
import { rankingOption, topStations } from './fleetCharts'
import { metricLabel } from './metricLabel'
import { mapPoints, stationMapOption, symbolSize } from './stationMap'
import type { MapStation } from '../../api/realtime/types'

const station = (id: string, over: Partial<MapStation> = {}): MapStation => ({
  id,
  name: `S${id}`,
  status: 'producing',
  latitude: 30,
  longitude: 114,
  provinceCode: '420000',
  capacityWp: 100_000,
  powerW: 1000,
  todayWh: 5000,
  totalWh: null,
  todayRevenue: null,
  monthRevenue: null,
  clockShift: null,
  updatedAt: null,
  ...over,
})

describe('station map', () => {
  it('places stations with coordinates in their status colour', () => {
    const points = mapPoints([
      station('1'),
      station('2', { status: 'fault', capacityWp: null }),
      station('3', { latitude: null }),
    ])
    expect(points).toEqual([
      {
        id: '1',
        name: 'S1',
        status: 'producing',
        value: [114, 30, 100_000],
        itemStyle: { color: '#52c41a' },
      },
      {
        id: '2',
        name: 'S2',
        status: 'fault',
        value: [114, 30, 0],
        itemStyle: { color: '#f5222d' },
      },
    ])
  })

  it('splits producing stations (rippling) from the others', () => {
    const option = stationMapOption([station('1'), station('2', { status: 'offline' })], {
      status: (s) => s,
      power: 'P',
      today: 'E',
    }) as { series: { type: string; data: unknown[] }[] }
    expect(option.series.map((s) => [s.type, s.data.length])).toEqual([
      ['scatter', 1],
      ['effectScatter', 1],
    ])
  })

  it("names each station's revenue today and this month in its tooltip", () => {
    const s = station('1', { name: 'A<b>', todayRevenue: 12.5, monthRevenue: 340 })
    const option = stationMapOption([s], {
      status: (x) => x,
      power: 'P',
      today: 'E',
      revenue: { today: 'R', month: 'M', format: (v) => (v === null ? '--' : `¥${v.toFixed(2)}`) },
    }) as { tooltip: { formatter: (p: { data?: { id: string } }) => string } }
    const text = option.tooltip.formatter({ data: { id: '1' } })
    expect(text).toContain('A&#60;b&#62;')
    expect(text).toContain('R: ¥12.50')
    expect(text).toContain('M: ¥340.00')
    const none = stationMapOption([station('2')], {
      status: (x) => x,
      power: 'P',
      today: 'E',
      revenue: { today: 'R', month: 'M', format: (v) => (v === null ? '--' : String(v)) },
    }) as { tooltip: { formatter: (p: { data?: { id: string } }) => string } }
    expect(none.tooltip.formatter({ data: { id: '2' } })).toContain('R: --')
  })

  it('sizes dots by capacity within bounds', () => {
    expect(symbolSize(0)).toBe(8)
    expect(symbolSize(10_000)).toBe(8)
    expect(symbolSize(1_000_000)).toBe(14)
    expect(symbolSize(1e12)).toBe(22)
  })
})

describe('fleet charts', () => {
  it('ranks stations by energy today and scales the axis', () => {
    const stations = [
      station('1', { todayWh: 2_000_000 }),
      station('2', { todayWh: null }),
      station('3', { todayWh: 3_500_000, status: 'fault' }),
    ]
    expect(topStations(stations).map((s) => s.id)).toEqual(['3', '1'])
    const option = rankingOption(stations) as {
      xAxis: { name: string }
      yAxis: { data: string[] }
      series: { data: { value: number; itemStyle: { color: string } }[] }[]
    }
    expect(option.xAxis.name).toBe('MWh')
    expect(option.yAxis.data).toEqual(['S1', 'S3']) // largest on top (last)
    expect(option.series[0].data.map((d) => d.value)).toEqual([2, 3.5])
    expect(option.series[0].data[1].itemStyle.color).toBe('#f5222d')
  })
})

describe('labels', () => {
  it('names metrics in zh and en', async () => {
    const zh = i18n.getFixedT('zh')
    const en = i18n.getFixedT('en')
    expect(metricLabel(zh, 'ac_power')).toBe('有功功率')
    expect(metricLabel(en, 'pv3_current')).toBe('PV3 current')
    expect(metricLabel(zh, 'mppt2_voltage')).toBe('MPPT2 电压')
    expect(metricLabel(en, 'grid_voltage_b')).toBe('Grid voltage (B)')
    expect(metricLabel(en, 'vendor_thing')).toBe('vendor_thing')
    await Promise.resolve()
  })

  it('writes clock offsets in both languages', () => {
    expect(offsetText(12 * 3_600_000, 'zh')).toBe('12小时')
    expect(offsetText(-(90 * 60_000), 'en')).toBe('1 h 30 min')
    expect(offsetText(0, 'en')).toBe('0 min')
  })
})
