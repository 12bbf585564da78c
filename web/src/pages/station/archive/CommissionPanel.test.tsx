import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import i18n from '../../../locales/i18n'
import { mockHttp, ok, unmockHttp, type Call } from '../../../test/http'
import { renderInApp } from '../../../test/render'
import type { GatewayBuses, ProbeResult, ScanResult } from '../../../api/station/commission'
import CommissionPanel from './CommissionPanel'
import { defaultMap, defaultSn } from './commissionLogic'

const buses = (devices: GatewayBuses['buses'][number]['devices']): GatewayBuses => ({
  gatewayId: 'GW-1',
  buses: [{ name: 'field', transport: 'tcp', address: '10.0.0.5:502', devices }],
  maps: [
    { id: 'eastron-sdm630', kind: 'meter', manufacturer: 'Eastron', model: 'SDM630' },
    { id: 'huawei-sun2000-ktl', kind: 'inverter', manufacturer: 'Huawei', model: 'SUN2000' },
  ],
})

const scan: ScanResult = {
  bus: 'field',
  from: 1,
  to: 5,
  elapsedMs: 1500,
  units: [
    {
      unit: 3,
      manufacturer: 'Huawei',
      model: 'SUN2000-50KTL',
      serial: 'HW-123',
      identifiedVia: 'map:huawei-sun2000-ktl',
      suggestedMaps: ['huawei-sun2000-ktl'],
      detail: 'answers',
    },
    { unit: 4, suggestedMaps: [], detail: 'answers, not identified' },
  ],
  silent: 2,
  gatewayAbsent: 1,
}

const probe: ProbeResult = {
  unit: 3,
  map: 'huawei-sun2000-ktl',
  fits: true,
  missing: [],
  warnings: [],
  values: [
    { metric: 'ac_power', value: 8000, unit: 'W' },
    { metric: 'serial_number', text: 'HW-123', unit: '' },
  ],
}

let calls: Call[] = []
let added = false

beforeEach(async () => {
  await i18n.changeLanguage('en')
  added = false
  calls = mockHttp((path, call) => {
    if (path === '/station/gateway/commission/buses')
      return ok(buses(added ? [{ id: 'HW-123', unit: 3, map: 'huawei-sun2000-ktl' }] : []))
    if (path === '/station/gateway/commission/scan') return ok(scan)
    if (path === '/station/gateway/commission/probe') return ok(probe)
    if (path === '/station/gateway/commission/device' && call.method === 'post') {
      added = true
      return ok({ deviceId: '77', kind: 'inverter', sn: 'HW-123', message: 'added HW-123' })
    }
    return ok([])
  })
})

afterEach(async () => {
  cleanup()
  unmockHttp()
  await i18n.changeLanguage('zh')
})

const posts = (path: string) =>
  calls.filter((c) => c.method === 'post' && c.path === path).map((c) => c.body)

describe('commissioning panel', () => {
  it('scans a bus, probes the chosen unit with its suggested map and adds it', async () => {
    renderInApp(<CommissionPanel stationId="9" />)
    fireEvent.click(screen.getByTestId('commission-load'))
    await screen.findByTestId('commission-scan')
    const read = calls.find((c) => c.path === '/station/gateway/commission/buses')
    expect(read?.params.get('stationId')).toBe('9')

    fireEvent.click(screen.getByTestId('commission-scan'))
    const row = await screen.findByTestId('commission-unit-3')
    expect(row.textContent).toContain('Huawei · SUN2000-50KTL · HW-123')
    // Every id of the range is accounted for: answered (identified or not), silent, absent.
    const counts = within(screen.getByTestId('commission-scan-counts'))
    const count = (key: string) => counts.getByTestId(`commission-count-${key}`)
    expect(count('found').textContent).toBe('Answered 2')
    expect(count('identified').textContent).toBe('Identified 1')
    expect(count('unidentified').textContent).toBe('Unidentified 1')
    expect(count('silent').textContent).toBe('Silent 2')
    expect(count('absent').textContent).toBe('Reported absent 1')
    expect(posts('/station/gateway/commission/scan')).toEqual([
      { stationId: '9', bus: 'field', from: 1, to: 10 },
    ])

    fireEvent.click(within(row).getByTestId('commission-pick-3'))
    fireEvent.click(await screen.findByTestId('commission-probe'))
    const result = await screen.findByTestId('commission-probe-result')
    expect(result.textContent).toContain('8000 W')
    expect(within(result).getByTestId('commission-fits').textContent).toBe('The map fits')
    expect(posts('/station/gateway/commission/probe')).toEqual([
      { stationId: '9', bus: 'field', unit: 3, map: 'huawei-sun2000-ktl' },
    ])
    // The SN the unit reported is offered.
    expect(screen.getByTestId<HTMLInputElement>('commission-sn').value).toBe('HW-123')
    fireEvent.change(screen.getByTestId('commission-name'), { target: { value: 'Inverter 3' } })

    fireEvent.click(screen.getByTestId('commission-add'))
    await waitFor(() => expect(posts('/station/gateway/commission/device')).toHaveLength(1))
    expect(posts('/station/gateway/commission/device')[0]).toEqual({
      stationId: '9',
      bus: 'field',
      unit: 3,
      map: 'huawei-sun2000-ktl',
      name: 'Inverter 3',
      sn: 'HW-123',
    })
    // The bus is read again and now lists the device.
    expect((await screen.findByTestId('commission-configured')).textContent).toContain('HW-123')
  })

  it('offers the suggested map the gateway has and a serial number for the SN', () => {
    const unit = { ...scan.units[0], serial: undefined, suggestedMaps: ['x', 'eastron-sdm630'] }
    expect(defaultMap(unit, ['huawei-sun2000-ktl', 'eastron-sdm630'])).toBe('eastron-sdm630')
    expect(defaultMap({ ...unit, suggestedMaps: [] }, ['a', 'b'])).toBe('a')
    expect(defaultSn(unit, probe)).toBe('HW-123')
    expect(defaultSn(unit, null)).toBe('')
  })
})
