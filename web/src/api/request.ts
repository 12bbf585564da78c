/**
 * THE request client of the console (one client, base path /api). Every call to the hub goes
 * through it.
 *
 * - base path /api, timeout 30 s (uploads: pass `{ upload: true }` for 30 min);
 * - always `Authorization: Basic base64(clientId:clientSecret)`; with a token also
 *   `Blade-Auth: bearer <token>`; `Tenant-Id` with the tenant in use (a caller's own `Tenant-Id`,
 *   as the sign-in form sends, wins); `Accept-Language` follows the console's language, so the
 *   hub's messages come back in it;
 * - HTTP 200–500 are not HTTP errors here: the body `code` (else the HTTP status) decides. Anything
 *   but 200 shows an error toast (body `msg`, else `error_description`, else "unknown error") and
 *   rejects with a RequestError; 401 also clears the session and goes to /login; codes in the
 *   whitelist reject without a toast or side effect; `{ silent: true }` skips the toast for one call
 *   whose caller shows the failure itself;
 * - network errors, time-outs and HTTP statuses above 500 reject without a toast (the caller shows
 *   its own error state);
 * - blob responses (exports) with HTTP 200 pass through untouched.
 *
 * It resolves to the axios response, so callers read the envelope as `res.data` and its payload as
 * `res.data.data` (typed API modules in `src/api/<domain>/` unwrap it).
 */
import axios, { type AxiosResponse, type InternalAxiosRequestConfig } from 'axios'
import { message } from 'antd'
import { website } from '../config/website'
import i18n from '../locales/i18n'
import { useSessionStore } from '../stores/session'
import { useSettingsStore } from '../stores/settings'

declare module 'axios' {
  interface AxiosRequestConfig {
    /** File upload: use the long upload time-out. */
    upload?: boolean
    /** The caller reports failures itself: no error toast (401 still signs out). */
    silent?: boolean
  }
}

export class RequestError extends Error {
  /** Body code, or the HTTP status when the body has none; 0 for network errors. */
  readonly code: number
  /** True when the code is whitelisted (no toast was shown). */
  readonly silent: boolean
  readonly response?: AxiosResponse

  constructor(
    text: string,
    code: number,
    silent: boolean,
    response?: AxiosResponse,
    cause?: unknown,
  ) {
    super(text, { cause })
    this.name = 'RequestError'
    this.code = code
    this.silent = silent
    this.response = response
  }
}

export interface RequestHooks {
  /** Shows an error toast. The app replaces the default (static antd message) with its App context. */
  notifyError: (text: string) => void
  /** Goes to the login page after a 401 (the app wires this to the router). */
  onUnauthorized: () => void
  /** Codes rejected without a toast. */
  statusWhiteList: readonly number[]
}

const hooks: RequestHooks = {
  notifyError: (text) => void message.error(text),
  onUnauthorized: () => window.location.assign('/login'),
  statusWhiteList: website.statusWhiteList,
}

export function configureRequest(next: Partial<RequestHooks>): void {
  Object.assign(hooks, next)
}

/** Shows an error toast the way the request client does (the query client reports through it). */
export function notifyError(text: string): void {
  hooks.notifyError(text)
}

/**
 * The request client has dealt with this failure: a body code or HTTP status up to 500 was
 * toasted, or deliberately not (whitelisted code, `{ silent: true }` call). Network errors,
 * time-outs and statuses above 500 were not shown.
 */
export const shownByRequestClient = (error: unknown): boolean =>
  error instanceof RequestError && error.code > 0 && error.code <= 500

export const basicAuthorization = `Basic ${btoa(`${website.clientId}:${website.clientSecret}`)}`

export const request = axios.create({
  baseURL: '/api',
  timeout: website.requestTimeout,
  validateStatus: (status) => status >= 200 && status <= 500,
})

request.interceptors.request.use((config: InternalAxiosRequestConfig) => {
  if (config.upload) config.timeout = website.uploadTimeout
  config.headers.set('Authorization', basicAuthorization)
  const { token } = useSessionStore.getState()
  if (token) config.headers.set(website.tokenHeader, `bearer ${token}`)
  if (!config.headers.has('Tenant-Id')) {
    config.headers.set('Tenant-Id', useSessionStore.getState().tenantId || website.tenantId)
  }
  // The hub writes its messages (validation, errors) in the language the console shows.
  config.headers.set(
    'Accept-Language',
    useSettingsStore.getState().language === 'en' ? 'en-US' : 'zh-CN',
  )
  return config
})

interface ErrorBody {
  code?: unknown
  msg?: unknown
  error_description?: unknown
}

function asErrorBody(data: unknown): ErrorBody {
  return data !== null && typeof data === 'object' ? data : {}
}

/** An exported file that failed comes back as a JSON envelope inside the blob. */
async function blobBody(data: Blob): Promise<ErrorBody> {
  try {
    return asErrorBody(JSON.parse(await data.text()))
  } catch {
    return {}
  }
}

const nonEmpty = (value: unknown): value is string => typeof value === 'string' && value !== ''

async function onResponse(response: AxiosResponse<unknown>): Promise<AxiosResponse> {
  const data = response.data
  const isBlob = response.config.responseType === 'blob' || data instanceof Blob
  if (isBlob && response.status === 200) return response

  const body = data instanceof Blob ? await blobBody(data) : asErrorBody(data)
  const bodyCode = typeof body.code === 'number' ? body.code : undefined
  // The body code wins when it reports a failure; otherwise the HTTP status must be 200 as well.
  const code = bodyCode !== undefined && bodyCode !== 200 ? bodyCode : response.status
  if (code === 200) return response

  const text = nonEmpty(body.msg)
    ? body.msg
    : nonEmpty(body.error_description)
      ? body.error_description
      : i18n.t('request.unknownError')

  if (hooks.statusWhiteList.includes(code)) {
    return Promise.reject(new RequestError(text, code, true, response))
  }
  if (code === 401) {
    useSessionStore.getState().logout(true)
    hooks.onUnauthorized()
  }
  const silent = response.config.silent === true
  if (!silent) hooks.notifyError(text)
  return Promise.reject(new RequestError(text, code, silent, response))
}

function onNetworkError(error: unknown): Promise<never> {
  const text = error instanceof Error ? error.message : String(error)
  return Promise.reject(new RequestError(text, 0, false, undefined, error))
}

request.interceptors.response.use(onResponse, onNetworkError)

export default request
