import { Alert, Card, Col, Empty, Row, Space, Typography } from 'antd'
import { useTranslation } from 'react-i18next'
import { fleetConsoleQuery } from '../../../api/realtime/queries'
import { withClockShifts } from '../../../api/realtime/station'
import Chart from '../../../components/realtime/Chart'
import { FleetClockShiftNotice } from '../../../components/realtime/ClockShiftNotice'
import {
  provinceOption,
  rankingOption,
  statusPieOption,
} from '../../../components/realtime/fleetCharts'
import { fleetFigures } from '../../../components/realtime/fleetFigures'
import { KpiCard, KpiRow } from '../../../components/realtime/Kpis'
import RepairKpis from '../../../components/repair/RepairKpis'
import LiveMeta from '../../../components/realtime/LiveMeta'
import { useClockShifts } from '../../../components/realtime/useClockShifts'
import { useLive } from '../../../hooks/useLive'
import { scaleEnergy } from '../../../utils/units'

/** The fleet console (/basicFacts/dashboard, hidden from the menu): KPIs and fleet charts, live. */
export default function DashboardPage() {
  const { t } = useTranslation()
  const live = useLive(fleetConsoleQuery(), { intervalMs: 30_000 })
  const shifts = useClockShifts()
  const summary = live.data?.summary
  const stations = withClockShifts(live.data?.stations ?? [], shifts)

  return (
    <Space orientation="vertical" size={12} style={{ width: '100%' }} data-testid="dashboard-page">
      <Row justify="space-between" align="middle">
        <Col>
          <Typography.Title level={4} style={{ margin: 0 }}>
            {t('realtimeUi.dashboard.title')}
          </Typography.Title>
        </Col>
        <Col>
          <LiveMeta
            updatedAt={live.updatedAt}
            paused={live.paused}
            stale={live.error !== undefined && live.data !== undefined}
            onRefresh={live.refresh}
            intervalMs={30_000}
          />
        </Col>
      </Row>
      {live.error !== undefined && live.data === undefined && (
        <Alert type="error" showIcon title={t('realtimeUi.live.loadFailed')} />
      )}
      <FleetClockShiftNotice count={stations.filter((s) => s.clockShift).length} />
      <KpiRow figures={fleetFigures(summary)} co2Factor={summary?.co2Factor} />
      <RepairKpis figures={summary} />
      <Row gutter={[12, 12]}>
        <Col xs={12} md={6}>
          <KpiCard
            testId="kpi-month-energy"
            label={t('realtimeUi.kpi.monthEnergy')}
            value={scaleEnergy(summary?.monthWh)}
          />
        </Col>
        <Col xs={12} md={6}>
          <KpiCard
            testId="kpi-year-energy"
            label={t('realtimeUi.kpi.yearEnergy')}
            value={scaleEnergy(summary?.yearWh)}
          />
        </Col>
      </Row>
      <Row gutter={[12, 12]}>
        <Col xs={24} lg={8}>
          <Card size="small" title={t('realtimeUi.dashboard.statusShare')}>
            {stations.length === 0 ? (
              <Empty description={t('realtimeUi.home.empty')} />
            ) : (
              <Chart
                data-testid="dashboard-status-chart"
                option={statusPieOption(
                  summary?.byStatus ?? {
                    producing: 0,
                    standby: 0,
                    offline: 0,
                    commissioning: 0,
                    fault: 0,
                  },
                  (s) => t(`realtimeUi.status.${s}`),
                )}
                style={{ height: 300 }}
                notMerge
              />
            )}
          </Card>
        </Col>
        <Col xs={24} lg={16}>
          <Card size="small" title={t('realtimeUi.dashboard.topStations')}>
            {stations.length === 0 ? (
              <Empty description={t('realtimeUi.home.empty')} />
            ) : (
              <Chart
                data-testid="dashboard-ranking"
                option={rankingOption(stations)}
                style={{ height: 300 }}
                notMerge
              />
            )}
          </Card>
        </Col>
        <Col span={24}>
          <Card size="small" title={t('realtimeUi.dashboard.byProvince')}>
            {(live.data?.provinces.length ?? 0) === 0 ? (
              <Empty description={t('realtimeUi.live.noData')} />
            ) : (
              <Chart
                data-testid="dashboard-provinces"
                option={provinceOption(live.data?.provinces ?? [], {
                  capacity: t('realtimeUi.kpi.capacity'),
                  today: t('realtimeUi.kpi.todayEnergy'),
                  unknown: '--',
                })}
                style={{ height: 320 }}
                notMerge
              />
            )}
          </Card>
        </Col>
      </Row>
    </Space>
  )
}
