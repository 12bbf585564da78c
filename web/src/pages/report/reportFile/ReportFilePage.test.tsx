import { act, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { MemoryRouter } from 'react-router-dom'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { sizeText } from '../../../api/report/files'
import i18n from '../../../locales/i18n'
import { useSessionStore } from '../../../stores/session'
import { mockHttp, ok, page, unmockHttp, type Call } from '../../../test/http'
import { renderInApp } from '../../../test/render'
import ReportFilePage from '.'

const file = {
  id: '71',
  name: 'Sunny-2026-10-月报',
  stationId: '5',
  stationName: 'Sunny',
  kind: 'monthly',
  period: '2026-10',
  fileSize: 12_800,
  createTime: '2026-11-01 00:05:00',
}

let calls: Call[] = []

beforeEach(async () => {
  await i18n.changeLanguage('zh')
  useSessionStore.setState({ permission: {} })
  calls = mockHttp((path, call) => {
    if (path.endsWith('/listStationNameAndId')) return ok([{ id: '5', name: 'Sunny' }])
    if (path === '/blade-report/report/rest/list') return page([file])
    if (path === '/blade-report/report/rest/generate')
      return ok({ ...file, id: '72', period: (call.body as { period: string }).period })
    if (path === '/blade-report/report/rest/remove') return ok(true)
    return undefined
  })
})

afterEach(() => {
  unmockHttp()
  useSessionStore.setState({ permission: {} })
})

const open = () =>
  renderInApp(
    <MemoryRouter>
      <ReportFilePage />
    </MemoryRouter>,
  )

describe('report files page', () => {
  it('lists files with station, month, name, size and creation time', async () => {
    open()
    const table = await screen.findByTestId('report-file-table')
    await waitFor(() => expect(within(table).getByText('Sunny-2026-10-月报')).toBeTruthy())
    const row = within(table).getByText('Sunny-2026-10-月报').closest('tr')
    expect(row?.textContent).toContain('Sunny')
    expect(row?.textContent).toContain('2026-10')
    expect(row?.textContent).toContain('12.5 KB')
    expect(row?.textContent).toContain('2026-11-01 00:05:00')
    expect(within(table).getAllByText('文件名').length).toBeGreaterThan(0)
    const list = calls.find((c) => c.path === '/blade-report/report/rest/list')
    expect(list?.params.toString()).toBe('current=1&size=10')
  })

  it('hides delete without the reportFile_delete button, and deletes with it', async () => {
    open()
    await screen.findByTestId('report-file-download-71')
    expect(screen.queryByTestId('report-file-delete-71')).toBeNull()
    act(() => useSessionStore.setState({ permission: { reportFile_delete: true } }))
    fireEvent.click(await screen.findByTestId('report-file-delete-71'))
    // antd spaces a two-character Chinese button label: 确 定.
    fireEvent.click(await screen.findByText('确 定'))
    await waitFor(() =>
      expect(calls.some((c) => c.path === '/blade-report/report/rest/remove')).toBe(true),
    )
    const remove = calls.find((c) => c.path === '/blade-report/report/rest/remove')
    expect(remove?.method).toBe('post')
    expect(remove?.params.get('ids')).toBe('71')
  })

  it('generates a station month on demand once a station is chosen', async () => {
    open()
    const generate = await screen.findByTestId('report-file-generate')
    expect(generate.hasAttribute('disabled')).toBe(true)
    const select = within(screen.getByTestId('report-file-station')).getByRole('combobox')
    fireEvent.mouseDown(select)
    fireEvent.click(await screen.findByTitle('Sunny'))
    await waitFor(() => expect(generate.hasAttribute('disabled')).toBe(false))
    fireEvent.click(generate)
    await waitFor(() =>
      expect(calls.some((c) => c.path === '/blade-report/report/rest/generate')).toBe(true),
    )
    const call = calls.find((c) => c.path === '/blade-report/report/rest/generate')
    expect(call?.method).toBe('post')
    expect((call?.body as { stationId: string }).stationId).toBe('5')
    expect((call?.body as { period: string }).period).toMatch(/^\d{4}-\d{2}$/)
  })

  it('speaks English', async () => {
    await i18n.changeLanguage('en')
    open()
    const table = await screen.findByTestId('report-file-table')
    expect(within(table).getAllByText('File name').length).toBeGreaterThan(0)
    expect(screen.getByText('Generate now')).toBeTruthy()
  })

  it('writes sizes for people', () => {
    expect(sizeText(900)).toBe('900 B')
    expect(sizeText(12_800)).toBe('12.5 KB')
    expect(sizeText(3 * 1024 * 1024)).toBe('3.0 MB')
    expect(sizeText(-1)).toBe('—')
  })
})
