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
  /**
   * The MPP tracker whose voltage stands in for the string's own when the inverter reports only
   * string currents (Sungrow SG-CX): strings in parallel on one tracker share its voltage. The
   * power is then V × I of that voltage. Null when the string reported its own voltage.
   */
  voltageFromMppt: number | null
  /** Voltage or current outside what a PV string can physically show: a decoding or sensor fault. */
  implausible: boolean
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

/**
 * What a PV string can physically show: at most 1500 V DC (the highest system voltage class) and
 * no more current than a module's short-circuit rating allows, with room for cold and bright days.
 * A value outside is shown marked, never as a good reading.
 */
export const STRING_VOLTAGE_RANGE: readonly [number, number] = [-5, 1500]
export const STRING_CURRENT_RANGE: readonly [number, number] = [-1, 40]

const outside = (v: number | null, [lo, hi]: readonly [number, number]) =>
  v !== null && (v < lo || v > hi)

/**
 * The tracker of string `n` among `strings` strings spread evenly over `trackers` MPP trackers in
 * input order (4 strings on 3 trackers: 1–2 → 1, 3 → 2, 4 → 3), the usual wiring of string inverters.
 */
export function trackerOf(n: number, strings: number, trackers: number): number {
  if (strings <= 0 || trackers <= 0) return 1
  return Math.min(trackers, Math.max(1, Math.ceil((n * trackers) / strings)))
}

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
  const mppts = collect(values, 'mppt{n}')
  const trackerVoltage = new Map(mppts.map((m) => [m.n, m.voltage]))
  const trackers = Math.max(0, ...mppts.filter((m) => m.voltage !== null).map((m) => m.n))
  const inputs = collect(values, 'pv{n}')
  const highest = Math.max(0, ...inputs.map((r) => r.n))
  const raw = inputs.map((r) => {
    if (r.voltage !== null || trackers === 0) return { ...r, voltageFromMppt: null }
    const tracker = trackerOf(r.n, highest, trackers)
    const voltage = trackerVoltage.get(tracker) ?? null
    if (voltage === null) return { ...r, voltageFromMppt: null }
    const power = r.power ?? (r.current !== null ? voltage * r.current : null)
    return { ...r, voltage, power, voltageFromMppt: tracker }
  })
  const producing = raw
    .map((r) => r.current)
    // An implausible current would skew the mean every other string is judged against.
    .filter((c): c is number => c !== null && c >= minCurrent && !outside(c, STRING_CURRENT_RANGE))
  const mean = producing.length > 0 ? producing.reduce((a, b) => a + b, 0) / producing.length : null
  let dispersion: number | null = null
  if (mean !== null && producing.length >= 2 && mean > 0) {
    const variance = producing.reduce((a, c) => a + (c - mean) ** 2, 0) / producing.length
    dispersion = (Math.sqrt(variance) / mean) * 100
  }
  const strings = raw.map((r) => {
    const judged = mean !== null && mean > 0 && producing.length >= 2 && r.current !== null
    const deviation = judged ? (((r.current as number) - mean) / mean) * 100 : null
    const implausible =
      outside(r.voltage, STRING_VOLTAGE_RANGE) || outside(r.current, STRING_CURRENT_RANGE)
    return { ...r, deviation, weak: deviation !== null && deviation <= -weakBelow, implausible }
  })
  return { strings, mppts, meanCurrent: mean, dispersion }
}
