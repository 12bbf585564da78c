import { Alert, Card, Col, DatePicker, Empty, Row, Space, Table, Tag, Typography } from 'antd'
import dayjs, { type Dayjs } from 'dayjs'
import { useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { useSearchParams } from 'react-router-dom'
import { sensorDayQuery, trackerLiveQuery } from '../../../api/realtime/queries'
import { offsetMinutes, siteToday } from '../../../components/realtime/clock'
import type { FlexLive, FlexSensor } from '../../../api/realtime/types'
import Chart from '../../../components/realtime/Chart'
import DeviceQualityPanel from '../../../components/realtime/DeviceQuality'
import { dayRange } from '../../../components/realtime/curves'
import LiveMeta from '../../../components/realtime/LiveMeta'
import StationSelect from '../../../components/realtime/StationSelect'
import { StatusTag } from '../../../components/realtime/StatusTag'
import type { RunStatus } from '../../../components/realtime/status'
import { metricLabel } from '../../../components/realtime/metricLabel'
import { useLive } from '../../../hooks/useLive'
import { displayUnit, formatValue } from '../../../utils/units'
import { breakGaps } from '../inverter/wave'

const timeText = (ms: number | null) =>
  ms === null ? '--' : dayjs(ms).format('YYYY-MM-DD HH:mm:ss')

/**
 * Flexible bracket realtime (/flex/realTime): a station's tracker controllers live (angle vs
 * target, mode, stow, wind, motor current) with their sensors; a sensor's day curve on click.
 */
export default function FlexRealTimePage() {
  const { t } = useTranslation()
  const [params] = useSearchParams()
  const [stationId, setStationId] = useState<string | undefined>(
    params.get('stationId') ?? undefined,
  )
  const [sensor, setSensor] = useState<FlexSensor | null>(null)
  // null: today in the station's clock, as the hub names it (the one clock rule).
  const [date, setDate] = useState<Dayjs | null>(null)

  const live = useLive(trackerLiveQuery(stationId ?? ''), { enabled: stationId !== undefined })

  const asked = date ? date.format('YYYY-MM-DD') : undefined
  const curve = useLive(sensorDayQuery(sensor?.id ?? '', asked), {
    intervalMs: 60_000,
    enabled: sensor !== null,
  })
  const offset = offsetMinutes(curve.data?.utcOffset)
  const stationToday = offset === null ? dayjs().format('YYYY-MM-DD') : siteToday(offset)
  const day = asked ?? (curve.data?.date || stationToday)

  const option = useMemo(() => {
    const [min, max] = dayRange(day)
    const series = curve.data?.series ?? []
    return {
      tooltip: { trigger: 'axis' },
      legend: { top: 0 },
      grid: { left: 56, right: 24, top: 36, bottom: 28 },
      xAxis: { type: 'time', min, max, axisLabel: { formatter: '{HH}:{mm}' } },
      yAxis: { type: 'value', name: displayUnit(series[0]?.unit) },
      series: series.map((s) => ({
        name: s.label || metricLabel(t, s.metric),
        type: 'line',
        showSymbol: false,
        connectNulls: false,
        data: breakGaps(s.points, 15 * 60_000),
      })),
    }
  }, [curve.data, day, t])

  const rows = live.data ?? []
  const hasCurve = (curve.data?.series ?? []).some((s) => s.points.length > 0)

  return (
    <Space orientation="vertical" size={12} style={{ width: '100%' }} data-testid="flex-real-page">
      <Card size="small">
        <Space wrap style={{ width: '100%', justifyContent: 'space-between' }}>
          <StationSelect
            autoPick
            testId="flex-real-station"
            allowClear={false}
            value={stationId}
            onChange={(id) => {
              setStationId(id)
              setSensor(null)
            }}
            placeholder={t('realtimeUi.flex.selectStation')}
          />
          {stationId && (
            <LiveMeta
              updatedAt={live.updatedAt}
              paused={live.paused}
              stale={live.error !== undefined && live.data !== undefined}
              onRefresh={live.refresh}
            />
          )}
        </Space>
      </Card>
      {!stationId ? (
        <Card size="small">
          <Empty data-testid="flex-real-no-station" description={t('realtimeUi.flex.noStation')} />
        </Card>
      ) : (
        <>
          {live.error !== undefined && live.data === undefined && (
            <Alert type="error" showIcon title={t('realtimeUi.live.loadFailed')} />
          )}
          <Card size="small" title={t('realtimeUi.flex.title')}>
            <Table<FlexLive>
              data-testid="flex-real-table"
              size="small"
              rowKey="id"
              loading={live.loading}
              dataSource={rows}
              pagination={false}
              locale={{ emptyText: <Empty description={t('realtimeUi.flex.noSensors')} /> }}
              expandable={{
                defaultExpandAllRows: true,
                rowExpandable: (r) => r.sensors.length > 0,
                expandedRowRender: (r) => (
                  <Table<FlexSensor>
                    size="small"
                    rowKey="id"
                    pagination={false}
                    dataSource={r.sensors}
                    onRow={(s) =>
                      ({
                        onClick: () => setSensor(s),
                        style: {
                          cursor: 'pointer',
                          background: s.id === sensor?.id ? 'rgba(22,119,255,0.08)' : undefined,
                        },
                        'data-testid': `flex-sensor-${s.id}`,
                      }) as React.HTMLAttributes<HTMLElement>
                    }
                    columns={[
                      { title: t('realtimeUi.flex.sensor'), dataIndex: 'name' },
                      {
                        title: t('realtimeUi.inverter.metric'),
                        dataIndex: 'metric',
                        render: (m: string | null) => (m ? metricLabel(t, m) : '--'),
                      },
                      {
                        title: t('realtimeUi.inverter.value'),
                        key: 'v',
                        align: 'right',
                        render: (_: unknown, s) => formatValue(s.value, displayUnit(s.unit)),
                      },
                    ]}
                  />
                ),
              }}
              columns={[
                { title: t('realtimeUi.device.name'), dataIndex: 'name' },
                { title: t('realtimeUi.device.sn'), dataIndex: 'sn' },
                {
                  title: t('realtimeUi.device.status'),
                  dataIndex: 'status',
                  width: 96,
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
                  title: t('realtimeUi.flex.mode'),
                  key: 'mode',
                  render: (_: unknown, r) => r.modeName ?? formatValue(r.mode),
                },
                {
                  title: t('realtimeUi.flex.stow'),
                  dataIndex: 'stow',
                  render: (v: boolean | null) =>
                    v === null ? (
                      '--'
                    ) : v ? (
                      <Tag color="orange">{t('realtimeUi.flex.stowOn')}</Tag>
                    ) : (
                      <Tag>{t('realtimeUi.flex.stowOff')}</Tag>
                    ),
                },
                {
                  title: t('realtimeUi.flex.windSpeed'),
                  dataIndex: 'windSpeed',
                  align: 'right',
                  render: (v: number | null) => formatValue(v, 'm/s', 1),
                },
                {
                  title: t('realtimeUi.flex.motorCurrent'),
                  dataIndex: 'motorCurrent',
                  align: 'right',
                  render: (v: number | null) => formatValue(v, 'A', 2),
                },
                {
                  title: t('realtimeUi.device.time'),
                  dataIndex: 'ts',
                  width: 170,
                  render: timeText,
                },
              ]}
            />
          </Card>
          <DeviceQualityPanel stationId={stationId} kind="flex" />
          <Card
            size="small"
            title={`${t('realtimeUi.flex.dayCurve')}${sensor ? ` · ${sensor.name}` : ''}`}
            extra={
              <DatePicker
                allowClear={false}
                value={date ?? dayjs(day)}
                onChange={(d) => setDate(d && d.format('YYYY-MM-DD') !== stationToday ? d : null)}
                disabledDate={(d) => d.format('YYYY-MM-DD') > stationToday}
              />
            }
          >
            {sensor === null ? (
              <Empty description={t('realtimeUi.flex.chooseSensor')} />
            ) : hasCurve ? (
              <Chart data-testid="flex-curve" option={option} style={{ height: 320 }} notMerge />
            ) : (
              <Row justify="center">
                <Col>
                  <Typography.Text type="secondary">
                    {t('realtimeUi.inverter.waveEmpty')}
                  </Typography.Text>
                </Col>
              </Row>
            )}
          </Card>
        </>
      )}
    </Space>
  )
}
