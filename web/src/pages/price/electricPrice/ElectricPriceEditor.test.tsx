import { act, cleanup, configure, fireEvent, screen, waitFor } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { configureRequest } from '../../../api/request'
import { clearDictCache } from '../../../hooks/useDict'
import i18n from '../../../locales/i18n'
import { useSessionStore } from '../../../stores/session'
import { mockHttp, ok, unmockHttp, type Call } from '../../../test/http'
import { renderInApp } from '../../../test/render'
import { ElectricPriceEditor } from '.'

// These screens load options and records in several steps; on a loaded 2-core machine the
// default 1 s wait of findBy/waitFor is too short (this file's worker only).
configure({ asyncUtilTimeout: 5000 })

const segmentTypes = [
  { dictKey: '1', dictValue: '尖' },
  { dictKey: '2', dictValue: '峰' },
  { dictKey: '3', dictValue: '平' },
  { dictKey: '4', dictValue: '谷' },
]
const stored = {
  stationId: '7',
  priceType: '2',
  fixedPrice: null,
  schedules: [
    {
      effectiveDate: '2025-01-01',
      segments: [
        { startTime: '00:00', endTime: '08:00', type: '4', price: 0.3 },
        { startTime: '08:00', endTime: '24:00', type: '2', price: 1.1 },
      ],
    },
  ],
}

let calls: Call[] = []
let refuse: string | null = null
const notifyError = vi.fn<(text: string) => void>()

beforeEach(async () => {
  await i18n.changeLanguage('zh')
  clearDictCache()
  refuse = null
  notifyError.mockReset()
  configureRequest({ notifyError })
  calls = mockHttp((path, call) => {
    if (path === '/electricPrice/getByStationId/7') return ok(stored)
    if (path === '/blade-system/dict/dictionary') return ok(segmentTypes)
    if (path === '/electricPrice' && call.method === 'put')
      return refuse ? { code: 400, success: false, data: null, msg: refuse } : ok(true)
    return ok(null)
  })
  act(() => useSessionStore.getState().setPermission({ electricPrice_edit: true }))
})

afterEach(() => {
  cleanup()
  unmockHttp()
})

const type = (testId: string, value: string) =>
  fireEvent.change(screen.getByTestId(testId), { target: { value } })
const puts = () => calls.filter((c) => c.method === 'put' && c.path === '/electricPrice')

describe('electric price editor', () => {
  it('shows the stored schedule and saves it back unchanged', async () => {
    renderInApp(<ElectricPriceEditor stationId="7" />)
    expect(await screen.findByTestId('price-date-0')).toBeTruthy()
    expect(screen.getByTestId<HTMLInputElement>('price-seg-0-1-start').value).toBe('08:00')
    fireEvent.click(screen.getByTestId('price-save'))
    await waitFor(() => expect(puts()).toHaveLength(1))
    expect(puts()[0].body).toEqual({ stationId: '7', priceType: '2', schedules: stored.schedules })
    expect(await screen.findByText('保存成功')).toBeTruthy()
  })

  it('shows a gap at its date and sends nothing', async () => {
    renderInApp(<ElectricPriceEditor stationId="7" />)
    await screen.findByTestId('price-date-0')
    type('price-seg-0-1-end', '22:00')
    fireEvent.click(screen.getByTestId('price-save'))
    const issues = await screen.findByTestId('price-date-0-issues')
    expect(issues.textContent).toContain('2025-01-01：时段未覆盖全天，缺少 22:00-24:00')
    expect(puts()).toHaveLength(0)

    type('price-seg-0-1-end', '24:00')
    await waitFor(() => expect(screen.queryByTestId('price-date-0-issues')).toBeNull())
  })

  it('reports an overlap', async () => {
    renderInApp(<ElectricPriceEditor stationId="7" />)
    await screen.findByTestId('price-date-0')
    type('price-seg-0-0-end', '09:00')
    fireEvent.click(screen.getByTestId('price-save'))
    expect((await screen.findByTestId('price-date-0-issues')).textContent).toContain(
      '时段重叠：00:00-09:00 与 08:00-24:00',
    )
    expect(puts()).toHaveLength(0)
  })

  it('disables adding a sixth segment', async () => {
    renderInApp(<ElectricPriceEditor stationId="7" />)
    await screen.findByTestId('price-date-0')
    for (let n = 0; n < 3; n++) fireEvent.click(screen.getByTestId('price-seg-add-0'))
    expect(screen.getByTestId('price-seg-0-4-start')).toBeTruthy()
    expect(screen.getByTestId<HTMLButtonElement>('price-seg-add-0').disabled).toBe(true)
    expect(screen.queryByTestId('price-seg-0-5-start')).toBeNull()
  })

  it('disables adding an eleventh date', async () => {
    renderInApp(<ElectricPriceEditor stationId="7" />)
    await screen.findByTestId('price-date-0')
    for (let n = 0; n < 9; n++) fireEvent.click(screen.getByTestId('price-date-add'))
    expect(screen.getByTestId('price-date-9')).toBeTruthy()
    expect(screen.getByTestId<HTMLButtonElement>('price-date-add').disabled).toBe(true)
    // New dates start blank: saving names the missing date instead of sending.
    fireEvent.click(screen.getByTestId('price-save'))
    expect((await screen.findByTestId('price-date-1-issues')).textContent).toContain(
      '第2个日期：请选择生效日期',
    )
    expect(puts()).toHaveLength(0)
  })

  it('saves a fixed price and shows the server refusal', async () => {
    renderInApp(<ElectricPriceEditor stationId="7" />)
    await screen.findByTestId('price-date-0')
    fireEvent.click(screen.getByText('固定电价'))
    fireEvent.click(await screen.findByTestId('price-save'))
    expect((await screen.findByTestId('price-issues')).textContent).toContain(
      '固定电价：请输入正确的数字',
    )
    type('price-fixed', '0.45')
    refuse = '电站不存在'
    fireEvent.click(screen.getByTestId('price-save'))
    await waitFor(() => expect(notifyError).toHaveBeenCalledWith('电站不存在'))
    expect(puts()[0].body).toEqual({
      stationId: '7',
      priceType: '1',
      fixedPrice: 0.45,
      effectiveDate: null,
      schedules: [],
    })
  })

  it('is read-only without the edit permission', async () => {
    act(() => useSessionStore.getState().setPermission({}))
    renderInApp(<ElectricPriceEditor stationId="7" />)
    await screen.findByTestId('price-date-0')
    expect(screen.queryByTestId('price-save')).toBeNull()
    expect(screen.getByText('无电价设置权限，仅可查看')).toBeTruthy()
  })
})
