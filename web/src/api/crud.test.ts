import type { AxiosAdapter, InternalAxiosRequestConfig } from 'axios'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { entityApi } from './crud'
import request, { configureRequest } from './request'

const ok = (data: unknown) => ({ code: 200, success: true, data, msg: '操作成功' })

let calls: InternalAxiosRequestConfig[] = []
let answer: unknown = ok(null)
const notifyError = vi.fn<(text: string) => void>()

beforeEach(() => {
  calls = []
  notifyError.mockReset()
  configureRequest({ notifyError })
  const adapter: AxiosAdapter = (config) => {
    calls.push(config)
    return Promise.resolve({ data: answer, status: 200, statusText: '', headers: {}, config })
  }
  request.defaults.adapter = adapter
})

afterEach(() => {
  request.defaults.adapter = undefined
})

/** The URL as sent: path plus encoded query. */
const sent = (config: InternalAxiosRequestConfig) => request.getUri(config)

describe('entityApi, blade style', () => {
  const api = entityApi<{ id?: string; paramName: string }>({
    style: 'blade',
    base: '/api/blade-system/param',
  })

  it('lists a page with current, size and filters', async () => {
    answer = ok({
      records: [{ id: '1', paramName: 'a' }],
      total: 1,
      size: 10,
      current: 1,
      pages: 1,
    })
    const page = await api.list({ current: 2, size: 30, paramName: 'abc' })
    expect(calls[0].method).toBe('get')
    expect(sent(calls[0])).toBe('/api/blade-system/param/list?current=2&size=30&paramName=abc')
    expect(page.records).toEqual([{ id: '1', paramName: 'a' }])
    expect(page.total).toBe(1)
  })

  it('reads one entity by id', async () => {
    answer = ok({ id: '7', paramName: 'x' })
    expect(await api.detail('7')).toEqual({ id: '7', paramName: 'x' })
    expect(sent(calls[0])).toBe('/api/blade-system/param/detail?id=7')
  })

  it('submits the entity as JSON', async () => {
    await api.submit({ paramName: 'x' })
    expect(calls[0].method).toBe('post')
    expect(sent(calls[0])).toBe('/api/blade-system/param/submit')
    expect(JSON.parse(String(calls[0].data))).toEqual({ paramName: 'x' })
  })

  it('removes comma-joined ids', async () => {
    await api.remove(['1', '2', '3'])
    expect(calls[0].method).toBe('post')
    expect(sent(calls[0])).toBe('/api/blade-system/param/remove?ids=1,2,3')
  })

  it('rejects when the envelope reports a failure', async () => {
    answer = { code: 400, success: false, data: null, msg: '参数键名已存在' }
    await expect(api.submit({ paramName: 'x' })).rejects.toThrow('参数键名已存在')
    expect(notifyError).toHaveBeenCalledExactlyOnceWith('参数键名已存在')
  })
})
