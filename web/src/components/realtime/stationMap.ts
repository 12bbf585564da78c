/**
 * The echarts option of the China map of stations (home map, big screen): provinces as the base,
 * stations as dots in their status colour (producing ones ripple), sized by capacity.
 */
import type { MapStation } from '../../api/realtime/types'
import { formatEnergy, formatPower } from '../../utils/units'
import { CHINA_MAP } from './chinaMap'
import { STATUS_COLOURS, type RunStatus } from './status'

export interface MapPoint {
  id: string
  name: string
  status: RunStatus
  value: [number, number, number]
  itemStyle: { color: string }
}

/** Stations with coordinates, as map points ([lng, lat, capacity Wp]). */
export function mapPoints(stations: readonly MapStation[]): MapPoint[] {
  return stations
    .filter((s) => s.longitude !== null && s.latitude !== null)
    .map((s) => ({
      id: s.id,
      name: s.name,
      status: s.status,
      value: [s.longitude as number, s.latitude as number, s.capacityWp ?? 0],
      itemStyle: { color: STATUS_COLOURS[s.status] },
    }))
}

/** Dot size from capacity: 8 px for small plants up to 22 px for 100 MWp and more (log scale). */
export function symbolSize(capacityWp: number): number {
  if (!(capacityWp > 0)) return 8
  const kwp = capacityWp / 1000
  return Math.round(Math.min(22, Math.max(8, 8 + 2.8 * Math.log10(Math.max(1, kwp / 10)))))
}

export interface MapLabels {
  status: (s: RunStatus) => string
  power: string
  today: string
  /** Revenue lines of the tooltip (the station's bill today and this month), when given. */
  revenue?: { today: string; month: string; format: (amount: number | null) => string }
}

export function stationMapOption(
  stations: readonly MapStation[],
  labels: MapLabels,
): Record<string, unknown> {
  const points = mapPoints(stations)
  const byId = new Map(stations.map((s) => [s.id, s]))
  const producing = points.filter((p) => p.status === 'producing')
  const others = points.filter((p) => p.status !== 'producing')
  const size = (value: unknown) => symbolSize(Array.isArray(value) ? Number(value[2]) : 0)
  return {
    backgroundColor: 'transparent',
    tooltip: {
      trigger: 'item',
      formatter: (params: { data?: MapPoint; name?: string }) => {
        const s = params.data ? byId.get(params.data.id) : undefined
        if (!s) return params.name ?? ''
        return [
          `<b>${escapeHtml(s.name)}</b>`,
          labels.status(s.status),
          `${labels.power}: ${formatPower(s.powerW, 'kW')}`,
          `${labels.today}: ${formatEnergy(s.todayWh)}`,
          ...(labels.revenue
            ? [
                `${labels.revenue.today}: ${escapeHtml(labels.revenue.format(s.todayRevenue))}`,
                `${labels.revenue.month}: ${escapeHtml(labels.revenue.format(s.monthRevenue))}`,
              ]
            : []),
        ].join('<br/>')
      },
    },
    geo: {
      map: CHINA_MAP,
      roam: true,
      zoom: 1.15,
      center: [104.5, 36],
      // Province fills and borders come from the chart theme (light or dark).
      label: { show: false },
      emphasis: { label: { show: false } },
    },
    series: [
      {
        name: 'stations',
        type: 'scatter',
        coordinateSystem: 'geo',
        data: others,
        symbolSize: size,
        zlevel: 2,
      },
      {
        name: 'producing',
        type: 'effectScatter',
        coordinateSystem: 'geo',
        data: producing,
        symbolSize: size,
        rippleEffect: { scale: 3, brushType: 'stroke' },
        zlevel: 3,
      },
    ],
  }
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}
