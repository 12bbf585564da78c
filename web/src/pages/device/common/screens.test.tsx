import { act, cleanup, configure, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { configureRequest } from '../../../api/request'
import { clearDictCache } from '../../../hooks/useDict'
import i18n from '../../../locales/i18n'
import { useSessionStore } from '../../../stores/session'
import { mockHttp, ok, page, unmockHttp, type Call } from '../../../test/http'
import { renderInApp } from '../../../test/render'
import { CameraList } from '../camera'
import { InverterList } from '../inverter'
import InverterThirdPage from '../inverterThird'
import { StationPriceList } from '../../price/stationPrice'

// These screens load options and records in several steps; on a loaded 2-core machine the
// default 1 s wait of findBy/waitFor is too short (this file's worker only).
configure({ asyncUtilTimeout: 5000 })

let calls: Call[] = []
let answer: (path: string, call: Call) => unknown = () => undefined
const notifyError = vi.fn<(text: string) => void>()
const refused = (msg: string) => ({ code: 400, success: false, data: null, msg })

beforeEach(async () => {
  await i18n.changeLanguage('zh')
  clearDictCache()
  notifyError.mockReset()
  configureRequest({ notifyError })
  calls = mockHttp((path, call) => answer(path, call))
  act(() =>
    useSessionStore.getState().setPermission({
      inverter_add: true,
      inverter_edit: true,
      inverter_delete: true,
      inverterThird_add: true,
      inverterThird_edit: true,
      camera_view: true,
      stationPrice_add: true,
    }),
  )
})

afterEach(() => {
  cleanup()
  unmockHttp()
})

const type = (testId: string, value: string) =>
  fireEvent.change(screen.getByTestId(testId), { target: { value } })

describe('the inverter list', () => {
  it('shows each row’s live status and AC power, sortable', async () => {
    answer = (path, call) => {
      if (path === '/inverter/page')
        return page([
          { id: '1', name: 'INV-A', sn: 'A' },
          { id: '2', name: 'INV-B', sn: 'B' },
          { id: '3', name: 'INV-C', sn: 'C' },
        ])
      if (path === '/inverterReal/list' && call.method === 'post')
        return page([
          { id: '1', status: 'online', acPowerKw: 40 },
          { id: '2', status: 'offline', acPowerKw: 0 },
          { id: '3', status: 'fault', acPowerKw: 15.5 },
        ])
      return ok([])
    }
    renderInApp(<InverterList />)
    await screen.findByText('INV-A')
    const live = calls.find((c) => c.path === '/inverterReal/list')!
    expect(live.body).toMatchObject({ inverterIds: ['1', '2', '3'] })
    await waitFor(() => expect(screen.getAllByTestId('inverter-live-status')).toHaveLength(3))
    const statuses = () =>
      screen.getAllByTestId('inverter-live-status').map((el) => el.getAttribute('data-status'))
    expect(statuses()).toEqual(['online', 'offline', 'fault'])
    expect(screen.getByText('故障')).toBeTruthy()
    expect(screen.getByText(/^40(\.0+)?\s*kW$/)).toBeTruthy()
    // Sorted by power, ascending: offline (0), fault (15.5), online (40).
    const header = (text: string) =>
      screen.getAllByText(text).find((el) => el.closest('th')) as HTMLElement
    fireEvent.click(header('当前功率'))
    await waitFor(() => expect(statuses()).toEqual(['offline', 'fault', 'online']))
    // By status: faults first.
    fireEvent.click(header('状态'))
    await waitFor(() => expect(statuses()).toEqual(['fault', 'offline', 'online']))
  })
})

describe('inverters embedded in a station archive', () => {
  it('lists only that station, hides the station, and adds to it; a duplicate SN shows the server message', async () => {
    answer = (path, call) => {
      if (path === '/inverter/page') return page([{ id: '1', name: '1#逆变器', sn: 'SN1' }])
      if (path === '/inverter' && call.method === 'post')
        return (call.body as { sn: string }).sn === 'SN1' ? refused('设备SN已存在：SN1') : ok('2')
      return ok([])
    }
    renderInApp(<InverterList stationId="7" />)
    await screen.findByText('1#逆变器')
    expect(calls[0].params.get('stationId')).toBe('7')
    expect(screen.queryByTestId('search-stationId')).toBeNull()
    expect(screen.queryByText('电站名称')).toBeNull()

    fireEvent.click(screen.getByTestId('crud-add'))
    const dialog = await screen.findByTestId('crud-form')
    expect(within(dialog).queryByText('电站')).toBeNull()
    type('field-name', '2#逆变器')
    type('field-sn', 'SN1')
    type('field-stringsCount', '2')
    type('field-modulesPerString', '20,18')
    fireEvent.click(screen.getByTestId('crud-submit'))
    await waitFor(() => expect(notifyError).toHaveBeenCalledWith('设备SN已存在：SN1'))
    const post = calls.find((c) => c.method === 'post' && c.path === '/inverter')!
    expect(post.body).toMatchObject({
      stationId: '7',
      name: '2#逆变器',
      sn: 'SN1',
      stringsCount: 2,
      modulesPerString: [20, 18],
    })
    // The dialog stays open with what was typed.
    expect(screen.getByTestId<HTMLInputElement>('field-sn').value).toBe('SN1')

    type('field-sn', 'SN2')
    fireEvent.click(screen.getByTestId('crud-submit'))
    expect(await screen.findByText('新增成功')).toBeTruthy()
  })

  it('refuses modules per string that do not name every string', async () => {
    answer = (path) => (path === '/inverter/page' ? page([]) : ok([]))
    renderInApp(<InverterList stationId="7" />)
    fireEvent.click(await screen.findByTestId('crud-add'))
    await screen.findByTestId('crud-form')
    type('field-name', 'x')
    type('field-sn', 'SNX')
    type('field-stringsCount', '3')
    type('field-modulesPerString', '20,18')
    fireEvent.click(screen.getByTestId('crud-submit'))
    expect(await screen.findByText('每串组件数的个数（2）必须等于组串数（3）')).toBeTruthy()
    expect(calls.some((c) => c.method === 'post')).toBe(false)
  })
})

describe('third-party accounts', () => {
  it('never shows the stored password and keeps it when left blank', async () => {
    answer = (path, call) => {
      if (path === '/inverterThird/page')
        return page([{ id: '3', platform: '1', account: 'acc', passwordSet: true }])
      if (path === '/inverterThird' && call.method === 'put') return ok(true)
      return ok([])
    }
    renderInApp(<InverterThirdPage />)
    await screen.findByText('acc')
    fireEvent.click(screen.getByTestId('crud-row-edit'))
    const password = await screen.findByTestId<HTMLInputElement>('field-password')
    expect(password.value).toBe('')
    fireEvent.click(screen.getByTestId('crud-submit'))
    await waitFor(() => expect(calls.some((c) => c.method === 'put')).toBe(true))
    const body = calls.find((c) => c.method === 'put')!.body as Record<string, unknown>
    expect(body).toMatchObject({ id: '3', account: 'acc', platform: '1' })
    expect('password' in body).toBe(false)
  })
})

describe('camera live view', () => {
  it('says so when the brand has no live address', async () => {
    answer = (path) => {
      if (path === '/camera/page')
        return page([{ id: '9', name: '大门', sn: 'C9', cameraType: '2' }])
      if (path === '/camera/live/web/url') return refused('该品牌摄像头未配置直播地址')
      return ok([])
    }
    renderInApp(<CameraList stationId="7" />)
    await screen.findByText('大门')
    fireEvent.click(screen.getByTestId('crud-row-live'))
    expect((await screen.findByTestId('camera-live-error')).textContent).toContain(
      '该品牌摄像头未配置直播地址',
    )
    // Explained in the dialog, not as an error toast.
    expect(notifyError).not.toHaveBeenCalled()
  })

  it('shows the live address in a frame', async () => {
    answer = (path) => {
      if (path === '/camera/page')
        return page([{ id: '9', name: '大门', sn: 'C9', cameraType: '1' }])
      if (path === '/camera/live/web/url') return ok('https://open.example.com/live?sn=C9')
      return ok([])
    }
    renderInApp(<CameraList />)
    await screen.findByText('大门')
    fireEvent.click(screen.getByTestId('crud-row-live'))
    const frame = await screen.findByTestId<HTMLIFrameElement>('camera-live-frame')
    expect(frame.src).toBe('https://open.example.com/live?sn=C9')
    expect(calls.find((c) => c.path === '/camera/live/web/url')?.params.get('id')).toBe('9')
  })
})

describe('station prices', () => {
  it('shows the price in force and refreshes it after adding one', async () => {
    let last: unknown = null
    answer = (path, call) => {
      if (path === '/stationPrice/page') return page([])
      if (path === '/stationPrice/getLastPrice') return ok(last)
      if (path === '/stationPrice' && call.method === 'post') {
        last = { id: '5', price: 0.39, effectiveDate: '2025-03-01' }
        return ok('5')
      }
      return ok([])
    }
    renderInApp(<StationPriceList stationId="7" />)
    await waitFor(() =>
      expect(screen.getByTestId('station-last-price').textContent).toBe('暂无生效电价'),
    )
    fireEvent.click(screen.getByTestId('crud-add'))
    await screen.findByTestId('crud-form')
    const date = screen.getByTestId('field-effectiveDate')
    fireEvent.mouseDown(date)
    fireEvent.change(date, { target: { value: '2025-03-01' } })
    fireEvent.keyDown(date, { key: 'Enter', code: 'Enter' })
    type('field-price', '0.39')
    fireEvent.click(screen.getByTestId('crud-submit'))
    await waitFor(() =>
      expect(screen.getByTestId('station-last-price').textContent).toBe(
        '0.39 元/kWh（2025-03-01 起）',
      ),
    )
    expect(calls.find((c) => c.method === 'post')?.body).toMatchObject({
      stationId: '7',
      effectiveDate: '2025-03-01',
      price: 0.39,
    })
  })
})
