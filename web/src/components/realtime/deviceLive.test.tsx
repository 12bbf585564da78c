import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react'
import dayjs from 'dayjs'
import { MemoryRouter } from 'react-router-dom'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import i18n from '../../locales/i18n'
import { useSessionStore } from '../../stores/session'
import { mockHttp, ok, page, unmockHttp, type Call } from '../../test/http'
import { renderInApp } from '../../test/render'
import { WeatherList } from '../../pages/device/weather'
import { MeterList } from '../../pages/device/meter'
import StationOverviewPage from '../../pages/realtime/station'
import { Readings } from './DeviceLiveCard'
import { KpiRow } from './Kpis'
import { StationDevicesLive } from './StationDevicesLive'

// echarts needs a canvas jsdom does not have; the option is checked in deviceReal.test.ts.
vi.mock('./Chart', () => ({
  default: (props: { 'data-testid'?: string }) => <div data-testid={props['data-testid']} />,
}))

let calls: Call[] = []
let answer: (path: string, call: Call) => unknown = () => undefined

beforeEach(async () => {
  await i18n.changeLanguage('zh')
  calls = mockHttp((path, call) => answer(path, call))
})

afterEach(() => {
  cleanup()
  unmockHttp()
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
    { name: 'module_temperature', label: '组件温度', unit: '°C', value: null, plausible: true },
  ],
}
const meter = {
  id: '41',
  name: '关口表',
  sn: 'M-1',
  kind: 'meter',
  meterRole: '1',
  online: false,
  values: [],
}
const curve = (deviceId: string, implausible = 0) =>
  ok({
    deviceId,
    date: dayjs().format('YYYY-MM-DD'),
    series: [
      {
        name: 'irradiance_poa',
        label: '斜面辐照度',
        unit: 'W/m²',
        points: [[`${dayjs().format('YYYY-MM-DD')} 10:00:00`, 500]],
        implausiblePoints: implausible,
      },
    ],
  })

describe('revenue KPI', () => {
  it('shows the bill of today in the currency, this month under it, and says what it is', async () => {
    renderInApp(
      <KpiRow
        figures={{
          powerW: null,
          todayWh: null,
          totalWh: null,
          capacityWp: null,
          co2Kg: null,
          revenue: { today: 1234.56, month: 20345.1, currency: 'CNY' },
        }}
      />,
    )
    const today = screen.getByTestId('kpi-today-revenue')
    expect(today.getAttribute('data-value')).toBe('1234.56')
    expect(within(today).getByText('¥1,234.56')).toBeTruthy()
    expect(screen.getByTestId('kpi-month-revenue').textContent).toBe('本月 ¥20,345.10')
    fireEvent.mouseEnter(today)
    expect(await screen.findByText(/电费账单金额/)).toBeTruthy()
  })

  it('shows "--" before the figures are known, and no card when the screen gives none', () => {
    const figures = { powerW: null, todayWh: null, totalWh: null, capacityWp: null, co2Kg: null }
    const { unmount } = renderInApp(
      <KpiRow figures={{ ...figures, revenue: { today: null, month: null, currency: 'CNY' } }} />,
    )
    expect(within(screen.getByTestId('kpi-today-revenue')).getByText('--')).toBeTruthy()
    expect(screen.getByTestId('kpi-month-revenue').textContent).toBe('本月 --')
    unmount()
    renderInApp(<KpiRow figures={figures} />)
    expect(screen.queryByTestId('kpi-today-revenue')).toBeNull()
  })

  it('writes the amounts in English with the currency', async () => {
    await i18n.changeLanguage('en')
    renderInApp(
      <KpiRow
        figures={{
          powerW: null,
          todayWh: null,
          totalWh: null,
          capacityWp: null,
          co2Kg: null,
          revenue: { today: 10, month: 2000, currency: 'USD' },
        }}
      />,
    )
    expect(screen.getByText('$10.00')).toBeTruthy()
    expect(screen.getByTestId('kpi-month-revenue').textContent).toBe('This month $2,000.00')
  })
})

describe('readings', () => {
  it('marks an implausible value with a warning and a tooltip, never as a good reading', async () => {
    renderInApp(
      <Readings
        values={weather.values.map((v) => ({ ...v, value: v.value, plausible: v.plausible }))}
      />,
    )
    const good = screen.getByTestId('reading-irradiance_poa')
    expect(good.getAttribute('data-plausible')).toBe('true')
    expect(good.textContent).toContain('812.5 W/m²')
    expect(within(good).queryByRole('img', { name: /warning/ })).toBeNull()

    const bad = screen.getByTestId('reading-ambient_temperature')
    expect(bad.getAttribute('data-plausible')).toBe('false')
    const mark = screen.getByTestId('reading-ambient_temperature-implausible')
    expect(mark.textContent).toContain('95 °C')
    expect(within(mark).getByRole('img', { name: /warning/ })).toBeTruthy()
    fireEvent.mouseEnter(mark)
    expect(await screen.findByText('数值超出物理合理范围，请检查传感器')).toBeTruthy()
  })

  it('shows a missing value as "--" and a device without values as such', () => {
    const { unmount } = renderInApp(<Readings values={[{ ...weather.values[2], value: null }]} />)
    expect(screen.getByTestId('reading-module_temperature').textContent).toContain('--')
    unmount()
    renderInApp(<Readings values={[]} />)
    expect(screen.getByTestId('readings-empty').textContent).toContain('暂无上报数据')
  })
})

describe('weather stations and meters on the station overview', () => {
  it("shows each device's readings and its day curve of the default metrics for today", async () => {
    answer = (path, call) => {
      if (path === '/deviceReal/list') return ok([weather, meter])
      if (path === '/deviceReal/curve') return curve(call.params.get('deviceId') ?? '', 3)
      return ok(null)
    }
    renderInApp(<StationDevicesLive stationId="7" />)
    const card = await screen.findByTestId('device-live-31')
    expect(within(card).getByText('1#气象站')).toBeTruthy()
    expect(within(card).getByText('在线')).toBeTruthy()
    // The grid meter's name and its role happen to read the same here.
    expect(within(screen.getByTestId('device-live-41')).getAllByText('关口表')).toHaveLength(2)
    expect(within(screen.getByTestId('device-live-41')).getByText('离线')).toBeTruthy()
    expect(within(screen.getByTestId('device-live-41')).getByText('从未上报')).toBeTruthy()
    await screen.findByTestId('device-curve-31')

    const list = calls.find((c) => c.path === '/deviceReal/list')!
    expect(list.params.get('stationId')).toBe('7')
    expect(list.params.get('kind')).toBeNull()
    const curves = calls.filter((c) => c.path === '/deviceReal/curve')
    const w = curves.find((c) => c.params.get('deviceId') === '31')!
    expect(w.params.get('names')).toBe(
      'irradiance_poa,irradiance_ghi,ambient_temperature,module_temperature',
    )
    // No date: the hub answers today in the station's clock (the one clock rule), not the browser's.
    expect(w.params.get('date')).toBeNull()
    const m = curves.find((c) => c.params.get('deviceId') === '41')!
    expect(m.params.get('names')).toBe('ac_power,energy_import,energy_export')
    // Implausible 5-minute buckets are named above the chart.
    expect(
      (await screen.findAllByTestId('device-curve-implausible-irradiance_poa'))[0].textContent,
    ).toContain('3 个5分钟数据超出合理范围')
  })

  it('shows nothing for a station without weather stations or meters', async () => {
    answer = (path) => (path === '/deviceReal/list' ? ok([]) : ok(null))
    const { container } = renderInApp(<StationDevicesLive stationId="7" />)
    await waitFor(() => expect(calls.some((c) => c.path === '/deviceReal/list')).toBe(true))
    await waitFor(() => expect(screen.queryByTestId('station-devices-live')).toBeNull())
    expect(container.querySelector('.ant-skeleton')).toBeNull()
  })
})

describe('live values from the device pages', () => {
  beforeEach(() => {
    act(() => useSessionStore.getState().setPermission({ weather_view: true, meter_view: true }))
  })

  it("opens a weather station's readings and curve in a drawer from its row", async () => {
    answer = (path, call) => {
      if (path === '/weather/page')
        return page([{ id: '31', name: '1#气象站', sn: 'WS-1', stationId: '7' }])
      if (path === '/deviceReal/list') return ok([weather])
      if (path === '/deviceReal/curve') return curve(call.params.get('deviceId') ?? '')
      return ok([])
    }
    renderInApp(<WeatherList />)
    await screen.findByText('1#气象站')
    fireEvent.click(screen.getByTestId('crud-row-live'))
    const drawer = await screen.findByTestId('device-live-drawer')
    await within(drawer).findByTestId('device-live-31')
    expect(within(drawer).getByTestId('reading-irradiance_poa').textContent).toContain('812.5')
    const list = calls.find((c) => c.path === '/deviceReal/list')!
    expect(list.params.get('stationId')).toBe('7')
    expect(list.params.get('kind')).toBe('weather')
    await within(drawer).findByTestId('device-curve-31')
  })

  it('offers live values on meter rows too, and says so when the device has none', async () => {
    answer = (path) => {
      if (path === '/meter/page')
        return page([{ id: '41', name: '关口表', sn: 'M-1', stationId: '7', meterRole: '1' }])
      if (path === '/deviceReal/list') return ok([])
      return ok([])
    }
    renderInApp(<MeterList />)
    await screen.findByText('关口表')
    fireEvent.click(screen.getByTestId('crud-row-live'))
    const drawer = await screen.findByTestId('device-live-drawer')
    expect(await within(drawer).findByText('未找到该设备的实时数据')).toBeTruthy()
    expect(calls.find((c) => c.path === '/deviceReal/list')!.params.get('kind')).toBe('meter')
  })
})

describe('the station overview', () => {
  it("shows its station's revenue from its map entry, in the fleet's currency, and its weather station", async () => {
    answer = (path) => {
      if (path === '/station/7') return ok({ id: '7', name: '武汉一号', address: '武汉' })
      if (path === '/homePage/map')
        return ok([
          { id: '7', name: '武汉一号', todayRevenue: 88.8, monthRevenue: 1999.5 },
          { id: '8', name: '其他', todayRevenue: 1, monthRevenue: 2 },
        ])
      if (path === '/homePage/data') return ok({ todayRevenue: 89.8, currency: 'CNY' })
      if (path === '/inverterReal/list') return page([])
      if (path === '/deviceReal/list') return ok([weather])
      if (path === '/deviceReal/curve') return curve('31')
      return ok([])
    }
    renderInApp(
      <MemoryRouter initialEntries={['/station/overview?id=7']}>
        <StationOverviewPage />
      </MemoryRouter>,
    )
    await waitFor(() =>
      expect(screen.getByTestId('kpi-today-revenue').getAttribute('data-value')).toBe('88.8'),
    )
    expect(within(screen.getByTestId('kpi-today-revenue')).getByText('¥88.80')).toBeTruthy()
    expect(screen.getByTestId('kpi-month-revenue').textContent).toBe('本月 ¥1,999.50')
    const card = await screen.findByTestId('device-live-31')
    expect(within(card).getByTestId('reading-irradiance_poa').getAttribute('data-value')).toBe(
      '812.5',
    )
  })
})
