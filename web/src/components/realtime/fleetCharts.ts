/**
 * Fleet charts shared by the dashboard and the big screen (pure option builders). Text colours come
 * from the chart theme (`chartTheme.ts`): a `color: undefined` here would blank the legend.
 */
import type { ProvinceStat } from '../../api/realtime/home'
import type { MapStation } from '../../api/realtime/types'
import { axisScale } from '../../pages/realtime/inverter/wave'
import { formatValue } from '../../utils/units'
import { STATUSES, STATUS_COLOURS, type RunStatus } from './status'
import { shortNames } from './stationName'

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/** Doughnut of stations per status, in the status colours (statuses with 0 left out). */
export function statusPieOption(
  counts: Record<RunStatus, number>,
  label: (s: RunStatus) => string,
): Record<string, unknown> {
  return {
    backgroundColor: 'transparent',
    tooltip: { trigger: 'item', formatter: '{b}: {c} ({d}%)' },
    legend: { bottom: 0, type: 'scroll' },
    series: [
      {
        type: 'pie',
        // Names in the legend, counts on the ring: outside labels were cut to "…" in a narrow
        // panel (the big screen's), where the names are what one reads.
        radius: ['40%', '66%'],
        center: ['50%', '44%'],
        label: { position: 'inside', formatter: '{c}', color: '#fff', fontWeight: 'bold' },
        labelLine: { show: false },
        data: STATUSES.filter((s) => counts[s] > 0).map((s) => ({
          name: label(s),
          value: counts[s],
          itemStyle: { color: STATUS_COLOURS[s] },
        })),
      },
    ],
  }
}

/** The `n` stations with the most energy today (Wh), largest first. */
export function topStations(stations: readonly MapStation[], n = 10): MapStation[] {
  return [...stations]
    .filter((s) => s.todayWh !== null)
    .sort((a, b) => (b.todayWh ?? 0) - (a.todayWh ?? 0))
    .slice(0, n)
}

/** Horizontal bars of energy today per station (largest on top), unit scaled to the values. */
export function rankingOption(stations: readonly MapStation[]): Record<string, unknown> {
  const top = topStations(stations)
  const scale = axisScale('Wh', top[0]?.todayWh ?? 0)
  const rows = [...top].reverse()
  // The axis shows what tells the stations apart; the tooltip the whole name.
  const short = shortNames(stations.map((s) => s.name))
  return {
    backgroundColor: 'transparent',
    tooltip: {
      trigger: 'axis',
      axisPointer: { type: 'shadow' },
      formatter: (params: { dataIndex: number; value: number }[]) => {
        const p = params[0]
        const station = p ? rows[p.dataIndex] : undefined
        return station
          ? `${escapeHtml(station.name)}<br/>${formatValue(p.value, scale.unit)} ${scale.unit}`
          : ''
      },
    },
    grid: { left: 8, right: 48, top: 8, bottom: 8, containLabel: true },
    xAxis: {
      type: 'value',
      name: scale.unit,
      splitLine: { show: false },
    },
    yAxis: {
      type: 'category',
      data: rows.map((s) => short.get(s.name) ?? s.name),
      axisLabel: { width: 130, overflow: 'truncate' },
    },
    series: [
      {
        type: 'bar',
        data: rows.map((s) => ({
          value: (s.todayWh ?? 0) / scale.factor,
          itemStyle: { color: STATUS_COLOURS[s.status] },
        })),
        barMaxWidth: 16,
        label: {
          show: true,
          position: 'right',
          formatter: (p: { value: number }) => formatValue(p.value),
        },
      },
    ],
  }
}

/** Capacity (kWp/MWp) and energy today per province, grouped bars with two axes. */
export function provinceOption(
  stats: readonly ProvinceStat[],
  labels: { capacity: string; today: string; unknown: string },
): Record<string, unknown> {
  const rows = [...stats].sort((a, b) => (b.capacityWp ?? 0) - (a.capacityWp ?? 0))
  const cap = axisScale('W', Math.max(0, ...rows.map((r) => r.capacityWp ?? 0)))
  const energy = axisScale('Wh', Math.max(0, ...rows.map((r) => r.todayWh ?? 0)))
  return {
    backgroundColor: 'transparent',
    tooltip: { trigger: 'axis' },
    legend: { top: 0, type: 'scroll' },
    grid: { left: 56, right: 56, top: 36, bottom: 48 },
    xAxis: {
      type: 'category',
      data: rows.map((r) => r.provinceName || labels.unknown),
      axisLabel: { rotate: rows.length > 8 ? 30 : 0 },
    },
    yAxis: [
      { type: 'value', name: `${cap.unit}p` },
      {
        type: 'value',
        name: energy.unit,
        splitLine: { show: false },
      },
    ],
    series: [
      {
        name: labels.capacity,
        type: 'bar',
        data: rows.map((r) => (r.capacityWp ?? 0) / cap.factor),
        itemStyle: { color: '#fa8c16' },
        barMaxWidth: 24,
      },
      {
        name: labels.today,
        type: 'bar',
        yAxisIndex: 1,
        data: rows.map((r) => (r.todayWh ?? 0) / energy.factor),
        itemStyle: { color: '#1677ff' },
        barMaxWidth: 24,
      },
    ],
  }
}
