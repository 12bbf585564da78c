import { EditOutlined } from '@ant-design/icons'
import { Button, Empty, Space, Spin, Table, Tag, type TableColumnsType } from 'antd'
import { useQuery } from '@tanstack/react-query'
import { useTranslation } from 'react-i18next'
import { Link, useNavigate, useSearchParams } from 'react-router-dom'
import {
  alarmDayQuery,
  cyclePeriodQuery,
  planDetailQuery,
  taskPageQuery,
} from '../../../api/inspection/queries'
import type { InspectTask } from '../../../api/inspection/types'
import { Facts, PageBox } from '../common'
import { useCan } from '../hooks'
import { alarmDayLabel, cycleLabel, taskStatusLabel } from '../labels'
import { planEditPath, taskPath } from '../logic'

/** `/intelligentOperation/inspectionPlan-detail?id=`: the plan, read-only, and its tasks. */
export default function InspectionPlanDetailPage() {
  const { t } = useTranslation()
  const navigate = useNavigate()
  const can = useCan('inspectionPlan')
  const id = useSearchParams()[0].get('id') ?? ''
  const plan = useQuery({ ...planDetailQuery(id), enabled: id !== '' })
  const tasks = useQuery({
    ...taskPageQuery({ planId: id, current: 1, size: 100 }),
    enabled: id !== '',
  })
  const cycles = useQuery(cyclePeriodQuery()).data ?? []
  const alarmDays = useQuery(alarmDayQuery()).data ?? []

  if (id !== '' && plan.isPending) return <Spin style={{ display: 'block', margin: 48 }} />
  const p = plan.data
  if (!p) {
    return (
      <PageBox testId="inspection-plan-detail">
        <Empty description={t('inspection.message.notFound')} />
      </PageBox>
    )
  }
  const columns: TableColumnsType<InspectTask> = [
    {
      key: 'dueDate',
      dataIndex: 'dueDate',
      title: t('inspection.field.dueDate'),
      render: (d: string, row) => <Link to={taskPath(row.id)}>{d}</Link>,
    },
    { key: 'stationName', dataIndex: 'stationName', title: t('inspection.field.station') },
    {
      key: 'status',
      dataIndex: 'status',
      title: t('inspection.field.taskStatus'),
      render: (s: string, row) => (
        <Space size={4}>
          <Tag color={s === '1' ? 'green' : 'blue'}>{taskStatusLabel(t, s, row.statusName)}</Tag>
          {row.overdue && <Tag color="red">{t('inspection.field.overdue')}</Tag>}
        </Space>
      ),
    },
  ]
  return (
    <Space direction="vertical" size={16} style={{ width: '100%' }}>
      <PageBox
        testId="inspection-plan-detail"
        title={p.name}
        extra={
          can('edit') && (
            <Button
              icon={<EditOutlined />}
              data-testid="plan-detail-edit"
              onClick={() => void navigate(planEditPath(p.id))}
            >
              {t('inspection.action.edit')}
            </Button>
          )
        }
      >
        <Facts
          rows={[
            [t('inspection.field.stations'), p.stationNames.join('、')],
            [
              t('inspection.field.items'),
              <ul key="items" style={{ margin: 0, paddingInlineStart: 18 }}>
                {p.items.map((i) => (
                  <li key={i.id}>
                    {i.title}
                    <span style={{ color: '#888' }}> — {i.checkItems.join('；')}</span>
                  </li>
                ))}
              </ul>,
            ],
            [t('inspection.field.maintenance'), p.maintenanceNames.join('、')],
            [
              t('inspection.field.cyclePeriod'),
              p.cyclePeriodName ||
                cycleLabel(
                  t,
                  p.cyclePeriod,
                  Object.fromEntries(cycles.map((c) => [c.dictKey, c.dictValue])),
                ),
            ],
            [
              t('inspection.field.alarmDay'),
              alarmDayLabel(
                t,
                p.alarmDay,
                Object.fromEntries(alarmDays.map((c) => [c.dictKey, c.dictValue])),
              ),
            ],
            [t('inspection.field.startDate'), p.startDate],
            [t('inspection.field.endDate'), p.endDate ?? '—'],
            [t('inspection.field.nextDueDate'), p.nextDueDate ?? '—'],
            [
              t('inspection.field.status'),
              <Tag key="s" color={p.status === 1 ? 'green' : 'default'}>
                {t(p.status === 1 ? 'inspection.status.enabled' : 'inspection.status.disabled')}
              </Tag>,
            ],
            [t('inspection.field.remark'), p.remark || '—'],
          ]}
        />
      </PageBox>
      <PageBox testId="inspection-plan-tasks" title={t('inspection.title.planTasks')}>
        <Table<InspectTask>
          rowKey="id"
          size="small"
          loading={tasks.isFetching}
          columns={columns}
          dataSource={tasks.data?.records ?? []}
          scroll={{ x: 'max-content' }}
          pagination={false}
        />
      </PageBox>
    </Space>
  )
}
