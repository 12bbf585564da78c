import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react'
import { MemoryRouter, Route, Routes, useLocation } from 'react-router-dom'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { useLayoutStore } from '../../stores/layout'
import { useSessionStore } from '../../stores/session'
import { mockHttp, ok, unmockHttp } from '../../test/http'
import i18n from '../../locales/i18n'
import { useAlarmStore, type Alarm } from '../../stores/alarm'
import { renderInApp } from '../../test/render'
import AlarmBell, { REOPEN_GUARD_MS } from './AlarmBell'

const alarm = (id: string, type = 1): Alarm => ({
  id,
  stationName: '阳光屋顶',
  inverter: 'INV-01',
  warningName: `告警${id}`,
  date: '2026-11-23T10:00:00',
  type,
})

function Where() {
  const { pathname, search } = useLocation()
  return <div data-testid="where">{pathname + search}</div>
}

const renderBell = () =>
  renderInApp(
    <MemoryRouter initialEntries={['/basicFacts/equipmentMap']}>
      <AlarmBell />
      <Routes>
        <Route path="*" element={<Where />} />
      </Routes>
    </MemoryRouter>,
  )

beforeEach(async () => {
  await i18n.changeLanguage('zh')
  act(() => useAlarmStore.getState().replace(0, []))
})

afterEach(() => {
  cleanup()
  unmockHttp()
})

describe('alarm bell', () => {
  it('is still at 0 and rings otherwise', () => {
    renderBell()
    const bell = screen.getByTestId('alarm-bell')
    expect(bell.getAttribute('data-ringing')).toBe('false')
    expect(bell.querySelector('.bell-ringing')).toBeNull()
    act(() => useAlarmStore.getState().replace(3, [alarm('1')]))
    expect(bell.getAttribute('data-ringing')).toBe('true')
    expect(bell.getAttribute('data-count')).toBe('3')
    expect(bell.querySelector('.bell-ringing')).not.toBeNull()
  })

  it('shows 99+ above 99', () => {
    act(() => useAlarmStore.getState().replace(150, [alarm('1')]))
    renderBell()
    expect(screen.getByTestId('alarm-bell').textContent).toContain('99+')
  })

  it('lists the alarms on hover; a click opens the alarm by its type', async () => {
    act(() => useAlarmStore.getState().replace(2, [alarm('7'), alarm('8', 2)]))
    renderBell()
    fireEvent.mouseEnter(screen.getByTestId('alarm-bell'))
    const items = await screen.findAllByTestId('alarm-item')
    expect(items.map((i) => i.getAttribute('data-alarm-id'))).toEqual(['7', '8'])
    fireEvent.click(items[1])
    await waitFor(() =>
      expect(screen.getByTestId('where').textContent).toBe(
        '/intelligentOperation/intelligentWarning?id=8',
      ),
    )
    // The click closed the list; a hand coming back to the bell later opens it again.
    await new Promise((r) => setTimeout(r, REOPEN_GUARD_MS + 100))
    fireEvent.mouseEnter(screen.getByTestId('alarm-bell'))
    fireEvent.click((await screen.findAllByTestId('alarm-item'))[0])
    await waitFor(() =>
      expect(screen.getByTestId('where').textContent).toBe('/intelligentOperation/alarmData?id=7'),
    )
  })

  it('a click on an alarm closes the list, and the pointer still over it does not re-open it', async () => {
    act(() => useAlarmStore.getState().replace(1, [alarm('7')]))
    renderBell()
    const bell = screen.getByTestId('alarm-bell')
    const shown = () => {
      const popover = document.querySelector('.ant-popover')
      return popover !== null && !popover.classList.contains('ant-popover-hidden')
    }
    fireEvent.mouseEnter(bell)
    const [item] = await screen.findAllByTestId('alarm-item')
    await waitFor(() => expect(shown()).toBe(true))
    fireEvent.click(item)
    // The list is gone at once: nothing fading under the pointer to re-open it.
    expect(shown()).toBe(false)
    // The hand moving on to the bell right after the click does not re-open it.
    const again = screen.getByTestId('alarm-bell')
    fireEvent.mouseEnter(again)
    fireEvent.pointerEnter(again)
    await waitFor(() => expect(screen.getByTestId('where').textContent).toContain('id=7'))
    await new Promise((r) => setTimeout(r, 300))
    expect(shown()).toBe(false)
    // Later, a hand coming back to the bell opens it again as usual.
    await new Promise((r) => setTimeout(r, REOPEN_GUARD_MS))
    fireEvent.mouseLeave(again)
    fireEvent.mouseEnter(again)
    await waitFor(() => expect(shown()).toBe(true))
  })

  it('lists work items; one opens its repair order or inspection task and is marked read', async () => {
    const calls = mockHttp(() => ok(null))
    act(() =>
      useAlarmStore.getState().replace(0, [], {
        count: 2,
        list: [
          { id: 'm1', type: 4, bizId: '101', title: '新工单 WO1', date: '2026-11-26 08:00:00' },
          { id: 'm2', type: 3, bizId: '55', title: '巡检任务', date: '2026-11-26 07:00:00' },
        ],
      }),
    )
    renderBell()
    const bell = screen.getByTestId('alarm-bell')
    expect(bell.getAttribute('data-work-count')).toBe('2')
    expect(bell.getAttribute('data-ringing')).toBe('false')
    expect(bell.textContent).toContain('2')
    fireEvent.mouseEnter(bell)
    fireEvent.click(await screen.findByTestId('bell-tab-work'))
    const items = await screen.findAllByTestId('work-item')
    expect(items.map((i) => i.getAttribute('data-biz-id'))).toEqual(['101', '55'])
    fireEvent.click(items[1])
    await waitFor(() =>
      expect(screen.getByTestId('where').textContent).toBe(
        '/intelligentOperation/inspectionTask-detail?id=55',
      ),
    )
    await new Promise((r) => setTimeout(r, REOPEN_GUARD_MS + 100))
    fireEvent.mouseEnter(screen.getByTestId('alarm-bell'))
    fireEvent.click((await screen.findAllByTestId('work-item'))[0])
    await waitFor(() =>
      expect(screen.getByTestId('where').textContent).toBe(
        '/intelligentOperation/repair-detail?id=101',
      ),
    )
    await waitFor(() =>
      expect(calls.filter((c) => c.path === '/message/read').map((c) => c.body)).toEqual([
        { ids: ['m2'] },
        { ids: ['m1'] },
      ]),
    )
  })

  it('creates a repair order from an alarm in one click and opens it', async () => {
    useSessionStore.getState().setPermission({ repair_add: true })
    const calls = mockHttp((path) => (path === '/repair' ? ok({ id: '300', status: 1 }) : ok(null)))
    act(() => useAlarmStore.getState().replace(1, [alarm('7')]))
    renderBell()
    fireEvent.mouseEnter(screen.getByTestId('alarm-bell'))
    fireEvent.click(await screen.findByTestId('alarm-create-order'))
    await waitFor(() =>
      expect(screen.getByTestId('where').textContent).toBe(
        '/intelligentOperation/repair-detail?id=300',
      ),
    )
    expect(calls.find((c) => c.path === '/repair')?.body).toEqual({ alarmId: '7' })
  })

  it('an alarm that already has an order links to it with its status', async () => {
    useSessionStore.getState().setPermission({ repair_add: true })
    act(() =>
      useAlarmStore.getState().replace(1, [{ ...alarm('7'), repairId: '301', repairStatus: 3 }]),
    )
    renderBell()
    fireEvent.mouseEnter(screen.getByTestId('alarm-bell'))
    expect((await screen.findByTestId('alarm-order-status')).textContent).toBe('已受理')
    expect(screen.queryByTestId('alarm-create-order')).toBeNull()
    expect(screen.getByTestId('alarm-order-link').getAttribute('href')).toBe(
      '/intelligentOperation/repair-detail?id=301',
    )
  })

  it('without the permission offers no order button', async () => {
    useSessionStore.getState().setPermission({})
    act(() => useAlarmStore.getState().replace(1, [alarm('7')]))
    renderBell()
    fireEvent.mouseEnter(screen.getByTestId('alarm-bell'))
    await screen.findAllByTestId('alarm-item')
    expect(screen.queryByTestId('alarm-create-order')).toBeNull()
  })

  it('on a phone a tap opens the list in a drawer, with a 44 px target', async () => {
    act(() => useLayoutStore.getState().setScreen(390))
    try {
      act(() => useAlarmStore.getState().replace(1, [alarm('7')]))
      renderBell()
      const bell = screen.getByTestId('alarm-bell')
      expect(bell.style.minWidth).toBe('44px')
      expect(bell.style.minHeight).toBe('44px')
      fireEvent.click(bell)
      const drawer = await screen.findByTestId('alarm-drawer')
      expect(drawer.querySelector('[data-testid="alarm-item"]')).not.toBeNull()
    } finally {
      act(() => useLayoutStore.getState().setScreen(1024))
    }
  })
})
