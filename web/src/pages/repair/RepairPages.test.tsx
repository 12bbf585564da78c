import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { MemoryRouter, Route, Routes, useLocation } from 'react-router-dom'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import i18n from '../../locales/i18n'
import { useLayoutStore } from '../../stores/layout'
import { useSessionStore } from '../../stores/session'
import { mockHttp, ok, page, unmockHttp, type Call } from '../../test/http'
import { renderInApp } from '../../test/render'
import RepairDetailPage from './detail'
import RepairListPage from './list'

const order = (over: Record<string, unknown> = {}) => ({
  id: '101',
  code: 'WO202611260001',
  title: 'INV-01 电网掉电',
  description: '逆变器报电网掉电',
  stationId: '1',
  stationName: '阳光屋顶',
  deviceId: '11',
  deviceName: 'INV-01',
  alarmId: '9',
  alarmName: '电网掉电',
  source: '2',
  level: 3,
  status: 2,
  statusName: '待受理',
  assigneeId: '77',
  assigneeName: '张工',
  creatorName: 'admin',
  photos: [],
  finishPhotos: [],
  rating: null,
  responseDeadline: '2026-11-26 12:00:00',
  repairDeadline: '2026-11-27 08:00:00',
  responseOverdue: false,
  repairOverdue: false,
  createTime: '2026-11-26 08:00:00',
  actions: ['accept', 'transfer', 'cancel'],
  logs: [
    { action: 'create', fromStatus: null, toStatus: 1, userName: 'admin', createTime: 't1' },
    { action: 'assign', fromStatus: 1, toStatus: 2, userName: 'admin', createTime: 't2' },
  ],
  ...over,
})

function Where() {
  const { pathname, search } = useLocation()
  return <div data-testid="where">{pathname + search}</div>
}

const at = (width: number) =>
  act(() => {
    Object.defineProperty(window, 'innerWidth', {
      configurable: true,
      writable: true,
      value: width,
    })
    useLayoutStore.getState().setScreen(width)
  })

let calls: Call[]
let current = order()

beforeEach(async () => {
  await i18n.changeLanguage('zh')
  current = order()
  useSessionStore.getState().setPermission({ repair_add: true, repair_setting: true })
  calls = mockHttp((path, call) => {
    if (path === '/repair/page')
      return page([order(), order({ id: '102', code: 'WO202611260002', repairOverdue: true })])
    if (path === '/repair/stats')
      return ok({
        open: 2,
        overdue: 1,
        completed30d: 4,
        mttrHours: 3.25,
        stations: [
          { stationId: '1', stationName: '阳光屋顶', open: 2, overdue: 1, mttrHours: 3.25 },
        ],
      })
    if (path === '/repair/101') return ok(current)
    if (path === '/repair/accept') {
      current = order({
        status: 3,
        actions: ['start', 'transfer', 'cancel'],
        logs: [
          ...order().logs,
          { action: 'accept', fromStatus: 2, toStatus: 3, userName: '张工', createTime: 't3' },
        ],
      })
      expect(call.body).toEqual({ id: '101' })
      return ok(current)
    }
    if (path === '/repair/finish') {
      current = order({
        status: 5,
        actions: [],
        workDone: (call.body as { workDone: string }).workDone,
      })
      return ok(current)
    }
    if (path === '/blade-resource/oss/endpoint/put-image')
      return ok({ link: '/oss/photo-1.png', name: 'p', originalName: 'p.png', attachId: '1' })
    if (path === '/repair/statusList') return ok([])
    return ok([])
  })
})

afterEach(() => {
  cleanup()
  unmockHttp()
  at(1024)
})

const renderAt = (path: string, element: React.ReactNode) =>
  renderInApp(
    <MemoryRouter initialEntries={[path]}>
      <Routes>
        <Route path="/intelligentOperation/repair" element={element} />
        <Route path="/intelligentOperation/repair-detail" element={element} />
        <Route path="*" element={<Where />} />
      </Routes>
      <Where />
    </MemoryRouter>,
  )

describe('repair list', () => {
  it('shows the figures, the orders in a table with overdue rows highlighted, and opens one', async () => {
    at(1280)
    renderAt('/intelligentOperation/repair', <RepairListPage />)
    const table = await screen.findByTestId('repair-table')
    await waitFor(() => expect(table.querySelectorAll('tr[data-repair-id]').length).toBe(2))
    const rows = table.querySelectorAll('tr[data-repair-id]')
    expect(rows[0].className).not.toContain('repair-overdue')
    expect(rows[1].className).toContain('repair-overdue')
    expect(within(rows[0] as HTMLElement).getByTestId('repair-row-status').textContent).toBe(
      '待受理',
    )
    await waitFor(() =>
      expect(screen.getByTestId('repair-stat-mttr').getAttribute('data-value')).toBe('3.3'),
    )
    expect(screen.getByTestId('repair-stat-overdue').getAttribute('data-value')).toBe('1')
    expect(screen.getByTestId('repair-new')).toBeTruthy()
    expect(screen.getByTestId('repair-setting')).toBeTruthy()
    fireEvent.click(within(rows[0] as HTMLElement).getByTestId('repair-row-code'))
    await waitFor(() =>
      expect(screen.getAllByTestId('where').at(-1)?.textContent).toBe(
        '/intelligentOperation/repair-detail?id=101',
      ),
    )
  })

  it('sends the filters: overdue and mine from the URL', async () => {
    at(1280)
    renderAt('/intelligentOperation/repair?overdue=true&mine=true', <RepairListPage />)
    await screen.findByTestId('repair-table')
    await waitFor(() => expect(calls.some((c) => c.path === '/repair/page')).toBe(true))
    const call = calls.find((c) => c.path === '/repair/page')
    expect(call?.params.get('overdue')).toBe('true')
    expect(call?.params.get('mine')).toBe('true')
  })

  it('renders cards on a phone, without the buttons its permissions lack', async () => {
    useSessionStore.getState().setPermission({})
    at(390)
    renderAt('/intelligentOperation/repair', <RepairListPage />)
    const cards = await screen.findAllByTestId('repair-card')
    expect(cards.map((c) => c.dataset.overdue)).toEqual(['false', 'true'])
    expect(screen.queryByTestId('repair-table')).toBeNull()
    expect(screen.queryByTestId('repair-new')).toBeNull()
    expect(screen.queryByTestId('repair-setting')).toBeNull()
  })
})

describe('repair detail', () => {
  it('shows the order and its timeline; a button per action; accept moves it on', async () => {
    at(1280)
    renderAt('/intelligentOperation/repair-detail?id=101', <RepairDetailPage />)
    const detail = await screen.findByTestId('repair-detail-101')
    expect(detail.dataset.status).toBe('2')
    expect(screen.getByTestId('repair-code').textContent).toBe('WO202611260001')
    expect(screen.getAllByTestId('repair-log').map((l) => l.dataset.action)).toEqual([
      'assign',
      'create',
    ])
    expect(screen.getByTestId('repair-do-accept').className).toContain('ant-btn-primary')
    expect(screen.getByTestId('repair-do-transfer')).toBeTruthy()
    expect(screen.queryByTestId('repair-do-start')).toBeNull()
    fireEvent.click(screen.getByTestId('repair-do-accept'))
    fireEvent.click(await screen.findByTestId('repair-action-ok'))
    await waitFor(() => expect(screen.getByTestId('repair-detail-101').dataset.status).toBe('3'))
    expect(calls.some((c) => c.path === '/repair/accept' && c.method === 'post')).toBe(true)
    expect(await screen.findByTestId('repair-do-start')).toBeTruthy()
  })

  it('on a phone, finishes with the work done and a photo from the camera input', async () => {
    current = order({ status: 4, actions: ['finish', 'cancel'] })
    at(390)
    renderAt('/intelligentOperation/repair-detail?id=101', <RepairDetailPage />)
    await screen.findByTestId('repair-detail-101')
    const bar = screen.getByTestId('repair-actions')
    expect(bar.style.position).toBe('sticky')
    fireEvent.click(within(bar).getByTestId('repair-do-finish'))
    const input = await screen.findByTestId<HTMLInputElement>('repair-finish-photos-input')
    expect(input.getAttribute('accept')).toBe('image/*')
    expect(input.getAttribute('capture')).toBe('environment')
    const png = new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], 'p.png', { type: 'image/png' })
    fireEvent.change(input, { target: { files: [png] } })
    await waitFor(() => expect(screen.getByTestId('repair-finish-photos').dataset.count).toBe('1'))
    fireEvent.change(screen.getByTestId('repair-action-work'), { target: { value: '更换保险丝' } })
    fireEvent.click(screen.getByTestId('repair-action-ok'))
    await waitFor(() => expect(calls.some((c) => c.path === '/repair/finish')).toBe(true))
    expect(calls.find((c) => c.path === '/repair/finish')?.body).toEqual({
      id: '101',
      workDone: '更换保险丝',
      photos: ['/oss/photo-1.png'],
    })
    await waitFor(() => expect(screen.getByTestId('repair-detail-101').dataset.status).toBe('5'))
  })

  it('refuses to finish without the work done', async () => {
    current = order({ status: 4, actions: ['finish'] })
    at(1280)
    renderAt('/intelligentOperation/repair-detail?id=101', <RepairDetailPage />)
    fireEvent.click(await screen.findByTestId('repair-do-finish'))
    fireEvent.click(await screen.findByTestId('repair-action-ok'))
    expect(await screen.findByText('请填写维修内容')).toBeTruthy()
    expect(calls.some((c) => c.path === '/repair/finish')).toBe(false)
  })
})
