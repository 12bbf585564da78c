import type { MeterCounterName, MeterPoint, MeterRows } from '../../../api/report/types'
import { METER_COUNTERS } from '../../../api/report/types'
import { chartValue } from '../common/format'

/** The counters a meter reports (those present in any of its slots or its total), in order. */
export function countersOf(meter: MeterRows): MeterCounterName[] {
  return METER_COUNTERS.filter(
    (c) => meter.total[c] !== undefined || meter.points.some((p) => p[c] !== undefined),
  )
}

/** The meter shown first: the grid meter (role 1), else the first. */
export function defaultMeter(meters: readonly MeterRows[]): string | undefined {
  return (meters.find((m) => m.meterRole === '1') ?? meters[0])?.meterId
}

/** Slots whose counters went down (reset or replaced), with the times found. */
export function resetMarks(meter: MeterRows): { at: string; times: string[] }[] {
  return meter.points
    .map((p) => ({
      at: p.label,
      times: METER_COUNTERS.flatMap((c) => p[c]?.resets ?? []),
    }))
    .filter((m) => m.times.length > 0)
}

/** Every reset of the period (`yyyy-MM-dd HH:mm`), each once, in order. */
export const allResets = (meter: MeterRows): string[] =>
  [...new Set(resetMarks(meter).flatMap((m) => m.times))].sort()

export const energyOf = (p: MeterPoint, c: MeterCounterName) => p[c]?.energy ?? null

export interface MeterChartText {
  energyImport: string
  energyExport: string
  reset: string
}

/** Import and export bars (kWh) with a dashed marker on every slot holding a counter reset. */
export function meterChart(meter: MeterRows, text: MeterChartText) {
  return {
    labels: meter.points.map((p) => p.label),
    leftName: 'kWh',
    bars: [
      {
        name: text.energyImport,
        data: meter.points.map((p) => chartValue(energyOf(p, 'energyImport'))),
        color: '#f5222d',
      },
      {
        name: text.energyExport,
        data: meter.points.map((p) => chartValue(energyOf(p, 'energyExport'))),
        color: '#52c41a',
      },
    ],
    marks: resetMarks(meter).map((m) => ({ at: m.at, text: text.reset })),
  }
}
