import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react'
import { MemoryRouter } from 'react-router-dom'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import i18n from '../../../locales/i18n'
import { useSessionStore } from '../../../stores/session'
import { mockHttp, ok, unmockHttp, type Call } from '../../../test/http'
import { renderInApp } from '../../../test/render'
import DiscreteRatePage from './index'

// echarts needs a canvas jsdom does not have; the option is checked in logic.test.ts.
vi.mock('../../../components/realtime/Chart', () => ({
  default: (props: { 'data-testid'?: string }) => <div data-testid={props['data-testid']} />,
}))

const strings = (currents: number[], deviations: number[]) =>
  currents.map((c, i) => ({
    index: i + 1,
    modules: 20,
    currentA: c,
    normalisedA: c,
    deviationPct: deviations[i],
  }))

const even = [8, 8, 8, 8, 8, 8]
const list = {
  date: '2026-11-23',
  setting: {
    excellentMax: 5,
    goodMax: 10,
    attentionMax: 20,
    minIrradianceWm2: 200,
    minPowerRatio: 0.1,
    shadingTolerant: false,
    poorDays: 3,
  },
  records: [
    {
      inverterId: 11,
      inverterName: 'INV-1',
      stationId: '1',
      stationName: 'S1',
      stringCount: 6,
      rate: 1.2,
      level: 'excellent',
      instants: 48,
      strings: strings(even, [0, 0, 0, 0, 0, 0]),
    },
    {
      inverterId: '12',
      inverterName: 'INV-2',
      stationId: '1',
      stationName: 'S1',
      stringCount: 6,
      rate: 24.5,
      level: 'poor',
      instants: 48,
      strings: strings([8.8, 8.8, 8.8, 8.8, 8.8, 3], [12, 12, 12, 12, 12, -62]),
    },
    {
      inverterId: '13',
      inverterName: 'INV-3',
      stationId: '1',
      stationName: 'S1',
      stringCount: 8,
      rate: null,
      level: 'none',
      instants: 0,
      strings: [],
    },
  ],
}

let calls: Call[] = []

beforeEach(async () => {
  await i18n.changeLanguage('zh')
  calls = mockHttp((path) => {
    if (path === '/station/listStationNameAndId') return ok([{ id: '1', name: 'S1' }])
    if (path === '/discreteRate/list') return ok(list)
    if (path === '/discreteRate/setting') return ok(list.setting)
    if (path === '/discreteRate/updateSetting') return ok(true)
    return undefined
  })
})

afterEach(() => {
  cleanup()
  unmockHttp()
  useSessionStore.getState().setPermission({})
})

const open = (search = '?stationId=1') =>
  renderInApp(
    <MemoryRouter initialEntries={[`/intelligentOperation/discreteRate${search}`]}>
      <DiscreteRatePage />
    </MemoryRouter>,
  )

describe('dispersion page', () => {
  it('asks for a station without one', () => {
    open('')
    expect(screen.getByTestId('dispersion-no-station')).toBeTruthy()
    expect(calls.some((c) => c.path === '/discreteRate/list')).toBe(false)
  })

  it('colours each inverter by its level and marks only the weak string of the poor one', async () => {
    open()
    const poor = await screen.findByTestId('dispersion-cell-12')
    const call = calls.find((c) => c.path === '/discreteRate/list')
    expect(call?.params.get('stationId')).toBe('1')
    expect(call?.params.has('date')).toBe(false)
    expect(poor.getAttribute('data-level')).toBe('poor')
    expect(poor.textContent).toContain('24.5%')
    expect(screen.getByTestId('dispersion-cell-11').getAttribute('data-level')).toBe('excellent')
    expect(screen.getByTestId('dispersion-cell-13').getAttribute('data-level')).toBe('none')
    expect(screen.getByTestId('dispersion-help').textContent).toContain('10:00–14:00')
    expect(screen.getByTestId('dispersion-legend').textContent).toContain('> 20%')

    fireEvent.click(poor)
    await screen.findByTestId('dispersion-string-table')
    expect(screen.getByTestId('dispersion-string-6').getAttribute('data-weak')).toBe('true')
    for (const i of [1, 2, 3, 4, 5])
      expect(screen.getByTestId(`dispersion-string-${i}`).getAttribute('data-weak')).toBe('false')
    expect(screen.getByTestId('dispersion-weak').textContent).toContain('PV6')

    fireEvent.click(screen.getByTestId('dispersion-cell-11'))
    await waitFor(() =>
      expect(screen.getByTestId('dispersion-string-6').getAttribute('data-weak')).toBe('false'),
    )
    expect(screen.getByTestId('dispersion-weak').textContent).toBe('无明显偏弱组串')
  })

  it('shows the settings button only with its permission', async () => {
    open()
    await screen.findByTestId('dispersion-cell-12')
    expect(screen.queryByTestId('dispersion-setting-btn')).toBeNull()
    cleanup()
    useSessionStore.getState().setPermission({ discreteRate_setting: true })
    open()
    expect(await screen.findByTestId('dispersion-setting-btn')).toBeTruthy()
  })

  it('refuses bounds out of order and saves valid ones', async () => {
    useSessionStore.getState().setPermission({ discreteRate_setting: true })
    open()
    fireEvent.click(await screen.findByTestId('dispersion-setting-btn'))
    const good = await screen.findByTestId('dispersion-setting-goodMax')
    await waitFor(() => expect((good as HTMLInputElement).value).toBe('10'))
    fireEvent.change(good, { target: { value: '4' } })
    await act(async () => {
      fireEvent.click(screen.getByTestId('dispersion-setting-save'))
      await Promise.resolve()
    })
    expect(await screen.findByText('良好上限必须大于优秀上限')).toBeTruthy()
    expect(calls.some((c) => c.path === '/discreteRate/updateSetting')).toBe(false)

    fireEvent.change(good, { target: { value: '12' } })
    await act(async () => {
      fireEvent.click(screen.getByTestId('dispersion-setting-save'))
      await Promise.resolve()
    })
    await waitFor(() =>
      expect(calls.find((c) => c.path === '/discreteRate/updateSetting')?.body).toEqual({
        ...list.setting,
        goodMax: 12,
      }),
    )
  })
})
