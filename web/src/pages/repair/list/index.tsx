import { PlusOutlined, ReloadOutlined, SettingOutlined } from '@ant-design/icons'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import {
  Button,
  Card,
  Checkbox,
  Empty,
  Flex,
  Form,
  Input,
  List,
  Pagination,
  Select,
  Space,
  Table,
  Tag,
  Typography,
  type TableColumnsType,
} from 'antd'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { useNavigate, useSearchParams } from 'react-router-dom'
import { repairKeys, repairPageQuery, repairStatusQuery } from '../../../api/repair/queries'
import { repairStatuses, type RepairOrder } from '../../../api/repair/repair'
import { defaultPageSize, pageSizeOptions } from '../../../components/crud/logic'
import { useFilterFold } from '../../../components/FilterFold'
import StationSelect from '../../../components/realtime/StationSelect'
import { useDict } from '../../../hooks/useDict'
import { usePagedList } from '../../../hooks/usePagedList'
import { usePhone } from '../../../hooks/usePhone'
import { useSessionStore } from '../../../stores/session'
import { levelLabel } from '../../alarm/alarms/labels'
import { levelColor } from '../../alarm/alarms/logic'
import {
  buildRepairQuery,
  filtersFromSearch,
  isOverdue,
  repairDetailPath,
  repairSourceLabel,
  repairStatusLabel,
  type RepairFilters,
} from '../logic'
import RepairStatusTag from '../StatusTag'
import NewOrderDialog from './NewOrderDialog'
import SettingDialog from './SettingDialog'
import StatsPanel from './StatsPanel'

interface ListState {
  filters: RepairFilters
  current: number
  size: number
}

/** Overdue rows are tinted red (index.css). */
const overdueClass = (order: RepairOrder) => (isOverdue(order) ? 'repair-overdue' : '')

function OrderCard({ order, onOpen }: { order: RepairOrder; onOpen: () => void }) {
  const { t } = useTranslation()
  const overdue = isOverdue(order)
  return (
    <Card
      size="small"
      hoverable
      onClick={onOpen}
      className={overdueClass(order)}
      data-testid="repair-card"
      data-repair-id={order.id}
      data-overdue={overdue}
      style={{ marginBottom: 8 }}
    >
      <Flex justify="space-between" align="center" gap={8}>
        <Typography.Text strong ellipsis>
          {order.code}
        </Typography.Text>
        <Space size={4}>
          {overdue && <Tag color="red">{t('repair.overdue')}</Tag>}
          <RepairStatusTag
            status={order.status}
            name={order.statusName}
            testId="repair-row-status"
          />
        </Space>
      </Flex>
      <div style={{ marginTop: 4, wordBreak: 'break-word' }}>{order.title}</div>
      <Typography.Text type="secondary" style={{ fontSize: 13 }}>
        {order.stationName}
        {order.deviceName ? ` · ${order.deviceName}` : ''} · {order.createTime}
      </Typography.Text>
    </Card>
  )
}

/**
 * Repair orders (`/intelligentOperation/repair`): the O&M figures, filters (station, status,
 * level, mine, overdue), the orders (a table; cards on a phone) with overdue ones highlighted, a
 * new order by hand (`repair_add`) and the deadlines (`repair_setting`).
 */
export default function RepairListPage() {
  const { t } = useTranslation()
  const navigate = useNavigate()
  const phone = usePhone()
  const queryClient = useQueryClient()
  const [params] = useSearchParams()
  const [initialFilters] = useState(() => filtersFromSearch(params))
  const [searchForm] = Form.useForm<RepairFilters>()
  const permission = useSessionStore((s) => s.permission)
  const canAdd = permission.repair_add === true
  const canAssign = permission.repair_assign === true
  const canSet = permission.repair_setting === true
  const [creating, setCreating] = useState(false)
  const [setting, setSetting] = useState(false)
  const paged = usePagedList(
    { filters: initialFilters, current: 1, size: defaultPageSize },
    (state) => repairPageQuery(buildRepairQuery(state.filters, state.current, state.size)),
  )
  const { list, page } = paged
  const statuses = useQuery(repairStatusQuery()).data ?? []
  const levels = useDict('alarm_level')
  const levelNames = Object.fromEntries(levels.map((l) => [String(l.dictKey), l.dictValue]))
  const statusNames = Object.fromEntries(statuses.map((s) => [s.dictKey, s.dictValue]))
  const open = (order: RepairOrder) => void navigate(repairDetailPath(order.id))

  const columns: TableColumnsType<RepairOrder> = [
    {
      key: 'code',
      dataIndex: 'code',
      title: t('repair.field.code'),
      render: (code: string, row) => (
        <Button
          type="link"
          size="small"
          style={{ padding: 0 }}
          onClick={() => open(row)}
          data-testid="repair-row-code"
        >
          {code}
        </Button>
      ),
    },
    { key: 'title', dataIndex: 'title', title: t('repair.field.title'), ellipsis: true },
    { key: 'stationName', dataIndex: 'stationName', title: t('repair.field.station') },
    { key: 'deviceName', dataIndex: 'deviceName', title: t('repair.field.device') },
    {
      key: 'level',
      dataIndex: 'level',
      title: t('repair.field.level'),
      render: (level: number, row) =>
        level > 0 ? (
          <Tag color={levelColor(level)}>{row.levelName || levelLabel(t, level, levelNames)}</Tag>
        ) : (
          '-'
        ),
    },
    {
      key: 'status',
      dataIndex: 'status',
      title: t('repair.field.status'),
      render: (status: number, row) => (
        <Space size={4}>
          <RepairStatusTag status={status} name={row.statusName} testId="repair-row-status" />
          {isOverdue(row) && <Tag color="red">{t('repair.overdue')}</Tag>}
        </Space>
      ),
    },
    {
      key: 'source',
      dataIndex: 'source',
      title: t('repair.field.source'),
      render: (source: string, row) => repairSourceLabel(t, source, row.sourceName),
    },
    { key: 'assigneeName', dataIndex: 'assigneeName', title: t('repair.field.assignee') },
    { key: 'createTime', dataIndex: 'createTime', title: t('repair.field.createTime') },
    {
      key: 'repairDeadline',
      dataIndex: 'repairDeadline',
      title: t('repair.field.repairDeadline'),
      render: (value: string, row) => (
        <Typography.Text type={row.repairOverdue ? 'danger' : undefined}>
          {value || '-'}
        </Typography.Text>
      ),
    },
  ]

  const fold = useFilterFold('repair-filters-toggle')
  const search = () => {
    fold.close()
    go({ filters: { ...searchForm.getFieldsValue() }, current: 1 })
  }
  const go = (next: Partial<ListState>) => paged.go(next)
  const wide = phone ? { width: '100%' } : { minWidth: 140 }

  return (
    <Card data-testid="repair-page" size={phone ? 'small' : 'default'}>
      <StatsPanel />
      {fold.toggle}
      <Form
        form={searchForm}
        hidden={fold.hidden}
        layout={phone ? 'vertical' : 'inline'}
        initialValues={initialFilters}
        data-testid="repair-search-form"
        style={{ marginBottom: 12, rowGap: 8 }}
        onFinish={search}
      >
        <Form.Item
          name="stationId"
          label={t('repair.field.station')}
          style={phone ? { marginBottom: 8 } : undefined}
        >
          <StationSelect
            testId="repair-search-station"
            value={undefined}
            onChange={() => undefined}
            placeholder={t('repair.placeholder.any')}
            style={phone ? { width: '100%', minWidth: 0 } : undefined}
          />
        </Form.Item>
        <Form.Item
          name="status"
          label={t('repair.field.status')}
          style={phone ? { marginBottom: 8 } : undefined}
        >
          <Select
            allowClear
            data-testid="repair-search-status"
            style={wide}
            placeholder={t('repair.placeholder.any')}
            options={repairStatuses.map((s) => ({
              value: String(s),
              label: repairStatusLabel(t, s, statusNames[String(s)]),
            }))}
          />
        </Form.Item>
        <Form.Item
          name="level"
          label={t('repair.field.level')}
          style={phone ? { marginBottom: 8 } : undefined}
        >
          <Select
            allowClear
            data-testid="repair-search-level"
            style={wide}
            placeholder={t('repair.placeholder.any')}
            options={['1', '2', '3', '4'].map((key) => ({
              value: key,
              label: levelLabel(t, key, levelNames),
            }))}
          />
        </Form.Item>
        {!phone && (
          <Form.Item name="keyword" label={t('repair.field.keyword')}>
            <Input
              allowClear
              data-testid="repair-search-keyword"
              placeholder={t('repair.placeholder.keyword')}
            />
          </Form.Item>
        )}
        <Form.Item style={phone ? { marginBottom: 8 } : undefined}>
          <Space wrap>
            <Form.Item name="mine" valuePropName="checked" noStyle>
              <Checkbox data-testid="repair-search-mine">{t('repair.field.mine')}</Checkbox>
            </Form.Item>
            <Form.Item name="overdue" valuePropName="checked" noStyle>
              <Checkbox data-testid="repair-search-overdue">{t('repair.field.overdue')}</Checkbox>
            </Form.Item>
          </Space>
        </Form.Item>
        <Form.Item style={phone ? { marginBottom: 0 } : undefined}>
          <Space wrap>
            <Button type="primary" htmlType="submit" data-testid="repair-search">
              {t('crud.search')}
            </Button>
            <Button
              data-testid="repair-reset"
              onClick={() => {
                searchForm.setFieldsValue({
                  stationId: undefined,
                  status: undefined,
                  level: undefined,
                  keyword: undefined,
                  mine: false,
                  overdue: false,
                })
                go({ filters: {}, current: 1 })
              }}
            >
              {t('crud.reset')}
            </Button>
          </Space>
        </Form.Item>
      </Form>
      <Space style={{ marginBottom: 12 }} wrap>
        {canAdd && (
          <Button
            type="primary"
            icon={<PlusOutlined />}
            data-testid="repair-new"
            onClick={() => setCreating(true)}
          >
            {t('repair.newOrder')}
          </Button>
        )}
        {canSet && (
          <Button
            icon={<SettingOutlined />}
            data-testid="repair-setting"
            onClick={() => setSetting(true)}
          >
            {t('repair.setting')}
          </Button>
        )}
        <Button icon={<ReloadOutlined />} data-testid="repair-refresh" onClick={() => paged.go()}>
          {t('alarmUi.action.refresh')}
        </Button>
      </Space>
      {phone ? (
        <div data-testid="repair-cards">
          {page.records.length === 0 && !paged.loading ? (
            <Empty />
          ) : (
            <List
              loading={paged.loading}
              dataSource={page.records}
              renderItem={(order) => (
                <OrderCard key={order.id} order={order} onOpen={() => open(order)} />
              )}
            />
          )}
          {page.total > list.size && (
            <Pagination
              simple
              align="center"
              current={list.current}
              pageSize={list.size}
              total={page.total}
              onChange={(current) => go({ current })}
            />
          )}
        </div>
      ) : (
        <Table<RepairOrder>
          data-testid="repair-table"
          rowKey="id"
          size="middle"
          bordered
          loading={paged.loading}
          columns={columns}
          dataSource={page.records}
          scroll={{ x: 'max-content' }}
          rowClassName={overdueClass}
          onRow={(row) => ({ 'data-repair-id': row.id }) as React.HTMLAttributes<HTMLElement>}
          pagination={{
            current: list.current,
            pageSize: list.size,
            total: page.total,
            showSizeChanger: true,
            pageSizeOptions: pageSizeOptions.map(String),
            showTotal: (total) => t('crud.total', { total }),
            onChange: (current, size) =>
              go(size !== list.size ? { current: 1, size } : { current }),
          }}
        />
      )}
      {creating && (
        <NewOrderDialog
          canAssign={canAssign}
          onClose={() => setCreating(false)}
          onCreated={(order) => {
            setCreating(false)
            void queryClient.invalidateQueries({ queryKey: repairKeys.all })
            open(order)
          }}
        />
      )}
      {setting && <SettingDialog onClose={() => setSetting(false)} />}
    </Card>
  )
}
