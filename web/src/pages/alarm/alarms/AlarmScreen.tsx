import { ReloadOutlined, SettingOutlined } from '@ant-design/icons'
import {
  Button,
  Card,
  DatePicker,
  Form,
  Input,
  Select,
  Space,
  Table,
  Tag,
  Tooltip,
  Typography,
  type TableColumnsType,
} from 'antd'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useCallback, useEffect, useMemo, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useSearchParams } from 'react-router-dom'
import {
  alarmCategories,
  warnCategories,
  type AlarmAction,
  type AlarmRecord,
  type StatusEntry,
} from '../../../api/alarm/alarm'
import {
  alarmDetailQuery,
  alarmPageQuery,
  alarmPagesKey,
  alarmStatusQuery,
} from '../../../api/alarm/queries'
import { defaultPageSize, pageSizeOptions } from '../../../components/crud/logic'
import { useFilterFold } from '../../../components/FilterFold'
import StationSelect from '../../../components/realtime/StationSelect'
import { useDict } from '../../../hooks/useDict'
import { usePagedList } from '../../../hooks/usePagedList'
import { useAlarmStore } from '../../../stores/alarm'
import { useSessionStore } from '../../../stores/session'
import AlarmDetail from './AlarmDetail'
import HandleDialog from './HandleDialog'
import { categoryLabel, levelLabel, statusLabel } from './labels'
import {
  allowedActions,
  buildAlarmQuery,
  feedSignature,
  idFromSearch,
  levelColor,
  statusColor,
  warningLink,
  withoutId,
  type AlarmFilters,
} from './logic'
import RuleDialog from './RuleDialog'

export type AlarmScreenKind = 'alarm' | 'warn'

interface ListState {
  filters: AlarmFilters
  current: number
  size: number
}

const firstPage: ListState = { filters: {}, current: 1, size: defaultPageSize }
const noStatuses: StatusEntry[] = []

/** Button permission of acknowledging / clearing (and of the alarm rules). */
export const HANDLE_PERMISSION = 'alarmData_handle'

/**
 * The alarm list screens: station faults (`/intelligentOperation/alarmData`, kind "alarm") and smart
 * warnings (`/intelligentOperation/intelligentWarning`, kind "warn"). Filter bar, paged table, a
 * detail drawer (opened by `?id=` from the bell), acknowledge / clear with a note, the alarm rules
 * (alarms only), and a quiet reload whenever the bell's alarm feed changes.
 */
export default function AlarmScreen({ kind }: { kind: AlarmScreenKind }) {
  const { t } = useTranslation()
  const warn = kind === 'warn'
  const canHandle = useSessionStore((s) => s.permission[HANDLE_PERMISSION] === true)
  const [searchForm] = Form.useForm<AlarmFilters>()
  const [params, setParams] = useSearchParams()
  const openId = idFromSearch(params)
  const queryClient = useQueryClient()
  const paged = usePagedList(firstPage, (state) =>
    alarmPageQuery(kind, buildAlarmQuery(state.filters, state.current, state.size)),
  )
  const { list, page } = paged
  /** A reload of the live feed keeps the table without a spinner. */
  const [quiet, setQuiet] = useState(false)
  const statuses = useQuery(alarmStatusQuery()).data ?? noStatuses
  const levels = useDict('alarm_level')
  /** A row opened from the table. */
  const [selected, setSelected] = useState<AlarmRecord | null>(null)
  /** The alarm `?id=` names (a bell click), fetched by id. */
  const byId = useQuery({ ...alarmDetailQuery(kind, openId ?? ''), enabled: openId !== null })
  const [handling, setHandling] = useState<{ record: AlarmRecord; action: AlarmAction } | null>(
    null,
  )
  const [rules, setRules] = useState(false)
  const closeRules = useCallback(() => setRules(false), [])

  const statusNames = useMemo(
    () => Object.fromEntries(statuses.map((s) => [String(s.dictKey), s.dictValue])),
    [statuses],
  )
  const levelNames = useMemo(
    () => Object.fromEntries(levels.map((l) => [String(l.dictKey), l.dictValue])),
    [levels],
  )

  const go = (next: Partial<ListState>) => {
    setQuiet(false)
    paged.go(next)
  }
  const reload = () => {
    setQuiet(false)
    paged.go()
  }

  // The bell's feed changed (an alarm raised, acknowledged or cleared): reload quietly (no
  // spinner), so a new alarm shows without a page reload.
  const signature = useAlarmStore((s) => feedSignature(s.count, s.list))
  const [quietFor, setQuietFor] = useState(signature)
  if (quietFor !== signature) {
    setQuietFor(signature)
    setQuiet(true)
  }
  const seen = useRef(signature)
  useEffect(() => {
    if (seen.current === signature) return
    seen.current = signature
    void queryClient.invalidateQueries({ queryKey: alarmPagesKey(kind) })
  }, [signature, queryClient, kind])

  const fromUrl = openId !== null
  // Not found, not visible or failed: no record.
  const fetched = byId.isPending ? null : { record: byId.data ?? null }
  const detailRecord = fromUrl ? (fetched?.record ?? null) : selected
  // While `?id=` is being fetched the drawer is open and empty; not found: closed.
  const detailOpen = fromUrl ? fetched === null || fetched.record !== null : selected !== null

  const showDetail = (record: AlarmRecord) => {
    setSelected(record)
    if (fromUrl) setParams(withoutId(params), { replace: true })
  }
  const closeDetail = () => {
    setSelected(null)
    if (fromUrl) setParams(withoutId(params), { replace: true })
  }

  const afterHandled = () => {
    const id = handling?.record.id
    setHandling(null)
    reload()
    if (id === undefined || detailRecord?.id !== id) return
    // The open detail shows the handled alarm as it is now (the `?id=` query follows the cache).
    queryClient.fetchQuery(alarmDetailQuery(kind, id)).then(
      (record) => record && setSelected((prev) => (prev?.id === id ? record : prev)),
      () => undefined,
    )
  }

  const categories = warn ? warnCategories : alarmCategories
  const fold = useFilterFold('alarm-filters-toggle')
  const phone = fold.phone

  const nameCell = (row: AlarmRecord) => (
    <Button
      type="link"
      size="small"
      style={{ padding: 0, height: 'auto', whiteSpace: 'normal', textAlign: 'start' }}
      data-testid="alarm-row-name"
      onClick={() => showDetail(row)}
    >
      {row.warningName}
    </Button>
  )
  const levelCell = (row: AlarmRecord) => (
    <Tag color={levelColor(row.level)} data-testid="alarm-row-level">
      {levelLabel(t, row.level, levelNames)}
    </Tag>
  )
  const statusCell = (row: AlarmRecord) => (
    <Tag color={statusColor(row.status)} data-testid="alarm-row-status" data-status={row.status}>
      {row.statusName || statusLabel(t, row.status, statusNames)}
    </Tag>
  )

  // Phones: one column that holds what matters (name, level, status; station, device and time
  // underneath) next to the actions, instead of a table wider than the screen.
  const leading: TableColumnsType<AlarmRecord> = phone
    ? [
        {
          key: 'alarm',
          title: t(warn ? 'alarmUi.field.warnName' : 'alarmUi.field.warningName'),
          render: (_: unknown, row) => (
            <div data-testid="alarm-row-card">
              {nameCell(row)}
              <div style={{ marginBlock: 4 }}>
                {levelCell(row)}
                {statusCell(row)}
              </div>
              <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                {row.stationName} · {row.deviceName}
                {row.deviceSn ? ` (${row.deviceSn})` : ''}
                <br />
                {row.lastTime}
              </Typography.Text>
            </div>
          ),
        },
      ]
    : [
        { key: 'stationName', dataIndex: 'stationName', title: t('alarmUi.field.station') },
        { key: 'deviceName', dataIndex: 'deviceName', title: t('alarmUi.field.device') },
        {
          key: 'deviceSn',
          dataIndex: 'deviceSn',
          title: t('alarmUi.field.deviceSn'),
          render: (sn?: string) => sn || '-',
        },
        {
          key: 'warningName',
          dataIndex: 'warningName',
          title: t(warn ? 'alarmUi.field.warnName' : 'alarmUi.field.warningName'),
          render: (_: string, row) => nameCell(row),
        },
        {
          key: 'category',
          dataIndex: 'category',
          title: t('alarmUi.field.category'),
          render: (c: string) => categoryLabel(t, c),
        },
        {
          key: 'level',
          dataIndex: 'level',
          title: t('alarmUi.field.level'),
          render: (_: number, row) => levelCell(row),
        },
        {
          key: 'status',
          dataIndex: 'status',
          title: t('alarmUi.field.status'),
          render: (_: number, row) => statusCell(row),
        },
        { key: 'firstTime', dataIndex: 'firstTime', title: t('alarmUi.field.firstTime') },
        { key: 'lastTime', dataIndex: 'lastTime', title: t('alarmUi.field.lastTime') },
        { key: 'occurrences', dataIndex: 'occurrences', title: t('alarmUi.field.occurrences') },
      ]

  const columns: TableColumnsType<AlarmRecord> = [
    ...leading,
    {
      key: '__actions',
      title: t('crud.actions'),
      fixed: phone ? undefined : 'right',
      width: phone ? 96 : undefined,
      render: (_: unknown, row) => {
        const link = warn ? warningLink(row) : null
        return (
          <Space size={0} wrap>
            <Button
              type="link"
              size="small"
              data-testid="alarm-row-detail"
              onClick={() => showDetail(row)}
            >
              {t('alarmUi.action.detail')}
            </Button>
            {canHandle &&
              allowedActions(row.status).map((action) => (
                <Button
                  key={action}
                  type="link"
                  size="small"
                  danger={action === 'clear'}
                  data-testid={`alarm-row-${action}`}
                  onClick={() => setHandling({ record: row, action })}
                >
                  {t(`alarmUi.action.${action}`)}
                </Button>
              ))}
            {link && (
              <Link to={link.to} data-testid="alarm-row-link">
                {t(link.label)}
              </Link>
            )}
          </Space>
        )
      },
    },
  ]

  return (
    <Card
      data-testid={warn ? 'warn-page' : 'alarm-page'}
      styles={phone ? { body: { padding: 12 } } : undefined}
    >
      {fold.toggle}
      <Form
        form={searchForm}
        layout={phone ? 'vertical' : 'inline'}
        hidden={fold.hidden}
        data-testid="alarm-search-form"
        style={{ marginBottom: 16, rowGap: 12 }}
        onFinish={() => {
          fold.close()
          go({ filters: { ...searchForm.getFieldsValue() }, current: 1 })
        }}
      >
        <Form.Item name="stationId" label={t('alarmUi.field.station')}>
          <StationSelect
            testId="alarm-search-station"
            value={undefined}
            onChange={() => undefined}
            placeholder={t('alarmUi.placeholder.station')}
          />
        </Form.Item>
        <Form.Item name="keyword" label={t('alarmUi.field.device')}>
          <Input
            data-testid="alarm-search-keyword"
            allowClear
            placeholder={t('alarmUi.placeholder.deviceKeyword')}
          />
        </Form.Item>
        <Form.Item name="status" label={t('alarmUi.field.status')}>
          <Select
            data-testid="alarm-search-status"
            allowClear
            style={{ minWidth: 120 }}
            placeholder={t('alarmUi.placeholder.any')}
            options={(statuses.length > 0
              ? statuses.map((s) => String(s.dictKey))
              : ['0', '1', '2']
            ).map((key) => ({ value: key, label: statusLabel(t, key, statusNames) }))}
          />
        </Form.Item>
        <Form.Item name="level" label={t('alarmUi.field.level')}>
          <Select
            data-testid="alarm-search-level"
            allowClear
            style={{ minWidth: 120 }}
            placeholder={t('alarmUi.placeholder.any')}
            options={(levels.length > 0
              ? levels.map((l) => String(l.dictKey))
              : ['1', '2', '3', '4']
            ).map((key) => ({ value: key, label: levelLabel(t, key, levelNames) }))}
          />
        </Form.Item>
        <Form.Item name="category" label={t('alarmUi.field.category')}>
          <Select
            data-testid="alarm-search-category"
            allowClear
            style={{ minWidth: 140 }}
            placeholder={t('alarmUi.placeholder.any')}
            options={categories.map((c) => ({ value: c, label: categoryLabel(t, c) }))}
          />
        </Form.Item>
        <Form.Item name="range" label={t('alarmUi.field.timeRange')}>
          <DatePicker.RangePicker
            data-testid="alarm-search-range"
            showTime
            placeholder={[t('crud.startDate'), t('crud.endDate')]}
          />
        </Form.Item>
        <Form.Item>
          <Space>
            <Button type="primary" htmlType="submit" data-testid="alarm-search">
              {t('crud.search')}
            </Button>
            <Button
              data-testid="alarm-reset"
              onClick={() => {
                searchForm.resetFields()
                go({ filters: {}, current: 1 })
              }}
            >
              {t('crud.reset')}
            </Button>
          </Space>
        </Form.Item>
      </Form>
      <Space style={{ marginBottom: 16 }} wrap>
        <Tooltip title={t('alarmUi.autoRefresh')}>
          <Button icon={<ReloadOutlined />} data-testid="alarm-refresh" onClick={() => reload()}>
            {t('alarmUi.action.refresh')}
          </Button>
        </Tooltip>
        {!warn && canHandle && (
          <Button
            icon={<SettingOutlined />}
            data-testid="alarm-rules"
            onClick={() => setRules(true)}
          >
            {t('alarmUi.action.rules')}
          </Button>
        )}
      </Space>
      <Table<AlarmRecord>
        data-testid="alarm-table"
        rowKey="id"
        size={phone ? 'small' : 'middle'}
        bordered
        loading={paged.loading && !quiet}
        columns={columns}
        dataSource={page.records}
        scroll={phone ? undefined : { x: 'max-content' }}
        onRow={(row) => ({ 'data-alarm-id': row.id }) as React.HTMLAttributes<HTMLElement>}
        pagination={{
          current: list.current,
          pageSize: list.size,
          total: page.total,
          showSizeChanger: true,
          pageSizeOptions: pageSizeOptions.map(String),
          showTotal: (total) => t('crud.total', { total }),
          onChange: (current, size) => go(size !== list.size ? { current: 1, size } : { current }),
        }}
      />
      <AlarmDetail
        record={detailRecord}
        open={detailOpen}
        warn={warn}
        canHandle={canHandle}
        statusNames={statusNames}
        levelNames={levelNames}
        onClose={closeDetail}
        onAction={(record, action) => setHandling({ record, action })}
      />
      {handling && (
        <HandleDialog
          key={`${handling.record.id}-${handling.action}`}
          record={handling.record}
          action={handling.action}
          onClose={() => setHandling(null)}
          onDone={afterHandled}
        />
      )}
      {rules && <RuleDialog onClose={closeRules} />}
    </Card>
  )
}
