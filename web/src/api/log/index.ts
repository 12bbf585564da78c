/** Server logs (contract "Logs"): read-only lists and details. */
import { entityApi, type CrudApi } from '../crud'

export type LogKind = 'usual' | 'api' | 'error'

export interface LogRow {
  id?: string
  tenantId?: string
  type?: string
  title?: string
  method?: string
  requestUri?: string
  params?: string
  /** Api log: milliseconds taken. */
  time?: string
  remoteIp?: string
  userAgent?: string
  createBy?: string
  createTime?: string
  /** Usual log. */
  logLevel?: string
  logId?: string
  logData?: string
  /** Error log. */
  message?: string
  exceptionName?: string
  stackTrace?: string
}

const readOnly = async (): Promise<never> => Promise.reject(new Error('logs are read-only'))

/** `list` and `detail` of `/api/blade-log/{kind}`; nothing changes a log. */
export function logApi(kind: LogKind): CrudApi<LogRow> {
  const crud = entityApi<LogRow>({ style: 'blade', base: `/blade-log/${kind}` })
  return { key: crud.key, list: crud.list, detail: crud.detail, submit: readOnly, remove: readOnly }
}
