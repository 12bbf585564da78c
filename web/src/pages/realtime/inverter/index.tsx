import { Alert, Button, Card, Input, Segmented, Space, Table, Typography } from 'antd'
import dayjs from 'dayjs'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { useSearchParams } from 'react-router-dom'
import { inverterLiveQuery } from '../../../api/realtime/queries'
import type { DeviceLive } from '../../../api/realtime/types'
import { QualityTag, StaleValue } from '../../../components/realtime/DeviceQuality'
import LiveMeta from '../../../components/realtime/LiveMeta'
import StationSelect from '../../../components/realtime/StationSelect'
import { StatusTag } from '../../../components/realtime/StatusTag'
import type { RunStatus } from '../../../components/realtime/status'
import { useLive } from '../../../hooks/useLive'
import { formatEnergy, formatPower, formatValue } from '../../../utils/units'
import StringPanel from './StringPanel'
import WaveChart from './WaveChart'
import { stringView } from './strings'

const PAGE_SIZES = [10, 30, 50, 100, 200]

/**
 * Inverter realtime (/station/inverterReal): the live table of the caller's inverters (a row
 * expands to its per-string view and all its values) and the wave chart of chosen metrics over a
 * day. `?stationId=` preselects a station (links from the station overview), `?keyword=` a search.
 */
export default function InverterRealPage() {
  const { t } = useTranslation()
  const [params] = useSearchParams()
  const [stationId, setStationId] = useState<string | undefined>(
    params.get('stationId') ?? undefined,
  )
  // `?keyword=` (a device's SN, from 设备总览) opens the table searched for it.
  const [keyword, setKeyword] = useState(params.get('keyword') ?? '')
  const [applied, setApplied] = useState(params.get('keyword')?.trim() ?? '')
  const [online, setOnline] = useState<'all' | 'online' | 'offline'>('all')
  const [page, setPage] = useState({ current: 1, size: 10 })

  const { current, size } = page
  const live = useLive(
    inverterLiveQuery({
      current,
      size,
      stationId,
      keyword: applied || undefined,
      online: online === 'all' ? undefined : online === 'online',
    }),
  )
  const rows = live.data?.records ?? []

  return (
    <Space
      orientation="vertical"
      size={12}
      style={{ width: '100%' }}
      data-testid="inverter-real-page"
    >
      <Card size="small">
        <Space wrap style={{ width: '100%', justifyContent: 'space-between' }}>
          <Space wrap>
            <StationSelect
              testId="inverter-real-station"
              value={stationId}
              onChange={(id) => {
                setStationId(id)
                setPage((p) => ({ ...p, current: 1 }))
              }}
              placeholder={t('realtimeUi.inverter.allStations')}
            />
            <Input.Search
              data-testid="inverter-real-keyword"
              allowClear
              placeholder={t('realtimeUi.inverter.keyword')}
              value={keyword}
              onChange={(e) => setKeyword(e.target.value)}
              onSearch={(v) => {
                setApplied(v.trim())
                setPage((p) => ({ ...p, current: 1 }))
              }}
              enterButton={t('realtimeUi.inverter.search')}
              style={{ width: 300 }}
            />
            <Segmented<'all' | 'online' | 'offline'>
              value={online}
              onChange={(v) => {
                setOnline(v)
                setPage((p) => ({ ...p, current: 1 }))
              }}
              options={[
                { value: 'all', label: t('realtimeUi.home.allStatus') },
                { value: 'online', label: t('realtimeUi.inverter.online') },
                { value: 'offline', label: t('realtimeUi.status.offline') },
              ]}
            />
          </Space>
          <LiveMeta
            updatedAt={live.updatedAt}
            paused={live.paused}
            stale={live.error !== undefined && live.data !== undefined}
            onRefresh={live.refresh}
          />
        </Space>
      </Card>

      {live.error !== undefined && live.data === undefined && (
        <Alert type="error" showIcon title={t('realtimeUi.live.loadFailed')} />
      )}

      <Card size="small" title={t('realtimeUi.inverter.table')}>
        <Table<DeviceLive>
          data-testid="inverter-real-table"
          size="small"
          rowKey="id"
          loading={live.loading}
          dataSource={rows}
          scroll={{ x: 1500 }}
          onRow={(row) =>
            ({
              'data-testid': `inverter-real-row-${row.id}`,
              'data-status': row.status,
              'data-withheld': row.withheld ? 'true' : undefined,
            }) as React.HTMLAttributes<HTMLElement>
          }
          expandable={{
            expandedRowRender: (row) => <StringPanel device={row} />,
            rowExpandable: () => true,
          }}
          pagination={{
            current: page.current,
            pageSize: page.size,
            total: live.data?.total ?? 0,
            pageSizeOptions: PAGE_SIZES,
            showSizeChanger: true,
            onChange: (current, size) => setPage({ current, size }),
          }}
          columns={[
            {
              title: t('realtimeUi.device.name'),
              dataIndex: 'name',
              fixed: 'left',
              width: 160,
              ellipsis: true,
            },
            { title: t('realtimeUi.device.sn'), dataIndex: 'sn', width: 150, ellipsis: true },
            {
              title: t('realtimeUi.device.station'),
              dataIndex: 'stationName',
              width: 150,
              ellipsis: true,
            },
            {
              title: t('realtimeUi.device.status'),
              dataIndex: 'status',
              width: 120,
              // Withheld values are not "online": the gateway holds them back (an open fault
              // alarm still shows beside it).
              render: (s: RunStatus, row) =>
                row.withheld ? (
                  <Space size={4} wrap>
                    <QualityTag
                      state="withheld"
                      reason={row.withheld}
                      testId={`inverter-withheld-${row.id}`}
                    />
                    {s === 'fault' && <StatusTag status={s} />}
                  </Space>
                ) : (
                  <StatusTag status={s} />
                ),
            },
            {
              title: t('realtimeUi.device.power'),
              dataIndex: 'powerW',
              align: 'right',
              width: 110,
              render: (w: number | null, r) => stale(r, 'power', formatPower(w, 'kW')),
            },
            {
              title: t('realtimeUi.device.today'),
              dataIndex: 'todayWh',
              align: 'right',
              width: 120,
              render: (wh: number | null, r) => stale(r, 'today', formatEnergy(wh)),
            },
            {
              title: t('realtimeUi.device.total'),
              dataIndex: 'totalWh',
              align: 'right',
              width: 120,
              render: (wh: number | null, r) => stale(r, 'total', formatEnergy(wh)),
            },
            {
              title: t('realtimeUi.inverter.dcPower'),
              key: 'dc',
              align: 'right',
              width: 110,
              render: (_: unknown, r) => stale(r, 'dc', formatPower(num(r.values.dc_power), 'kW')),
            },
            {
              title: t('realtimeUi.inverter.efficiency'),
              key: 'eff',
              align: 'right',
              width: 90,
              render: (_: unknown, r) =>
                stale(r, 'eff', formatValue(num(r.values.efficiency), '%', 1)),
            },
            {
              title: t('realtimeUi.inverter.temperature'),
              key: 'temp',
              align: 'right',
              width: 90,
              render: (_: unknown, r) =>
                stale(r, 'temp', formatValue(num(r.values.temperature), '°C', 1)),
            },
            {
              title: t('realtimeUi.inverter.gridVoltage'),
              key: 'v',
              align: 'right',
              width: 100,
              render: (_: unknown, r) =>
                stale(r, 'v', formatValue(num(r.values.grid_voltage), 'V', 1)),
            },
            {
              title: t('realtimeUi.inverter.frequency'),
              key: 'f',
              align: 'right',
              width: 90,
              render: (_: unknown, r) =>
                stale(r, 'f', formatValue(num(r.values.grid_frequency), 'Hz', 2)),
            },
            {
              title: t('realtimeUi.inverter.strings'),
              key: 'strings',
              width: 110,
              render: (_: unknown, r) => {
                const view = stringView(r.values)
                const weak = view.strings.filter((s) => s.weak).length
                return view.strings.length === 0 ? (
                  '--'
                ) : r.withheld ? (
                  stale(r, 'strings', view.strings.length)
                ) : (
                  <Typography.Text type={weak > 0 ? 'danger' : undefined}>
                    {view.strings.length}
                    {weak > 0 && ` (${t('realtimeUi.inverter.weak')} ${weak})`}
                  </Typography.Text>
                )
              },
            },
            {
              title: t('realtimeUi.device.time'),
              dataIndex: 'ts',
              width: 160,
              render: (ms: number | null) =>
                ms === null ? '--' : dayjs(ms).format('YYYY-MM-DD HH:mm:ss'),
            },
          ]}
        />
      </Card>

      <WaveChart devices={rows} stationId={stationId} />
      {rows.length === 0 && !live.loading && (
        <Button type="link" onClick={live.refresh}>
          {t('realtimeUi.live.refresh')}
        </Button>
      )}
    </Space>
  )
}

const num = (v: number | string | undefined): number | null => (typeof v === 'number' ? v : null)

/**
 * A withheld device's value: the last one received, shown struck through with the reason, never
 * as a current reading (weak strings are not flagged from it either).
 */
function stale(row: DeviceLive, key: string, value: React.ReactNode) {
  return (
    <StaleValue reason={row.withheld} testId={`inverter-stale-${key}-${row.id}`}>
      {value}
    </StaleValue>
  )
}
