import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react'
import { MemoryRouter, Route, Routes, useLocation } from 'react-router-dom'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { toFleetSummary } from '../../api/realtime/home'
import i18n from '../../locales/i18n'
import { renderInApp } from '../../test/render'
import RepairKpis from './RepairKpis'

function Where() {
  const { pathname, search } = useLocation()
  return <div data-testid="where">{pathname + search}</div>
}

beforeEach(() => i18n.changeLanguage('zh'))
afterEach(cleanup)

describe('home repair figures', () => {
  it('reads repairOpen, repairOverdue and mttrHours from the home data (null when absent)', () => {
    const summary = toFleetSummary({ repairOpen: 3, repairOverdue: 1, mttrHours: 5.25 })
    expect([summary.repairOpen, summary.repairOverdue, summary.mttrHours]).toEqual([3, 1, 5.25])
    const old = toFleetSummary({})
    expect([old.repairOpen, old.repairOverdue, old.mttrHours]).toEqual([null, null, null])
  })

  it('shows open, overdue and MTTR; overdue opens the overdue orders', async () => {
    renderInApp(
      <MemoryRouter initialEntries={['/basicFacts/equipmentMap']}>
        <Routes>
          <Route
            path="/basicFacts/equipmentMap"
            element={<RepairKpis figures={{ repairOpen: 3, repairOverdue: 1, mttrHours: 5.25 }} />}
          />
          <Route path="*" element={<Where />} />
        </Routes>
      </MemoryRouter>,
    )
    expect(screen.getByTestId('kpi-repair-open').dataset.value).toBe('3')
    expect(screen.getByTestId('kpi-repair-mttr').textContent).toContain('5.3')
    expect(screen.getByText('超期工单')).toBeTruthy()
    fireEvent.click(screen.getByTestId('kpi-repair-overdue'))
    await waitFor(() =>
      expect(screen.getByTestId('where').textContent).toBe(
        '/intelligentOperation/repair?overdue=true',
      ),
    )
  })

  it('shows -- without figures', () => {
    renderInApp(
      <MemoryRouter>
        <RepairKpis figures={undefined} />
      </MemoryRouter>,
    )
    expect(screen.getByTestId('kpi-repair-open').textContent).toContain('--')
  })
})
