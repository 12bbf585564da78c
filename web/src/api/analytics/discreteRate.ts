/**
 * String-current dispersion rate (离散率, contract `alarms.md` "Analytics", server
 * `cloud/src/analytics`): per inverter with at least 6 strings, σ/μ of the module-count-normalised
 * string currents over the station-local 10:00–14:00 instants with enough light, graded by the
 * tenant's bounds; each string's deviation from the inverter mean points at the weak one.
 */
import request from '../request'
import type { Envelope } from '../types'

export const DISPERSION_LEVELS = ['excellent', 'good', 'attention', 'poor', 'none'] as const
export type DispersionLevel = (typeof DISPERSION_LEVELS)[number]

export interface DispersionSetting {
  /** Upper bound (%) of "excellent" (default 5). */
  excellentMax: number
  /** Upper bound (%) of "good" (default 10). */
  goodMax: number
  /** Upper bound (%) of "attention" (default 20); above it "poor". */
  attentionMax: number
  /** Instants with less irradiance (W/m²) are not used. */
  minIrradianceWm2: number
  /** Instants with less inverter power (ratio of its capacity) are not used. */
  minPowerRatio: number
  /** Tolerate shading (dispersion figure as the median rather than the mean over instants). */
  shadingTolerant: boolean
  /** Consecutive "poor" days before a smart warning is raised. */
  poorDays: number
}

export const DEFAULT_DISPERSION_SETTING: DispersionSetting = {
  excellentMax: 5,
  goodMax: 10,
  attentionMax: 20,
  minIrradianceWm2: 200,
  minPowerRatio: 0.1,
  shadingTolerant: false,
  poorDays: 3,
}

export interface StringFigure {
  /** 1-based string (PV input) number. */
  index: number
  modules: number | null
  currentA: number | null
  normalisedA: number | null
  deviationPct: number | null
}

export interface DispersionRecord {
  inverterId: string
  inverterName: string
  stationId: string
  stationName: string
  stringCount: number
  /** % or null (no usable instant). */
  rate: number | null
  level: DispersionLevel
  /** Instants the figure is made of. */
  instants: number
  strings: StringFigure[]
}

export interface DispersionList {
  date: string
  /** The station's clock, `+13:00` (empty when the hub did not say). */
  utcOffset: string
  setting: DispersionSetting
  records: DispersionRecord[]
}

/** Text of an id or name (ids come as JSON strings, some as numbers). */
const text = (v: unknown): string =>
  typeof v === 'string' || typeof v === 'number' ? String(v) : ''

const num = (v: unknown): number | null => {
  if (v === null || v === undefined || v === '') return null
  const n = Number(v)
  return Number.isFinite(n) ? n : null
}

const levelOf = (v: unknown): DispersionLevel =>
  (DISPERSION_LEVELS as readonly unknown[]).includes(v) ? (v as DispersionLevel) : 'none'

/** A wire setting (numbers possibly as text, missing fields) → a full setting. */
export function toSetting(
  raw: Partial<Record<keyof DispersionSetting, unknown>> | null | undefined,
) {
  const d = DEFAULT_DISPERSION_SETTING
  const r = raw ?? {}
  const shading = r.shadingTolerant
  return {
    excellentMax: num(r.excellentMax) ?? d.excellentMax,
    goodMax: num(r.goodMax) ?? d.goodMax,
    attentionMax: num(r.attentionMax) ?? d.attentionMax,
    minIrradianceWm2: num(r.minIrradianceWm2) ?? d.minIrradianceWm2,
    minPowerRatio: num(r.minPowerRatio) ?? d.minPowerRatio,
    shadingTolerant:
      shading === undefined || shading === null
        ? d.shadingTolerant
        : shading === true || shading === 1 || shading === '1' || shading === 'true',
    poorDays: num(r.poorDays) ?? d.poorDays,
  } satisfies DispersionSetting
}

/** A wire record → a typed one (ids as text, numbers checked, strings in index order). */
export function toRecord(raw: Record<string, unknown>): DispersionRecord {
  const strings = Array.isArray(raw.strings) ? (raw.strings as Record<string, unknown>[]) : []
  return {
    inverterId: text(raw.inverterId),
    inverterName: text(raw.inverterName),
    stationId: text(raw.stationId),
    stationName: text(raw.stationName),
    stringCount: num(raw.stringCount) ?? strings.length,
    rate: num(raw.rate),
    level: levelOf(raw.level),
    instants: num(raw.instants) ?? 0,
    strings: strings
      .map((s, i) => ({
        index: num(s.index) ?? i + 1,
        modules: num(s.modules),
        currentA: num(s.currentA),
        normalisedA: num(s.normalisedA),
        deviationPct: num(s.deviationPct),
      }))
      .sort((a, b) => a.index - b.index),
  }
}

/** `GET /api/discreteRate/list?stationId&date` (date `YYYY-MM-DD`, station-local; default today). */
export async function dispersionList(stationId: string, date?: string): Promise<DispersionList> {
  const res = await request.get<Envelope<Record<string, unknown> | null>>('/discreteRate/list', {
    params: date ? { stationId, date } : { stationId },
  })
  const data = res.data.data ?? {}
  const records = Array.isArray(data.records) ? (data.records as Record<string, unknown>[]) : []
  return {
    date: typeof data.date === 'string' ? data.date : (date ?? ''),
    utcOffset: typeof data.utcOffset === 'string' ? data.utcOffset : '',
    setting: toSetting(data.setting as Record<string, unknown> | null | undefined),
    records: records.map(toRecord),
  }
}

/** `GET /api/discreteRate/setting`. */
export async function getDispersionSetting(): Promise<DispersionSetting> {
  const res = await request.get<Envelope<Record<string, unknown> | null>>('/discreteRate/setting')
  return toSetting(res.data.data)
}

/** `POST /api/discreteRate/updateSetting` (button `discreteRate_setting`; the server checks again). */
export async function updateDispersionSetting(setting: DispersionSetting): Promise<void> {
  await request.post<Envelope<unknown>>('/discreteRate/updateSetting', setting)
}
