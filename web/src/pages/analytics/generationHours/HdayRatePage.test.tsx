import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react'
import { MemoryRouter } from 'react-router-dom'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import i18n from '../../../locales/i18n'
import { mockHttp, ok, unmockHttp, type Call } from '../../../test/http'
import { renderInApp } from '../../../test/render'
import HdayRatePage from './index'

vi.mock('../../../components/realtime/Chart', () => ({
  default: (props: { 'data-testid'?: string }) => <div data-testid={props['data-testid']} />,
}))

const pageOf = (records: unknown[]) =>
  ok({ records, total: records.length, size: 10, current: 1, pages: 1 })

let calls: Call[] = []

beforeEach(async () => {
  await i18n.changeLanguage('zh')
  calls = mockHttp((path) => {
    if (path === '/station/listStationNameAndId') return ok([{ id: '5', name: 'S5' }])
    if (path === '/hdayRate/pageStation')
      return pageOf([
        {
          stationId: '5',
          stationName: 'S5',
          hours: 4,
          refHours: 4.5,
          deviationPct: -11.1,
          flagged: true,
        },
        {
          stationId: '6',
          stationName: 'S6',
          hours: 5,
          refHours: 4.5,
          deviationPct: 11.1,
          flagged: false,
        },
      ])
    if (path === '/hdayRate/pageInverter')
      return pageOf([
        { inverterId: '51', inverterName: 'INV-51', stationName: 'S5', flagged: false },
      ])
    if (path === '/hdayRate/setting') return ok({ thresholdPct: -10, minDays: 1 })
    return undefined
  })
})

afterEach(() => {
  cleanup()
  unmockHttp()
  vi.useRealTimers()
})

const open = (search = '') =>
  renderInApp(
    <MemoryRouter initialEntries={[`/intelligentOperation/hdayRate${search}`]}>
      <HdayRatePage />
    </MemoryRouter>,
  )

describe('full-load hours page', () => {
  // The page's "last 7 days" ends on the browser's today: its clock is set, at a year's end, a
  // new year, a 29 February and the month after it, so the test passes on any day.
  it.each([
    ['2026-12-31T23:59:30', '2026-12-25', '2026-12-31'],
    ['2027-01-03T00:00:10', '2026-12-28', '2027-01-03'],
    ['2028-02-29T12:00:00', '2028-02-23', '2028-02-29'],
    ['2028-03-02T08:00:00', '2028-02-25', '2028-03-02'],
  ])(
    'ranks stations over the last 7 days and marks the flagged ones (at %s)',
    async (at, from, to) => {
      vi.useFakeTimers({ toFake: ['Date'], now: new Date(at) })
      open()
      const flagged = await screen.findByTestId('hday-row-5')
      expect(flagged.getAttribute('data-flagged')).toBe('true')
      expect(screen.getByTestId('hday-row-6').getAttribute('data-flagged')).toBe('false')
      expect(flagged.textContent).toContain('-11.1%')
      expect(screen.getByTestId('hday-chart-station')).toBeTruthy()
      const call = calls.find((c) => c.path === '/hdayRate/pageStation')
      expect(call?.params.get('endDate')).toBe(to)
      expect(call?.params.get('startDate')).toBe(from)
      expect(call?.params.has('stationId')).toBe(false)
    },
  )

  it('asks for a station on the inverter tab, then pages its inverters', async () => {
    open()
    await screen.findByTestId('hday-row-5')
    fireEvent.click(screen.getByText('逆变器'))
    expect(await screen.findByTestId('hday-no-station')).toBeTruthy()
    cleanup()
    open('?stationId=5')
    await screen.findByTestId('hday-row-5')
    fireEvent.click(screen.getByText('逆变器'))
    expect(await screen.findByTestId('hday-row-51')).toBeTruthy()
    const call = calls.find((c) => c.path === '/hdayRate/pageInverter')
    expect(call?.params.get('stationId')).toBe('5')
  })

  it('refuses a non-negative threshold and saves a negative one', async () => {
    open()
    fireEvent.click(screen.getByTestId('hday-setting-btn'))
    const input = await screen.findByTestId('hday-setting-thresholdPct')
    await waitFor(() => expect((input as HTMLInputElement).value).toBe('-10'))
    fireEvent.change(input, { target: { value: '5' } })
    await act(async () => {
      fireEvent.click(screen.getByTestId('hday-setting-save'))
      await Promise.resolve()
    })
    expect(await screen.findByText('偏差阈值必须为负数')).toBeTruthy()
    expect(calls.some((c) => c.method === 'put')).toBe(false)
    fireEvent.change(input, { target: { value: '-12' } })
    await act(async () => {
      fireEvent.click(screen.getByTestId('hday-setting-save'))
      await Promise.resolve()
    })
    await waitFor(() =>
      expect(calls.find((c) => c.method === 'put')?.body).toEqual({
        thresholdPct: -12,
        minDays: 1,
      }),
    )
  })
})
