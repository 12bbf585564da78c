import { FullscreenExitOutlined, FullscreenOutlined } from '@ant-design/icons'
import { Button, ConfigProvider, Result, theme } from 'antd'
import dayjs from 'dayjs'
import { useCallback, useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { useNavigate } from 'react-router-dom'
import { fleetCurveQuery, fleetQuery } from '../../../api/realtime/queries'
import { withClockShifts } from '../../../api/realtime/station'
import Chart from '../../../components/realtime/Chart'
import { FleetClockShiftNotice } from '../../../components/realtime/ClockShiftNotice'
import { powerCurveOption } from '../../../components/realtime/curves'
import { rankingOption, statusPieOption } from '../../../components/realtime/fleetCharts'
import { fleetFigures } from '../../../components/realtime/fleetFigures'
import { KpiRow } from '../../../components/realtime/Kpis'
import LiveMeta from '../../../components/realtime/LiveMeta'
import StationMap from '../../../components/realtime/StationMap'
import { shortNames } from '../../../components/realtime/stationName'
import { StatusDot } from '../../../components/realtime/StatusTag'
import { useClockShifts } from '../../../components/realtime/useClockShifts'
import { useLive } from '../../../hooks/useLive'
import { useAlarmStore } from '../../../stores/alarm'
import { useSessionStore } from '../../../stores/session'
import { formatEnergy, formatPower } from '../../../utils/units'
import { overviewPath } from '../../realtime/station/path'
import AlarmPanel from './AlarmPanel'
import { useAlarmFeed } from './useAlarmFeed'
import './bigScreen.css'

function Clock() {
  const [now, setNow] = useState(() => dayjs())
  useEffect(() => {
    const timer = setInterval(() => setNow(dayjs()), 1000)
    return () => clearInterval(timer)
  }, [])
  return (
    <span
      style={{ fontSize: '1.25em', fontVariantNumeric: 'tabular-nums' }}
      data-testid="bigscreen-clock"
    >
      {now.format('YYYY-MM-DD HH:mm:ss')}
    </span>
  )
}

function Panel({
  title,
  children,
  testId,
  grow,
  fill,
}: {
  title: React.ReactNode
  children: React.ReactNode
  testId?: string
  /** Share the column's free height (flex weight). */
  grow?: number
  /** The child fills the body (charts, the map); otherwise the body scrolls when too long. */
  fill?: boolean
}) {
  return (
    <section
      className={`bigscreen-panel${grow ? ' bigscreen-grow' : ''}`}
      style={grow ? { flexGrow: grow } : undefined}
      data-testid={testId}
    >
      <h3 className="bigscreen-panel-title">{title}</h3>
      <div className="bigscreen-panel-body" data-testid={testId && `${testId}-body`}>
        {fill ? <div className="bigscreen-fill">{children}</div> : children}
      </div>
    </section>
  )
}

/**
 * The big screen (/bigScreen/index): the tenant's fleet as a dark, full-screen data wall — KPIs,
 * status share, the China map, the fleet's power today, today's ranking, the open alarms (live, by
 * the alarm websocket) and every station live. No tab; fits the window's height on a wide screen
 * (panels share the height and scroll inside), one column on a narrow one; sizes scale with the
 * window width (em of a root size against 1920 px). Live every 15 s.
 */
export default function BigScreen() {
  const { t } = useTranslation()
  const navigate = useNavigate()
  const token = useSessionStore((s) => s.token)
  const signedIn = token !== ''
  const live = useLive(fleetQuery(), { enabled: signedIn })
  const shifts = useClockShifts(signedIn)
  const curve = useLive(fleetCurveQuery(), { enabled: signedIn, intervalMs: 60_000 })
  const alarmCount = useAlarmStore((s) => s.count)
  useAlarmFeed()
  const [full, setFull] = useState(() => document.fullscreenElement !== null)

  useEffect(() => {
    const onChange = () => setFull(document.fullscreenElement !== null)
    document.addEventListener('fullscreenchange', onChange)
    return () => document.removeEventListener('fullscreenchange', onChange)
  }, [])
  useEffect(() => {
    const before = document.title
    document.title = t('realtimeUi.bigScreen.title')
    return () => {
      document.title = before
    }
  }, [t])

  const stations = withClockShifts(live.data?.stations ?? [], shifts)
  const summary = live.data?.summary
  const short = shortNames(stations.map((s) => s.name))
  const openStation = useCallback((id: string) => void navigate(overviewPath(id)), [navigate])

  return (
    <ConfigProvider theme={{ algorithm: theme.darkAlgorithm }}>
      <div className="bigscreen-root" data-testid="bigscreen-root">
        <header className="bigscreen-header">
          <Clock />
          <div className="bigscreen-title">{t('realtimeUi.bigScreen.title')}</div>
          <div style={{ justifySelf: 'end', display: 'flex', gap: '0.5em', alignItems: 'center' }}>
            {signedIn && (
              <LiveMeta
                dark
                updatedAt={live.updatedAt}
                paused={live.paused}
                stale={live.error !== undefined && live.data !== undefined}
                onRefresh={live.refresh}
              />
            )}
            <Button
              type="text"
              style={{ color: '#fff' }}
              data-testid="bigscreen-fullscreen"
              icon={full ? <FullscreenExitOutlined /> : <FullscreenOutlined />}
              aria-label={t(
                full ? 'realtimeUi.bigScreen.exitFullscreen' : 'realtimeUi.bigScreen.fullscreen',
              )}
              onClick={() =>
                void (
                  full ? document.exitFullscreen() : document.documentElement.requestFullscreen()
                ).catch(() => undefined)
              }
            />
          </div>
        </header>

        {!signedIn ? (
          <Result
            status="403"
            title={<span style={{ color: '#fff' }}>{t('realtimeUi.bigScreen.signIn')}</span>}
            extra={
              <Button type="primary" onClick={() => void navigate('/login')}>
                {t('realtimeUi.bigScreen.toLogin')}
              </Button>
            }
          />
        ) : (
          <>
            {stations.some((s) => s.clockShift) && (
              <div className="bigscreen-notice">
                <FleetClockShiftNotice count={stations.filter((s) => s.clockShift).length} />
              </div>
            )}
            <div className="bigscreen-grid">
              <div className="bigscreen-column">
                <KpiRow dark figures={fleetFigures(summary)} co2Factor={summary?.co2Factor} />
                <Panel
                  title={t('realtimeUi.bigScreen.status')}
                  testId="bigscreen-status"
                  grow={1}
                  fill
                >
                  <Chart
                    theme="dark"
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
                    style={{ height: '100%' }}
                    notMerge
                  />
                </Panel>
              </div>

              <div className="bigscreen-column">
                <Panel title={t('realtimeUi.home.map')} testId="bigscreen-map-panel" grow={3} fill>
                  <StationMap
                    dark
                    stations={stations}
                    height="100%"
                    onOpen={openStation}
                    testId="bigscreen-map"
                  />
                </Panel>
                <Panel
                  title={t('realtimeUi.bigScreen.powerCurve')}
                  testId="bigscreen-curve"
                  grow={2}
                  fill
                >
                  {curve.data && curve.data.points.length > 0 ? (
                    <Chart
                      theme="dark"
                      data-testid="bigscreen-power-curve"
                      option={powerCurveOption(curve.data.points, {
                        name: t('realtimeUi.bigScreen.fleetPower'),
                        range: curve.data.range,
                      })}
                      style={{ height: '100%' }}
                      notMerge
                    />
                  ) : (
                    <div className="bigscreen-empty" data-testid="bigscreen-power-curve-empty">
                      {curve.loading ? '…' : t('realtimeUi.bigScreen.noCurve')}
                    </div>
                  )}
                </Panel>
              </div>

              <div className="bigscreen-column">
                <Panel
                  title={t('realtimeUi.bigScreen.ranking')}
                  testId="bigscreen-ranking"
                  grow={4}
                  fill
                >
                  <Chart
                    theme="dark"
                    option={rankingOption(stations)}
                    style={{ height: '100%' }}
                    notMerge
                  />
                </Panel>
                <Panel
                  title={
                    <>
                      {t('realtimeUi.bigScreen.alarms')}
                      {alarmCount > 0 && (
                        <span className="bigscreen-count" data-testid="bigscreen-alarm-count">
                          {alarmCount}
                        </span>
                      )}
                    </>
                  }
                  testId="bigscreen-alarms"
                  grow={3}
                >
                  <AlarmPanel />
                </Panel>
                <Panel
                  title={t('realtimeUi.bigScreen.stationTable')}
                  testId="bigscreen-stations"
                  grow={3}
                >
                  <table className="bigscreen-list">
                    <thead>
                      <tr>
                        <th>{t('realtimeUi.device.station')}</th>
                        <th>{t('realtimeUi.device.status')}</th>
                        <th className="num">{t('realtimeUi.home.power')}</th>
                        <th className="num">{t('realtimeUi.home.today')}</th>
                      </tr>
                    </thead>
                    <tbody>
                      {stations.map((s) => (
                        <tr key={s.id} data-testid={`bigscreen-station-${s.id}`}>
                          <td className="name" title={s.name}>
                            {short.get(s.name) ?? s.name}
                          </td>
                          <td>
                            <StatusDot status={s.status} />
                          </td>
                          <td className="num">{formatPower(s.powerW, 'kW')}</td>
                          <td className="num">{formatEnergy(s.todayWh)}</td>
                        </tr>
                      ))}
                      {stations.length === 0 && (
                        <tr>
                          <td colSpan={4} style={{ textAlign: 'center', opacity: 0.6 }}>
                            {live.loading ? '…' : t('realtimeUi.home.empty')}
                          </td>
                        </tr>
                      )}
                    </tbody>
                  </table>
                </Panel>
              </div>
            </div>
          </>
        )}
      </div>
    </ConfigProvider>
  )
}
