import { afterEach, describe, expect, it, vi } from 'vitest'
import { useErrorLogStore } from '../utils/errorLog'
import {
  createQueryClient,
  errorReporter,
  maxRetries,
  repeatWindowMs,
  shouldRetry,
  unshownErrorText,
} from './queryClient'
import { RequestError } from './request'

const shown = (code: number) => new RequestError('参数键名已存在', code, false)
const network = () => new RequestError('Network Error', 0, false)

afterEach(() => useErrorLogStore.getState().clear())

describe('query client defaults', () => {
  it('refetches on focus, polls only in a visible tab, never retries writes', () => {
    const defaults = createQueryClient().getDefaultOptions()
    expect(defaults.queries?.refetchOnWindowFocus).toBe(true)
    expect(defaults.queries?.refetchIntervalInBackground).toBe(false)
    expect(defaults.mutations?.retry).toBe(false)
    expect(defaults.queries?.retry).toBe(shouldRetry)
  })

  it('retries network failures a few times, and nothing the hub answered', () => {
    expect(shouldRetry(0, network())).toBe(true)
    expect(shouldRetry(maxRetries, network())).toBe(false)
    expect(shouldRetry(0, new RequestError('Bad Gateway', 502, false))).toBe(true)
    for (const code of [400, 401, 403, 404, 500]) expect(shouldRetry(0, shown(code))).toBe(false)
    expect(shouldRetry(0, new Error('bug'))).toBe(false)
  })
})

describe('error reporting', () => {
  it('does not repeat what the request client showed or was told to keep quiet', () => {
    expect(unshownErrorText(shown(400))).toBeNull()
    expect(unshownErrorText(new RequestError('forbidden', 403, true))).toBeNull()
    expect(unshownErrorText(network(), { ownErrorState: true })).toBeNull()
    expect(unshownErrorText(network())).toBe('无法连接服务器，请稍后再试')
    expect(unshownErrorText(new Error('bug'))).toBe('未知错误')
  })

  it('shows one toast for the same failure of several queries, and logs loader bugs', () => {
    const notify = vi.fn<(text: string) => void>()
    let now = 0
    const report = errorReporter(notify, () => now)
    report(network())
    report(network())
    expect(notify).toHaveBeenCalledOnce()
    now += repeatWindowMs
    report(network())
    expect(notify).toHaveBeenCalledTimes(2)
    expect(useErrorLogStore.getState().logs).toHaveLength(0)

    report(new TypeError('x is undefined'), undefined, ['station', 'list'])
    expect(notify).toHaveBeenLastCalledWith('未知错误')
    const [entry] = useErrorLogStore.getState().logs
    expect(entry.message).toBe('x is undefined')
    expect(entry.info).toBe('query ["station","list"]')
  })

  it('reports a failed query through the cache, once, with its meta', async () => {
    const report = vi.fn()
    const client = createQueryClient(report)
    await client
      .fetchQuery({ queryKey: ['q'], queryFn: () => Promise.reject(shown(400)) })
      .catch(() => undefined)
    expect(report).toHaveBeenCalledOnce()
    expect(report).toHaveBeenCalledWith(shown(400), undefined, ['q'])
  })
})
