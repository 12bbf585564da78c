import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import i18n from '../../../locales/i18n'
import { mockHttp, ok, unmockHttp, type Call } from '../../../test/http'
import { renderInApp } from '../../../test/render'
import PlantMappingDialog from './PlantMappingDialog'
import PollStateTag from './PollStateTag'

const plant = (over: Record<string, unknown> = {}) => ({
  plantId: 'NE=1001',
  name: 'Rooftop 50 kWp',
  capacityKwp: 50,
  address: 'Shenzhen',
  stationId: null,
  stationName: null,
  deviceCount: 2,
  backfilledUntil: null,
  backfillPercent: null,
  ...over,
})

let calls: Call[] = []
let mapped = false

beforeEach(async () => {
  await i18n.changeLanguage('zh')
  mapped = false
  calls = mockHttp((path, call) => {
    if (path === '/station/listStationNameAndId') return ok([{ id: '5', name: 'Sunny' }])
    if (path === '/inverterThird/plants')
      return ok([
        mapped
          ? plant({
              stationId: '5',
              stationName: 'Sunny',
              backfilledUntil: '2026-11-29 08:00:00',
              backfillPercent: 40,
            })
          : plant(),
      ])
    if (path === '/inverterThird/map') {
      mapped = (call.body as { stationId: string | null }).stationId !== null
      return ok(true)
    }
    if (path === '/inverterThird/status')
      return ok({
        state: 'throttled',
        lastOk: '2026-11-29 09:55:00',
        lastError: 'failCode 407: ACCESS_FREQUENCY_IS_TOO_HIGH',
        errorSince: '2026-11-29 10:00:00',
        pausedUntil: '2026-11-29 10:01:00',
        requestsToday: 42,
        limits: { requestsPerMinute: 10, requestsPerDay: null },
        plants: 1,
        mappedPlants: 1,
      })
    return undefined
  })
})

afterEach(() => {
  cleanup()
  unmockHttp()
})

const open = () =>
  renderInApp(
    <PlantMappingDialog
      account={{ id: '31', platform: '1', account: 'northbound_api' }}
      onClose={() => undefined}
    />,
  )

describe('plant mapping dialog', () => {
  it('lists the vendor plants asking the vendor, with their device counts', async () => {
    open()
    const row = await screen.findByTestId('vendor-plant-NE=1001')
    expect(row.textContent).toContain('Rooftop 50 kWp')
    expect(row.textContent).toContain('未映射')
    expect(screen.getByTestId('vendor-plant-facts-NE=1001').textContent).toContain('设备数: 2')
    const list = calls.find((c) => c.path === '/inverterThird/plants')
    expect(list?.params.get('id')).toBe('31')
    expect(list?.params.has('cached')).toBe(false)
    expect(screen.queryByTestId('vendor-plant-backfill-NE=1001')).toBeNull()
  })

  it('maps a plant to a station and shows the backfill progress, then unmaps it', async () => {
    open()
    await screen.findByTestId('vendor-plant-NE=1001')
    const select = within(screen.getByTestId('vendor-plant-station-NE=1001')).getByRole('combobox')
    fireEvent.mouseDown(select)
    fireEvent.click(await screen.findByTitle('Sunny'))
    await waitFor(() => expect(calls.some((c) => c.path === '/inverterThird/map')).toBe(true))
    const map = calls.find((c) => c.path === '/inverterThird/map')
    expect(map?.method).toBe('post')
    expect(map?.body).toEqual({ id: '31', plantId: 'NE=1001', stationId: '5' })
    const progress = await screen.findByTestId('vendor-plant-backfill-NE=1001')
    expect(progress.textContent).toContain('40%')
    expect(progress.textContent).toContain('已补至 2026-11-29 08:00:00')
    // The refresh after the map reads the stored list (no second vendor round).
    expect(
      calls
        .filter((c) => c.path === '/inverterThird/plants')
        .at(-1)
        ?.params.get('cached'),
    ).toBe('true')

    fireEvent.click(screen.getByTestId('vendor-plant-unmap-NE=1001'))
    await waitFor(() =>
      expect(calls.filter((c) => c.path === '/inverterThird/map').at(-1)?.body).toEqual({
        id: '31',
        plantId: 'NE=1001',
        stationId: null,
      }),
    )
  })

  it('speaks English', async () => {
    await i18n.changeLanguage('en')
    open()
    const row = await screen.findByTestId('vendor-plant-NE=1001')
    expect(row.textContent).toContain('Not mapped')
    expect(screen.getByText('Plant mapping: northbound_api')).toBeTruthy()
  })
})

describe('poll state tag', () => {
  it('shows the state and, on hover, the last error and the quota', async () => {
    renderInApp(<PollStateTag id="31" state="throttled" />)
    const tag = screen.getByTestId('poll-state-31')
    expect(tag.textContent).toBe('限流中')
    fireEvent.mouseEnter(tag)
    const tip = await screen.findByTestId('poll-status-31')
    await waitFor(() => expect(tip.textContent).toContain('ACCESS_FREQUENCY_IS_TOO_HIGH'))
    expect(tip.textContent).toContain('今日请求 42 次（上限 10 次/分钟）')
    expect(calls.find((c) => c.path === '/inverterThird/status')?.params.get('id')).toBe('31')
  })
})
