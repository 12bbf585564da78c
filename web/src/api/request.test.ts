import { AxiosError, type AxiosAdapter, type InternalAxiosRequestConfig } from 'axios'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import i18n from '../locales/i18n'
import { useSessionStore } from '../stores/session'
import { useSettingsStore } from '../stores/settings'
import { keyPrefix } from '../utils/storage'
import request, { RequestError, configureRequest } from './request'
import { getHealth } from './system/health'

// The outside world is the HTTP transport: each test hands axios an adapter that answers with a
// canned response and records the request it was given.
let sent: InternalAxiosRequestConfig[] = []
function answer(status: number, data: unknown): void {
  const adapter: AxiosAdapter = (config) => {
    sent.push(config)
    return Promise.resolve({ data, status, statusText: String(status), headers: {}, config })
  }
  request.defaults.adapter = adapter
}

const notifyError = vi.fn<(text: string) => void>()
const onUnauthorized = vi.fn<() => void>()

async function rejection(promise: Promise<unknown>): Promise<RequestError> {
  try {
    await promise
  } catch (error) {
    expect(error).toBeInstanceOf(RequestError)
    return error as RequestError
  }
  throw new Error('the call resolved but should have been rejected')
}

beforeEach(async () => {
  sent = []
  notifyError.mockReset()
  onUnauthorized.mockReset()
  configureRequest({ notifyError, onUnauthorized, statusWhiteList: [] })
  useSessionStore.getState().logout()
  localStorage.clear()
  await i18n.changeLanguage('zh')
})

afterEach(() => {
  request.defaults.adapter = undefined
})

describe('request headers', () => {
  it('always sends the client Basic header and no token header when signed out', async () => {
    answer(200, { code: 200, success: true, data: null, msg: 'ok' })
    await request.get('/anything')
    const headers = sent[0].headers
    expect(headers.get('Authorization')).toBe(`Basic ${btoa('saber:saber_secret')}`)
    expect(headers.has('Blade-Auth')).toBe(false)
  })

  it('sends Blade-Auth: bearer <token> when a token is stored', async () => {
    useSessionStore.getState().setTokens('abc.def', 'refresh')
    answer(200, { code: 200, success: true, data: null, msg: 'ok' })
    await request.get('/anything')
    expect(sent[0].headers.get('Blade-Auth')).toBe('bearer abc.def')
    expect(sent[0].headers.get('Authorization')).toBe(`Basic ${btoa('saber:saber_secret')}`)
  })

  it('sends Tenant-Id: the session tenant, else the default, unless the caller set one', async () => {
    answer(200, { code: 200, success: true, data: null, msg: 'ok' })
    await request.get('/anything')
    useSessionStore.getState().setTenantId('123456')
    await request.get('/anything')
    await request.get('/anything', { headers: { 'Tenant-Id': '654321' } })
    expect(sent.map((c) => c.headers.get('Tenant-Id'))).toEqual(['000000', '123456', '654321'])
  })

  it('asks the hub for messages in the console language', async () => {
    answer(200, { code: 200, success: true, data: null, msg: 'ok' })
    useSettingsStore.getState().setLanguage('zh')
    await request.get('/anything')
    useSettingsStore.getState().setLanguage('en')
    await request.get('/anything')
    useSettingsStore.getState().setLanguage('zh')
    expect(sent.map((c) => c.headers.get('Accept-Language'))).toEqual(['zh-CN', 'en-US'])
  })

  it('uses base path /api, a 30 s time-out, and 30 min for uploads', async () => {
    answer(200, { code: 200, success: true, data: null, msg: 'ok' })
    await request.get('/x')
    await request.post('/blade-resource/oss/endpoint/put-file', new FormData(), { upload: true })
    expect(sent[0].baseURL).toBe('/api')
    expect(sent[0].timeout).toBe(30_000)
    expect(sent[1].timeout).toBe(1_800_000)
  })
})

describe('response rules', () => {
  it('resolves an envelope with code 200 and shows nothing', async () => {
    answer(200, { code: 200, success: true, data: { a: 1 }, msg: '操作成功' })
    const res = await request.get<{ data: { a: number } }>('/x')
    expect(res.data.data).toEqual({ a: 1 })
    expect(notifyError).not.toHaveBeenCalled()
  })

  it('rejects an HTTP 200 whose envelope code is not 200, toasting msg', async () => {
    answer(200, { code: 400, success: false, data: null, msg: '参数错误' })
    const error = await rejection(request.get('/x'))
    expect(error.code).toBe(400)
    expect(error.message).toBe('参数错误')
    expect(notifyError).toHaveBeenCalledExactlyOnceWith('参数错误')
  })

  it('prefers msg over error_description', async () => {
    answer(400, { code: 400, msg: 'from msg', error_description: 'from description' })
    await rejection(request.get('/x'))
    expect(notifyError).toHaveBeenCalledExactlyOnceWith('from msg')
  })

  it('falls back to error_description (OAuth failures carry no envelope)', async () => {
    answer(400, { error_code: 400, error_description: '用户名或密码错误' })
    const error = await rejection(request.post('/blade-auth/oauth/token'))
    expect(error.code).toBe(400)
    expect(notifyError).toHaveBeenCalledExactlyOnceWith('用户名或密码错误')
  })

  it('falls back to 未知错误, or Unknown error in English', async () => {
    answer(500, { code: 500, msg: '' })
    await rejection(request.get('/x'))
    expect(notifyError).toHaveBeenLastCalledWith('未知错误')

    await i18n.changeLanguage('en')
    answer(500, 'Internal Server Error')
    await rejection(request.get('/x'))
    expect(notifyError).toHaveBeenLastCalledWith('Unknown error')
  })

  it('rejects a non-200 HTTP status even when the body has no code', async () => {
    answer(404, { msg: 'no route' })
    const error = await rejection(request.get('/x'))
    expect(error.code).toBe(404)
    expect(notifyError).toHaveBeenCalledExactlyOnceWith('no route')
  })

  it('passes a flat JSON body with HTTP 200 (the OAuth token response)', async () => {
    answer(200, { access_token: 't', refresh_token: 'r' })
    const res = await request.post<{ access_token: string }>('/blade-auth/oauth/token')
    expect(res.data.access_token).toBe('t')
    expect(notifyError).not.toHaveBeenCalled()
  })

  it('on 401 clears the session, goes to login and toasts', async () => {
    const session = useSessionStore.getState()
    session.setTokens('tok', 'ref')
    session.setTenantId('000000')
    expect(localStorage.getItem(`${keyPrefix}token`)).not.toBeNull()

    answer(401, { code: 401, success: false, data: null, msg: '请求未授权' })
    const error = await rejection(request.get('/x'))

    expect(error.code).toBe(401)
    expect(useSessionStore.getState().token).toBe('')
    expect(useSessionStore.getState().refreshToken).toBe('')
    expect(localStorage.getItem(`${keyPrefix}token`)).toBeNull()
    expect(onUnauthorized).toHaveBeenCalledOnce()
    expect(notifyError).toHaveBeenCalledExactlyOnceWith('请求未授权')
  })

  it('does not log out on other errors', async () => {
    useSessionStore.getState().setTokens('tok', 'ref')
    answer(403, { code: 403, msg: '无权限' })
    await rejection(request.get('/x'))
    expect(useSessionStore.getState().token).toBe('tok')
    expect(onUnauthorized).not.toHaveBeenCalled()
  })

  it('rejects whitelisted codes without a toast', async () => {
    configureRequest({ statusWhiteList: [400] })
    answer(200, { code: 400, msg: 'quiet' })
    const error = await rejection(request.get('/x'))
    expect(error.silent).toBe(true)
    expect(error.code).toBe(400)
    expect(notifyError).not.toHaveBeenCalled()

    answer(200, { code: 409, msg: 'loud' })
    await rejection(request.get('/x'))
    expect(notifyError).toHaveBeenCalledExactlyOnceWith('loud')
  })

  it('a silent call rejects with the message but shows no toast', async () => {
    answer(400, { error_code: 400, error_description: 'bad captcha' })
    const error = await rejection(request.get('/x', { silent: true }))
    expect(error.message).toBe('bad captcha')
    expect(error.silent).toBe(true)
    expect(notifyError).not.toHaveBeenCalled()
  })

  it('rejects network errors without a toast', async () => {
    request.defaults.adapter = (config) =>
      Promise.reject(new AxiosError('Network Error', AxiosError.ERR_NETWORK, config))
    const error = await rejection(request.get('/x'))
    expect(error.code).toBe(0)
    expect(error.message).toBe('Network Error')
    expect(notifyError).not.toHaveBeenCalled()
  })

  it('passes blob responses with HTTP 200 through without reading them', async () => {
    // An exported JSON document may well contain a "code" field of its own.
    const file = new Blob([JSON.stringify({ code: 7, msg: 'row data' })], {
      type: 'application/json',
    })
    answer(200, file)
    const res = await request.get('/inspectPlan/export-data', { responseType: 'blob' })
    expect(res.data).toBe(file)
    expect(notifyError).not.toHaveBeenCalled()
  })

  it('reads the error envelope out of a failed blob response', async () => {
    answer(403, new Blob([JSON.stringify({ code: 403, msg: '无权导出' })]))
    const error = await rejection(request.get('/export', { responseType: 'blob' }))
    expect(error.code).toBe(403)
    expect(notifyError).toHaveBeenCalledExactlyOnceWith('无权导出')
  })
})

describe('health API', () => {
  it('calls GET /api/health and unwraps the envelope', async () => {
    const data = { status: 'ok', version: '0.1.0', database: 'sqlite', uptimeSeconds: 5 }
    answer(200, { code: 200, success: true, data, msg: '操作成功' })
    await expect(getHealth()).resolves.toEqual(data)
    expect(sent[0].method).toBe('get')
    expect(sent[0].url).toBe('/health')
  })
})
