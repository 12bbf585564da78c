/** echarts options of the day curves (station power today, a bracket's angles). */
import dayjs from 'dayjs'
import { axisScale, breakGaps, type Point } from '../../pages/realtime/inverter/wave'
import { formatValue } from '../../utils/units'

/** Local midnight to midnight of `date` (yyyy-MM-dd, default today), epoch ms. */
export function dayRange(date?: string): [number, number] {
  const start = (date ? dayjs(date) : dayjs()).startOf('day')
  return [start.valueOf(), start.add(1, 'day').valueOf()]
}

export interface PowerCurveOptions {
  name: string
  date?: string
  /** The axis span, epoch ms (instead of `date`'s day in the browser's clock). */
  range?: [number, number]
  colour?: string
}

/** One area line of power (W in, shown in W / kW / MW) over a whole day. */
export function powerCurveOption(
  points: readonly [number, number][],
  { name, date, range, colour = '#52c41a' }: PowerCurveOptions,
): Record<string, unknown> {
  const max = points.reduce((m, [, v]) => Math.max(m, Math.abs(v)), 0)
  const scale = axisScale('W', max)
  const [min, maxT] = range ?? dayRange(date)
  const data: Point[] = breakGaps(
    points.map(([t, v]) => [t, v / scale.factor]),
    15 * 60_000,
  )
  return {
    backgroundColor: 'transparent',
    grid: { left: 56, right: 20, top: 36, bottom: 28 },
    tooltip: {
      trigger: 'axis',
      valueFormatter: (v: number | null) => formatValue(v, scale.unit),
    },
    xAxis: {
      type: 'time',
      min,
      max: maxT,
      axisLabel: { formatter: '{HH}:{mm}' },
      splitLine: { show: false },
    },
    yAxis: {
      type: 'value',
      name: scale.unit,
      min: 0,
    },
    series: [
      {
        name,
        type: 'line',
        showSymbol: false,
        smooth: true,
        connectNulls: false,
        data,
        lineStyle: { width: 2, color: colour },
        itemStyle: { color: colour },
        areaStyle: { opacity: 0.15, color: colour },
      },
    ],
  }
}
