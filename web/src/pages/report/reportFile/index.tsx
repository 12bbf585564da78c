import {
  DeleteOutlined,
  DownloadOutlined,
  FileAddOutlined,
  ReloadOutlined,
} from '@ant-design/icons'
import { App, Button, Card, DatePicker, Input, Popconfirm, Select, Space, Table } from 'antd'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import dayjs, { type Dayjs } from 'dayjs'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import {
  downloadReportFile,
  generateReportFile,
  listReportFiles,
  removeReportFiles,
  sizeText,
  type ReportFile,
  type ReportFileQuery,
} from '../../../api/report/files'
import { shownByRequestClient } from '../../../api/request'
import { stationNamesQuery } from '../../../api/station/queries'
import { useSessionStore } from '../../../stores/session'

const MONTH = 'YYYY-MM'
const FILES_KEY = ['report', 'files'] as const

/**
 * Report files (/tool/report, menu 报表文件): each station's monthly report (generation, PR,
 * bill) stored as an .xlsx by the monthly job or on demand — listed by station and month,
 * downloaded, produced now for a station and month, removed with the `reportFile_delete` button.
 */
export default function ReportFilePage() {
  const { t } = useTranslation()
  const { message } = App.useApp()
  const client = useQueryClient()
  const canDelete = useSessionStore((s) => s.permission.reportFile_delete === true)
  const stations = useQuery(stationNamesQuery())
  const [query, setQuery] = useState<ReportFileQuery>({ current: 1, size: 10 })
  const [stationId, setStationId] = useState<string | undefined>()
  const [month, setMonth] = useState<Dayjs | null>(null)
  const [name, setName] = useState('')
  const [target, setTarget] = useState<Dayjs | null>(() => dayjs().subtract(1, 'month'))
  const files = useQuery({
    queryKey: [...FILES_KEY, query],
    queryFn: () => listReportFiles(query),
  })
  const refresh = () => client.invalidateQueries({ queryKey: FILES_KEY })
  const failed = (error: unknown) => {
    if (!shownByRequestClient(error)) void message.error(t('report.file.failed'))
  }
  const generate = useMutation({
    mutationFn: ({ station, period }: { station: string; period: string }) =>
      generateReportFile(station, period),
    onSuccess: (f) => {
      void message.success(t('report.file.generated', { name: f.name }))
      void refresh()
    },
    onError: failed,
  })
  const remove = useMutation({
    mutationFn: (ids: string[]) => removeReportFiles(ids),
    onSuccess: () => {
      void message.success(t('report.file.removed'))
      void refresh()
    },
    onError: failed,
  })
  const [downloading, setDownloading] = useState<string | null>(null)
  const download = async (f: ReportFile) => {
    setDownloading(f.id)
    try {
      await downloadReportFile(f)
    } catch (error) {
      failed(error)
    } finally {
      setDownloading(null)
    }
  }
  const search = () =>
    setQuery({
      current: 1,
      size: query.size,
      stationId,
      period: month ? month.format(MONTH) : undefined,
      name,
    })
  const stationOptions = (stations.data ?? []).map((s) => ({ value: String(s.id), label: s.name }))

  return (
    <Space orientation="vertical" size={12} style={{ width: '100%' }} data-testid="report-file">
      <Card size="small">
        <Space wrap style={{ width: '100%', justifyContent: 'space-between' }}>
          <Space wrap>
            <Select<string>
              data-testid="report-file-station"
              allowClear
              style={{ minWidth: 200 }}
              placeholder={t('report.file.station')}
              loading={stations.isPending}
              value={stationId}
              onChange={setStationId}
              options={stationOptions}
              showSearch={{ optionFilterProp: 'label' }}
            />
            <DatePicker
              data-testid="report-file-month"
              picker="month"
              placeholder={t('report.file.period')}
              value={month}
              onChange={setMonth}
            />
            <Input
              data-testid="report-file-name"
              allowClear
              style={{ width: 180 }}
              placeholder={t('report.file.name')}
              value={name}
              onChange={(e) => setName(e.target.value)}
              onPressEnter={search}
            />
            <Button type="primary" onClick={search} data-testid="report-file-search">
              {t('report.file.search')}
            </Button>
            <Button
              icon={<ReloadOutlined />}
              onClick={() => void refresh()}
              data-testid="report-file-reload"
            >
              {t('report.common.refresh')}
            </Button>
          </Space>
          <Space wrap>
            <DatePicker
              data-testid="report-file-generate-month"
              picker="month"
              allowClear={false}
              value={target}
              onChange={setTarget}
            />
            <Button
              icon={<FileAddOutlined />}
              disabled={!stationId || !target}
              loading={generate.isPending}
              onClick={() =>
                stationId &&
                target &&
                generate.mutate({ station: stationId, period: target.format(MONTH) })
              }
              data-testid="report-file-generate"
              title={stationId ? undefined : t('report.file.pickStation')}
            >
              {t('report.file.generate')}
            </Button>
          </Space>
        </Space>
      </Card>
      <Card size="small">
        <Table<ReportFile>
          data-testid="report-file-table"
          rowKey="id"
          size="small"
          scroll={{ x: 'max-content' }}
          loading={files.isPending || files.isFetching}
          dataSource={files.data?.records ?? []}
          pagination={{
            current: query.current,
            pageSize: query.size,
            total: files.data?.total ?? 0,
            showSizeChanger: true,
            onChange: (current, size) => setQuery({ ...query, current, size }),
          }}
          columns={[
            { key: 'station', title: t('report.file.station'), dataIndex: 'stationName' },
            { key: 'period', title: t('report.file.period'), dataIndex: 'period' },
            { key: 'name', title: t('report.file.name'), dataIndex: 'name' },
            {
              key: 'size',
              title: t('report.file.size'),
              dataIndex: 'fileSize',
              align: 'right',
              render: (v: number) => sizeText(v),
            },
            { key: 'created', title: t('report.file.created'), dataIndex: 'createTime' },
            {
              key: 'actions',
              title: t('report.file.actions'),
              render: (_: unknown, f) => (
                <Space>
                  <Button
                    size="small"
                    type="link"
                    icon={<DownloadOutlined />}
                    loading={downloading === f.id}
                    onClick={() => void download(f)}
                    data-testid={`report-file-download-${f.id}`}
                  >
                    {t('report.file.download')}
                  </Button>
                  {canDelete && (
                    <Popconfirm
                      title={t('report.file.confirmDelete', { name: f.name })}
                      onConfirm={() => remove.mutate([f.id])}
                    >
                      <Button
                        size="small"
                        type="link"
                        danger
                        icon={<DeleteOutlined />}
                        data-testid={`report-file-delete-${f.id}`}
                      >
                        {t('report.file.delete')}
                      </Button>
                    </Popconfirm>
                  )}
                </Space>
              ),
            },
          ]}
        />
      </Card>
    </Space>
  )
}
