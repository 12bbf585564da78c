/**
 * The alarm screens' logic, free of React: the list query, tag colours, value formatting, which
 * actions a row allows, the `?id=` a bell click opens, note and rule validation, and when the live
 * feed asks for a reload.
 */
import type { Dayjs } from 'dayjs'
import {
  ACKNOWLEDGED,
  ACTIVE,
  CLEARED,
  type AlarmAction,
  type AlarmRecord,
  type AlarmRule,
} from '../../../api/alarm/alarm'
import type { PageQuery } from '../../../api/types'
import { wireDateTime } from '../../../components/crud/logic'
import type { Alarm } from '../../../stores/alarm'

/** What the filter bar holds. */
export interface AlarmFilters {
  stationId?: string
  keyword?: string
  status?: string | number
  level?: string | number
  category?: string
  range?: readonly [Dayjs | null | undefined, Dayjs | null | undefined] | null
}

/** A filter value as sent: trimmed text of a string or number; null when blank. */
function filterText(v: unknown): string | null {
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : null
  if (typeof v === 'string') return v.trim() === '' ? null : v.trim()
  return null
}

/**
 * The page call's params: paging, then only the filters that are set (text trimmed; the time
 * range becomes `startTime`/`endTime` as `yyyy-MM-dd HH:mm:ss`).
 */
export function buildAlarmQuery(filters: AlarmFilters, current: number, size: number): PageQuery {
  const query: PageQuery = { current, size }
  for (const name of ['stationId', 'keyword', 'status', 'level', 'category'] as const) {
    const value = filterText(filters[name])
    if (value !== null) query[name] = value
  }
  const [start, end] = filters.range ?? []
  if (start) query.startTime = start.format(wireDateTime)
  if (end) query.endTime = end.format(wireDateTime)
  return query
}

/** Tag colour of a level (dictionary `alarm_level`): notice blue … critical red. */
export function levelColor(level: number | string): string {
  switch (Number(level)) {
    case 1:
      return 'blue'
    case 2:
      return 'gold'
    case 3:
      return 'orange'
    case 4:
      return 'red'
    default:
      return 'default'
  }
}

/** Tag colour of a status: active red, acknowledged orange, cleared green. */
export function statusColor(status: number | string): string {
  switch (Number(status)) {
    case ACTIVE:
      return 'red'
    case ACKNOWLEDGED:
      return 'orange'
    case CLEARED:
      return 'green'
    default:
      return 'default'
  }
}

/** A measured value or threshold: at most 3 decimals, no trailing zeros; "-" when absent. */
export function formatMeasure(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(Number(value))) return '-'
  return String(Number(Number(value).toFixed(3)))
}

/** "value / threshold", or just the one that exists, or "-". */
export function valueVsThreshold(record: Pick<AlarmRecord, 'value' | 'threshold'>): string {
  const hasValue = record.value !== null && record.value !== undefined
  const hasThreshold = record.threshold !== null && record.threshold !== undefined
  if (hasValue && hasThreshold)
    return `${formatMeasure(record.value)} / ${formatMeasure(record.threshold)}`
  if (hasValue) return formatMeasure(record.value)
  if (hasThreshold) return `- / ${formatMeasure(record.threshold)}`
  return '-'
}

/** What may be done with an alarm: ack only while active; clear while active or acknowledged. */
export function allowedActions(status: number | string): AlarmAction[] {
  const s = Number(status)
  if (s === ACTIVE) return ['ack', 'clear']
  if (s === ACKNOWLEDGED) return ['clear']
  return []
}

/** The alarm id a bell click opens (`?id=`): a non-blank value, else null. */
export function idFromSearch(search: URLSearchParams | string): string | null {
  const params = typeof search === 'string' ? new URLSearchParams(search) : search
  const id = params.get('id')?.trim() ?? ''
  return id === '' ? null : id
}

/** The search without `id` (closing the detail leaves a URL a later bell click changes again). */
export function withoutId(search: URLSearchParams | string): URLSearchParams {
  const params = new URLSearchParams(search)
  params.delete('id')
  return params
}

/** The server's limit of a handling note. */
export const NOTE_MAX = 500

/** A note is optional; at most 500 characters (counted as the server does: code points). */
export const noteTooLong = (note: string | undefined): boolean =>
  [...(note ?? '')].length > NOTE_MAX

export type RuleProblem = 'required' | 'minBelowMax' | 'positive' | 'integer' | 'nonNegative'

export interface RuleError {
  field: keyof AlarmRule
  problem: RuleProblem
}

const durations = ['deviceSilenceSeconds', 'clearHoldSeconds'] as const
const ranges = [
  ['gridVoltageMinV', 'gridVoltageMaxV'],
  ['gridFrequencyMinHz', 'gridFrequencyMaxHz'],
] as const

/**
 * Client-side check of the rules, mirroring the server: every field a number; each minimum below
 * its maximum (reported on the minimum); positive durations; a positive whole number of samples;
 * an irradiance that is not negative. [] when valid.
 */
export function validateRule(rule: Partial<Record<keyof AlarmRule, unknown>>): RuleError[] {
  const errors: RuleError[] = []
  const num = (field: keyof AlarmRule): number | null => {
    const v = rule[field]
    if (v === null || v === undefined || v === '') return null
    const n = Number(v)
    return Number.isFinite(n) ? n : null
  }
  const fields: (keyof AlarmRule)[] = [
    'temperatureMaxC',
    'gridVoltageMinV',
    'gridVoltageMaxV',
    'gridFrequencyMinHz',
    'gridFrequencyMaxHz',
    'zeroOutputIrradianceWm2',
    'deviceSilenceSeconds',
    'clearHoldSeconds',
    'raiseAfterSamples',
  ]
  for (const field of fields) {
    if (num(field) === null) errors.push({ field, problem: 'required' })
  }
  const failed = (field: keyof AlarmRule) => errors.some((e) => e.field === field)
  for (const [min, max] of ranges) {
    const lo = num(min)
    const hi = num(max)
    if (lo !== null && hi !== null && !(lo < hi))
      errors.push({ field: min, problem: 'minBelowMax' })
  }
  for (const field of durations) {
    const v = num(field)
    if (!failed(field) && v !== null && !(v > 0)) errors.push({ field, problem: 'positive' })
  }
  const samples = num('raiseAfterSamples')
  if (samples !== null) {
    if (!(samples > 0)) errors.push({ field: 'raiseAfterSamples', problem: 'positive' })
    else if (!Number.isInteger(samples))
      errors.push({ field: 'raiseAfterSamples', problem: 'integer' })
  }
  const irradiance = num('zeroOutputIrradianceWm2')
  if (irradiance !== null && irradiance < 0)
    errors.push({ field: 'zeroOutputIrradianceWm2', problem: 'nonNegative' })
  return errors
}

/**
 * What of the live feed matters to a list of alarms: the count and the ids in order. A reload is
 * due when it changes (a raised, acknowledged or cleared alarm), not on every message.
 */
export const feedSignature = (count: number, list: readonly Pick<Alarm, 'id'>[]): string =>
  `${count}|${list.map((a) => a.id).join(',')}`

/**
 * Where a smart warning leads: a dispersion warning to its station's dispersion analysis, a
 * full-load-hours warning to the deviation page; other warnings nowhere.
 */
export function warningLink(
  record: Pick<AlarmRecord, 'category' | 'kind' | 'stationId'>,
): { to: string; label: 'alarmUi.action.openDispersion' | 'alarmUi.action.openHday' } | null {
  const category = record.category || (record.kind ?? '').replace(/^warn:/, '')
  if (category === 'dispersion') {
    const query = record.stationId ? `?stationId=${encodeURIComponent(record.stationId)}` : ''
    return {
      to: `/intelligentOperation/discreteRate${query}`,
      label: 'alarmUi.action.openDispersion',
    }
  }
  if (category === 'hday') {
    return { to: '/intelligentOperation/hdayRate', label: 'alarmUi.action.openHday' }
  }
  return null
}
