/**
 * The HTTP layer of component tests: the request client's axios adapter answers from a route
 * table and records every call (nothing else is mocked).
 */
import type { AxiosAdapter } from 'axios'
import request from '../api/request'

export interface Call {
  method: string
  url: string
  /** The path after /api, without the query. */
  path: string
  params: URLSearchParams
  body: unknown
}

export const ok = (data: unknown) => ({ code: 200, success: true, data, msg: '操作成功' })
export const page = (records: unknown[]) =>
  ok({ records, total: records.length, size: 10, current: 1, pages: 1 })

/** An answer with its own HTTP status and headers (a download's Content-Disposition, a refusal). */
export class RawAnswer {
  readonly data: unknown
  readonly headers: Record<string, string>
  readonly status: number

  constructor(data: unknown, headers: Record<string, string> = {}, status = 200) {
    this.data = data
    this.headers = headers
    this.status = status
  }
}

/** A JSON body as its value; a form-encoded one as its text. */
function parseBody(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return text
  }
}

/**
 * Installs the adapter; `answer` gets the path (after /api) and the call, and returns the body
 * (HTTP 200), or a RawAnswer.
 */
export function mockHttp(answer: (path: string, call: Call) => unknown): Call[] {
  const calls: Call[] = []
  const adapter: AxiosAdapter = (config) => {
    const url = request.getUri(config)
    const [rawPath, search = ''] = url.replace(/^\/api/, '').split('?')
    const body: unknown = typeof config.data === 'string' ? parseBody(config.data) : config.data
    const call: Call = {
      method: config.method ?? 'get',
      url,
      path: rawPath,
      params: new URLSearchParams(search),
      body,
    }
    calls.push(call)
    const answered = answer(rawPath, call) ?? ok(null)
    const raw = answered instanceof RawAnswer ? answered : new RawAnswer(answered)
    return Promise.resolve({
      data: raw.data,
      status: raw.status,
      statusText: '',
      headers: raw.headers,
      config,
    })
  }
  request.defaults.adapter = adapter
  return calls
}

export function unmockHttp(): void {
  request.defaults.adapter = undefined
}
