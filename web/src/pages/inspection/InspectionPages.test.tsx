import { act, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { MemoryRouter, Route, Routes, useLocation } from 'react-router-dom'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import i18n from '../../locales/i18n'
import { useSessionStore } from '../../stores/session'
import { mockHttp, ok, page, unmockHttp, type Call } from '../../test/http'
import { renderInApp } from '../../test/render'
import InspectionItemPage from './item'
import EditInspectionPlanPage from './plan/edit'
import InspectionRecordDetailPage from './record/detail'
import InspectionTaskPage from './task'
import InspectionTaskDetailPage from './task/detail'

const task = {
  id: '1',
  planId: '2',
  planName: '日常巡检',
  stationId: '3',
  stationName: '阳光屋顶',
  dueDate: '2026-11-26',
  status: '0',
  statusName: '未填写',
  overdue: true,
  maintenanceIds: ['10'],
  maintenanceNames: ['巡检员'],
  recordId: null,
  items: [
    { itemId: '5', title: '逆变器', checkItems: ['外观', '风扇'] },
    { itemId: '6', title: '汇流箱', checkItems: ['端子'] },
  ],
}
const record = {
  id: '11',
  taskId: '1',
  planId: '2',
  planName: '日常巡检',
  stationId: '3',
  stationName: '阳光屋顶',
  dueDate: '2026-11-26',
  status: '1',
  runSituation: '2',
  runSituationName: '异常',
  filledByName: '巡检员',
  filledTime: '2026-11-26 09:00:00',
  abnormalCount: 1,
  results: [
    { itemId: '5', itemTitle: '逆变器', check: '外观', result: '1', photos: [], repairId: null },
    {
      itemId: '6',
      itemTitle: '汇流箱',
      check: '端子',
      result: '2',
      note: '端子发热',
      photos: ['/oss/a.png'],
      repairId: null,
    },
  ],
}

let calls: Call[] = []
let answer: (path: string, call: Call) => unknown

beforeEach(async () => {
  await i18n.changeLanguage('zh')
  answer = () => ok([])
  calls = mockHttp((path, call) => answer(path, call))
  act(() => {
    useSessionStore.getState().setPermission({
      inspectionItem_add: true,
      inspectionItem_edit: true,
      inspectionItem_delete: true,
      inspectionTask_fill: true,
      inspectionTask_delete: true,
    })
    useSessionStore.getState().setUserInfo({
      ...(useSessionStore.getState().userInfo ?? ({} as never)),
      user_id: '10',
      role_name: 'maintenance',
    })
  })
})

afterEach(() => unmockHttp())

function Where() {
  const l = useLocation()
  return <div data-testid="where">{l.pathname + l.search}</div>
}

const renderAt = (path: string, node: React.ReactNode) =>
  renderInApp(
    <MemoryRouter initialEntries={[path]}>
      <Routes>
        <Route path={path.split('?')[0]} element={node} />
        <Route path="*" element={<Where />} />
      </Routes>
    </MemoryRouter>,
  )

describe('inspection items', () => {
  it('refuses a new item without a title or a check, then sends the checks typed', async () => {
    answer = (path, call) => {
      if (path === '/inspectItem/page') return page([])
      if (path === '/inspectItem' && call.method === 'post')
        return ok({ id: '7', title: '逆变器', checkItems: ['外观', '风扇'] })
      return ok(null)
    }
    renderAt('/intelligentOperation/inspectionItem', <InspectionItemPage />)
    fireEvent.click(await screen.findByTestId('item-add'))
    fireEvent.click(await screen.findByTestId('item-submit'))
    expect(await screen.findByText('请输入巡检项标题')).toBeTruthy()
    expect(await screen.findByText('请至少添加一个检查项')).toBeTruthy()
    expect(calls.some((c) => c.method === 'post')).toBe(false)

    fireEvent.change(screen.getByTestId('item-title'), { target: { value: ' 逆变器 ' } })
    fireEvent.change(screen.getByTestId('item-check-0'), { target: { value: '外观' } })
    fireEvent.click(screen.getByTestId('item-check-add'))
    fireEvent.change(await screen.findByTestId('item-check-1'), { target: { value: '风扇' } })
    fireEvent.click(screen.getByTestId('item-check-add'))
    fireEvent.click(screen.getByTestId('item-submit'))
    await waitFor(() =>
      expect(calls.find((c) => c.method === 'post')?.body).toEqual({
        title: '逆变器',
        checkItems: ['外观', '风扇'],
      }),
    )
  })

  it('deletes a row after a confirm and shows the server message', async () => {
    answer = (path, call) => {
      if (path === '/inspectItem/page')
        return page([{ id: '7', title: '逆变器', checkItems: ['外观'] }])
      if (call.method === 'delete') return { code: 200, success: true, data: true, msg: '删除成功' }
      return ok(null)
    }
    renderAt('/intelligentOperation/inspectionItem', <InspectionItemPage />)
    fireEvent.click(await screen.findByTestId('item-row-delete'))
    fireEvent.click(await screen.findByTestId('inspection-delete-ok'))
    await waitFor(() => expect(calls.some((c) => c.method === 'delete')).toBe(true))
    expect(calls.find((c) => c.method === 'delete')?.path).toBe('/inspectItem/7')
    expect(await screen.findByText('删除成功')).toBeTruthy()
  })
})

describe('inspection tasks', () => {
  it('on a phone each task is a card, overdue marked, opening its detail', async () => {
    answer = (path) => (path === '/inspectTask/page' ? page([task]) : ok([]))
    renderAt('/intelligentOperation/inspectionTask', <InspectionTaskPage />)
    const card = await screen.findByTestId('task-card')
    expect(within(card).getByTestId('task-overdue')).toBeTruthy()
    fireEvent.click(card)
    expect((await screen.findByTestId('where')).textContent).toBe(
      '/intelligentOperation/inspectionTask-detail?id=1',
    )
  })

  it('the fill form needs a result for every check and a note for an abnormal one', async () => {
    answer = (path, call) => {
      if (path === '/inspectTask/1') return ok(task)
      if (path === '/inspectRecord' && call.method === 'post') return ok({ ...record, results: [] })
      return ok(null)
    }
    renderAt('/intelligentOperation/inspectionTask-detail?id=1', <InspectionTaskDetailPage />)
    const cards = await screen.findAllByTestId('fill-check')
    expect(cards).toHaveLength(3)
    fireEvent.click(screen.getByTestId('fill-submit'))
    expect(calls.some((c) => c.method === 'post')).toBe(false)

    fireEvent.click(within(cards[0]).getByTestId('fill-normal'))
    fireEvent.click(within(cards[1]).getByTestId('fill-normal'))
    fireEvent.click(within(cards[2]).getByTestId('fill-abnormal'))
    expect(screen.getByTestId('fill-run').getAttribute('data-value')).toBe('2')
    fireEvent.click(screen.getByTestId('fill-submit'))
    expect(await screen.findByTestId('fill-note-error')).toBeTruthy()
    expect(calls.some((c) => c.method === 'post')).toBe(false)

    const input = within(cards[2]).getByTestId('fill-photo-input')
    expect(input.getAttribute('accept')).toBe('image/*')
    expect(input.getAttribute('capture')).toBe('environment')
    fireEvent.change(within(cards[2]).getByTestId('fill-note'), { target: { value: '端子发热' } })
    fireEvent.click(screen.getByTestId('fill-submit'))
    await waitFor(() =>
      expect(calls.find((c) => c.path === '/inspectRecord')?.body).toEqual({
        taskId: '1',
        runSituation: '2',
        results: [
          { itemId: '5', check: '外观', result: '1' },
          { itemId: '5', check: '风扇', result: '1' },
          { itemId: '6', check: '端子', result: '2', note: '端子发热' },
        ],
      }),
    )
    expect((await screen.findByTestId('where')).textContent).toBe(
      '/intelligentOperation/inspectionRecord-detail?id=11',
    )
  })

  it('uploads a photo through put-image and shows its thumbnail', async () => {
    answer = (path) => {
      if (path === '/inspectTask/1') return ok(task)
      if (path === '/blade-resource/oss/endpoint/put-image') return ok({ link: '/oss/p.png' })
      return ok(null)
    }
    renderAt('/intelligentOperation/inspectionTask-detail?id=1', <InspectionTaskDetailPage />)
    const cards = await screen.findAllByTestId('fill-check')
    fireEvent.click(within(cards[2]).getByTestId('fill-abnormal'))
    const file = new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], 'p.png', {
      type: 'image/png',
    })
    fireEvent.change(within(cards[2]).getByTestId('fill-photo-input'), {
      target: { files: [file] },
    })
    expect(await within(cards[2]).findByTestId('fill-thumb')).toBeTruthy()
    expect(calls.filter((c) => c.path === '/blade-resource/oss/endpoint/put-image')).toHaveLength(1)
  })

  it('no fill form for a user who is not on the task', async () => {
    act(() =>
      useSessionStore.getState().setUserInfo({
        ...(useSessionStore.getState().userInfo ?? ({} as never)),
        user_id: '99',
        role_name: 'maintenance',
      }),
    )
    answer = (path) => (path === '/inspectTask/1' ? ok(task) : ok(null))
    renderAt('/intelligentOperation/inspectionTask-detail?id=1', <InspectionTaskDetailPage />)
    await screen.findByTestId('inspection-task-detail')
    expect(screen.queryByTestId('fill-form')).toBeNull()
    expect(screen.getByText('该任务未填写；只有该任务的运维人员或管理员可以填写。')).toBeTruthy()
  })
})

describe('inspection records', () => {
  it('an abnormal result opens a repair order in one tap, then its detail', async () => {
    answer = (path, call) => {
      if (path === '/inspectRecord/11') return ok(record)
      if (path === '/repair' && call.method === 'post') return ok({ id: '77' })
      return ok(null)
    }
    renderAt('/intelligentOperation/inspectionRecord-detail?id=11', <InspectionRecordDetailPage />)
    const buttons = await screen.findAllByTestId('record-result-repair')
    expect(buttons).toHaveLength(1)
    fireEvent.click(buttons[0])
    await waitFor(() =>
      expect(calls.find((c) => c.path === '/repair')?.body).toEqual({
        inspectRecordId: '11',
        inspectResultIndex: 1,
        stationId: '3',
        title: '汇流箱：端子',
        description: '端子发热',
      }),
    )
    expect((await screen.findByTestId('where')).textContent).toBe(
      '/intelligentOperation/repair-detail?id=77',
    )
  })

  it('a result with an order links it instead', async () => {
    answer = (path) =>
      path === '/inspectRecord/11'
        ? ok({ ...record, results: [{ ...record.results[1], repairId: '77' }] })
        : ok(null)
    renderAt('/intelligentOperation/inspectionRecord-detail?id=11', <InspectionRecordDetailPage />)
    const link = await screen.findByTestId('record-result-repair-link')
    expect(link.getAttribute('href')).toBe('/intelligentOperation/repair-detail?id=77')
    expect(screen.queryByTestId('record-result-repair')).toBeNull()
    expect(screen.getByTestId('record-run').getAttribute('data-value')).toBe('2')
  })
})

describe('inspection plan form', () => {
  it('says what is missing before anything is sent', async () => {
    answer = (path) => {
      if (path === '/station/listStationNameAndId') return ok([{ id: '3', name: '阳光屋顶' }])
      return ok([])
    }
    renderAt('/intelligentOperation/edit-inspectionPlan', <EditInspectionPlanPage />)
    fireEvent.click(await screen.findByTestId('plan-submit'))
    for (const text of [
      '请输入计划名称',
      '请至少选择一个电站',
      '请至少选择一个巡检项',
      '请至少选择一个运维人员',
      '请选择巡检周期',
    ]) {
      expect(await screen.findByText(text)).toBeTruthy()
    }
    expect(calls.some((c) => c.method === 'post')).toBe(false)
  })
})
