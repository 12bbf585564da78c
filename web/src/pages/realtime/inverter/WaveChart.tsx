import { Card, DatePicker, Empty, Select, Space, Typography } from 'antd'
import dayjs, { type Dayjs } from 'dayjs'
import { useQuery } from '@tanstack/react-query'
import { useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import {
  MAX_WAVE_DEVICES,
  MAX_WAVE_METRICS,
  type WaveName,
} from '../../../api/realtime/inverterReal'
import { waveNamesQuery, waveQuery } from '../../../api/realtime/queries'
import type { DeviceLive } from '../../../api/realtime/types'
import Chart from '../../../components/realtime/Chart'
import { offsetMinutes, siteToday, utcLabel } from '../../../components/realtime/clock'
import { dayRange } from '../../../components/realtime/curves'
import { metricLabel } from '../../../components/realtime/metricLabel'
import { useLive } from '../../../hooks/useLive'
import { displayUnit, formatValue } from '../../../utils/units'
import { buildWave, clockedDevices, type WaveInput } from './wave'

const noNames: WaveName[] = []

export interface WaveChartProps {
  /** Inverters to choose from (the table's rows). */
  devices: readonly DeviceLive[]
  stationId?: string
}

/** Chosen metrics of chosen inverters over one day (5-minute means), one y axis per unit. */
export default function WaveChart({ devices, stationId }: WaveChartProps) {
  const { t } = useTranslation()
  const [chosen, setChosen] = useState<string[]>([])
  const [metrics, setMetrics] = useState<string[]>(['ac_power'])
  // null: today in the station's clock, as the hub names it (the one clock rule).
  const [date, setDate] = useState<Dayjs | null>(null)

  // Default: the first inverter of the table once there is one.
  const ids = chosen.length > 0 ? chosen : devices.slice(0, 1).map((d) => d.id)

  const names = useQuery(waveNamesQuery(ids, stationId)).data ?? noNames

  const labelOf = (n: WaveName) => {
    const own = metricLabel(t, n.metric)
    return own === n.metric && n.label ? n.label : own
  }

  const asked = date ? date.format('YYYY-MM-DD') : undefined
  // Today's curves grow every 5 minutes; a past day does not change.
  const live = useLive(waveQuery({ inverterIds: ids, metrics, date: asked }), {
    intervalMs: asked === undefined ? 60_000 : 3_600_000,
    enabled: ids.length > 0 && metrics.length > 0,
  })
  const offset = offsetMinutes(live.data?.utcOffset)
  const stationToday = offset === null ? dayjs().format('YYYY-MM-DD') : siteToday(offset)
  const day = asked ?? (live.data?.date || stationToday)

  const clocks = useMemo(
    () => clockedDevices(live.data?.series ?? [], live.data?.utcOffset ?? ''),
    [live.data],
  )
  const option = useMemo(() => {
    const inputs: WaveInput[] = (live.data?.series ?? []).map((s, i) => ({
      device: clocks.names[i] ?? s.deviceName,
      metric: s.metric,
      label: metricLabel(t, s.metric),
      points: s.points,
    }))
    const chart = buildWave(inputs)
    const [min, max] = dayRange(day)
    return {
      chart,
      option: {
        tooltip: { trigger: 'axis' },
        legend: { type: 'scroll', top: 0 },
        grid: {
          left: 64,
          right: 24 + Math.max(0, chart.axes.length - 1) * 56,
          top: 40,
          bottom: 64,
        },
        dataZoom: [{ type: 'inside' }, { type: 'slider', height: 18, bottom: 8 }],
        xAxis: { type: 'time', min, max, axisLabel: { formatter: '{HH}:{mm}' } },
        yAxis: chart.axes.map((axis, i) => ({
          type: 'value',
          name: axis.scale.unit,
          position: i === 0 ? 'left' : 'right',
          offset: i <= 1 ? 0 : (i - 1) * 56,
          alignTicks: true,
          axisLine: { show: i > 0 },
          axisLabel: { formatter: (v: number) => formatValue(v) },
        })),
        series: chart.series.map((s) => ({
          name: s.name,
          type: 'line',
          showSymbol: false,
          connectNulls: false,
          yAxisIndex: s.yAxisIndex,
          data: s.data,
          tooltip: {
            valueFormatter: (v: number | null) =>
              formatValue(v, chart.axes[s.yAxisIndex]?.scale.unit),
          },
        })),
      },
    }
  }, [live.data, t, day, clocks])

  const hasData = option.chart.series.some((s) => s.data.some((p) => p[1] !== null))
  return (
    <Card
      size="small"
      title={t('realtimeUi.inverter.wave')}
      data-testid="wave-card"
      extra={
        <Space wrap>
          <Select
            data-testid="wave-devices"
            mode="multiple"
            maxCount={MAX_WAVE_DEVICES}
            maxTagCount="responsive"
            style={{ minWidth: 220 }}
            placeholder={t('realtimeUi.inverter.waveDevices')}
            value={ids}
            onChange={setChosen}
            options={devices.map((d) => ({ value: d.id, label: d.name || d.sn }))}
          />
          <Select
            data-testid="wave-metrics"
            mode="multiple"
            maxCount={MAX_WAVE_METRICS}
            maxTagCount="responsive"
            style={{ minWidth: 240 }}
            placeholder={t('realtimeUi.inverter.waveMetrics')}
            value={metrics}
            onChange={setMetrics}
            showSearch={{ optionFilterProp: 'label' }}
            options={(names.length > 0
              ? names
              : [{ metric: 'ac_power', label: '', unit: 'kW' }]
            ).map((n) => ({
              value: n.metric,
              label: `${labelOf(n)}${displayUnit(n.unit) ? ` (${displayUnit(n.unit)})` : ''}`,
            }))}
          />
          <DatePicker
            data-testid="wave-date"
            allowClear={false}
            value={date ?? dayjs(day)}
            onChange={(d) => setDate(d && d.format('YYYY-MM-DD') !== stationToday ? d : null)}
            disabledDate={(d) => d.format('YYYY-MM-DD') > stationToday}
          />
        </Space>
      }
    >
      {hasData ? (
        <Chart data-testid="wave-chart" option={option.option} style={{ height: 380 }} notMerge />
      ) : (
        <Empty
          data-testid="wave-chart-empty"
          style={{ padding: 48 }}
          description={
            ids.length === 0 || metrics.length === 0
              ? t('realtimeUi.inverter.waveHint')
              : live.loading
                ? '…'
                : t('realtimeUi.inverter.waveEmpty')
          }
        />
      )}
      <Typography.Text type="secondary">{t('realtimeUi.inverter.waveHint')}</Typography.Text>
      {live.data?.utcOffset && (
        <Typography.Text type="secondary" data-testid="wave-clock" style={{ marginLeft: 12 }}>
          {clocks.mixed
            ? t('realtimeUi.clockRule.perSeries')
            : t('realtimeUi.clockRule.axis', { offset: utcLabel(live.data.utcOffset) })}
        </Typography.Text>
      )}
    </Card>
  )
}
