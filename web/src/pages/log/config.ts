/** /monitor/log/{usual,api,error}: read-only server logs with their details (contract "Logs"). */
import { logApi, type LogKind, type LogRow } from '../../api/log'
import type { CrudConfig, CrudField } from '../../components/crud/types'

const range: CrudField<LogRow> = {
  name: 'createTime',
  label: 'log.createTime',
  type: 'dateRange',
  search: true,
}
const detail = (
  name: Extract<keyof LogRow, string>,
  label: CrudField['label'],
): CrudField<LogRow> => ({
  name,
  label,
  type: 'textarea',
  hideInTable: true,
})

const fieldsOf: Record<LogKind, CrudField<LogRow>[]> = {
  usual: [
    { name: 'logLevel', label: 'log.logLevel', width: 90 },
    { name: 'logId', label: 'log.logId', search: true },
    { name: 'logData', label: 'log.logData', type: 'textarea' },
    { name: 'requestUri', label: 'log.requestUri', hideInTable: true },
    { name: 'remoteIp', label: 'log.remoteIp', hideInTable: true },
    detail('userAgent', 'log.userAgent'),
    { name: 'createBy', label: 'log.createBy', search: true },
    { name: 'createTime', label: 'log.createTime' },
  ],
  api: [
    { name: 'title', label: 'log.title', search: true },
    { name: 'method', label: 'log.method', width: 90 },
    { name: 'requestUri', label: 'log.requestUri', search: true },
    detail('params', 'log.params'),
    { name: 'time', label: 'log.time', width: 110 },
    { name: 'remoteIp', label: 'log.remoteIp' },
    detail('userAgent', 'log.userAgent'),
    { name: 'createBy', label: 'log.createBy', search: true },
    { name: 'createTime', label: 'log.createTime' },
  ],
  error: [
    { name: 'method', label: 'log.method', width: 90 },
    { name: 'requestUri', label: 'log.requestUri', search: true },
    { name: 'message', label: 'log.message' },
    { name: 'exceptionName', label: 'log.exceptionName', hideInTable: true },
    detail('stackTrace', 'log.stackTrace'),
    detail('params', 'log.params'),
    { name: 'remoteIp', label: 'log.remoteIp', hideInTable: true },
    detail('userAgent', 'log.userAgent'),
    { name: 'createBy', label: 'log.createBy', search: true },
    { name: 'createTime', label: 'log.createTime' },
  ],
}

export function logConfig(kind: LogKind): CrudConfig<LogRow> {
  return {
    menuCode: `log_${kind}`,
    api: logApi(kind),
    without: ['add', 'edit', 'delete'],
    dialogWidth: 900,
    fields: [
      { name: 'id', label: 'log.logId', hideInTable: true, hideInForm: true },
      ...fieldsOf[kind],
      range,
    ],
  }
}
