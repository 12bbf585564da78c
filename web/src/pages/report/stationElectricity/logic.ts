import type { StationGeneration, StationPerformance } from '../../../api/report/types'
import { chartPct, chartValue } from '../common/format'

/** One row of the station table: generation figures and the PR of the same slot. */
export interface StationRow {
  label: string
  energyKwh: number | null
  equivalentHours: number | null
  irradiationKwhM2: number | null
  exportKwh: number | null
  importKwh: number | null
  /** 0..1 */
  pr: number | null
  prTemperatureCorrected: number | null
}

/** The table's rows: the generation answer's slots with the rate answer's PR by label. */
export function stationRows(
  gen: StationGeneration,
  perf: StationPerformance | undefined,
): { rows: StationRow[]; total: StationRow } {
  const prOf = new Map((perf?.points ?? []).map((p) => [p.label, p]))
  const rows = gen.points.map((p) => ({
    ...p,
    pr: prOf.get(p.label)?.pr ?? null,
    prTemperatureCorrected: prOf.get(p.label)?.prTemperatureCorrected ?? null,
  }))
  const total = {
    ...gen.total,
    pr: perf?.total.pr ?? null,
    prTemperatureCorrected: perf?.total.prTemperatureCorrected ?? null,
  }
  return { rows, total }
}

export interface StationChartText {
  energy: string
  pr: string
  prT: string
  kwh: string
  percent: string
}

/** Generation bars (kWh) with the PR line (%) on the right axis, gaps where there is no data. */
export function stationChart(rows: StationRow[], text: StationChartText) {
  return {
    labels: rows.map((r) => r.label),
    leftName: text.kwh,
    rightName: text.percent,
    bars: [{ name: text.energy, data: rows.map((r) => chartValue(r.energyKwh)), color: '#409EFF' }],
    lines: [
      { name: text.pr, data: rows.map((r) => chartPct(r.pr)), color: '#fa8c16' },
      {
        name: text.prT,
        data: rows.map((r) => chartPct(r.prTemperatureCorrected)),
        color: '#52c41a',
      },
    ],
  }
}
