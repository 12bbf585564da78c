/**
 * Reading the server's realtime answers defensively: numbers may come as strings, units are named
 * in the field (`powerKw`, `todayKwh`, `capacityKwp`), ids are strings, times epoch ms or
 * `yyyy-MM-dd HH:mm:ss`. Everything here is pure (tested in wire.test.ts).
 */
import { deriveStatus, parseStatus, type RunStatus } from '../../components/realtime/status'
import type { ClockShift } from './types'

export type Raw = Readonly<Record<string, unknown>>

export const asRaw = (value: unknown): Raw =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Raw) : {}

export const asList = (value: unknown): Raw[] => (Array.isArray(value) ? value.map(asRaw) : [])

/** A finite number (numeric strings too), else null. */
export function num(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value)
    return Number.isFinite(n) ? n : null
  }
  return null
}

export const str = (value: unknown): string =>
  typeof value === 'string' ? value : typeof value === 'number' ? String(value) : ''

export const strOrNull = (value: unknown): string | null => {
  const s = str(value)
  return s === '' ? null : s
}

/** The first of `keys` present as a number. */
export function pick(raw: Raw, ...keys: string[]): number | null {
  for (const key of keys) {
    const n = num(raw[key])
    if (n !== null) return n
  }
  return null
}

/** A kilo-unit value (kW, kWh, kWp) in the base unit (W, Wh, Wp). */
export const kilo = (value: number | null): number | null => (value === null ? null : value * 1000)

/** Epoch ms from epoch ms / seconds or a local `yyyy-MM-dd HH:mm:ss` (ISO with T too). */
export function time(value: unknown): number | null {
  const n = num(value)
  if (n !== null) return n < 1e11 ? n * 1000 : n
  if (typeof value === 'string' && value.trim() !== '') {
    const t = Date.parse(value.trim().replace(' ', 'T'))
    return Number.isNaN(t) ? null : t
  }
  return null
}

export const bool = (value: unknown): boolean | null =>
  typeof value === 'boolean'
    ? value
    : value === 1 || value === '1' || value === 'true'
      ? true
      : value === 0 || value === '0' || value === 'false'
        ? false
        : null

/**
 * Installation status "1" = commissioning (switched to running by a call; `api/station/station`
 * COMMISSIONING).
 */
const COMMISSIONING = '1'

/**
 * The status of a station or device row: the server's `status` when it names one, else derived
 * from installationStatus / fault / online / power.
 */
export function statusOf(raw: Raw, powerW: number | null): RunStatus {
  const named = parseStatus(raw.status) ?? parseStatus(raw.runStatus)
  if (named) return named
  return deriveStatus({
    commissioning: str(raw.installationStatus) === COMMISSIONING,
    fault: bool(raw.fault) === true,
    online: bool(raw.online) ?? undefined,
    powerW,
  })
}

/**
 * A shifted site clock, if the row says so: `clockOffsetMs` (or `clockOffsetMinutes` /
 * `clockOffsetHours`) non-zero, or `clockShifted` true with an optional note.
 */
export function clockShiftOf(raw: Raw): ClockShift | null {
  const ms =
    num(raw.clockOffsetMs) ??
    (num(raw.clockOffsetMinutes) !== null
      ? (num(raw.clockOffsetMinutes) as number) * 60_000
      : null) ??
    (num(raw.clockOffsetHours) !== null ? (num(raw.clockOffsetHours) as number) * 3_600_000 : null)
  const note = strOrNull(raw.clockNote) ?? undefined
  if (ms !== null && ms !== 0) return { offsetMs: ms, note }
  if (bool(raw.clockShifted) === true) return { offsetMs: ms ?? 0, note }
  return null
}

/** Display units the server may send for a curve, and the factor back to the canonical unit. */
const TO_CANONICAL: Readonly<Record<string, [string, number]>> = {
  kW: ['W', 1000],
  MW: ['W', 1e6],
  kvar: ['var', 1000],
  kVA: ['VA', 1000],
  kWh: ['Wh', 1000],
  MWh: ['Wh', 1e6],
  kOhm: ['Ohm', 1000],
  MOhm: ['Ohm', 1e6],
}

/** A value in a display unit (kW) → [canonical unit, factor] (W, 1000). */
export function canonicalOf(unit: string): [string, number] {
  return TO_CANONICAL[unit] ?? [unit, 1]
}

const REMARK_SHIFT =
  /(?:clock[\s_-]*(?:offset|shift(?:ed)?)|shifted[\s_-]*clock|site[\s_-]*clock|(?:站点)?时钟(?:偏移|偏差)|站点时钟)\s*[:：=]?\s*([+-]?\d+(?:\.\d+)?)?\s*(h|hours?|小时|min|minutes?|分钟|ms)?/i

/**
 * A shifted clock announced in a station remark (the demo stations' convention, see
 * `contracts/telemetry-api-console.md`): "clock offset: +12h", "时钟偏移 -90分钟", or just the
 * words "shifted clock" / "时钟偏移" (offset unknown). The whole remark is kept as the note.
 */
export function clockShiftFromRemark(text: string | null | undefined): ClockShift | null {
  if (!text) return null
  const m = REMARK_SHIFT.exec(text)
  if (!m) return null
  const amount = m[1] !== undefined ? Number(m[1]) : 0
  const unit = (m[2] ?? 'h').toLowerCase()
  const factor = unit === 'ms' ? 1 : unit.startsWith('m') || unit === '分钟' ? 60_000 : 3_600_000
  return { offsetMs: amount * factor, note: text.trim() }
}
