/** The notification log (`/api/blade-resource/notify/log/list`): read-only, newest first. */
import { createElement } from 'react'
import { Tag } from 'antd'
import { notifyLogApi, type NotifyLogRow } from '../../../api/resource/notify'
import type { CrudConfig, MessageKey, Translate } from '../../../components/crud/types'

const statusColors = ['blue', 'processing', 'green', 'red', 'default', 'purple']
/** Outbox statuses 0–5 by name. */
export const statusKeys = [
  'notify.status.waiting',
  'notify.status.sending',
  'notify.status.sent',
  'notify.status.failed',
  'notify.status.skipped',
  'notify.status.digested',
] as const satisfies readonly MessageKey[]

export function notifyLogConfig(t: Translate): CrudConfig<NotifyLogRow> {
  return {
    menuCode: 'notifyLog',
    api: notifyLogApi,
    without: ['add', 'edit', 'delete', 'view'],
    fields: [
      { name: 'id', label: 'notify.log.title', hideInTable: true, hideInForm: true },
      {
        name: 'account',
        label: 'notify.log.user',
        search: true,
        width: 120,
        render: (_, row) => (row.realName ? `${row.realName} / ` : '') + (row.account ?? ''),
      },
      {
        name: 'channel',
        label: 'notify.log.channel',
        type: 'select',
        search: true,
        width: 90,
        options: [
          { value: 'sms', label: 'notify.channel.sms' },
          { value: 'email', label: 'notify.channel.email' },
        ],
      },
      {
        name: 'event',
        label: 'notify.log.event',
        width: 130,
        render: (v) => t(`notify.event.${String(v)}` as MessageKey),
      },
      { name: 'title', label: 'notify.log.title' },
      {
        name: 'status',
        label: 'notify.log.status',
        type: 'select',
        search: true,
        width: 100,
        options: statusKeys.map((label, value) => ({ value, label })),
        render: (v) =>
          createElement(
            Tag,
            { color: statusColors[Number(v)] ?? 'default' },
            t(statusKeys[Number(v)] ?? 'notify.status.waiting'),
          ),
      },
      { name: 'attempts', label: 'notify.log.attempts', width: 80 },
      { name: 'address', label: 'notify.log.address', width: 150 },
      { name: 'result', label: 'notify.log.result' },
      { name: 'createTime', label: 'notify.log.createTime', width: 170 },
      { name: 'sentTime', label: 'notify.log.sentTime', width: 170 },
    ],
  }
}
