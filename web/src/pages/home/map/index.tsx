import { DashboardOutlined, FundProjectionScreenOutlined } from '@ant-design/icons'
import {
  Alert,
  Button,
  Card,
  Col,
  Empty,
  Input,
  Row,
  Space,
  Spin,
  Table,
  Tag,
  Typography,
} from 'antd'
import { Suspense, lazy, useCallback, useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { useNavigate } from 'react-router-dom'
import { fleetQuery } from '../../../api/realtime/queries'
import { withClockShifts } from '../../../api/realtime/station'
import type { MapStation } from '../../../api/realtime/types'
import { FleetClockShiftNotice } from '../../../components/realtime/ClockShiftNotice'
import { fleetRevenue } from '../../../api/realtime/home'
import { fleetFigures } from '../../../components/realtime/fleetFigures'
import { KpiRow } from '../../../components/realtime/Kpis'
import LiveMeta from '../../../components/realtime/LiveMeta'
import RepairKpis from '../../../components/repair/RepairKpis'
import { StatusDot, StatusTag } from '../../../components/realtime/StatusTag'
import { STATUSES, type RunStatus } from '../../../components/realtime/status'
import { useClockShifts } from '../../../components/realtime/useClockShifts'
import { useLive } from '../../../hooks/useLive'
import { formatMoney } from '../../../utils/money'
import { formatEnergy, formatPower } from '../../../utils/units'
import { overviewPath } from '../../realtime/station/path'

// The map (echarts and the base map) loads on its own, after the figures.
const StationMap = lazy(() => import('../../../components/realtime/StationMap'))

/**
 * Home (/basicFacts/equipmentMap): the fleet's KPIs, its stations on the map of China in their
 * status colours and a searchable list; a station (dot or row) opens its overview. Live.
 */
export default function EquipmentMap() {
  const { t, i18n } = useTranslation()
  const navigate = useNavigate()
  const live = useLive(fleetQuery())
  const shifts = useClockShifts()
  const [statusFilter, setStatusFilter] = useState<RunStatus | null>(null)
  const [search, setSearch] = useState('')

  const stations = useMemo(
    () => withClockShifts(live.data?.stations ?? [], shifts),
    [live.data, shifts],
  )
  const shown = useMemo(
    () =>
      stations.filter(
        (s) =>
          (statusFilter === null || s.status === statusFilter) &&
          s.name.toLowerCase().includes(search.trim().toLowerCase()),
      ),
    [stations, statusFilter, search],
  )
  const open = useCallback((id: string) => void navigate(overviewPath(id)), [navigate])
  const summary = live.data?.summary
  const currency = fleetRevenue(summary).currency
  const unplaced = stations.filter((s) => s.latitude === null || s.longitude === null).length
  const shifted = stations.filter((s) => s.clockShift).length

  return (
    <Space orientation="vertical" size={12} style={{ width: '100%' }} data-testid="home-page">
      <Row justify="space-between" align="middle" gutter={[8, 8]}>
        <Col>
          <Typography.Title level={4} style={{ margin: 0 }}>
            {t('route.home')}
          </Typography.Title>
        </Col>
        <Col>
          <Space wrap>
            <LiveMeta
              updatedAt={live.updatedAt}
              paused={live.paused}
              stale={live.error !== undefined && live.data !== undefined}
              onRefresh={live.refresh}
            />
            <Button
              size="small"
              icon={<DashboardOutlined />}
              onClick={() => void navigate('/basicFacts/dashboard')}
              data-testid="home-to-dashboard"
            >
              {t('realtimeUi.home.dashboard')}
            </Button>
            <Button
              size="small"
              icon={<FundProjectionScreenOutlined />}
              onClick={() => window.open('/bigScreen/index', '_blank')}
              data-testid="home-to-bigscreen"
            >
              {t('realtimeUi.home.bigScreen')}
            </Button>
          </Space>
        </Col>
      </Row>

      {live.error !== undefined && live.data === undefined && (
        <Alert
          type="error"
          showIcon
          title={t('realtimeUi.live.loadFailed')}
          data-testid="home-error"
        />
      )}
      <FleetClockShiftNotice count={shifted} />

      <KpiRow figures={fleetFigures(summary, stations.length)} co2Factor={summary?.co2Factor} />
      <RepairKpis figures={summary} />

      <Row gutter={[12, 12]}>
        <Col xs={24} xl={16}>
          <Card
            size="small"
            title={t('realtimeUi.home.map')}
            extra={
              <Space size={12} wrap data-testid="status-legend">
                <Tag.CheckableTag
                  checked={statusFilter === null}
                  onChange={() => setStatusFilter(null)}
                >
                  {t('realtimeUi.home.allStatus')} {stations.length}
                </Tag.CheckableTag>
                {STATUSES.map((s) => (
                  <Tag.CheckableTag
                    key={s}
                    checked={statusFilter === s}
                    onChange={(on) => setStatusFilter(on ? s : null)}
                    data-testid={`status-filter-${s}`}
                  >
                    <StatusDot
                      status={s}
                      label={`${t(`realtimeUi.status.${s}`)} ${summary?.byStatus[s] ?? 0}`}
                    />
                  </Tag.CheckableTag>
                ))}
              </Space>
            }
          >
            {live.data === undefined ? (
              <Spin style={{ display: 'block', padding: 96 }} />
            ) : stations.length === 0 ? (
              <Empty
                data-testid="home-map-empty"
                description={t('realtimeUi.home.empty')}
                style={{ padding: 48 }}
              />
            ) : (
              <Suspense fallback={<Spin style={{ display: 'block', padding: 96 }} />}>
                <StationMap
                  stations={shown}
                  currency={currency}
                  height={520}
                  onOpen={open}
                  testId="home-map"
                />
              </Suspense>
            )}
            <Typography.Text type="secondary">
              {t('realtimeUi.home.clickHint')}
              {unplaced > 0 && ` · ${t('realtimeUi.home.noLocation', { count: unplaced })}`}
            </Typography.Text>
          </Card>
        </Col>
        <Col xs={24} xl={8}>
          <Card
            size="small"
            title={t('realtimeUi.home.list')}
            extra={
              <Input.Search
                size="small"
                allowClear
                placeholder={t('realtimeUi.home.searchStation')}
                onChange={(e) => setSearch(e.target.value)}
                style={{ width: 180 }}
                data-testid="home-station-search"
              />
            }
          >
            <Table<MapStation>
              data-testid="home-station-list"
              size="small"
              rowKey="id"
              loading={live.loading}
              dataSource={shown}
              pagination={{ pageSize: 10, size: 'small', hideOnSinglePage: true }}
              locale={{ emptyText: <Empty description={t('realtimeUi.home.empty')} /> }}
              onRow={(row) => ({
                onClick: () => open(row.id),
                style: { cursor: 'pointer' },
                'data-testid': `home-station-${row.id}`,
              })}
              columns={[
                {
                  title: t('realtimeUi.device.station'),
                  dataIndex: 'name',
                  // The whole name, wrapped: names of a fleet often share their beginning.
                  render: (name: string, row) => (
                    <>
                      <Typography.Link title={name} data-testid="home-station-name">
                        {name}
                      </Typography.Link>
                      {row.clockShift && (
                        <Tag color="orange" style={{ marginInlineStart: 4 }}>
                          {t('realtimeUi.clockShift.tag')}
                        </Tag>
                      )}
                    </>
                  ),
                },
                {
                  title: t('realtimeUi.device.status'),
                  dataIndex: 'status',
                  width: 76,
                  render: (s: RunStatus) => <StatusTag status={s} />,
                },
                {
                  // Power and today's energy share a column: the list sits beside the map in a
                  // narrow card, and the station name needs the room.
                  title: t('realtimeUi.home.power'),
                  dataIndex: 'powerW',
                  align: 'right',
                  width: 96,
                  sorter: (a, b) => (a.powerW ?? -1) - (b.powerW ?? -1),
                  render: (w: number | null, row) => (
                    <>
                      <div>{formatPower(w, 'kW')}</div>
                      <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                        {t('realtimeUi.home.today')} {formatEnergy(row.todayWh)}
                      </Typography.Text>
                    </>
                  ),
                },
                {
                  // The station's bill today, this month underneath (same figures as the KPIs).
                  title: t('realtimeUi.revenue.today'),
                  dataIndex: 'todayRevenue',
                  align: 'right',
                  width: 104,
                  sorter: (a, b) => (a.todayRevenue ?? -1) - (b.todayRevenue ?? -1),
                  render: (amount: number | null, row) => (
                    <div data-testid={`home-station-revenue-${row.id}`}>
                      <div>{formatMoney(amount, currency, i18n.language)}</div>
                      <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                        {t('realtimeUi.revenue.monthLine', {
                          amount: formatMoney(row.monthRevenue, currency, i18n.language),
                        })}
                      </Typography.Text>
                    </div>
                  ),
                },
              ]}
            />
          </Card>
        </Col>
      </Row>
    </Space>
  )
}
