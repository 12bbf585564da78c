import { DownloadOutlined, FilterOutlined, RightOutlined } from '@ant-design/icons'
import { useQuery } from '@tanstack/react-query'
import {
  App,
  Button,
  Card,
  Empty,
  Form,
  Grid,
  Input,
  Pagination,
  Select,
  Space,
  Spin,
  Table,
  Tag,
  Tooltip,
  Typography,
  type TableColumnsType,
} from 'antd'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Link } from 'react-router-dom'
import {
  equipmentKinds,
  equipmentPageQuery,
  equipmentSources,
  equipmentStatuses,
  equipmentSummaryQuery,
  exportEquipment,
  type Equipment,
  type EquipmentFilters,
  type EquipmentQuery,
  type KindSummary,
} from '../../api/equipment'
import { saveDownload } from '../../api/station/excel'
import { defaultPageSize, pageSizeOptions } from '../../components/crud/logic'
import StationSelect from '../../components/realtime/StationSelect'
import { usePagedList } from '../../hooks/usePagedList'
import { useSessionStore } from '../../stores/session'
import { livePath, sortOf, statusColor, summaryParts } from './logic'

interface ListState extends Omit<EquipmentQuery, 'current' | 'size'> {
  filters: EquipmentFilters
  current: number
  size: number
}

const firstPage: ListState = { filters: {}, current: 1, size: defaultPageSize }

const queryOf = (s: ListState): EquipmentQuery => ({
  ...s.filters,
  current: s.current,
  size: s.size,
  sort: s.sort,
  order: s.order,
})

function KindTag({ kind }: { kind: Equipment['kind'] }) {
  const { t } = useTranslation()
  return (
    <Tag color="blue" data-testid="equipment-kind" data-value={kind}>
      {t(`equipment.kind.${kind}`)}
    </Tag>
  )
}

function SourceTag({ source }: { source: Equipment['source'] }) {
  const { t } = useTranslation()
  return (
    <Tag
      color={source === 'vendor' ? 'purple' : 'cyan'}
      data-testid="equipment-source"
      data-value={source}
    >
      {t(`equipment.source.${source}`)}
    </Tag>
  )
}

function StatusTag({ status }: { status: Equipment['status'] }) {
  const { t } = useTranslation()
  return (
    <Tag color={statusColor[status]} data-testid="equipment-status" data-value={status}>
      {t(`equipment.status.${status}`)}
    </Tag>
  )
}

/** One kind's counts (or all kinds'): the total and each status with devices. */
function SummaryCard({ k }: { k: KindSummary }) {
  const { t } = useTranslation()
  return (
    <Card
      size="small"
      data-testid="equipment-summary-kind"
      data-kind={k.kind}
      data-total={k.total}
      style={{ minWidth: 150, flex: '1 1 150px' }}
    >
      <Typography.Text strong>{t(`equipment.kind.${k.kind}`)}</Typography.Text>{' '}
      <Typography.Text type="secondary">
        {t('equipment.summary.total', { count: k.total })}
      </Typography.Text>
      <div style={{ marginTop: 6, display: 'flex', flexWrap: 'wrap', gap: 4 }}>
        {summaryParts(k).map(([status, n]) => (
          <Tag
            key={status}
            color={statusColor[status]}
            data-testid="equipment-summary-status"
            data-status={status}
            data-count={n}
            style={{ marginInlineEnd: 0 }}
          >
            {t(`equipment.status.${status}`)} {n}
          </Tag>
        ))}
      </div>
    </Card>
  )
}

const withHint = (title: string, hint: string) => (
  <Tooltip title={hint}>
    <span style={{ textDecoration: 'underline dotted' }}>{title}</span>
  </Tooltip>
)

/**
 * 设备总览 (`/equipment`): every device of the caller's stations with its status, newest sample
 * and last-day communication quality, the counts by kind and status on top, filters (folded behind
 * a button on phones), server-side sorting, the workbook of the same rows, and a link to each
 * device's live page; on a phone each device is a card.
 */
export default function EquipmentPage() {
  const { t } = useTranslation()
  const { message } = App.useApp()
  const phone = Grid.useBreakpoint().md === false
  const canExport = useSessionStore((s) => s.permission.equipment_export === true)
  const [search] = Form.useForm<EquipmentFilters>()
  const [filtersOpen, setFiltersOpen] = useState(false)
  const [exporting, setExporting] = useState(false)
  const paged = usePagedList(firstPage, (s) => equipmentPageQuery(queryOf(s)))
  const { list, page } = paged
  const summary = useQuery(equipmentSummaryQuery(list.filters)).data
  const sortOrder = (field: string) =>
    list.sort === field ? (list.order === 'desc' ? 'descend' : 'ascend') : null

  const plain: TableColumnsType<Equipment> = [
    { key: 'station', dataIndex: 'stationName', title: t('equipment.field.station'), sorter: true },
    {
      key: 'kind',
      dataIndex: 'kind',
      title: t('equipment.field.kind'),
      sorter: true,
      render: (kind: Equipment['kind']) => <KindTag kind={kind} />,
    },
    {
      key: 'name',
      dataIndex: 'name',
      title: t('equipment.field.name'),
      sorter: true,
      render: (name: string, row) => (
        <Link to={livePath(row)} data-testid="equipment-live-link">
          {name}
        </Link>
      ),
    },
    { key: 'model', dataIndex: 'model', title: t('equipment.field.model'), sorter: true },
    { key: 'sn', dataIndex: 'sn', title: t('equipment.field.sn'), sorter: true },
    { key: 'firmware', dataIndex: 'firmware', title: t('equipment.field.firmware') },
    {
      key: 'source',
      dataIndex: 'source',
      title: t('equipment.field.source'),
      sorter: true,
      render: (source: Equipment['source']) => <SourceTag source={source} />,
    },
    {
      key: 'status',
      dataIndex: 'status',
      title: t('equipment.field.status'),
      sorter: true,
      render: (status: Equipment['status']) => <StatusTag status={status} />,
    },
    {
      key: 'lastSample',
      dataIndex: 'lastSample',
      title: t('equipment.field.lastSample'),
      sorter: true,
      render: (v: string | null) => v ?? '—',
    },
    {
      key: 'missedPolls',
      dataIndex: 'missedPolls',
      title: withHint(t('equipment.field.missedPolls'), t('equipment.hint.missedPolls')),
      sorter: true,
      align: 'right',
      render: (v: number | null) => v ?? '—',
    },
    {
      key: 'suspectValues',
      dataIndex: 'suspectValues',
      title: withHint(t('equipment.field.suspectValues'), t('equipment.hint.suspectValues')),
      sorter: true,
      align: 'right',
    },
    {
      key: 'counterRebases',
      dataIndex: 'counterRebases',
      title: withHint(t('equipment.field.counterRebases'), t('equipment.hint.counterRebases')),
      sorter: true,
      align: 'right',
    },
  ]
  const columns: TableColumnsType<Equipment> = plain.map((c) => ({
    ...c,
    sortOrder: c.sorter ? sortOrder(String(c.key)) : undefined,
  }))

  const runExport = () => {
    setExporting(true)
    exportEquipment(queryOf(list))
      .then(saveDownload, () => void message.error(t('equipment.message.exportFailed')))
      .finally(() => setExporting(false))
  }

  const selectStyle = { minWidth: 150, width: phone ? '100%' : undefined }
  const itemStyle = phone ? { marginBottom: 8 } : undefined

  return (
    <Card
      data-testid="equipment-page"
      style={{ maxWidth: '100%', minWidth: 0, overflowX: 'clip' }}
      styles={{ body: phone ? { padding: 12 } : undefined }}
    >
      <div
        data-testid="equipment-summary"
        style={{ display: 'flex', flexWrap: 'wrap', gap: 8, marginBottom: 16 }}
      >
        {summary && (
          <>
            <SummaryCard k={summary.all} />
            {summary.kinds
              .filter((k) => k.total > 0)
              .map((k) => (
                <SummaryCard key={k.kind} k={k} />
              ))}
          </>
        )}
      </div>
      {phone && (
        <Button
          icon={<FilterOutlined />}
          data-testid="equipment-filters-toggle"
          aria-expanded={filtersOpen}
          style={{ minHeight: 44, marginBottom: 12 }}
          onClick={() => setFiltersOpen((open) => !open)}
        >
          {t('equipment.action.filters')}
        </Button>
      )}
      <Form
        form={search}
        layout={phone ? 'vertical' : 'inline'}
        hidden={phone && !filtersOpen}
        style={{ marginBottom: 16, rowGap: 12 }}
        onFinish={() => paged.go({ filters: { ...search.getFieldsValue() }, current: 1 })}
      >
        <Form.Item name="stationId" label={t('equipment.field.station')} style={itemStyle}>
          <StationSelect
            testId="equipment-search-station"
            value={undefined}
            onChange={() => undefined}
            placeholder={t('equipment.placeholder.allStations')}
            style={{ minWidth: 180, width: phone ? '100%' : undefined }}
          />
        </Form.Item>
        <Form.Item name="kind" label={t('equipment.field.kind')} style={itemStyle}>
          <Select
            data-testid="equipment-search-kind"
            allowClear
            style={selectStyle}
            placeholder={t('equipment.placeholder.any')}
            options={equipmentKinds.map((k) => ({ value: k, label: t(`equipment.kind.${k}`) }))}
          />
        </Form.Item>
        <Form.Item name="source" label={t('equipment.field.source')} style={itemStyle}>
          <Select
            data-testid="equipment-search-source"
            allowClear
            style={selectStyle}
            placeholder={t('equipment.placeholder.any')}
            options={equipmentSources.map((k) => ({
              value: k,
              label: t(`equipment.source.${k}`),
            }))}
          />
        </Form.Item>
        <Form.Item name="status" label={t('equipment.field.status')} style={itemStyle}>
          <Select
            data-testid="equipment-search-status"
            allowClear
            style={selectStyle}
            placeholder={t('equipment.placeholder.any')}
            options={equipmentStatuses
              .filter((s) => s !== 'unknown')
              .map((k) => ({ value: k, label: t(`equipment.status.${k}`) }))}
          />
        </Form.Item>
        <Form.Item name="keyword" label={t('equipment.field.keyword')} style={itemStyle}>
          <Input
            data-testid="equipment-search-keyword"
            allowClear
            placeholder={t('equipment.placeholder.keyword')}
            style={{ minWidth: 180, width: phone ? '100%' : undefined }}
          />
        </Form.Item>
        <Form.Item style={itemStyle}>
          <Space wrap>
            <Button type="primary" htmlType="submit" data-testid="equipment-search">
              {t('equipment.action.search')}
            </Button>
            <Button
              data-testid="equipment-reset"
              onClick={() => {
                search.resetFields()
                paged.go({ filters: {}, current: 1 })
              }}
            >
              {t('equipment.action.reset')}
            </Button>
          </Space>
        </Form.Item>
      </Form>
      {canExport && (
        <Space style={{ marginBottom: 16 }} wrap>
          <Button
            icon={<DownloadOutlined />}
            loading={exporting}
            data-testid="equipment-export"
            onClick={runExport}
          >
            {t('equipment.action.export')}
          </Button>
        </Space>
      )}
      {phone ? (
        <Spin spinning={paged.loading}>
          {page.records.length === 0 && <Empty />}
          <Space
            orientation="vertical"
            size={12}
            style={{ width: '100%' }}
            data-testid="equipment-table"
          >
            {page.records.map((e) => (
              <Card
                key={e.id}
                size="small"
                data-testid="equipment-card"
                data-sn={e.sn}
                title={
                  <Space size={4} wrap>
                    <KindTag kind={e.kind} />
                    <span style={{ overflowWrap: 'anywhere' }}>{e.name}</span>
                  </Space>
                }
                extra={
                  <Link
                    to={livePath(e)}
                    data-testid="equipment-live-link"
                    style={{ display: 'inline-flex', alignItems: 'center', minHeight: 44 }}
                    aria-label={t('equipment.action.live')}
                  >
                    <RightOutlined />
                  </Link>
                }
              >
                <Space orientation="vertical" size={4} style={{ width: '100%' }}>
                  <Typography.Text type="secondary" style={{ overflowWrap: 'anywhere' }}>
                    {e.stationName} · {e.sn}
                    {e.model ? ` · ${e.model}` : ''}
                    {e.firmware ? ` · ${e.firmware}` : ''}
                  </Typography.Text>
                  <Space size={4} wrap>
                    <StatusTag status={e.status} />
                    <SourceTag source={e.source} />
                  </Space>
                  <Typography.Text style={{ overflowWrap: 'anywhere' }}>
                    {t('equipment.field.lastSample')}: {e.lastSample ?? '—'}
                  </Typography.Text>
                  <Typography.Text type="secondary" style={{ overflowWrap: 'anywhere' }}>
                    {t('equipment.field.missedPolls')} {e.missedPolls ?? '—'} ·{' '}
                    {t('equipment.field.suspectValues')} {e.suspectValues} ·{' '}
                    {t('equipment.field.counterRebases')} {e.counterRebases}
                  </Typography.Text>
                </Space>
              </Card>
            ))}
          </Space>
          <Pagination
            style={{ marginTop: 12 }}
            simple
            current={list.current}
            pageSize={list.size}
            total={page.total}
            onChange={(current, size) =>
              paged.go(size !== list.size ? { current: 1, size } : { current })
            }
          />
        </Spin>
      ) : (
        <Table<Equipment>
          data-testid="equipment-table"
          rowKey="id"
          size="small"
          loading={paged.loading}
          columns={columns}
          dataSource={page.records}
          scroll={{ x: 'max-content' }}
          onRow={(row) => ({ 'data-sn': row.sn }) as React.HTMLAttributes<HTMLElement>}
          pagination={{
            current: list.current,
            pageSize: list.size,
            total: page.total,
            showSizeChanger: true,
            pageSizeOptions: pageSizeOptions.map(String),
          }}
          onChange={(p, _filters, sorter) => {
            const one = Array.isArray(sorter) ? sorter[0] : sorter
            const { sort, order } = sortOf(one?.columnKey, one?.order)
            const size = p.pageSize ?? list.size
            const sortChanged = sort !== list.sort || order !== list.order
            paged.go({
              sort,
              order,
              size,
              current: sortChanged || size !== list.size ? 1 : (p.current ?? 1),
            })
          }}
        />
      )}
    </Card>
  )
}
