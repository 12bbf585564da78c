import { EyeOutlined, FilterOutlined, RightOutlined } from '@ant-design/icons'
import {
  Button,
  Card,
  Checkbox,
  Empty,
  Form,
  Pagination,
  Select,
  Space,
  Spin,
  Table,
  Tag,
  type TableColumnsType,
} from 'antd'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useNavigate } from 'react-router-dom'
import { exportTasks, removeTasks } from '../../../api/inspection/inspection'
import { inspectionKeys, planPageQuery, taskPageQuery } from '../../../api/inspection/queries'
import type { InspectTask } from '../../../api/inspection/types'
import { defaultPageSize, pageSizeOptions } from '../../../components/crud/logic'
import StationSelect from '../../../components/realtime/StationSelect'
import { usePagedList } from '../../../hooks/usePagedList'
import { DeleteButton, ExportButton, PageBox } from '../common'
import { useCan, useDelete, usePhone } from '../hooks'
import { taskStatusLabel } from '../labels'
import { exportFilters, pageAfterDelete, taskPath, taskQuery, type TaskFilters } from '../logic'

interface ListState {
  filters: TaskFilters
  current: number
  size: number
}

const firstPage: ListState = { filters: {}, current: 1, size: defaultPageSize }

const overdueStyle = { background: 'rgba(255, 77, 79, 0.08)' }

function StatusTags({ task }: { task: InspectTask }) {
  const { t } = useTranslation()
  return (
    <Space size={4} wrap>
      <Tag
        color={task.status === '1' ? 'green' : 'blue'}
        data-testid="task-status"
        data-value={task.status}
      >
        {taskStatusLabel(t, task.status, task.statusName)}
      </Tag>
      {task.overdue && (
        <Tag color="red" data-testid="task-overdue">
          {t('inspection.field.overdue')}
        </Tag>
      )}
    </Space>
  )
}

/**
 * `/intelligentOperation/inspectionTask`: generated tasks (filters station, plan, status, overdue,
 * mine), overdue ones highlighted; on a phone each task is a card to tap.
 */
export default function InspectionTaskPage() {
  const { t } = useTranslation()
  const navigate = useNavigate()
  const phone = usePhone()
  const can = useCan('inspectionTask')
  const client = useQueryClient()
  const [search] = Form.useForm<TaskFilters>()
  const paged = usePagedList(firstPage, (s) =>
    taskPageQuery(taskQuery(s.filters, s.current, s.size)),
  )
  const { list, page } = paged
  const plans = useQuery(planPageQuery({ current: 1, size: 200 })).data?.records ?? []
  const [selected, setSelected] = useState<string[]>([])
  /** Phones: the filters fold away behind one button. */
  const [filtersOpen, setFiltersOpen] = useState(false)
  const askDelete = useDelete(removeTasks, (ids) => {
    setSelected((s) => s.filter((id) => !ids.includes(id)))
    void client.invalidateQueries({ queryKey: inspectionKeys.tasks })
    paged.go({ current: pageAfterDelete(list.current, page.records.length, ids.length) })
  })
  const query = taskQuery(list.filters, list.current, list.size)
  const changePage = (current: number, size: number) =>
    paged.go(size !== list.size ? { current: 1, size } : { current })

  const columns: TableColumnsType<InspectTask> = [
    {
      key: 'planName',
      dataIndex: 'planName',
      title: t('inspection.field.plan'),
      render: (name: string, row) => (
        <Link to={taskPath(row.id)} data-testid="task-row-name">
          {name}
        </Link>
      ),
    },
    { key: 'stationName', dataIndex: 'stationName', title: t('inspection.field.station') },
    { key: 'dueDate', dataIndex: 'dueDate', title: t('inspection.field.dueDate') },
    {
      key: 'status',
      dataIndex: 'status',
      title: t('inspection.field.taskStatus'),
      render: (_: string, row) => <StatusTags task={row} />,
    },
    {
      key: 'maintenanceNames',
      dataIndex: 'maintenanceNames',
      title: t('inspection.field.maintenance'),
      render: (names: string[]) => names.join('、'),
    },
    {
      key: '__actions',
      title: t('crud.actions'),
      render: (_: unknown, row) => (
        <Space size={0} wrap>
          <Button
            type="link"
            size="small"
            icon={<EyeOutlined />}
            data-testid="task-row-view"
            onClick={() => void navigate(taskPath(row.id))}
          >
            {t(row.status === '0' ? 'inspection.action.fill' : 'inspection.action.view')}
          </Button>
          {can('delete') && (
            <DeleteButton testId="task-row-delete" onClick={() => askDelete([row.id])} />
          )}
        </Space>
      ),
    },
  ]

  return (
    <PageBox testId="inspection-task-page">
      {phone && (
        <Button
          icon={<FilterOutlined />}
          data-testid="task-filters-toggle"
          aria-expanded={filtersOpen}
          style={{ minHeight: 44, marginBottom: 12 }}
          onClick={() => setFiltersOpen((open) => !open)}
        >
          {t('inspection.action.filters')}
        </Button>
      )}
      <Form
        form={search}
        layout={phone ? 'vertical' : 'inline'}
        hidden={phone && !filtersOpen}
        style={{ marginBottom: 16, rowGap: 12 }}
        onFinish={() => paged.go({ filters: { ...search.getFieldsValue() }, current: 1 })}
      >
        <Form.Item
          name="stationId"
          label={t('inspection.field.station')}
          style={phone ? { marginBottom: 8 } : undefined}
        >
          <StationSelect
            testId="task-search-station"
            value={undefined}
            onChange={() => undefined}
            placeholder={t('inspection.placeholder.allStations')}
            style={{ minWidth: 180, width: phone ? '100%' : undefined }}
          />
        </Form.Item>
        <Form.Item
          name="planId"
          label={t('inspection.field.plan')}
          style={phone ? { marginBottom: 8 } : undefined}
        >
          <Select
            data-testid="task-search-plan"
            allowClear
            showSearch={{ optionFilterProp: 'label' }}
            style={{ minWidth: 180, width: phone ? '100%' : undefined }}
            placeholder={t('inspection.placeholder.allPlans')}
            options={plans.map((p) => ({ value: p.id, label: p.name }))}
          />
        </Form.Item>
        <Form.Item
          name="status"
          label={t('inspection.field.taskStatus')}
          style={phone ? { marginBottom: 8 } : undefined}
        >
          <Select
            data-testid="task-search-status"
            allowClear
            style={{ minWidth: 120, width: phone ? '100%' : undefined }}
            placeholder={t('inspection.placeholder.any')}
            options={['0', '1'].map((k) => ({ value: k, label: taskStatusLabel(t, k) }))}
          />
        </Form.Item>
        <Form.Item
          name="overdue"
          valuePropName="checked"
          style={phone ? { marginBottom: 8 } : undefined}
        >
          <Checkbox data-testid="task-search-overdue">{t('inspection.field.overdue')}</Checkbox>
        </Form.Item>
        <Form.Item
          name="mine"
          valuePropName="checked"
          style={phone ? { marginBottom: 8 } : undefined}
        >
          <Checkbox data-testid="task-search-mine">{t('inspection.field.mine')}</Checkbox>
        </Form.Item>
        <Form.Item>
          <Space>
            <Button type="primary" htmlType="submit" data-testid="task-search">
              {t('crud.search')}
            </Button>
            <Button
              data-testid="task-reset"
              onClick={() => {
                search.resetFields()
                paged.go({ filters: {}, current: 1 })
              }}
            >
              {t('crud.reset')}
            </Button>
          </Space>
        </Form.Item>
      </Form>
      {(can('export') || can('delete')) && (
        <Space style={{ marginBottom: 16 }} wrap>
          {can('export') && (
            <ExportButton testId="task-export" run={() => exportTasks(exportFilters(query))} />
          )}
          {can('delete') && !phone && (
            <Button danger data-testid="task-bulk-delete" onClick={() => askDelete(selected)}>
              {t('inspection.action.delete')}
            </Button>
          )}
        </Space>
      )}
      {phone ? (
        <Spin spinning={paged.loading}>
          {page.records.length === 0 && <Empty />}
          <Space direction="vertical" size={12} style={{ width: '100%' }} data-testid="task-cards">
            {page.records.map((task) => (
              <Card
                key={task.id}
                size="small"
                hoverable
                data-testid="task-card"
                data-task-id={task.id}
                style={task.overdue ? { ...overdueStyle, borderColor: '#ff4d4f' } : undefined}
                onClick={() => void navigate(taskPath(task.id))}
              >
                <div style={{ display: 'flex', alignItems: 'center', gap: 8, minHeight: 44 }}>
                  <div style={{ flex: 1, minWidth: 0 }}>
                    <div style={{ fontWeight: 600, overflowWrap: 'anywhere' }}>{task.planName}</div>
                    <div style={{ color: '#888', overflowWrap: 'anywhere' }}>
                      {task.stationName} · {task.dueDate}
                    </div>
                    <StatusTags task={task} />
                  </div>
                  <RightOutlined />
                </div>
              </Card>
            ))}
          </Space>
          {page.total > list.size && (
            <Pagination
              simple
              style={{ marginTop: 12 }}
              current={list.current}
              pageSize={list.size}
              total={page.total}
              onChange={changePage}
            />
          )}
        </Spin>
      ) : (
        <Table<InspectTask>
          data-testid="task-table"
          rowKey="id"
          size="middle"
          bordered
          loading={paged.loading}
          columns={columns}
          dataSource={page.records}
          scroll={{ x: 'max-content' }}
          onRow={(row) =>
            ({
              'data-task-id': row.id,
              style: row.overdue ? overdueStyle : undefined,
            }) as React.HTMLAttributes<HTMLElement>
          }
          rowSelection={
            can('delete')
              ? { selectedRowKeys: selected, onChange: (keys) => setSelected(keys.map(String)) }
              : undefined
          }
          pagination={{
            current: list.current,
            pageSize: list.size,
            total: page.total,
            showSizeChanger: true,
            pageSizeOptions: pageSizeOptions.map(String),
            showTotal: (total) => t('crud.total', { total }),
            onChange: changePage,
          }}
        />
      )}
    </PageBox>
  )
}
