import { Tag } from 'antd'
import type { TFunction } from 'i18next'
import type { ProcessInstance } from '../../api/flow/flow'
import { statusLabel } from './common'

const statusColor = ['', 'processing', 'success', 'default']

/** The columns of an instance list (follow-up, sent). */
export function instanceColumns(t: TFunction) {
  return [
    {
      key: 'title',
      title: t('flow.field.title'),
      render: (i: ProcessInstance) => i.title || i.processDefinitionName,
    },
    {
      key: 'name',
      title: t('flow.field.name'),
      render: (i: ProcessInstance) => `${i.processDefinitionName} v${i.processDefinitionVersion}`,
    },
    {
      key: 'current',
      title: t('flow.field.currentTask'),
      render: (i: ProcessInstance) => i.currentTask ?? '-',
    },
    {
      key: 'status',
      title: t('flow.field.state'),
      render: (i: ProcessInstance) => (
        <Tag color={statusColor[i.status]}>{statusLabel(t, i.status)}</Tag>
      ),
    },
    {
      key: 'startUser',
      title: t('flow.field.startUser'),
      render: (i: ProcessInstance) => i.startUserName,
    },
    {
      key: 'startTime',
      title: t('flow.field.startTime'),
      render: (i: ProcessInstance) => i.startTime,
    },
  ]
}
