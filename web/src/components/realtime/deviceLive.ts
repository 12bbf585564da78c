/**
 * Weather stations and meters on screen. A reading: its number with the server's unit ("--" when
 * absent). The day chart: one line per metric, one y axis per unit (W/m²
 * and °C; kW and kWh), the first on the left, the others on the right. Values are drawn in the
 * unit the server names; silences longer than 15 minutes break the line. Pure (tested in
 * deviceLive.test.ts).
 */
import { decimalsOf, type DeviceCurveSeries, type LiveReading } from '../../api/realtime/deviceReal'
import { breakGaps, type Point } from '../../pages/realtime/inverter/wave'
import { EMPTY, formatNumber, formatValue } from '../../utils/units'
import { dayRange } from './curves'

/** "812.5 W/m²", "0.987" (power factor), "--" for a missing value. */
export function readingText({
  name,
  value,
  unit,
}: Pick<LiveReading, 'name' | 'value' | 'unit'>): string {
  if (value === null) return EMPTY
  const text = formatNumber(value, decimalsOf(name, value))
  return unit ? `${text} ${unit}` : text
}

const COLOURS = ['#faad14', '#1677ff', '#f5222d', '#722ed1', '#13c2c2', '#52c41a', '#eb2f96']

/** The distinct units of the series, in order of first appearance (one y axis each). */
export function unitsOf(series: readonly DeviceCurveSeries[]): string[] {
  const units: string[] = []
  for (const s of series) if (!units.includes(s.unit)) units.push(s.unit)
  return units
}

export function deviceCurveOption(
  series: readonly DeviceCurveSeries[],
  { date }: { date?: string } = {},
): Record<string, unknown> {
  const units = unitsOf(series)
  const [min, max] = dayRange(date)
  const right = Math.max(0, units.length - 1)
  return {
    backgroundColor: 'transparent',
    color: COLOURS,
    grid: { left: 52, right: 20 + 52 * right, top: 56, bottom: 28, containLabel: false },
    legend: { top: 0, type: 'scroll' },
    tooltip: { trigger: 'axis' },
    xAxis: {
      type: 'time',
      min,
      max,
      axisLabel: { formatter: '{HH}:{mm}', hideOverlap: true },
      splitLine: { show: false },
    },
    yAxis: units.map((unit, i) => ({
      type: 'value',
      name: unit,
      position: i === 0 ? 'left' : 'right',
      offset: i <= 1 ? 0 : 52 * (i - 1),
      // Energy counters and voltages sit far from zero: let their axis follow the data.
      scale: true,
      // Grid lines in the chart theme's colour (a fixed light grey glared in the dark theme).
      splitLine: { show: i === 0 },
      axisLine: { show: i > 0 },
    })),
    series: series.map((s) => ({
      name: s.label,
      type: 'line',
      yAxisIndex: units.indexOf(s.unit),
      // A line needs two points: the first minutes of a day show as dots.
      showSymbol: s.points.length < 3,
      connectNulls: false,
      data: breakGaps(s.points as Point[], 15 * 60_000),
      tooltip: { valueFormatter: (v: number | null) => formatValue(v, s.unit) },
    })),
  }
}
