import { ReloadOutlined, SettingOutlined } from '@ant-design/icons'
import { Alert, Button, Card, DatePicker, Empty, Space, Table, Tabs, Tag, Typography } from 'antd'
import dayjs, { type Dayjs } from 'dayjs'
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query'
import { useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { useSearchParams } from 'react-router-dom'
import type { HdayFilter, HdayRow, HdayScope } from '../../../api/analytics/hdayRate'
import { analyticsKeys, hdayPageQuery } from '../../../api/analytics/queries'
import type { Page } from '../../../api/types'
import Chart from '../../../components/realtime/Chart'
import StationSelect from '../../../components/realtime/StationSelect'
import { defaultPageSize, pageSizeOptions } from '../../../components/crud/logic'
import { defaultRange, FLAGGED_COLOR, formatHours, formatPct, rankingOption } from './logic'
import HdaySettingDialog from './SettingDialog'

const dayFormat = 'YYYY-MM-DD'
/** Rows the ranking chart shows at most (the table pages through all). */
const CHART_ROWS = 200

/**
 * Full-load hours deviation (/intelligentOperation/hdayRate): stations against the fleet mean,
 * a station's inverters against the station mean, over a date range (default the last 7 days).
 */
export default function HdayRatePage() {
  const { t } = useTranslation()
  const [params] = useSearchParams()
  const [scope, setScope] = useState<HdayScope>('station')
  const [range, setRange] = useState<[Dayjs, Dayjs]>(() => defaultRange(dayjs()))
  const [stationId, setStationId] = useState<string | undefined>(
    params.get('stationId') ?? undefined,
  )
  const [reloads, setReloads] = useState(0)
  const queryClient = useQueryClient()
  /** Loads again (and the tables start at page 1). */
  const reload = () => {
    setReloads((n) => n + 1)
    void queryClient.invalidateQueries({ queryKey: analyticsKeys.hday })
  }
  const [settingOpen, setSettingOpen] = useState(false)

  return (
    <Space orientation="vertical" size={12} style={{ width: '100%' }} data-testid="hday-page">
      <Card size="small">
        <Space wrap style={{ width: '100%', justifyContent: 'space-between' }}>
          <Space wrap>
            <DatePicker.RangePicker
              data-testid="hday-range"
              value={range}
              allowClear={false}
              disabledDate={(d) => d.isAfter(dayjs(), 'day')}
              onChange={(v) => {
                if (v?.[0] && v[1]) setRange([v[0], v[1]])
              }}
            />
            {scope === 'inverter' && (
              <StationSelect
                testId="hday-station"
                value={stationId}
                allowClear={false}
                onChange={setStationId}
                placeholder={t('analytics.common.selectStation')}
              />
            )}
            <Button icon={<ReloadOutlined />} onClick={reload} data-testid="hday-refresh">
              {t('analytics.common.refresh')}
            </Button>
          </Space>
          <Button
            icon={<SettingOutlined />}
            onClick={() => setSettingOpen(true)}
            data-testid="hday-setting-btn"
          >
            {t('analytics.common.setting')}
          </Button>
        </Space>
        <Typography.Paragraph type="secondary" style={{ fontSize: 12, margin: '8px 0 0' }}>
          {t('analytics.hday.help')}
        </Typography.Paragraph>
      </Card>
      <Card size="small">
        <Tabs
          data-testid="hday-tabs"
          activeKey={scope}
          onChange={(k) => setScope(k as HdayScope)}
          items={[
            { key: 'station', label: t('analytics.hday.tabStation') },
            { key: 'inverter', label: t('analytics.hday.tabInverter') },
          ]}
        />
        {scope === 'inverter' && !stationId ? (
          <Empty data-testid="hday-no-station" description={t('analytics.common.noStation')} />
        ) : (
          <HdayPanel
            key={scope}
            scope={scope}
            startDate={range[0].format(dayFormat)}
            endDate={range[1].format(dayFormat)}
            stationId={stationId}
            reload={reloads}
          />
        )}
      </Card>
      <HdaySettingDialog
        open={settingOpen}
        onClose={() => setSettingOpen(false)}
        onSaved={reload}
      />
    </Space>
  )
}

interface PanelProps {
  scope: HdayScope
  startDate: string
  endDate: string
  stationId?: string
  reload: number
}

/** One page of the ranking; the previous answer stays on screen while the next one loads. */
function useHdayPage(filter: HdayFilter): {
  data?: Page<HdayRow>
  failed: boolean
  loading: boolean
} {
  const page = useQuery({ ...hdayPageQuery(filter), placeholderData: keepPreviousData })
  return { data: page.data, failed: page.isError, loading: page.isFetching }
}

function HdayPanel({ scope, startDate, endDate, stationId, reload }: PanelProps) {
  const { t } = useTranslation()
  const [paging, setPaging] = useState({ current: 1, size: defaultPageSize })
  const base = { scope, startDate, endDate, stationId }
  const filterKey = JSON.stringify([base, reload])

  const chart = useHdayPage({ ...base, current: 1, size: CHART_ROWS })
  const [lastFilter, setLastFilter] = useState(filterKey)
  if (lastFilter !== filterKey) {
    setLastFilter(filterKey)
    setPaging((p) => ({ ...p, current: 1 }))
  }
  const table = useHdayPage({ ...base, ...paging })

  const option = useMemo(
    () =>
      rankingOption(chart.data?.records ?? [], {
        hours: t('analytics.hday.hours'),
        reference: (value) => t('analytics.hday.reference', { value }),
        referenceSeries: t('analytics.hday.referenceSeries'),
      }),
    [chart.data, t],
  )

  return (
    <Space orientation="vertical" size={12} style={{ width: '100%' }}>
      {(chart.failed || table.failed) && (
        <Alert type="error" showIcon title={t('analytics.common.loadFailed')} />
      )}
      <Typography.Text strong>{t('analytics.hday.ranking')}</Typography.Text>
      {chart.data && chart.data.records.length === 0 ? (
        <Empty description={t('analytics.common.noData')} />
      ) : (
        <Chart
          option={option}
          notMerge
          style={{ height: 320 }}
          data-testid={`hday-chart-${scope}`}
        />
      )}
      <Table<HdayRow>
        data-testid={`hday-table-${scope}`}
        size="small"
        rowKey="id"
        loading={table.loading}
        dataSource={table.data?.records ?? []}
        onRow={(r) =>
          ({
            'data-testid': `hday-row-${r.id}`,
            'data-flagged': r.flagged ? 'true' : 'false',
          }) as React.HTMLAttributes<HTMLElement>
        }
        pagination={{
          current: paging.current,
          pageSize: paging.size,
          total: table.data?.total ?? 0,
          showSizeChanger: true,
          pageSizeOptions: [...pageSizeOptions],
          onChange: (current, size) => setPaging({ current, size }),
        }}
        columns={[
          {
            title:
              scope === 'station'
                ? t('analytics.hday.stationName')
                : t('analytics.hday.inverterName'),
            dataIndex: 'name',
          },
          ...(scope === 'inverter'
            ? [{ title: t('analytics.hday.stationName'), dataIndex: 'stationName' }]
            : []),
          {
            title: t('analytics.hday.capacity'),
            dataIndex: 'capacityKwp',
            align: 'right',
            render: (v: number | null) => formatHours(v),
          },
          {
            title: t('analytics.hday.energy'),
            dataIndex: 'energyKwh',
            align: 'right',
            render: (v: number | null) => formatHours(v),
          },
          {
            title: t('analytics.hday.hours'),
            dataIndex: 'hours',
            align: 'right',
            render: (v: number | null) => formatHours(v),
          },
          {
            title: t('analytics.hday.refHours'),
            dataIndex: 'refHours',
            align: 'right',
            render: (v: number | null) => formatHours(v),
          },
          {
            title: t('analytics.hday.deviation'),
            dataIndex: 'deviationPct',
            align: 'right',
            render: (v: number | null, r) => (
              <span style={r.flagged ? { color: FLAGGED_COLOR, fontWeight: 600 } : undefined}>
                {formatPct(v)}
              </span>
            ),
          },
          {
            title: t('analytics.hday.flagged'),
            dataIndex: 'flagged',
            render: (v: boolean) =>
              v ? (
                <Tag color="red">{t('analytics.hday.flaggedYes')}</Tag>
              ) : (
                <Tag color="green">{t('analytics.hday.flaggedNo')}</Tag>
              ),
          },
        ]}
      />
    </Space>
  )
}
