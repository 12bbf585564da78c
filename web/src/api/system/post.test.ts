import type { AxiosAdapter } from 'axios'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import request, { configureRequest } from '../request'
import { postOptions } from './post'

const notifyError = vi.fn<(text: string) => void>()
let answer: { status: number; data: unknown }

beforeEach(() => {
  notifyError.mockReset()
  configureRequest({ notifyError })
  const adapter: AxiosAdapter = (config) =>
    Promise.resolve({ ...answer, statusText: '', headers: {}, config })
  request.defaults.adapter = adapter
})

afterEach(() => {
  request.defaults.adapter = undefined
})

describe('postOptions', () => {
  it("lists the tenant's posts", async () => {
    const records = [{ id: '1', category: 1, postCode: 'ceo', postName: '首席执行官', sort: 1 }]
    answer = {
      status: 200,
      data: {
        code: 200,
        success: true,
        msg: '',
        data: { records, total: 1, size: 200, current: 1, pages: 1 },
      },
    }
    expect(await postOptions()).toEqual(records)
  })

  it('fails without a toast when the caller may not list posts (package without the post menu)', async () => {
    answer = { status: 403, data: { code: 403, success: false, msg: '缺少操作权限', data: null } }
    await expect(postOptions()).rejects.toThrow()
    expect(notifyError).not.toHaveBeenCalled()
  })
})
