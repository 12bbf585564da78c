import type { BillFigures, SegmentLine, StationBill } from '../../../api/report/types'

/** Time-of-use segment kinds in order (sharp, peak, flat, valley) and their colours. */
export const SEGMENT_KINDS = ['1', '2', '3', '4'] as const
export const SEGMENT_COLORS: Record<string, string> = {
  '1': '#f5222d',
  '2': '#fa8c16',
  '3': '#409EFF',
  '4': '#52c41a',
}

/** The kinds present anywhere in the bill, in order (unknown kinds after the known ones). */
export function kindsOf(bill: StationBill): string[] {
  const seen = new Set<string>()
  for (const f of [bill.total, ...bill.points]) for (const s of f.segments) seen.add(s.kind)
  const known = SEGMENT_KINDS.filter((k) => seen.has(k))
  return [...known, ...[...seen].filter((k) => !(SEGMENT_KINDS as readonly string[]).includes(k))]
}

const segment = (f: BillFigures, kind: string): SegmentLine | undefined =>
  f.segments.find((s) => s.kind === kind)

/** Generation (kWh) per slot, stacked by time-of-use segment. */
export function touChart(bill: StationBill, labelOf: (kind: string) => string) {
  return {
    labels: bill.points.map((p) => p.label),
    leftName: 'kWh',
    bars: kindsOf(bill).map((kind) => ({
      name: labelOf(kind),
      stack: 'tou',
      color: SEGMENT_COLORS[kind],
      data: bill.points.map((p) => segment(p, kind)?.generationKwh ?? null),
    })),
  }
}

/** The bill's amount by segment and by where the energy went (self-consumed / exported). */
export function breakdown(
  bill: StationBill,
  labelOf: (kind: string) => string,
  text: { selfConsumed: string; exported: string },
) {
  return bill.total.segments.flatMap((s) =>
    [
      {
        name: `${labelOf(s.kind)} · ${text.selfConsumed}`,
        value: s.selfConsumedAmount,
        color: SEGMENT_COLORS[s.kind],
      },
      {
        name: `${labelOf(s.kind)} · ${text.exported}`,
        value: s.exportedAmount,
        // The segment's colour, lighter: exported energy of the same hours.
        color: SEGMENT_COLORS[s.kind] ? `${SEGMENT_COLORS[s.kind]}80` : undefined,
      },
    ].filter((x) => x.value > 0),
  )
}

/** The segment table's totals (the sums the bill's total carries). */
export const segmentTotal = (bill: StationBill): SegmentLine => ({
  kind: 'total',
  generationKwh: bill.total.generationKwh,
  selfConsumedKwh: bill.total.selfConsumedKwh,
  exportedKwh: bill.total.exportedKwh,
  selfConsumedAmount: bill.total.selfConsumedAmount,
  exportedAmount: bill.total.exportedAmount,
  minPrice: null,
  maxPrice: null,
})

/** A segment's grid price as shown: one price, or the range when tariff versions differ. */
export function priceText(s: SegmentLine, digits = 4): string {
  if (s.minPrice === null || s.maxPrice === null) return '—'
  const a = s.minPrice.toFixed(digits)
  const b = s.maxPrice.toFixed(digits)
  return a === b ? a : `${a} ~ ${b}`
}
