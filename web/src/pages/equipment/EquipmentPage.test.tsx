import { act, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { MemoryRouter, Route, Routes, useLocation } from 'react-router-dom'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import i18n from '../../locales/i18n'
import { useSessionStore } from '../../stores/session'
import { mockHttp, ok, RawAnswer, unmockHttp, type Call } from '../../test/http'
import { renderInApp } from '../../test/render'
import { choose } from '../../test/select'
import EquipmentPage from '.'
import { livePath, sortOf, summaryParts } from './logic'

const row = (over: Record<string, unknown>) => ({
  id: '1',
  name: 'INV-1',
  stationId: '100',
  stationName: '阳光屋顶',
  kind: 'inverter',
  model: 'Sungrow SG110CX',
  sn: 'SN-INV-1',
  firmware: '',
  source: 'gateway',
  status: 'online',
  lastSample: '2026-11-29 10:00:00',
  missedPolls: 3,
  suspectValues: 2,
  counterRebases: 0,
  gatewayId: 'GW-1',
  ...over,
})

const rows = [
  row({}),
  row({
    id: '2',
    name: 'HW-1',
    sn: 'HW-001',
    source: 'vendor',
    status: 'fault',
    model: 'SUN2000',
    firmware: 'V100',
    missedPolls: null,
  }),
  row({ id: '3', name: 'M-1', sn: 'SN-MET', kind: 'meter', status: 'never', lastSample: null }),
  row({ id: '4', name: 'T-1', sn: 'SN-TRK', kind: 'tracker', stationId: '200' }),
]

const summary = {
  kinds: [
    {
      kind: 'inverter',
      total: 2,
      online: 1,
      offline: 0,
      fault: 1,
      withheld: 0,
      never: 0,
      unknown: 0,
    },
    { kind: 'meter', total: 1, online: 0, offline: 0, fault: 0, withheld: 0, never: 1, unknown: 0 },
    {
      kind: 'weather',
      total: 0,
      online: 0,
      offline: 0,
      fault: 0,
      withheld: 0,
      never: 0,
      unknown: 0,
    },
    {
      kind: 'tracker',
      total: 1,
      online: 1,
      offline: 0,
      fault: 0,
      withheld: 0,
      never: 0,
      unknown: 0,
    },
    {
      kind: 'camera',
      total: 0,
      online: 0,
      offline: 0,
      fault: 0,
      withheld: 0,
      never: 0,
      unknown: 0,
    },
  ],
  all: {
    kind: 'all',
    total: 4,
    online: 2,
    offline: 0,
    fault: 1,
    withheld: 0,
    never: 1,
    unknown: 0,
  },
}

let calls: Call[] = []

/** antd lays out for a desk when every breakpoint query matches; the default setup is a phone. */
function setDesk(desk: boolean) {
  Object.defineProperty(window, 'matchMedia', {
    configurable: true,
    value: (query: string): MediaQueryList =>
      ({
        matches: desk,
        media: query,
        onchange: null,
        addListener: () => undefined,
        removeListener: () => undefined,
        addEventListener: () => undefined,
        removeEventListener: () => undefined,
        dispatchEvent: () => false,
      }) as MediaQueryList,
  })
}

beforeEach(async () => {
  await i18n.changeLanguage('zh')
  calls = mockHttp((path) => {
    if (path === '/equipment/page')
      return ok({ records: rows, total: 4, size: 10, current: 1, pages: 1 })
    if (path === '/equipment/summary') return ok(summary)
    if (path === '/equipment/export')
      return new RawAnswer(new Blob(['xlsx']), {
        'content-disposition': 'attachment; filename="equipment.xlsx"',
      })
    return ok([])
  })
  act(() => useSessionStore.getState().setPermission({ equipment_export: true }))
})

afterEach(() => {
  unmockHttp()
  setDesk(false)
})

function Where() {
  const l = useLocation()
  return <div data-testid="where">{l.pathname + l.search}</div>
}

const render = () =>
  renderInApp(
    <MemoryRouter initialEntries={['/equipment']}>
      <Routes>
        <Route path="/equipment" element={<EquipmentPage />} />
        <Route path="*" element={<Where />} />
      </Routes>
    </MemoryRouter>,
  )

const last = (path: string) => calls.filter((c) => c.path === path).at(-1)

describe('equipment logic', () => {
  it('links each kind to its live page', () => {
    expect(livePath({ kind: 'inverter', stationId: '1', sn: 'A B' })).toBe(
      '/station/inverterReal?stationId=1&keyword=A%20B',
    )
    expect(livePath({ kind: 'tracker', stationId: '1', sn: 'x' })).toBe(
      '/flex/realTime?stationId=1',
    )
    expect(livePath({ kind: 'meter', stationId: '1', sn: 'x' })).toBe('/station/overview?id=1')
    expect(livePath({ kind: 'weather', stationId: '1', sn: 'x' })).toBe('/station/overview?id=1')
  })

  it('maps the sorter and lists only statuses with devices', () => {
    expect(sortOf('lastSample', 'descend')).toEqual({ sort: 'lastSample', order: 'desc' })
    expect(sortOf('sn', null)).toEqual({})
    expect(summaryParts(summary.all as never).map(([s]) => s)).toEqual(['online', 'fault', 'never'])
  })
})

describe('equipment page on a desk', () => {
  beforeEach(() => setDesk(true))

  it('shows the summary, the rows with their tags and links, and sorts on the server', async () => {
    render()
    const table = await screen.findByTestId('equipment-table')
    await within(table).findByText('SN-INV-1')
    const summaryBox = screen.getByTestId('equipment-summary')
    const cards = within(summaryBox).getAllByTestId('equipment-summary-kind')
    expect(cards.map((c) => c.getAttribute('data-kind'))).toEqual([
      'all',
      'inverter',
      'meter',
      'tracker',
    ])
    expect(cards[0].getAttribute('data-total')).toBe('4')
    expect(within(cards[1]).getByText('故障 1')).toBeTruthy()

    const vendorRow = table.querySelector('[data-sn="HW-001"]') as HTMLElement
    expect(within(vendorRow).getByTestId('equipment-source').textContent).toBe('厂商云')
    expect(within(vendorRow).getByTestId('equipment-status').textContent).toBe('故障')
    expect(within(vendorRow).getByText('V100')).toBeTruthy()
    const meterRow = table.querySelector('[data-sn="SN-MET"]') as HTMLElement
    expect(within(meterRow).getByTestId('equipment-status').textContent).toBe('从未上报')
    expect(within(meterRow).getByTestId('equipment-live-link').getAttribute('href')).toBe(
      '/station/overview?id=100',
    )

    fireEvent.click(within(table).getAllByText('最新数据时间')[0])
    await waitFor(() => expect(last('/equipment/page')?.params.get('sort')).toBe('lastSample'))
    expect(last('/equipment/page')?.params.get('order')).toBe('asc')

    fireEvent.click(
      within(table.querySelector('[data-sn="SN-INV-1"]') as HTMLElement).getByText('INV-1'),
    )
    expect((await screen.findByTestId('where')).textContent).toBe(
      '/station/inverterReal?stationId=100&keyword=SN-INV-1',
    )
  })

  it('filters the page and the summary alike, and exports the same filters', async () => {
    render()
    await screen.findByText('SN-INV-1')
    await choose('equipment-search-kind', '电表')
    await choose('equipment-search-source', '厂商云')
    fireEvent.change(screen.getByTestId('equipment-search-keyword'), { target: { value: ' sun ' } })
    fireEvent.click(screen.getByTestId('equipment-search'))
    await waitFor(() => expect(last('/equipment/page')?.params.get('kind')).toBe('meter'))
    for (const path of ['/equipment/page', '/equipment/summary']) {
      await waitFor(() => expect(last(path)?.params.get('source')).toBe('vendor'))
      expect(last(path)?.params.get('keyword')).toBe('sun')
    }
    fireEvent.click(screen.getByTestId('equipment-export'))
    await waitFor(() => expect(last('/equipment/export')).toBeTruthy())
    const exported = last('/equipment/export')?.params
    expect(exported?.get('kind')).toBe('meter')
    expect(exported?.get('source')).toBe('vendor')
    expect(exported?.has('current')).toBe(false)
  })

  it('hides the export without its button permission', async () => {
    act(() => useSessionStore.getState().setPermission({}))
    render()
    await screen.findByText('SN-INV-1')
    expect(screen.queryByTestId('equipment-export')).toBeNull()
  })
})

describe('equipment page on a phone', () => {
  it('shows cards, folds the filters behind a button, and links each card', async () => {
    render()
    const cards = await screen.findAllByTestId('equipment-card')
    expect(cards.map((c) => c.getAttribute('data-sn'))).toEqual([
      'SN-INV-1',
      'HW-001',
      'SN-MET',
      'SN-TRK',
    ])
    expect(screen.getByTestId('equipment-search-kind').closest('form')?.hidden).toBe(true)
    fireEvent.click(screen.getByTestId('equipment-filters-toggle'))
    expect(screen.getByTestId('equipment-search-kind').closest('form')?.hidden).toBe(false)
    expect(within(cards[3]).getByTestId('equipment-live-link').getAttribute('href')).toBe(
      '/flex/realTime?stationId=200',
    )
    expect(within(cards[1]).getByTestId('equipment-source').textContent).toBe('厂商云')
  })
})
