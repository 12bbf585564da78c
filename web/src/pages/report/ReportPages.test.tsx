import { act, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { MemoryRouter } from 'react-router-dom'
import type { ReactNode } from 'react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import i18n from '../../locales/i18n'
import { useSessionStore } from '../../stores/session'
import { mockHttp, ok, unmockHttp, type Call } from '../../test/http'
import { renderInApp } from '../../test/render'
import ElectricityBillPage from './electricityBill'
import EnergyConservationPage from './energyConservation'
import InverterElectricityPage from './inverterElectricity'
import IrradiancePage from './irradiance'
import MeterReportPage from './meterReport'
import StationElectricityPage from './stationElectricity'

vi.mock('../../components/realtime/Chart', () => ({
  default: (props: { 'data-testid'?: string; option: unknown }) => (
    <div data-testid={props['data-testid']} data-option={JSON.stringify(props.option)} />
  ),
}))

const point = (label: string, energyKwh: number | null) => ({
  label,
  energyKwh,
  equivalentHours: energyKwh === null ? null : energyKwh / 100,
  irradiationKwhM2: null,
  exportKwh: energyKwh === null ? null : 1.5,
  importKwh: null,
})

const performance = (pr: number | null) => ({
  energyKwh: 0,
  prEnergyKwh: 0,
  irradiationKwhM2: 0,
  finalYield: null,
  referenceYield: null,
  pr,
  prTemperatureCorrected: pr === null ? null : pr + 0.03,
  expectedEnergyKwh: null,
  availability: null,
  countedIntervals: 3,
  implausibleIntervals: 1,
  missingIntervals: 20,
})

const setting = {
  currency: 'CNY',
  emcDiscountPct: 0,
  temperatureCoefficientPct: -0.4,
  designPr: 0.8,
  availabilityThreshold: 50,
}

const factors = {
  coalKgPerKwh: 0.4,
  co2KgPerKwh: 0.997,
  so2KgPerKwh: 0.03,
  noxKgPerKwh: 0.015,
  dustKgPerKwh: 0.272,
  co2KgPerTree: 18.3,
}

const segment = (kind: string, generationKwh: number, exportedAmount: number) => ({
  kind,
  generationKwh,
  selfConsumedKwh: 0,
  exportedKwh: generationKwh,
  selfConsumedAmount: 0,
  exportedAmount,
  minPrice: 0.35,
  maxPrice: 0.35,
})

const bill = (label: string, segments: ReturnType<typeof segment>[]) => ({
  label,
  generationKwh: segments.reduce((a, s) => a + s.generationKwh, 0),
  selfConsumedKwh: 0,
  exportedKwh: segments.reduce((a, s) => a + s.generationKwh, 0),
  importedKwh: 0,
  selfConsumedAmount: 0,
  exportedAmount: segments.reduce((a, s) => a + s.exportedAmount, 0),
  amount: segments.reduce((a, s) => a + s.exportedAmount, 0),
  segments,
})

const answers: Record<string, unknown> = {
  '/station/listStationNameAndId': [{ id: '5', name: 'S5' }],
  '/report/station/electricity': {
    stationId: '5',
    stationName: 'S5',
    capacityKwp: 100,
    title: '2026-11-26',
    timeType: 'day',
    points: [point('00:00', null), point('12:00', 42.5)],
    total: point('total', 42.5),
  },
  '/report/station/electricity/rate': {
    stationId: '5',
    stationName: 'S5',
    capacityKwp: 100,
    title: '2026-11-26',
    timeType: 'day',
    prKind: 'IEC 61724-1',
    planeOfArray: true,
    interval: '5m',
    setting: { temperatureCoefficientPct: -0.4, designPr: 0.8, availabilityThreshold: 50 },
    points: [
      { label: '00:00', ...performance(null) },
      { label: '12:00', ...performance(0.8123) },
    ],
    total: performance(0.8123),
  },
  '/inverter/page': { records: [{ id: '7', name: 'INV-7' }], total: 1 },
  '/report/inverter/multiple/electricity': [
    {
      inverterId: '7',
      inverterName: 'INV-7',
      stationId: '5',
      stationName: 'S5',
      capacityKwp: 50,
      title: '2026-11-26',
      timeType: 'day',
      points: [{ label: '12:00', energyKwh: 20, equivalentHours: 0.4, sharePct: 47.06 }],
      total: { label: 'total', energyKwh: 20, equivalentHours: 0.4, sharePct: 47.06 },
    },
  ],
  '/report/irradiance/list': {
    stationId: '5',
    stationName: 'S5',
    weatherId: null,
    title: '2026-11-26',
    timeType: 'day',
    points: [
      {
        label: '12:00',
        poaKwhM2: null,
        ghiKwhM2: null,
        peakIrradiance: null,
        ambientTemperature: null,
      },
    ],
    total: {
      label: 'total',
      poaKwhM2: null,
      ghiKwhM2: null,
      peakIrradiance: null,
      ambientTemperature: null,
    },
  },
  '/meterReport/reportDaily': {
    stationId: '5',
    stationName: 'S5',
    title: '2026-11-26',
    timeType: 'day',
    meters: [
      {
        meterId: '9',
        meterName: 'GRID',
        sn: 'M9',
        meterRole: '1',
        points: [
          {
            label: '03:00',
            missingHours: 0,
            energyImport: {
              energy: null,
              startReading: 900,
              endReading: 2,
              resets: ['2026-11-26 03:00'],
            },
            energyExport: { energy: 1.25, startReading: 10, endReading: 11.25, resets: [] },
          },
        ],
        total: {
          label: 'total',
          missingHours: 23,
          energyImport: {
            energy: null,
            startReading: 900,
            endReading: 2,
            resets: ['2026-11-26 03:00'],
          },
          energyExport: { energy: 1.25, startReading: 10, endReading: 11.25, resets: [] },
        },
      },
    ],
  },
  '/stationMeterReport/electricityBillSettlement': {
    stationId: '5',
    stationName: 'S5',
    title: '2026-11',
    timeType: 'month',
    currency: 'CNY',
    connectedType: null,
    gridConnection: 'fullFeedIn',
    contributionWay: null,
    discountFactor: 1,
    points: [bill('2026-11-01', [segment('2', 10, 3.5), segment('4', 4, 1.4)])],
    total: bill('total', [segment('2', 10, 3.5), segment('4', 4, 1.4)]),
    unpricedDays: ['2026-11-02', '2026-11-03'],
    noFeedInDays: [],
    unpricedKwh: 7.5,
    exportCappedIntervals: 0,
    interval: '1h',
  },
  '/stationMeterReport/rate': {
    stationId: '5',
    stationName: 'S5',
    title: '2026-11',
    timeType: 'month',
    metered: false,
    points: [],
    total: {
      label: 'total',
      generationKwh: 14,
      selfConsumedKwh: 0,
      exportedKwh: 14,
      importedKwh: null,
      selfConsumptionRatio: 0,
      feedInRatio: 1,
      selfSufficiencyRatio: null,
    },
  },
  '/blade-system/dict/dictionary': [
    { id: '1', parentId: '0', code: 'price_segment_type', dictKey: '2', dictValue: '峰时段' },
    { id: '2', parentId: '0', code: 'price_segment_type', dictKey: '4', dictValue: '谷时段' },
  ],
  '/report/setting': setting,
  '/stationMeterReport/energyConservation': {
    title: '2026',
    timeType: 'year',
    stationIds: ['5'],
    points: [
      { label: '2026-01', energyKwh: 0, coalT: 0, co2T: 0, so2T: 0, noxT: 0, dustT: 0, trees: 0 },
    ],
    total: {
      energyKwh: 10000,
      coalT: 4,
      co2T: 9.97,
      so2T: 0.3,
      noxT: 0.15,
      dustT: 2.72,
      trees: 544.8,
    },
    factors,
  },
}

let calls: Call[] = []

beforeEach(async () => {
  await i18n.changeLanguage('zh')
  useSessionStore.setState({ permission: {} })
  calls = mockHttp((path, call) => {
    if (call.method === 'put' && path === '/report/setting')
      return { code: 400, success: false, data: null, msg: '币种须为三位大写字母代码（如CNY）' }
    if (path.endsWith('/export')) return ok(null)
    return path in answers ? ok(answers[path]) : undefined
  })
})

afterEach(() => {
  unmockHttp()
  useSessionStore.setState({ permission: {} })
})

const open = (node: ReactNode, search = '?stationId=5') =>
  renderInApp(<MemoryRouter initialEntries={[`/report/x${search}`]}>{node}</MemoryRouter>)

describe('station generation page', () => {
  it('asks for a station first', async () => {
    open(<StationElectricityPage />, '')
    expect(await screen.findByTestId('report-station-waiting')).toBeTruthy()
    expect(calls.some((c) => c.path.startsWith('/report/'))).toBe(false)
  })

  it('shows the figures, "—" for no data, and which PR it is', async () => {
    open(<StationElectricityPage />)
    expect((await screen.findByTestId('report-station-total-energy')).textContent).toBe('42.500')
    await waitFor(() =>
      expect(screen.getByTestId('report-station-total-pr').textContent).toBe('81.2'),
    )
    expect(screen.getByTestId('report-station-total-prt').textContent).toBe('84.2')
    expect(screen.getByTestId('report-station-expected').textContent).toBe('—')
    const kind = screen.getByTestId('report-station-pr-kind').textContent ?? ''
    expect(kind).toContain('IEC 61724-1')
    expect(kind).toContain('组件平面')
    expect(screen.getByText('温度系数 γ = -0.40 %/K')).toBeTruthy()
    const table = screen.getByTestId('report-station-table')
    const night = table.querySelector('[data-row="00:00"]')
    expect(night?.textContent).toContain('—')
    expect(night?.textContent).not.toContain('0.000')
    expect(within(table).getAllByText('发电量 (kWh)').length).toBeGreaterThan(0)
    expect(within(table).getAllByText('辐照量 (kWh/m²)').length).toBeGreaterThan(0)
    expect(screen.getByTestId('report-station-table-total-energy').textContent).toBe('42.500')
    const call = calls.find((c) => c.path === '/report/station/electricity')
    expect(call?.params.toString()).toBe('stationId=5&type=day')
  })

  it('speaks English: units in the headers and which PR it is', async () => {
    await i18n.changeLanguage('en')
    open(<StationElectricityPage />)
    await screen.findByTestId('report-station-total-energy')
    const table = screen.getByTestId('report-station-table')
    expect(within(table).getAllByText('Generation (kWh)').length).toBeGreaterThan(0)
    expect(within(table).getAllByText('Equivalent hours (h)').length).toBeGreaterThan(0)
    await waitFor(() =>
      expect(screen.getByTestId('report-station-pr-kind').textContent).toContain(
        'IEC 61724-1 performance ratio, from plane-of-array (POA) irradiation',
      ),
    )
    expect(screen.getByText('Temperature coefficient γ = -0.40 %/K')).toBeTruthy()
  })

  it('offers the export only with the permission, sending the query on screen', async () => {
    open(<StationElectricityPage />)
    await screen.findByTestId('report-station-total-energy')
    expect(screen.queryByTestId('report-station-export')).toBeNull()
    act(() => useSessionStore.setState({ permission: { stationElectricity_export: true } }))
    const button = await screen.findByTestId('report-station-export')
    URL.createObjectURL = vi.fn(() => 'blob:x')
    URL.revokeObjectURL = vi.fn()
    await act(async () => {
      fireEvent.click(button)
      await Promise.resolve()
    })
    await waitFor(() =>
      expect(calls.some((c) => c.path === '/report/station/electricity/export')).toBe(true),
    )
    const exported = calls.find((c) => c.path === '/report/station/electricity/export')
    // The station's today, as the hub named it, is pinned.
    expect(exported?.params.toString()).toBe('stationId=5&type=day&date=2026-11-26')
  })
})

describe('inverter generation page', () => {
  it('compares the station inverters with their share', async () => {
    open(<InverterElectricityPage />)
    const row = await screen.findByText('INV-7', { selector: 'td' })
    expect(row.closest('tr')?.textContent).toContain('47.06')
    expect(screen.getByTestId('report-inverter-summary-total-energy').textContent).toBe('20.000')
    expect(screen.getByTestId('report-inverter-chart')).toBeTruthy()
    expect(calls.find((c) => c.path === '/inverter/page')?.params.get('stationId')).toBe('5')
  })
})

describe('irradiance page', () => {
  it('says there is no weather station and shows no data as "—"', async () => {
    open(<IrradiancePage />)
    expect(await screen.findByTestId('report-irradiance-no-weather')).toBeTruthy()
    expect(screen.getByTestId('report-irradiance-total-poa').textContent).toBe('—')
    expect(screen.getByTestId('report-irradiance-table-total-peak').textContent).toBe('—')
    expect(screen.getAllByText('峰值辐照度 (W/m²)').length).toBeGreaterThan(0)
  })
})

describe('meter page', () => {
  it('lists the counter resets and marks them on the chart', async () => {
    open(<MeterReportPage />)
    const alert = await screen.findByTestId('report-meter-resets')
    expect(alert.textContent).toContain('2026-11-26 03:00')
    const option = JSON.parse(
      screen.getByTestId('report-meter-chart').getAttribute('data-option') ?? '{}',
    ) as { series: { markLine?: { data: { xAxis: string }[] } }[] }
    expect(option.series[0].markLine?.data[0].xAxis).toBe('03:00')
    expect(screen.getByTestId('report-meter-table-total-energyImport-energy').textContent).toBe('—')
    expect(screen.getByTestId('report-meter-table-total-energyExport-energy').textContent).toBe(
      '1.250',
    )
  })
})

describe('bill page', () => {
  it('names the unpriced days and labels segments from the dictionary', async () => {
    open(<ElectricityBillPage />)
    const warning = await screen.findByTestId('report-bill-unpriced')
    expect(warning.textContent).toContain('2026-11-02, 2026-11-03')
    expect(warning.textContent).toContain('7.500 kWh')
    expect(screen.getByTestId('report-bill-total-amount').textContent).toBe('4.90')
    await waitFor(() =>
      expect(screen.getByTestId('report-bill-self-sufficiency').textContent).toBe('—'),
    )
    expect(screen.getByTestId('report-bill-feed-in').textContent).toBe('100.0')
    await waitFor(() =>
      expect(within(screen.getByTestId('report-bill-segments')).getByText('峰时段')).toBeTruthy(),
    )
    expect(screen.getAllByText('电价 (CNY/kWh)').length).toBeGreaterThan(0)
  })

  it('shows the hub message when the settings are refused', async () => {
    open(<ElectricityBillPage />)
    fireEvent.click(await screen.findByTestId('report-bill-setting'))
    const currency = await screen.findByTestId('report-setting-currency')
    await waitFor(() => expect((currency as HTMLInputElement).value).toBe('CNY'))
    fireEvent.change(currency, { target: { value: 'EUR' } })
    await act(async () => {
      fireEvent.click(screen.getByTestId('report-setting-save'))
      await Promise.resolve()
    })
    expect((await screen.findByTestId('report-setting-error')).textContent).toContain(
      '币种须为三位大写字母代码',
    )
    expect(calls.find((c) => c.method === 'put')?.body).toMatchObject({ currency: 'EUR' })
  })
})

describe('energy conservation page', () => {
  it('shows the savings with the coefficients used, for every station by default', async () => {
    open(<EnergyConservationPage />, '')
    expect((await screen.findByTestId('report-saving-total-co2T')).textContent).toBe('9.970')
    expect(screen.getByTestId('report-saving-coef-co2KgPerKwh').textContent).toBe('0.997')
    expect(screen.getByTestId('report-saving-coef-co2KgPerTree').textContent).toBe('18.3')
    const call = calls.find((c) => c.path === '/stationMeterReport/energyConservation')
    expect(call?.params.toString()).toBe('type=year')
    expect(screen.getByTestId('report-saving-export')).toBeTruthy()
  })
})
