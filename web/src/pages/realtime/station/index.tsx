import { ArrowLeftOutlined, FundOutlined } from '@ant-design/icons'
import {
  Alert,
  Button,
  Card,
  Col,
  Descriptions,
  Empty,
  Result,
  Row,
  Space,
  Table,
  Typography,
} from 'antd'
import dayjs from 'dayjs'
import { useTranslation } from 'react-i18next'
import { useNavigate, useSearchParams } from 'react-router-dom'
import { useQuery } from '@tanstack/react-query'
import {
  revenueCurrencyQuery,
  stationCurveQuery,
  stationLiveQuery,
} from '../../../api/realtime/queries'
import type { DeviceLive, FlexLive } from '../../../api/realtime/types'
import Chart from '../../../components/realtime/Chart'
import { ClockShiftNotice } from '../../../components/realtime/ClockShiftNotice'
import { utcLabel } from '../../../components/realtime/clock'
import { powerCurveOption } from '../../../components/realtime/curves'
import { KpiRow } from '../../../components/realtime/Kpis'
import LiveMeta from '../../../components/realtime/LiveMeta'
import { StationDevicesLive } from '../../../components/realtime/StationDevicesLive'
import { QualityTag, StaleValue } from '../../../components/realtime/DeviceQuality'
import { StatusTag } from '../../../components/realtime/StatusTag'
import type { RunStatus } from '../../../components/realtime/status'
import { useLive } from '../../../hooks/useLive'
import { DEFAULT_CURRENCY } from '../../../utils/money'
import { formatCapacity, formatEnergy, formatPower, formatValue } from '../../../utils/units'

const timeText = (ms: number | null) =>
  ms === null ? '--' : dayjs(ms).format('YYYY-MM-DD HH:mm:ss')

/**
 * A station live (/station/overview?id=...), reached from the home map: KPIs (revenue among
 * them, from its map entry), today's power curve, its weather stations and meters with their
 * readings and day curves, its devices with their status. Not a menu page; a tab of its own.
 */
export default function StationOverviewPage() {
  const { t } = useTranslation()
  const navigate = useNavigate()
  const [params] = useSearchParams()
  const id = params.get('id') ?? ''

  const live = useLive(stationLiveQuery(id), { enabled: id !== '' })
  const station = live.data?.station
  const inverters = station?.devices ?? []
  // Keyed by the inverters' ids: the array itself is new on every refresh.
  const curve = useLive(stationCurveQuery(id, inverters), {
    intervalMs: 60_000,
    enabled: inverters.length > 0,
  })

  const currency = useQuery({ ...revenueCurrencyQuery(), meta: { ownErrorState: true } })

  if (id === '') {
    return (
      <Result
        status="info"
        title={t('realtimeUi.overview.noStation')}
        extra={
          <Button onClick={() => void navigate('/basicFacts/equipmentMap')}>
            {t('realtimeUi.overview.back')}
          </Button>
        }
      />
    )
  }
  if (!station && live.error !== undefined) {
    return (
      <Result
        status="warning"
        data-testid="station-overview-error"
        title={t('realtimeUi.overview.notFound')}
        extra={
          <Button onClick={() => void navigate('/basicFacts/equipmentMap')}>
            {t('realtimeUi.overview.back')}
          </Button>
        }
      />
    )
  }

  return (
    <Space
      orientation="vertical"
      size={12}
      style={{ width: '100%' }}
      data-testid="station-overview"
      data-station-id={id}
    >
      <Row justify="space-between" align="middle" gutter={[8, 8]}>
        <Col>
          <Space>
            <Button
              type="text"
              icon={<ArrowLeftOutlined />}
              aria-label={t('realtimeUi.overview.back')}
              onClick={() => void navigate('/basicFacts/equipmentMap')}
            />
            <Typography.Title level={4} style={{ margin: 0 }} data-testid="overview-station-name">
              {station?.name ?? '…'}
            </Typography.Title>
            {station && <StatusTag status={station.status} />}
          </Space>
        </Col>
        <Col>
          <Space wrap>
            <LiveMeta
              updatedAt={live.updatedAt}
              paused={live.paused}
              stale={live.error !== undefined && live.data !== undefined}
              onRefresh={() => {
                live.refresh()
                curve.refresh()
              }}
            />
            <Button
              size="small"
              icon={<FundOutlined />}
              onClick={() =>
                void navigate(`/station/inverterReal?stationId=${encodeURIComponent(id)}`)
              }
            >
              {t('realtimeUi.overview.realtime')}
            </Button>
          </Space>
        </Col>
      </Row>

      {station?.clockShift && <ClockShiftNotice shift={station.clockShift} />}

      <KpiRow
        figures={{
          powerW: station?.powerW ?? null,
          todayWh: station?.todayWh ?? null,
          totalWh: station?.totalWh ?? null,
          capacityWp: station?.capacityWp ?? null,
          co2Kg: station?.co2Kg ?? null,
          revenue: {
            today: station?.todayRevenue ?? null,
            month: station?.monthRevenue ?? null,
            currency: currency.data ?? DEFAULT_CURRENCY,
          },
        }}
      />

      <Row gutter={[12, 12]}>
        <Col xs={24} xl={16}>
          <Card size="small" title={t('realtimeUi.overview.powerCurve')}>
            {curve.data && curve.data.points.length > 0 ? (
              <>
                <Chart
                  data-testid="overview-power-curve"
                  option={powerCurveOption(curve.data.points, {
                    name: t('realtimeUi.overview.power'),
                    date: curve.data.date || undefined,
                  })}
                  style={{ height: 320 }}
                />
                {curve.data.utcOffset && (
                  <Typography.Text type="secondary" data-testid="overview-curve-clock">
                    {t('realtimeUi.clockRule.axis', { offset: utcLabel(curve.data.utcOffset) })}
                  </Typography.Text>
                )}
              </>
            ) : (
              <Empty
                data-testid="overview-power-curve-empty"
                description={t('realtimeUi.overview.noCurve')}
                style={{ padding: 64 }}
              />
            )}
          </Card>
        </Col>
        <Col xs={24} xl={8}>
          <Card size="small" title={t('realtimeUi.overview.basic')} style={{ height: '100%' }}>
            <Descriptions
              column={1}
              size="small"
              items={[
                {
                  key: 'address',
                  label: t('realtimeUi.overview.address'),
                  children: station?.address ?? '--',
                },
                {
                  key: 'grid',
                  label: t('realtimeUi.overview.gridTime'),
                  children: station?.gridConnectionTime ?? '--',
                },
                {
                  key: 'capacity',
                  label: t('realtimeUi.kpi.capacity'),
                  children: formatCapacity(station?.capacityWp),
                },
                {
                  key: 'devices',
                  label: t('realtimeUi.overview.devices'),
                  children: inverters.length + (live.data?.brackets.length ?? 0),
                },
                {
                  key: 'time',
                  label: t('realtimeUi.device.time'),
                  children: timeText(station?.updatedAt ?? null),
                },
              ]}
            />
          </Card>
        </Col>
      </Row>

      <StationDevicesLive stationId={id} />

      <Card size="small" title={t('realtimeUi.overview.devices')}>
        <Table<DeviceLive>
          data-testid="overview-devices"
          size="small"
          rowKey="id"
          loading={live.loading}
          dataSource={inverters}
          onRow={(row) =>
            ({
              'data-testid': `overview-row-${row.id}`,
              'data-withheld': row.withheld ? 'true' : undefined,
            }) as React.HTMLAttributes<HTMLElement>
          }
          pagination={{ pageSize: 20, hideOnSinglePage: true }}
          locale={{ emptyText: <Empty description={t('realtimeUi.overview.noDevices')} /> }}
          scroll={{ x: 900 }}
          columns={[
            { title: t('realtimeUi.device.name'), dataIndex: 'name', ellipsis: true },
            { title: t('realtimeUi.device.sn'), dataIndex: 'sn', ellipsis: true },
            {
              title: t('realtimeUi.device.kind'),
              dataIndex: 'kind',
              width: 100,
              render: (k: DeviceLive['kind']) => t(`realtimeUi.device.kinds.${k}`),
            },
            {
              title: t('realtimeUi.device.status'),
              dataIndex: 'status',
              width: 100,
              // Withheld values are not "online" (an open fault alarm still shows beside it).
              render: (s: RunStatus, row) =>
                row.withheld ? (
                  <Space size={4} wrap>
                    <QualityTag
                      state="withheld"
                      reason={row.withheld}
                      testId={`overview-withheld-${row.id}`}
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
              render: (w: number | null, row) => (
                <StaleValue reason={row.withheld} testId={`overview-stale-power-${row.id}`}>
                  {formatPower(w, 'kW')}
                </StaleValue>
              ),
            },
            {
              title: t('realtimeUi.device.today'),
              dataIndex: 'todayWh',
              align: 'right',
              render: (wh: number | null, row) => (
                <StaleValue reason={row.withheld}>{formatEnergy(wh)}</StaleValue>
              ),
            },
            {
              title: t('realtimeUi.device.total'),
              dataIndex: 'totalWh',
              align: 'right',
              render: (wh: number | null, row) => (
                <StaleValue reason={row.withheld}>{formatEnergy(wh)}</StaleValue>
              ),
            },
            { title: t('realtimeUi.device.time'), dataIndex: 'ts', width: 170, render: timeText },
          ]}
        />
        {(live.data?.brackets.length ?? 0) > 0 && (
          <Table<FlexLive>
            data-testid="overview-brackets"
            style={{ marginTop: 12 }}
            size="small"
            rowKey="id"
            dataSource={live.data?.brackets}
            pagination={false}
            columns={[
              { title: t('realtimeUi.device.kinds.flex'), dataIndex: 'name' },
              {
                title: t('realtimeUi.device.status'),
                dataIndex: 'status',
                width: 100,
                render: (s: RunStatus) => <StatusTag status={s} />,
              },
              {
                title: t('realtimeUi.flex.angle'),
                dataIndex: 'angle',
                align: 'right',
                render: (v: number | null) => formatValue(v, '°', 1),
              },
              {
                title: t('realtimeUi.flex.target'),
                dataIndex: 'targetAngle',
                align: 'right',
                render: (v: number | null) => formatValue(v, '°', 1),
              },
              {
                title: t('realtimeUi.flex.windSpeed'),
                dataIndex: 'windSpeed',
                align: 'right',
                render: (v: number | null) => formatValue(v, 'm/s', 1),
              },
              { title: t('realtimeUi.device.time'), dataIndex: 'ts', width: 170, render: timeText },
            ]}
          />
        )}
      </Card>
      {live.error !== undefined && live.data !== undefined && (
        <Alert type="warning" showIcon title={t('realtimeUi.live.stale')} />
      )}
    </Space>
  )
}
