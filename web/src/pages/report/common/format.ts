/**
 * How report figures are shown: null is "no data" and shows as "—" (never 0); ratios 0..1 show
 * as percentages; charts get null (a gap), not 0.
 */

export const NO_DATA = '—'

/** A number with `digits` decimals, or "—". */
export function fmt(v: number | null | undefined, digits = 2): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return NO_DATA
  return v.toLocaleString('en-US', {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
    useGrouping: false,
  })
}

/** A ratio 0..1 as a percentage (`0.8123` → `81.2`), or "—". */
export const pct = (ratio: number | null | undefined, digits = 1): string =>
  ratio === null || ratio === undefined ? NO_DATA : fmt(ratio * 100, digits)

/** A value for a chart series: a gap where there is no data. */
export const chartValue = (v: number | null | undefined): number | null =>
  v === null || v === undefined || !Number.isFinite(v) ? null : v

/** A ratio 0..1 as a chart percentage, or a gap. */
export const chartPct = (ratio: number | null | undefined): number | null =>
  ratio === null || ratio === undefined ? null : Math.round(ratio * 10000) / 100

/** A sum that stays "no data" when every part is null (Σ of nothing measured is not 0). */
export function sumOrNull(values: readonly (number | null | undefined)[]): number | null {
  let total: number | null = null
  for (const v of values) if (v !== null && v !== undefined) total = (total ?? 0) + v
  return total
}

/** `{{label}} ({{unit}})` header text. */
export const withUnit = (label: string, unit: string | undefined) =>
  unit ? `${label} (${unit})` : label

/** A figure column: its header with the unit, how to read it from a row, its decimals. */
export interface FigureColumn<R> {
  key: string
  title: string
  unit?: string
  value: (row: R) => number | null | undefined
  digits?: number
  /** Text instead of a number (e.g. a percentage of a ratio). */
  text?: (row: R) => string
}

/** The cell text of a figure column for one row ("—" for no data). */
export const cellText = <R>(c: FigureColumn<R>, row: R): string =>
  c.text ? c.text(row) : fmt(c.value(row), c.digits ?? 2)
