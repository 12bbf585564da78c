import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { mockHttp, ok, page, unmockHttp, type Call } from '../../test/http'
import {
  copyPlan,
  fillTask,
  maintenanceList,
  removeItems,
  repairFromResult,
  saveItem,
  taskDetail,
  taskPage,
  uploadPhoto,
} from './inspection'
import { recordFromWire, taskFromWire } from './wire'

let calls: Call[] = []
let answer: (path: string, call: Call) => unknown = () => ok(null)

beforeEach(() => {
  calls = mockHttp((path, call) => answer(path, call))
})
afterEach(() => unmockHttp())

describe('inspection calls', () => {
  it('adds an item with POST and changes it with PUT', async () => {
    answer = () => ok({ id: 5, title: 'T', checkItems: ['a'] })
    const added = await saveItem({ title: 'T', checkItems: ['a'] })
    expect(added.id).toBe('5')
    await saveItem({ id: '5', title: 'T', checkItems: ['a', 'b'] })
    expect(calls.map((c) => [c.method, c.path])).toEqual([
      ['post', '/inspectItem'],
      ['put', '/inspectItem'],
    ])
    expect(calls[1].body).toEqual({ id: '5', title: 'T', checkItems: ['a', 'b'] })
  })

  it('deletes several ids in one call and answers the server message', async () => {
    answer = () => ({ code: 200, success: true, data: true, msg: '删除成功' })
    expect(await removeItems(['1', '2'])).toBe('删除成功')
    expect(calls[0].method).toBe('delete')
    expect(calls[0].path).toBe('/inspectItem/1,2')
  })

  it('asks maintenance staff of the chosen stations (comma-joined)', async () => {
    answer = () => ok([{ id: 9, realName: '张三', account: 'zs', phone: null }])
    const staff = await maintenanceList(['3', '4'])
    expect(calls[0].path).toBe('/inspectPlan/maintenanceList')
    expect(calls[0].params.get('stationIds')).toBe('3,4')
    expect(staff).toEqual([{ id: '9', realName: '张三', account: 'zs', phone: null }])
  })

  it('copies a plan by id', async () => {
    answer = () => ok({ id: 8, name: 'P (副本)', status: 0 })
    const copy = await copyPlan('7')
    expect(calls[0].params.get('id')).toBe('7')
    expect(copy).toMatchObject({ id: '8', status: 0, stationIds: [] })
  })

  it('pages tasks with the filters and normalises them', async () => {
    answer = () => page([{ id: 1, planId: 2, status: '0', overdue: true, recordId: null }])
    const tasks = await taskPage({ current: 1, size: 10, mine: true })
    expect(calls[0].params.get('mine')).toBe('true')
    expect(tasks.records[0]).toMatchObject({ id: '1', planId: '2', overdue: true, recordId: null })
  })

  it('reads a task with its item snapshot', async () => {
    answer = () => ok({ id: 1, status: '0', items: [{ itemId: 3, title: 'A', checkItems: ['x'] }] })
    const task = await taskDetail('1')
    expect(calls[0].path).toBe('/inspectTask/1')
    expect(task.items).toEqual([{ itemId: '3', title: 'A', checkItems: ['x'] }])
  })

  it('fills a task with POST /inspectRecord', async () => {
    answer = () => ok({ id: 11, runSituation: '2', results: [] })
    const record = await fillTask({
      taskId: '1',
      runSituation: '2',
      results: [{ itemId: '3', check: 'x', result: '2', note: 'n' }],
    })
    expect(calls[0]).toMatchObject({ method: 'post', path: '/inspectRecord' })
    expect(record.id).toBe('11')
  })

  it('uploads a photo as multipart `file` to put-image', async () => {
    answer = () => ok({ link: '/oss/a.png', name: 'a.png' })
    const file = new File([new Uint8Array([0x89, 0x50])], 'a.png', { type: 'image/png' })
    const up = await uploadPhoto(file)
    expect(calls[0].path).toBe('/blade-resource/oss/endpoint/put-image')
    expect(calls[0].body).toBeInstanceOf(FormData)
    expect((calls[0].body as FormData).get('file')).toBeInstanceOf(File)
    expect(up.link).toBe('/oss/a.png')
  })

  it('opens a repair order from a result and answers its id (object or bare id)', async () => {
    const record = recordFromWire({
      id: '11',
      stationId: '3',
      planName: 'P',
      results: [
        { itemId: '5', itemTitle: '逆变器', check: '外观', result: '1' },
        { itemId: '6', itemTitle: '汇流箱', check: '端子', result: '2', note: ' 发热 ' },
      ],
    })
    answer = () => ok({ id: 77, code: 'WO202611260001' })
    expect(await repairFromResult(record, 1)).toBe('77')
    expect(calls[0]).toMatchObject({ method: 'post', path: '/repair' })
    expect(calls[0].body).toEqual({
      inspectRecordId: '11',
      inspectResultIndex: 1,
      stationId: '3',
      title: '汇流箱：端子',
      description: '发热',
    })
    answer = () => ok('78')
    expect(await repairFromResult(record, 0)).toBe('78')
    expect(calls[1].body).toMatchObject({ inspectResultIndex: 0, description: '逆变器：外观' })
  })
})

describe('wire records', () => {
  it('keeps ids as strings and lists never null', () => {
    const t = taskFromWire({ id: 1, maintenanceIds: [2, '3'], maintenanceNames: null, overdue: 0 })
    expect(t.maintenanceIds).toEqual(['2', '3'])
    expect(t.maintenanceNames).toEqual([])
    expect(t.overdue).toBe(false)
    expect(t.items).toBeUndefined()
  })

  it('reads record results with their repair link', () => {
    const r = recordFromWire({
      id: 1,
      abnormalCount: '1',
      results: [{ itemId: 2, check: 'c', result: '2', photos: null, repairId: 9 }],
    })
    expect(r.abnormalCount).toBe(1)
    expect(r.results?.[0]).toMatchObject({ itemId: '2', photos: [], repairId: '9' })
  })
})
