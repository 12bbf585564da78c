import {
  DeleteOutlined,
  DownloadOutlined,
  EditOutlined,
  EyeOutlined,
  FolderOpenOutlined,
  PlayCircleOutlined,
  PlusOutlined,
  UploadOutlined,
} from '@ant-design/icons'
import {
  Button,
  Card,
  Form,
  Input,
  Select,
  Space,
  Table,
  Typography,
  type TableColumnsType,
} from 'antd'
import { useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { useNavigate } from 'react-router-dom'
import { exportStations, saveDownload } from '../../../api/station/excel'
import { stationPageQuery } from '../../../api/station/queries'
import { COMMISSIONING, RUNNING, type Station } from '../../../api/station/station'
import { defaultPageSize, pageSizeOptions } from '../../../components/crud/logic'
import { useFilterFold } from '../../../components/FilterFold'
import { dictOptions } from '../../../components/crud/useFieldOptions'
import { useDict } from '../../../hooks/useDict'
import { usePagedList } from '../../../hooks/usePagedList'
import { useSessionStore } from '../../../stores/session'
import ImportDialog from './ImportDialog'
import { stationDicts, stationFilters } from './logic'
import RegionCascader from './RegionCascader'
import StationForm, { type StationFormMode } from './StationForm'
import InstallationStatusTag from './StatusTag'
import { useStationActions } from './useStationActions'

interface ListState {
  search: Record<string, unknown>
  current: number
  size: number
}

const firstPage: ListState = { search: {}, current: 1, size: defaultPageSize }

/** Labels of a dictionary by key (table cells). */
function useDictLabels(code: string): Record<string, string> {
  const entries = useDict(code)
  return useMemo(
    () => Object.fromEntries(dictOptions(entries).map((o) => [String(o.value), o.label])),
    [entries],
  )
}

/**
 * /station/station: the station list: search, paging, add / edit / view /
 * delete (devices confirmed a second time), commissioning → running, Excel template, import with
 * the server's row report, and export of the filtered list. Buttons follow `station_*` permissions.
 */
export default function StationListPage() {
  const { t } = useTranslation()
  const navigate = useNavigate()
  const permission = useSessionStore((s) => s.permission)
  const can = (button: string) => permission[`station_${button}`] === true
  const [searchForm] = Form.useForm<Record<string, unknown>>()
  const { list, go, page, loading } = usePagedList(firstPage, (state) =>
    stationPageQuery({ current: state.current, size: state.size, ...stationFilters(state.search) }),
  )
  const [dialog, setDialog] = useState<{ mode: StationFormMode; id?: string; seq: number } | null>(
    null,
  )
  const [importing, setImporting] = useState(false)
  const [exporting, setExporting] = useState(false)
  const { remove, switchToRunning } = useStationActions()
  const stateLabels = useDictLabels(stationDicts.state)
  const typeLabels = useDictLabels(stationDicts.stationType)
  const stateOptions = dictOptions(useDict(stationDicts.state))
  const typeOptions = dictOptions(useDict(stationDicts.stationType))

  const reload = () => go()
  const open = (mode: StationFormMode, id?: string) =>
    setDialog((prev) => ({ mode, id, seq: (prev?.seq ?? 0) + 1 }))

  const exportList = async () => {
    setExporting(true)
    try {
      saveDownload(await exportStations(stationFilters(list.search)))
    } catch {
      // shown by the request client
    } finally {
      setExporting(false)
    }
  }

  const columns: TableColumnsType<Station> = [
    // The whole name: demo names share their first characters ("演示-…").
    { key: 'name', dataIndex: 'name', title: t('stationUi.field.name') },
    {
      key: 'stationType',
      dataIndex: 'stationType',
      title: t('stationUi.field.stationType'),
      render: (v: string | null) => (v ? (typeLabels[v] ?? v) : ''),
    },
    {
      key: 'state',
      dataIndex: 'state',
      title: t('stationUi.field.state'),
      render: (v: string | null) => (v ? (stateLabels[v] ?? v) : ''),
    },
    {
      key: 'installationStatus',
      dataIndex: 'installationStatus',
      title: t('stationUi.field.installationStatus'),
      render: (v: string) => <InstallationStatusTag status={v} />,
    },
    { key: 'capacity', dataIndex: 'capacity', title: t('stationUi.field.capacity') },
    { key: 'ownerName', dataIndex: 'ownerName', title: t('stationUi.field.ownerName') },
    { key: 'gatewayId', dataIndex: 'gatewayId', title: t('stationUi.field.gatewayId') },
    { key: 'createTime', dataIndex: 'createTime', title: t('crud.createTime') },
    {
      key: '__actions',
      title: t('crud.actions'),
      fixed: 'right',
      render: (_: unknown, row: Station) => (
        <Space size={0} wrap>
          {can('view') && (
            <Button
              type="link"
              size="small"
              icon={<EyeOutlined />}
              data-testid="crud-row-view"
              onClick={() => open('view', row.id)}
            >
              {t('crud.view')}
            </Button>
          )}
          {can('edit') && (
            <Button
              type="link"
              size="small"
              icon={<EditOutlined />}
              data-testid="crud-row-edit"
              onClick={() => open('edit', row.id)}
            >
              {t('crud.edit')}
            </Button>
          )}
          {can('switch') && row.installationStatus === COMMISSIONING && (
            <Button
              type="link"
              size="small"
              icon={<PlayCircleOutlined />}
              data-testid="crud-row-switch"
              onClick={() => switchToRunning(row, reload)}
            >
              {t('stationUi.switch.action')}
            </Button>
          )}
          <Button
            type="link"
            size="small"
            icon={<FolderOpenOutlined />}
            data-testid="crud-row-archive"
            onClick={() => void navigate(`/archives?id=${row.id ?? ''}`)}
          >
            {t('stationUi.archive.open')}
          </Button>
          {can('delete') && (
            <Button
              type="link"
              size="small"
              danger
              icon={<DeleteOutlined />}
              data-testid="crud-row-delete"
              onClick={() => remove(row, reload)}
            >
              {t('crud.delete')}
            </Button>
          )}
        </Space>
      ),
    },
  ]

  // Phones: the name with its status, type and state underneath, next to the actions (the other
  // fields are in the station's view) instead of a table wider than the screen.
  const fold = useFilterFold('station-filters-toggle')
  const phone = fold.phone
  const actions = columns[columns.length - 1]
  const shown: TableColumnsType<Station> = phone
    ? [
        {
          key: 'name',
          dataIndex: 'name',
          title: t('stationUi.field.name'),
          render: (name: string, row: Station) => (
            <div data-testid="station-row-card">
              <Typography.Text strong>{name}</Typography.Text>
              <div style={{ marginTop: 4 }}>
                <InstallationStatusTag status={row.installationStatus} />
                <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                  {[
                    row.stationType ? (typeLabels[row.stationType] ?? row.stationType) : '',
                    row.state ? (stateLabels[row.state] ?? row.state) : '',
                    row.capacity ? `${row.capacity} kW` : '',
                  ]
                    .filter(Boolean)
                    .join(' · ')}
                </Typography.Text>
              </div>
            </div>
          ),
        },
        { ...actions, fixed: undefined, width: 96 },
      ]
    : columns

  return (
    <Card data-testid="station-page" styles={phone ? { body: { padding: 12 } } : undefined}>
      {fold.toggle}
      <Form
        form={searchForm}
        hidden={fold.hidden}
        layout={phone ? 'vertical' : 'inline'}
        data-testid="crud-search-form"
        style={{ marginBottom: 16, rowGap: 12 }}
        onFinish={() => {
          fold.close()
          go({ search: { ...searchForm.getFieldsValue() }, current: 1 })
        }}
      >
        <Form.Item name="name" label={t('stationUi.field.name')}>
          <Input data-testid="search-name" allowClear />
        </Form.Item>
        <Form.Item name="state" label={t('stationUi.field.state')}>
          <Select
            data-testid="search-state"
            allowClear
            options={stateOptions}
            style={{ minWidth: 140 }}
          />
        </Form.Item>
        <Form.Item name="stationType" label={t('stationUi.field.stationType')}>
          <Select
            data-testid="search-stationType"
            allowClear
            options={typeOptions}
            style={{ minWidth: 140 }}
          />
        </Form.Item>
        <Form.Item name="installationStatus" label={t('stationUi.field.installationStatus')}>
          <Select
            data-testid="search-installationStatus"
            allowClear
            style={{ minWidth: 120 }}
            options={[
              { value: COMMISSIONING, label: t('stationUi.status.commissioning') },
              { value: RUNNING, label: t('stationUi.status.running') },
            ]}
          />
        </Form.Item>
        <Form.Item name="region" label={t('stationUi.field.region')}>
          <RegionCascader testId="search-region" style={{ minWidth: 220 }} />
        </Form.Item>
        <Form.Item name="ownerName" label={t('stationUi.field.ownerName')}>
          <Input data-testid="search-ownerName" allowClear />
        </Form.Item>
        <Form.Item>
          <Space>
            <Button type="primary" htmlType="submit" data-testid="crud-search">
              {t('crud.search')}
            </Button>
            <Button
              data-testid="crud-reset"
              onClick={() => {
                searchForm.resetFields()
                go({ search: {}, current: 1 })
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
            data-testid="crud-add"
            onClick={() => open('add')}
          >
            {t('crud.add')}
          </Button>
        )}
        {can('import') && (
          <Button
            icon={<UploadOutlined />}
            data-testid="crud-action-import"
            onClick={() => setImporting(true)}
          >
            {t('stationUi.import.action')}
          </Button>
        )}
        {can('export') && (
          <Button
            icon={<DownloadOutlined />}
            loading={exporting}
            data-testid="crud-action-export"
            onClick={() => void exportList()}
          >
            {t('stationUi.export')}
          </Button>
        )}
      </Space>
      <Table<Station>
        data-testid="crud-table"
        rowKey={(row) => row.id ?? ''}
        size={phone ? 'small' : 'middle'}
        bordered
        loading={loading}
        columns={shown}
        dataSource={page.records}
        scroll={phone ? undefined : { x: 'max-content' }}
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
      {dialog && (
        <StationForm
          key={dialog.seq}
          mode={dialog.mode}
          stationId={dialog.id}
          open
          onClose={() => setDialog(null)}
          onSaved={reload}
        />
      )}
      <ImportDialog open={importing} onClose={() => setImporting(false)} onImported={reload} />
    </Card>
  )
}
