import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react'
import { MemoryRouter, Route, Routes, useLocation } from 'react-router-dom'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import i18n from '../../locales/i18n'
import { useAlarmStore, type Alarm } from '../../stores/alarm'
import { renderInApp } from '../../test/render'
import AlarmBell from './AlarmBell'

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

afterEach(cleanup)

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
    fireEvent.click(items[0])
    await waitFor(() =>
      expect(screen.getByTestId('where').textContent).toBe('/intelligentOperation/alarmData?id=7'),
    )
  })
})
