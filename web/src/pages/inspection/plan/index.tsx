import { CopyOutlined, EditOutlined, EyeOutlined, PlusOutlined } from '@ant-design/icons'
import { App, Button, Form, Input, Select, Space, Table, Tag, type TableColumnsType } from 'antd'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useNavigate } from 'react-router-dom'
import { copyPlan, exportPlans, removePlans } from '../../../api/inspection/inspection'
import { cyclePeriodQuery, inspectionKeys, planPageQuery } from '../../../api/inspection/queries'
import type { InspectPlan } from '../../../api/inspection/types'
import { defaultPageSize, pageSizeOptions } from '../../../components/crud/logic'
import StationSelect from '../../../components/realtime/StationSelect'
import { usePagedList } from '../../../hooks/usePagedList'
import { DeleteButton, ExportButton, PageBox } from '../common'
import { useCan, useDelete } from '../hooks'
import { cycleLabel } from '../labels'
import {
  exportFilters,
  pageAfterDelete,
  planEditPath,
  planPath,
  planQuery,
  type PlanFilters,
} from '../logic'

interface ListState {
  filters: PlanFilters
  current: number
  size: number
}

const firstPage: ListState = { filters: {}, current: 1, size: defaultPageSize }

/** `/intelligentOperation/inspectionPlan`: plans (filters name, station, status), copy, export, delete. */
export default function InspectionPlanPage() {
  const { t } = useTranslation()
  const { message } = App.useApp()
  const navigate = useNavigate()
  const can = useCan('inspectionPlan')
  const client = useQueryClient()
  const [search] = Form.useForm<PlanFilters>()
  const paged = usePagedList(firstPage, (s) =>
    planPageQuery(planQuery(s.filters, s.current, s.size)),
  )
  const { list, page } = paged
  const [selected, setSelected] = useState<string[]>([])
  const cycles = useQuery(cyclePeriodQuery()).data
  const cycleNames = useMemo(
    () => Object.fromEntries((cycles ?? []).map((c) => [c.dictKey, c.dictValue])),
    [cycles],
  )

  const reload = (next: Partial<ListState> = {}) => {
    void client.invalidateQueries({ queryKey: inspectionKeys.plans })
    paged.go(next)
  }
  const askDelete = useDelete(removePlans, (ids) => {
    setSelected((s) => s.filter((id) => !ids.includes(id)))
    void client.invalidateQueries({ queryKey: inspectionKeys.tasks })
    reload({ current: pageAfterDelete(list.current, page.records.length, ids.length) })
  })
  const copy = (row: InspectPlan) =>
    copyPlan(row.id).then(
      () => {
        void message.success(t('inspection.message.copied'))
        reload({ current: 1 })
      },
      () => undefined,
    )

  const columns: TableColumnsType<InspectPlan> = [
    {
      key: 'name',
      dataIndex: 'name',
      title: t('inspection.field.planName'),
      render: (name: string, row) => (
        <Link to={planPath(row.id)} data-testid="plan-row-name">
          {name}
        </Link>
      ),
    },
    {
      key: 'stationNames',
      dataIndex: 'stationNames',
      title: t('inspection.field.stations'),
      render: (names: string[]) => names.join('、'),
    },
    {
      key: 'cyclePeriod',
      dataIndex: 'cyclePeriod',
      title: t('inspection.field.cyclePeriod'),
      render: (code: string, row) => row.cyclePeriodName || cycleLabel(t, code, cycleNames),
    },
    {
      key: 'maintenanceNames',
      dataIndex: 'maintenanceNames',
      title: t('inspection.field.maintenance'),
      render: (names: string[]) => names.join('、'),
    },
    { key: 'startDate', dataIndex: 'startDate', title: t('inspection.field.startDate') },
    {
      key: 'endDate',
      dataIndex: 'endDate',
      title: t('inspection.field.endDate'),
      render: (d: string | null) => d ?? '—',
    },
    {
      key: 'nextDueDate',
      dataIndex: 'nextDueDate',
      title: t('inspection.field.nextDueDate'),
      render: (d: string | null) => d ?? '—',
    },
    {
      key: 'status',
      dataIndex: 'status',
      title: t('inspection.field.status'),
      render: (status: number) => (
        <Tag color={status === 1 ? 'green' : 'default'} data-testid="plan-row-status">
          {t(status === 1 ? 'inspection.status.enabled' : 'inspection.status.disabled')}
        </Tag>
      ),
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
            data-testid="plan-row-view"
            onClick={() => void navigate(planPath(row.id))}
          >
            {t('inspection.action.view')}
          </Button>
          {can('edit') && (
            <Button
              type="link"
              size="small"
              icon={<EditOutlined />}
              data-testid="plan-row-edit"
              onClick={() => void navigate(planEditPath(row.id))}
            >
              {t('inspection.action.edit')}
            </Button>
          )}
          {can('copy') && (
            <Button
              type="link"
              size="small"
              icon={<CopyOutlined />}
              data-testid="plan-row-copy"
              onClick={() => void copy(row)}
            >
              {t('inspection.action.copy')}
            </Button>
          )}
          {can('delete') && (
            <DeleteButton testId="plan-row-delete" onClick={() => askDelete([row.id])} />
          )}
        </Space>
      ),
    },
  ]

  const query = planQuery(list.filters, list.current, list.size)
  return (
    <PageBox testId="inspection-plan-page">
      <Form
        form={search}
        layout="inline"
        style={{ marginBottom: 16, rowGap: 12 }}
        onFinish={() => paged.go({ filters: { ...search.getFieldsValue() }, current: 1 })}
      >
        <Form.Item name="name" label={t('inspection.field.planName')}>
          <Input
            data-testid="plan-search-name"
            allowClear
            placeholder={t('inspection.placeholder.planName')}
          />
        </Form.Item>
        <Form.Item name="stationId" label={t('inspection.field.station')}>
          <StationSelect
            testId="plan-search-station"
            value={undefined}
            onChange={() => undefined}
            placeholder={t('inspection.placeholder.allStations')}
            style={{ minWidth: 180, maxWidth: '100%' }}
          />
        </Form.Item>
        <Form.Item name="status" label={t('inspection.field.status')}>
          <Select
            data-testid="plan-search-status"
            allowClear
            style={{ minWidth: 120 }}
            placeholder={t('inspection.placeholder.any')}
            options={[
              { value: '1', label: t('inspection.status.enabled') },
              { value: '0', label: t('inspection.status.disabled') },
            ]}
          />
        </Form.Item>
        <Form.Item>
          <Space>
            <Button type="primary" htmlType="submit" data-testid="plan-search">
              {t('crud.search')}
            </Button>
            <Button
              data-testid="plan-reset"
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
      <Space style={{ marginBottom: 16 }} wrap>
        {can('add') && (
          <Button
            type="primary"
            icon={<PlusOutlined />}
            data-testid="plan-add"
            onClick={() => void navigate(planEditPath())}
          >
            {t('inspection.action.add')}
          </Button>
        )}
        {can('export') && (
          <ExportButton testId="plan-export" run={() => exportPlans(exportFilters(query))} />
        )}
        {can('delete') && (
          <Button danger data-testid="plan-bulk-delete" onClick={() => askDelete(selected)}>
            {t('inspection.action.delete')}
          </Button>
        )}
      </Space>
      <Table<InspectPlan>
        data-testid="plan-table"
        rowKey="id"
        size="middle"
        bordered
        loading={paged.loading}
        columns={columns}
        dataSource={page.records}
        scroll={{ x: 'max-content' }}
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
          onChange: (current, size) =>
            paged.go(size !== list.size ? { current: 1, size } : { current }),
        }}
      />
    </PageBox>
  )
}
