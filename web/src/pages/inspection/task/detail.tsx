import { App, Empty, Space, Spin, Tag, Typography } from 'antd'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useTranslation } from 'react-i18next'
import { Link, useNavigate, useSearchParams } from 'react-router-dom'
import { fillTask } from '../../../api/inspection/inspection'
import { inspectionKeys, taskDetailQuery } from '../../../api/inspection/queries'
import { useSessionStore } from '../../../stores/session'
import { Facts, PageBox } from '../common'
import { taskStatusLabel } from '../labels'
import { mayFill, recordPath } from '../logic'
import FillForm from './FillForm'

/**
 * `/intelligentOperation/inspectionTask-detail?id=`: the task and, when it is unfilled and the
 * caller may fill it, the fill form (phone first).
 */
export default function InspectionTaskDetailPage() {
  const { t } = useTranslation()
  const { message } = App.useApp()
  const navigate = useNavigate()
  const client = useQueryClient()
  const id = useSearchParams()[0].get('id') ?? ''
  const task = useQuery({ ...taskDetailQuery(id), enabled: id !== '' })
  const userId = useSessionStore((s) => s.userInfo?.user_id ?? '')
  const roleName = useSessionStore((s) => s.userInfo?.role_name ?? '')
  const permission = useSessionStore((s) => s.permission)

  if (id !== '' && task.isPending) return <Spin style={{ display: 'block', margin: 48 }} />
  const tk = task.data
  if (!tk) {
    return (
      <PageBox testId="inspection-task-detail">
        <Empty description={t('inspection.message.notFound')} />
      </PageBox>
    )
  }
  const fillable = mayFill(tk, { userId, roleName, permission })
  return (
    <Space direction="vertical" size={12} style={{ width: '100%' }}>
      <PageBox testId="inspection-task-detail" title={tk.planName}>
        <Facts
          testId="task-facts"
          rows={[
            [t('inspection.field.station'), tk.stationName],
            [t('inspection.field.dueDate'), tk.dueDate],
            [
              t('inspection.field.taskStatus'),
              <Space key="s" size={4} wrap>
                <Tag
                  color={tk.status === '1' ? 'green' : 'blue'}
                  data-testid="task-detail-status"
                  data-value={tk.status}
                >
                  {taskStatusLabel(t, tk.status, tk.statusName)}
                </Tag>
                {tk.overdue && <Tag color="red">{t('inspection.field.overdue')}</Tag>}
              </Space>,
            ],
            [t('inspection.field.maintenance'), tk.maintenanceNames.join('、')],
            ...(tk.recordId
              ? ([
                  [
                    t('inspection.title.recordDetail'),
                    <Link key="r" to={recordPath(tk.recordId)} data-testid="task-record-link">
                      {t('inspection.action.openRecord')}
                    </Link>,
                  ],
                ] as [string, React.ReactNode][])
              : []),
          ]}
        />
        {tk.status === '0' && !fillable && (
          <Typography.Paragraph type="secondary" style={{ marginTop: 12, marginBottom: 0 }}>
            {t('inspection.message.cannotFill')}
          </Typography.Paragraph>
        )}
        {tk.status !== '0' && (
          <ul style={{ margin: '12px 0 0', paddingInlineStart: 18 }}>
            {(tk.items ?? []).map((i) => (
              <li key={i.itemId}>
                {i.title} — {i.checkItems.join('；')}
              </li>
            ))}
          </ul>
        )}
      </PageBox>
      {fillable && (
        <PageBox testId="inspection-task-fill">
          <FillForm
            task={tk}
            onSubmit={async (body) => {
              const record = await fillTask(body)
              void message.success(t('inspection.message.submitted'))
              await client.invalidateQueries({ queryKey: inspectionKeys.all })
              if (record.id) void navigate(recordPath(record.id), { replace: true })
              return record
            }}
          />
        </PageBox>
      )}
    </Space>
  )
}
