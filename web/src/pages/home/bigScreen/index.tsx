import { FullscreenExitOutlined, FullscreenOutlined } from '@ant-design/icons'
import { Button, ConfigProvider, Result, theme } from 'antd'
import dayjs from 'dayjs'
import { useCallback, useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { useNavigate } from 'react-router-dom'
import { fleetQuery } from '../../../api/realtime/queries'
import { withClockShifts } from '../../../api/realtime/station'
import Chart from '../../../components/realtime/Chart'
import { FleetClockShiftNotice } from '../../../components/realtime/ClockShiftNotice'
import { rankingOption, statusPieOption } from '../../../components/realtime/fleetCharts'
import { fleetRevenue } from '../../../api/realtime/home'
import { KpiRow } from '../../../components/realtime/Kpis'
import LiveMeta from '../../../components/realtime/LiveMeta'
import StationMap from '../../../components/realtime/StationMap'
import { StatusDot } from '../../../components/realtime/StatusTag'
import { useClockShifts } from '../../../components/realtime/useClockShifts'
import { useLive } from '../../../hooks/useLive'
import { useSessionStore } from '../../../stores/session'
import { formatEnergy, formatPower } from '../../../utils/units'
import { overviewPath } from '../../realtime/station/path'
import './bigScreen.css'

function Clock() {
  const [now, setNow] = useState(() => dayjs())
  useEffect(() => {
    const timer = setInterval(() => setNow(dayjs()), 1000)
    return () => clearInterval(timer)
  }, [])
  return (
    <span
      style={{ fontSize: '1.25rem', fontVariantNumeric: 'tabular-nums' }}
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
}: {
  title: string
  children: React.ReactNode
  testId?: string
}) {
  return (
    <section className="bigscreen-panel" data-testid={testId}>
      <h3 className="bigscreen-panel-title">{title}</h3>
      <div style={{ padding: '0.5rem 0.75rem 0.75rem' }}>{children}</div>
    </section>
  )
}

/**
 * The big screen (/bigScreen/index): the tenant's fleet as a dark, full-screen data wall — KPIs,
 * status share, the China map, today's ranking and every station live. No tab; scales with the
 * window width (rem against 1920 px). Live every 15 s.
 */
export default function BigScreen() {
  const { t } = useTranslation()
  const navigate = useNavigate()
  const token = useSessionStore((s) => s.token)
  const signedIn = token !== ''
  const live = useLive(fleetQuery(), { enabled: signedIn })
  const shifts = useClockShifts(signedIn)
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
  const openStation = useCallback((id: string) => void navigate(overviewPath(id)), [navigate])

  return (
    <ConfigProvider theme={{ algorithm: theme.darkAlgorithm }}>
      <div className="bigscreen-root" data-testid="bigscreen-root">
        <header className="bigscreen-header">
          <Clock />
          <div className="bigscreen-title">{t('realtimeUi.bigScreen.title')}</div>
          <div style={{ justifySelf: 'end', display: 'flex', gap: '0.5rem', alignItems: 'center' }}>
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
              <div style={{ marginBottom: '0.75rem' }}>
                <FleetClockShiftNotice count={stations.filter((s) => s.clockShift).length} />
              </div>
            )}
            <div className="bigscreen-grid">
              <div className="bigscreen-column">
                <div className="bigscreen-kpis">
                  <KpiRow
                    dark
                    figures={{
                      stations: summary?.stations ?? 0,
                      powerW: summary?.powerW ?? null,
                      todayWh: summary?.todayWh ?? null,
                      totalWh: summary?.totalWh ?? null,
                      capacityWp: summary?.capacityWp ?? null,
                      co2Kg: summary?.co2Kg ?? null,
                      revenue: fleetRevenue(summary),
                    }}
                    co2Factor={summary?.co2Factor}
                  />
                </div>
                <Panel title={t('realtimeUi.bigScreen.status')} testId="bigscreen-status">
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
                      true,
                    )}
                    style={{ height: '17rem' }}
                    notMerge
                  />
                </Panel>
              </div>

              <div className="bigscreen-column">
                <Panel title={t('realtimeUi.home.map')}>
                  <StationMap
                    dark
                    stations={stations}
                    height="44rem"
                    onOpen={openStation}
                    testId="bigscreen-map"
                  />
                </Panel>
              </div>

              <div className="bigscreen-column">
                <Panel title={t('realtimeUi.bigScreen.ranking')} testId="bigscreen-ranking">
                  <Chart
                    theme="dark"
                    option={rankingOption(stations, true)}
                    style={{ height: '20rem' }}
                    notMerge
                  />
                </Panel>
                <Panel title={t('realtimeUi.bigScreen.stationTable')} testId="bigscreen-stations">
                  <div style={{ maxHeight: '22rem', overflow: 'auto' }}>
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
                            <td
                              style={{
                                maxWidth: '9rem',
                                overflow: 'hidden',
                                textOverflow: 'ellipsis',
                              }}
                            >
                              {s.name}
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
                  </div>
                </Panel>
              </div>
            </div>
          </>
        )}
      </div>
    </ConfigProvider>
  )
}
