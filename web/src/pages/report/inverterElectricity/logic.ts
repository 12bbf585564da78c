import type { InverterGeneration } from '../../../api/report/types'
import { chartValue, sumOrNull } from '../common/format'

/** A row of the slot table: the slot and each inverter's energy by inverter id. */
export interface SlotRow {
  label: string
  energy: Record<string, number | null>
}

/** Slots as rows, inverters as columns; the totals row is each inverter's total. */
export function slotRows(list: readonly InverterGeneration[]): { rows: SlotRow[]; total: SlotRow } {
  const labels = list[0]?.points.map((p) => p.label) ?? []
  const rows = labels.map((label, i) => ({
    label,
    energy: Object.fromEntries(
      list.map((inv) => [inv.inverterId, inv.points[i]?.energyKwh ?? null]),
    ),
  }))
  const total = {
    label: 'total',
    energy: Object.fromEntries(list.map((inv) => [inv.inverterId, inv.total.energyKwh])),
  }
  return { rows, total }
}

/** The summary table's totals row: the energy of the inverters shown (no data stays no data). */
export function summaryTotal(list: readonly InverterGeneration[]) {
  return {
    energyKwh: sumOrNull(list.map((i) => i.total.energyKwh)),
    capacityKwp: sumOrNull(list.map((i) => i.capacityKwp)),
    sharePct: sumOrNull(list.map((i) => i.total.sharePct)),
  }
}

/** One bar series per inverter over the slots. */
export function inverterChart(list: readonly InverterGeneration[], kwh: string) {
  return {
    labels: list[0]?.points.map((p) => p.label) ?? [],
    leftName: kwh,
    bars: list.map((inv) => ({
      name: inv.inverterName,
      data: inv.points.map((p) => chartValue(p.energyKwh)),
    })),
  }
}
