/**
 * The per-string view of an inverter: its PV inputs (pv{n}_voltage / _current / _power) and MPP
 * trackers side by side, each string's current against the mean of the producing strings so a weak
 * one stands out (shading, soiling, a blown fuse, a broken connector; docs pv-domain "dispersion").
 */
import { parseMetric } from '../../../api/realtime/metrics'

export interface StringRow {
  /** 1-based input number. */
  n: number
  voltage: number | null
  current: number | null
  /** W: as sent, else V × I. */
  power: number | null
  /** Current relative to the mean of the producing strings, % (−25 = a quarter below); null when not judged. */
  deviation: number | null
  /** Producing strings whose current is at least `weakBelow` % under the mean. */
  weak: boolean
}

export interface StringView {
  strings: StringRow[]
  mppts: { n: number; voltage: number | null; current: number | null; power: number | null }[]
  /** Mean current of the producing strings, A (null: none). */
  meanCurrent: number | null
  /** Dispersion σ/μ of the producing strings' currents, % (null: fewer than 2). */
  dispersion: number | null
}

export interface StringOptions {
  /** A string below this current (A) is not producing: left out of the mean (night, open input). */
  minCurrent?: number
  /** Flag a string this many % below the mean (default 20). */
  weakBelow?: number
}

type Values = Readonly<Record<string, unknown>>

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null)

function collect(values: Values, prefix: 'pv{n}' | 'mppt{n}') {
  const rows = new Map<
    number,
    { voltage: number | null; current: number | null; power: number | null }
  >()
  for (const [name, raw] of Object.entries(values)) {
    const { base, n } = parseMetric(name)
    if (n === undefined || !base.startsWith(`${prefix}_`)) continue
    const field = base.slice(prefix.length + 1)
    if (field !== 'voltage' && field !== 'current' && field !== 'power') continue
    const row = rows.get(n) ?? { voltage: null, current: null, power: null }
    row[field] = num(raw)
    rows.set(n, row)
  }
  return [...rows.entries()]
    .sort(([a], [b]) => a - b)
    .map(([n, r]) => ({
      n,
      ...r,
      power: r.power ?? (r.voltage !== null && r.current !== null ? r.voltage * r.current : null),
    }))
}

/** Builds the view from an inverter's newest values (metric name → value). */
export function stringView(values: Values, options: StringOptions = {}): StringView {
  const minCurrent = options.minCurrent ?? 0.1
  const weakBelow = options.weakBelow ?? 20
  const raw = collect(values, 'pv{n}')
  const producing = raw
    .map((r) => r.current)
    .filter((c): c is number => c !== null && c >= minCurrent)
  const mean = producing.length > 0 ? producing.reduce((a, b) => a + b, 0) / producing.length : null
  let dispersion: number | null = null
  if (mean !== null && producing.length >= 2 && mean > 0) {
    const variance = producing.reduce((a, c) => a + (c - mean) ** 2, 0) / producing.length
    dispersion = (Math.sqrt(variance) / mean) * 100
  }
  const strings = raw.map((r) => {
    const judged = mean !== null && mean > 0 && producing.length >= 2 && r.current !== null
    const deviation = judged ? (((r.current as number) - mean) / mean) * 100 : null
    return { ...r, deviation, weak: deviation !== null && deviation <= -weakBelow }
  })
  return { strings, mppts: collect(values, 'mppt{n}'), meanCurrent: mean, dispersion }
}
