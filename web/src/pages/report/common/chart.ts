/**
 * echarts options of the report charts: bars (stacked or side by side) on the left axis, lines on
 * the right one, gaps where there is no data, legend on top, labels that fit a phone.
 */

export interface BarSeries {
  name: string
  data: (number | null)[]
  /** Bars with the same stack name are stacked. */
  stack?: string
  color?: string
}

export interface LineSeries {
  name: string
  data: (number | null)[]
  color?: string
}

export interface MarkLine {
  /** The x label the line stands on. */
  at: string
  text: string
}

export interface ComboChart {
  labels: string[]
  leftName: string
  rightName?: string
  bars: BarSeries[]
  lines?: LineSeries[]
  /** Vertical markers (e.g. meter counter resets), drawn on the first bar series. */
  marks?: MarkLine[]
}

export function comboOption(c: ComboChart): Record<string, unknown> {
  const lines = c.lines ?? []
  const marks = c.marks ?? []
  return {
    tooltip: { trigger: 'axis', confine: true },
    legend: { top: 0, type: 'scroll' },
    grid: { left: 8, right: 8, top: 56, bottom: 8, containLabel: true },
    xAxis: { type: 'category', data: c.labels, axisLabel: { hideOverlap: true } },
    yAxis: [
      { type: 'value', name: c.leftName, nameTextStyle: { align: 'left' } },
      ...(c.rightName
        ? [
            {
              type: 'value',
              name: c.rightName,
              nameTextStyle: { align: 'right' },
              splitLine: { show: false },
            },
          ]
        : []),
    ],
    series: [
      ...c.bars.map((b, i) => ({
        type: 'bar',
        name: b.name,
        data: b.data,
        stack: b.stack,
        itemStyle: b.color ? { color: b.color } : undefined,
        barMaxWidth: 28,
        ...(i === 0 && marks.length > 0
          ? {
              markLine: {
                symbol: 'none',
                lineStyle: { color: '#f5222d', type: 'dashed' },
                label: { formatter: '{b}', color: '#f5222d' },
                data: marks.map((m) => ({ xAxis: m.at, name: m.text })),
              },
            }
          : {}),
      })),
      ...lines.map((l) => ({
        type: 'line',
        name: l.name,
        data: l.data,
        yAxisIndex: c.rightName ? 1 : 0,
        connectNulls: false,
        smooth: false,
        itemStyle: l.color ? { color: l.color } : undefined,
      })),
    ],
  }
}

export interface PieSlice {
  name: string
  value: number
  color?: string
}

export function pieOption(title: string, slices: PieSlice[]): Record<string, unknown> {
  return {
    tooltip: { trigger: 'item', confine: true },
    // Legend items apart from each other; shares on the ring itself (outside labels were cut
    // to "4…" in a half-width card).
    legend: { bottom: 0, type: 'scroll', itemGap: 16 },
    title: { text: title, left: 'center', textStyle: { fontSize: 13 } },
    series: [
      {
        type: 'pie',
        radius: ['38%', '66%'],
        center: ['50%', '48%'],
        labelLine: { show: false },
        data: slices.map((s) => ({
          name: s.name,
          value: s.value,
          itemStyle: s.color ? { color: s.color } : undefined,
        })),
        label: {
          position: 'inside',
          color: '#fff',
          fontSize: 11,
          // A slice too thin for its share leaves it to the tooltip.
          formatter: (p: { percent: number }) =>
            p.percent >= 4 ? `${Math.round(p.percent)}%` : '',
        },
      },
    ],
  }
}
