import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react'
import dayjs from 'dayjs'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { toDeviceQuality } from '../../api/realtime/deviceQuality'
import i18n from '../../locales/i18n'
import { mockHttp, ok, unmockHttp, type Call } from '../../test/http'
import { renderInApp } from '../../test/render'
import DeviceQualityPanel, { StaleValue } from './DeviceQuality'
import DeviceLiveCard from './DeviceLiveCard'

vi.mock('./Chart', () => ({
  default: (props: { 'data-testid'?: string }) => <div data-testid={props['data-testid']} />,
}))

const LAYOUT = 'layout changed: model 103 expected at 40070, found 160'

const withheld = {
  id: '11',
  name: 'INV-1',
  sn: 'SN-1',
  kind: 'inverter',
  state: 'withheld',
  reported: true,
  withheld: LAYOUT,
  withheldSince: '2026-03-01 12:00:05',
  changes: 2,
  lastChange: LAYOUT,
  suspect: [],
  suspectValues: [],
  updateTime: '2026-03-01 11:59:55',
}

const marked = {
  id: '12',
  name: 'Grid',
  sn: 'M-1',
  kind: 'meter',
  state: 'online',
  reported: true,
  withheld: null,
  withheldSince: null,
  changes: 0,
  lastChange: null,
  suspect: [
    { name: 'grid_frequency', count: 5 },
    { name: 'power_factor', count: 2 },
  ],
  suspectValues: [{ name: 'power_factor', unit: '1', value: -20.7 }],
  counterSteps: [
    { kind: 'glitch', count: 3 },
    { kind: 'rebase', count: 1 },
  ],
  updateTime: '2026-03-01 12:00:00',
}

let calls: Call[] = []
let answer: (path: string, call: Call) => unknown = () => ok([])

beforeEach(async () => {
  await i18n.changeLanguage('zh')
  calls = mockHttp((path, call) => answer(path, call))
})

afterEach(() => {
  cleanup()
  unmockHttp()
})

describe('device data quality', () => {
  it('shows a withheld device apart from online and offline, with its reason and since when', async () => {
    answer = (path) => (path === '/deviceQuality/list' ? ok([withheld, marked]) : ok(null))
    renderInApp(<DeviceQualityPanel stationId="7" />)
    const state = await screen.findByTestId('quality-state-11')
    expect(state.getAttribute('data-state')).toBe('withheld')
    expect(state.textContent).toBe('数据暂停')
    expect(screen.getByTestId('quality-state-12').textContent).toBe('在线')
    expect(screen.getByTestId('quality-reason-11').textContent).toBe(LAYOUT)
    expect(screen.getByTestId('quality-since-11').textContent).toBe(
      dayjs('2026-03-01 12:00:05').format('YYYY-MM-DD HH:mm:ss'),
    )
    expect(screen.getByTestId('quality-changes-11').textContent).toBe('2 次')
    expect(screen.getByTestId('quality-last-change-11').textContent).toBe(LAYOUT)
    // A device whose values flow has no reason and no start time.
    expect(screen.queryByTestId('quality-reason-12')).toBeNull()
    expect(screen.queryByTestId('quality-since-12')).toBeNull()
    fireEvent.mouseEnter(state)
    expect(await screen.findByText(/网关暂不上报其数据/)).toBeTruthy()
    expect(calls.find((c) => c.path === '/deviceQuality/list')?.params.get('stationId')).toBe('7')
  })

  it('counts suspect values per metric and shows the marked ones as warnings, never as good values', async () => {
    await i18n.changeLanguage('en')
    answer = (path) => (path === '/deviceQuality/list' ? ok([marked]) : ok(null))
    renderInApp(<DeviceQualityPanel stationId="7" deviceId="12" />)
    const pf = await screen.findByTestId('quality-suspect-12-power_factor')
    expect(pf.getAttribute('data-count')).toBe('2')
    expect(pf.textContent).toContain(': 2')
    expect(screen.getByTestId('quality-suspect-12-grid_frequency').getAttribute('data-count')).toBe(
      '5',
    )
    const value = screen.getByTestId('quality-suspect-value-12-power_factor')
    expect(value.className).toContain('warning')
    expect(value.textContent).toContain('-20.7')
    expect(value.getAttribute('aria-label')).toContain(
      'Outside the plausible range, left out of statistics',
    )
    expect(within(value).getByRole('img', { name: /warning/ })).toBeTruthy()
    fireEvent.mouseEnter(value)
    expect(
      await screen.findByText('Outside the plausible range, left out of statistics'),
    ).toBeTruthy()
    expect(calls.find((c) => c.path === '/deviceQuality/list')?.params.get('deviceId')).toBe('12')
    await i18n.changeLanguage('zh')
  })

  it("counts the steps of a device's energy counters by kind", async () => {
    answer = (path) => (path === '/deviceQuality/list' ? ok([marked, withheld]) : ok(null))
    renderInApp(<DeviceQualityPanel stationId="7" />)
    const glitch = await screen.findByTestId('quality-counter-12-glitch')
    expect(glitch.getAttribute('data-count')).toBe('3')
    expect(glitch.textContent).toBe('瞬时异常：3 次')
    expect(screen.getByTestId('quality-counter-12-rebase').textContent).toBe('计数基准变化：1 次')
    expect(screen.queryByTestId('quality-counter-11-glitch')).toBeNull()
  })

  it("says on a device's curve that its suspect values are left out", async () => {
    answer = (path) => {
      if (path === '/deviceQuality/list') return ok([marked])
      if (path === '/deviceReal/curve')
        return ok({ deviceId: '12', date: '2026-03-01', utcOffset: '+08:00', series: [] })
      return ok(null)
    }
    renderInApp(
      <DeviceLiveCard
        stationId="7"
        device={{
          id: '12',
          name: 'Grid',
          sn: 'M-1',
          kind: 'meter',
          meterRole: '1',
          online: true,
          updatedAt: null,
          values: [],
        }}
      />,
    )
    const note = await screen.findByTestId('device-curve-suspect-12')
    expect(note.textContent).toContain('可疑值不计入曲线（自网关程序启动以来 7 个）')
    await waitFor(() => expect(screen.getByTestId('quality-state-12').textContent).toBe('在线'))
  })

  it('shows a withheld value struck through with the reason, a flowing one as it is', async () => {
    renderInApp(
      <>
        <StaleValue reason={LAYOUT} testId="stale">
          12.5 kW
        </StaleValue>
        <StaleValue reason={null} testId="good">
          3.0 kW
        </StaleValue>
      </>,
    )
    const stale = screen.getByTestId('stale')
    expect(stale.getAttribute('data-withheld')).toBe('true')
    expect(stale.closest('del') ?? stale.querySelector('del')).not.toBeNull()
    expect(stale.className).toContain('ant-typography-secondary')
    fireEvent.mouseEnter(stale)
    await screen.findByText(`数据暂停前收到的旧值，不代表设备现状。原因：${LAYOUT}`)
    // A value that flows is plain text: no mark, no test id of the stale form.
    expect(screen.queryByTestId('good')).toBeNull()
    expect(screen.getByText('3.0 kW').closest('[data-withheld]')).toBeNull()
    await i18n.changeLanguage('en')
    cleanup()
    renderInApp(
      <StaleValue reason={LAYOUT} testId="stale">
        1 kW
      </StaleValue>,
    )
    fireEvent.mouseEnter(screen.getByTestId('stale'))
    await screen.findByText(
      `The last value received before the gateway held values back, not the current state. Reason: ${LAYOUT}`,
    )
  })

  it('reads an older or odd answer safely', () => {
    const q = toDeviceQuality({ id: 3, name: 'X', state: 'weird', suspect: [{ name: 'a' }] })
    expect(q.state).toBe('offline')
    expect(q.withheld).toBeNull()
    expect(q.changes).toBe(0)
    expect(q.suspect).toEqual([])
    expect(q.suspectValues).toEqual([])
  })
})
