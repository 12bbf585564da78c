import { EyeOutlined } from '@ant-design/icons'
import { Button, DatePicker, Form, Select, Space, Table, type TableColumnsType } from 'antd'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useNavigate } from 'react-router-dom'
import { exportRecords, removeRecords } from '../../../api/inspection/inspection'
import { inspectionKeys, planPageQuery, recordPageQuery } from '../../../api/inspection/queries'
import type { InspectRecord } from '../../../api/inspection/types'
import { defaultPageSize, pageSizeOptions } from '../../../components/crud/logic'
import StationSelect from '../../../components/realtime/StationSelect'
import { usePagedList } from '../../../hooks/usePagedList'
import { DeleteButton, ExportButton, PageBox, VerdictTag } from '../common'
import { useCan, useDelete } from '../hooks'
import { verdictLabel } from '../labels'
import {
  exportFilters,
  pageAfterDelete,
  recordPath,
  recordQuery,
  type RecordFilters,
} from '../logic'

interface ListState {
  filters: RecordFilters
  current: number
  size: number
}

const firstPage: ListState = { filters: {}, current: 1, size: defaultPageSize }

/** `/intelligentOperation/inspectionRecord`: filled inspections (filters station, plan, run situation, dates). */
export default function InspectionRecordPage() {
  const { t } = useTranslation()
  const navigate = useNavigate()
  const can = useCan('inspectionRecord')
  const client = useQueryClient()
  const [search] = Form.useForm<RecordFilters>()
  const paged = usePagedList(firstPage, (s) =>
    recordPageQuery(recordQuery(s.filters, s.current, s.size)),
  )
  const { list, page } = paged
  const plans = useQuery(planPageQuery({ current: 1, size: 200 })).data?.records ?? []
  const [selected, setSelected] = useState<string[]>([])
  const askDelete = useDelete(removeRecords, (ids) => {
    setSelected((s) => s.filter((id) => !ids.includes(id)))
    void client.invalidateQueries({ queryKey: inspectionKeys.all })
    paged.go({ current: pageAfterDelete(list.current, page.records.length, ids.length) })
  })
  const query = recordQuery(list.filters, list.current, list.size)

  const columns: TableColumnsType<InspectRecord> = [
    {
      key: 'planName',
      dataIndex: 'planName',
      title: t('inspection.field.plan'),
      render: (name: string, row) => (
        <Link to={recordPath(row.id)} data-testid="record-row-name">
          {name}
        </Link>
      ),
    },
    { key: 'stationName', dataIndex: 'stationName', title: t('inspection.field.station') },
    { key: 'dueDate', dataIndex: 'dueDate', title: t('inspection.field.dueDate') },
    {
      key: 'runSituation',
      dataIndex: 'runSituation',
      title: t('inspection.field.runSituation'),
      render: (code: string, row) => (
        <VerdictTag code={code} name={row.runSituationName} testId="record-row-run" />
      ),
    },
    {
      key: 'abnormalCount',
      dataIndex: 'abnormalCount',
      title: t('inspection.field.abnormalCount'),
    },
    { key: 'filledByName', dataIndex: 'filledByName', title: t('inspection.field.filledBy') },
    { key: 'filledTime', dataIndex: 'filledTime', title: t('inspection.field.filledTime') },
    {
      key: '__actions',
      title: t('crud.actions'),
      render: (_: unknown, row) => (
        <Space size={0} wrap>
          <Button
            type="link"
            size="small"
            icon={<EyeOutlined />}
            data-testid="record-row-view"
            onClick={() => void navigate(recordPath(row.id))}
          >
            {t('inspection.action.view')}
          </Button>
          {can('delete') && (
            <DeleteButton testId="record-row-delete" onClick={() => askDelete([row.id])} />
          )}
        </Space>
      ),
    },
  ]

  return (
    <PageBox testId="inspection-record-page">
      <Form
        form={search}
        layout="inline"
        style={{ marginBottom: 16, rowGap: 12 }}
        onFinish={() => paged.go({ filters: { ...search.getFieldsValue() }, current: 1 })}
      >
        <Form.Item name="stationId" label={t('inspection.field.station')}>
          <StationSelect
            testId="record-search-station"
            value={undefined}
            onChange={() => undefined}
            placeholder={t('inspection.placeholder.allStations')}
            style={{ minWidth: 180, maxWidth: '100%' }}
          />
        </Form.Item>
        <Form.Item name="planId" label={t('inspection.field.plan')}>
          <Select
            data-testid="record-search-plan"
            allowClear
            showSearch={{ optionFilterProp: 'label' }}
            style={{ minWidth: 180 }}
            placeholder={t('inspection.placeholder.allPlans')}
            options={plans.map((p) => ({ value: p.id, label: p.name }))}
          />
        </Form.Item>
        <Form.Item name="runSituation" label={t('inspection.field.runSituation')}>
          <Select
            data-testid="record-search-run"
            allowClear
            style={{ minWidth: 120 }}
            placeholder={t('inspection.placeholder.any')}
            options={['1', '2'].map((k) => ({ value: k, label: verdictLabel(t, k) }))}
          />
        </Form.Item>
        <Form.Item name="range" label={t('inspection.field.dateRange')}>
          <DatePicker.RangePicker
            data-testid="record-search-range"
            inputReadOnly
            placeholder={[t('crud.startDate'), t('crud.endDate')]}
          />
        </Form.Item>
        <Form.Item>
          <Space>
            <Button type="primary" htmlType="submit" data-testid="record-search">
              {t('crud.search')}
            </Button>
            <Button
              data-testid="record-reset"
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
            <ExportButton testId="record-export" run={() => exportRecords(exportFilters(query))} />
          )}
          {can('delete') && (
            <Button danger data-testid="record-bulk-delete" onClick={() => askDelete(selected)}>
              {t('inspection.action.delete')}
            </Button>
          )}
        </Space>
      )}
      <Table<InspectRecord>
        data-testid="record-table"
        rowKey="id"
        size="middle"
        bordered
        loading={paged.loading}
        columns={columns}
        dataSource={page.records}
        scroll={{ x: 'max-content' }}
        onRow={(row) => ({ 'data-record-id': row.id }) as React.HTMLAttributes<HTMLElement>}
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
