import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { MemoryRouter, Route, Routes, useLocation } from 'react-router-dom'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { clearDictCache } from '../../../hooks/useDict'
import i18n from '../../../locales/i18n'
import { useAlarmStore } from '../../../stores/alarm'
import { useSessionStore } from '../../../stores/session'
import type { AlarmRecord } from '../../../api/alarm/alarm'
import { mockHttp, ok, page, unmockHttp, type Call } from '../../../test/http'
import { renderInApp } from '../../../test/render'
import IntelligentWarningPage from '../warnings'
import AlarmDataPage from '.'

const alarm: AlarmRecord = {
  id: '7',
  stationId: '3',
  stationName: '阳光屋顶',
  deviceId: '11',
  deviceKind: 'inverter',
  deviceName: 'INV-01',
  inverter: 'INV-01',
  kind: 'fault:fault_word1:7',
  category: 'fault',
  type: 1,
  level: 3,
  code: '2032',
  warningName: '电网掉电',
  detail: '逆变器报告电网掉电',
  value: 262.5,
  threshold: 253,
  status: 0,
  statusName: '未处理',
  firstTime: '2026-11-23 10:00:00',
  lastTime: '2026-11-23 10:05:00',
  occurrences: 4,
  ackUserName: null,
  ackTime: null,
  ackNote: null,
  clearUserName: null,
  clearTime: null,
  clearNote: null,
}
const acked: AlarmRecord = {
  ...alarm,
  status: 1,
  statusName: '已确认',
  ackUserName: '管理员',
  ackTime: '2026-11-23 10:06:00',
  ackNote: '已通知运维',
}
const warning: AlarmRecord = {
  ...alarm,
  id: '8',
  type: 2,
  kind: 'warn:dispersion',
  category: 'dispersion',
  warningName: '组串离散率偏高',
}
const rule = {
  temperatureMaxC: 85,
  gridVoltageMinV: 187,
  gridVoltageMaxV: 253,
  gridFrequencyMinHz: 49.5,
  gridFrequencyMaxHz: 50.5,
  zeroOutputIrradianceWm2: 200,
  deviceSilenceSeconds: 300,
  clearHoldSeconds: 60,
  raiseAfterSamples: 3,
}

let calls: Call[] = []
let current: AlarmRecord = alarm

beforeEach(async () => {
  await i18n.changeLanguage('zh')
  clearDictCache()
  current = alarm
  calls = mockHttp((path, call) => {
    if (path === '/alarmData/page') return page([current])
    if (path === '/warnData/page') return page([warning])
    if (path === '/alarmData/7') return ok(current)
    if (path === '/alarmData/listAlarmStatus')
      return ok([
        { dictKey: '0', dictValue: '未处理' },
        { dictKey: '1', dictValue: '已确认' },
        { dictKey: '2', dictValue: '已清除' },
      ])
    if (path === '/alarmData' && call.method === 'put') {
      current = acked
      return ok(true)
    }
    if (path === '/alarmRule') return ok(rule)
    if (path === '/repair' && call.method === 'post') return ok({ id: '500', status: 1 })
    return ok([])
  })
  act(() => {
    useSessionStore.getState().setPermission({ alarmData_handle: true })
    useAlarmStore.getState().replace(0, [])
  })
})

afterEach(() => {
  cleanup()
  unmockHttp()
})

function Where() {
  const { pathname, search } = useLocation()
  return <div data-testid="where">{pathname + search}</div>
}

const renderAt = (path: string, node = <AlarmDataPage />) =>
  renderInApp(<MemoryRouter initialEntries={[path]}>{node}</MemoryRouter>)

const pageCalls = (path = '/alarmData/page') => calls.filter((c) => c.path === path)

describe('alarm → repair order', () => {
  it('creates the order in one click from the detail and opens it', async () => {
    useSessionStore.getState().setPermission({ alarmData_handle: true, repair_add: true })
    renderInApp(
      <MemoryRouter initialEntries={['/intelligentOperation/alarmData?id=7']}>
        <Routes>
          <Route path="/intelligentOperation/alarmData" element={<AlarmDataPage />} />
          <Route path="*" element={<Where />} />
        </Routes>
      </MemoryRouter>,
    )
    await screen.findByTestId('alarm-detail-7')
    fireEvent.click(await screen.findByTestId('alarm-create-order'))
    await waitFor(() =>
      expect(screen.getByTestId('where').textContent).toBe(
        '/intelligentOperation/repair-detail?id=500',
      ),
    )
    expect(calls.find((c) => c.path === '/repair')?.body).toEqual({ alarmId: '7' })
  })

  it('an alarm with an order shows its status and a link instead', async () => {
    useSessionStore.getState().setPermission({ alarmData_handle: true, repair_add: true })
    current = { ...alarm, repairId: '501', repairStatus: 4 }
    renderAt('/intelligentOperation/alarmData?id=7')
    const detail = await screen.findByTestId('alarm-detail-7')
    expect(within(detail).getByTestId('alarm-order-status').textContent).toBe('待维修')
    expect(within(detail).getByTestId('alarm-order-link').getAttribute('href')).toBe(
      '/intelligentOperation/repair-detail?id=501',
    )
    expect(screen.queryByTestId('alarm-create-order')).toBeNull()
  })
})

describe('alarm data page', () => {
  it('?id= opens that alarm, fetched by id, with value against threshold', async () => {
    renderAt('/intelligentOperation/alarmData?id=7')
    const detail = await screen.findByTestId('alarm-detail-7')
    expect(calls.some((c) => c.path === '/alarmData/7' && c.method === 'get')).toBe(true)
    expect(within(detail).getByTestId('alarm-detail-value').textContent).toBe('262.5 / 253')
    expect(within(detail).getByText('电网掉电')).toBeTruthy()
  })

  it('acknowledges with a note: PUT {id, action, note}, then shows who and why', async () => {
    renderAt('/intelligentOperation/alarmData?id=7')
    await screen.findByTestId('alarm-detail-7')
    fireEvent.click(screen.getByTestId('alarm-detail-ack'))
    fireEvent.change(await screen.findByTestId('alarm-handle-note'), {
      target: { value: '已通知运维' },
    })
    fireEvent.click(screen.getByTestId('alarm-handle-ok'))
    await waitFor(() =>
      expect(calls.find((c) => c.method === 'put')?.body).toEqual({
        id: '7',
        action: 'ack',
        note: '已通知运维',
      }),
    )
    await waitFor(() =>
      expect(screen.getByTestId('alarm-detail-ack-note').textContent).toBe('已通知运维'),
    )
    expect(screen.getByTestId('alarm-detail-ack-user').textContent).toBe('管理员')
    // Acknowledged: only clearing is left.
    expect(screen.queryByTestId('alarm-detail-ack')).toBeNull()
    expect(screen.getByTestId('alarm-detail-clear')).toBeTruthy()
  })

  it('refuses a note over 500 characters without calling the server', async () => {
    renderAt('/intelligentOperation/alarmData')
    fireEvent.click(await screen.findByTestId('alarm-row-clear'))
    fireEvent.change(await screen.findByTestId('alarm-handle-note'), {
      target: { value: 'x'.repeat(501) },
    })
    fireEvent.click(screen.getByTestId('alarm-handle-ok'))
    await screen.findByText('备注不能超过500个字符')
    expect(calls.some((c) => c.method === 'put')).toBe(false)
  })

  it('hides acknowledge and clear without the alarmData_handle permission', async () => {
    act(() => useSessionStore.getState().setPermission({}))
    renderAt('/intelligentOperation/alarmData')
    await screen.findByText('阳光屋顶')
    expect(screen.queryByTestId('alarm-row-ack')).toBeNull()
    expect(screen.queryByTestId('alarm-row-clear')).toBeNull()
    expect(screen.queryByTestId('alarm-rules')).toBeNull()
  })

  it('reloads the list when the bell feed changes, not on an identical message', async () => {
    renderAt('/intelligentOperation/alarmData')
    await screen.findByText('阳光屋顶')
    const before = pageCalls().length
    const item = {
      id: '7',
      stationName: '阳光屋顶',
      inverter: 'INV-01',
      warningName: '电网掉电',
      date: '2026-11-23T10:00:00',
      type: 1,
    }
    act(() => useAlarmStore.getState().replace(1, [item]))
    await waitFor(() => expect(pageCalls().length).toBe(before + 1))
    act(() => useAlarmStore.getState().replace(1, [{ ...item }]))
    await new Promise((r) => setTimeout(r, 50))
    expect(pageCalls().length).toBe(before + 1)
  })

  it('checks the alarm rules before saving them', async () => {
    renderAt('/intelligentOperation/alarmData')
    fireEvent.click(await screen.findByTestId('alarm-rules'))
    const min = await screen.findByTestId('rule-gridVoltageMinV')
    await waitFor(() => expect((min as HTMLInputElement).value).toBe('187'))
    fireEvent.change(min, { target: { value: '300' } })
    fireEvent.change(screen.getByTestId('rule-clearHoldSeconds'), { target: { value: '0' } })
    fireEvent.click(screen.getByTestId('rule-save'))
    await screen.findByText('电网电压下限(V)必须小于上限')
    await screen.findByText('恢复正常后自动清除(秒)必须大于0')
    expect(calls.some((c) => c.path === '/alarmRule' && c.method === 'put')).toBe(false)
    fireEvent.change(min, { target: { value: '190' } })
    fireEvent.change(screen.getByTestId('rule-clearHoldSeconds'), { target: { value: '5' } })
    fireEvent.click(screen.getByTestId('rule-save'))
    await waitFor(() =>
      expect(calls.find((c) => c.path === '/alarmRule' && c.method === 'put')?.body).toEqual({
        ...rule,
        gridVoltageMinV: 190,
        clearHoldSeconds: 5,
      }),
    )
  })

  it('sends the filters to the page call', async () => {
    renderAt('/intelligentOperation/alarmData')
    await screen.findByText('阳光屋顶')
    fireEvent.change(screen.getByTestId('alarm-search-keyword'), { target: { value: ' INV ' } })
    fireEvent.click(screen.getByTestId('alarm-search'))
    await waitFor(() => expect(pageCalls().at(-1)?.params.get('keyword')).toBe('INV'))
    expect(pageCalls().at(-1)?.params.get('current')).toBe('1')
  })
})

describe('smart warning page', () => {
  it('?id= finds the warning through warnData/page and links to its analysis', async () => {
    renderAt('/intelligentOperation/intelligentWarning?id=8', <IntelligentWarningPage />)
    const detail = await screen.findByTestId('alarm-detail-8')
    const byId = pageCalls('/warnData/page').find((c) => c.params.get('id') === '8')
    expect(byId).toBeTruthy()
    expect(within(detail).getByTestId('warning-link').getAttribute('href')).toBe(
      '/intelligentOperation/discreteRate?stationId=3',
    )
    expect(calls.some((c) => c.path === '/alarmData/page')).toBe(false)
  })
})
