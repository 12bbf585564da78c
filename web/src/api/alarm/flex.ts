/**
 * Bracket (tracker) alarms (contract `alarms.md` "Brackets", server `cloud/src/alarm/flex`):
 * the rules (`/api/alarmSettingFlex`: a tracker variable compared with a threshold, or a range, for
 * a duration) and the alarms they raised (`/api/alarmDataFlex`: the alarm record plus the variable;
 * only cleared ones can be deleted, the server refuses an open one with its message).
 */
import { entityApi, type CrudApi, type Entity } from '../crud'
import request from '../request'
import type { Envelope, PageQuery } from '../types'

export const COMPARISONS = ['>', '>=', '<', '<=', 'outside', 'inside'] as const
export type Comparison = (typeof COMPARISONS)[number]

/** A comparison with a range (`thresholdHigh` needed, above `threshold`). */
export const isRange = (c: unknown): boolean => c === 'inside' || c === 'outside'

export interface FlexVariable {
  key: string
  name: string
  unit: string | null
}

export interface AlarmSettingFlex extends Entity {
  stationId?: string | null
  stationName?: string | null
  variable?: string
  variableName?: string | null
  comparison?: Comparison
  threshold?: number | null
  thresholdHigh?: number | null
  durationSeconds?: number
  /** Dictionary `alarm_level`: 1 notice, 2 minor, 3 major, 4 critical. */
  level?: number
  /** On the wire a boolean; the form holds 1 / 0 (select values). */
  enabled?: boolean | number
  remark?: string | null
}

export interface AlarmDataFlex extends Entity {
  stationId?: string
  stationName?: string
  deviceId?: string
  deviceName?: string
  kind?: string
  category?: string
  level?: number
  code?: string | number | null
  warningName?: string
  detail?: string | null
  value?: number | null
  threshold?: number | null
  /** 0 active, 1 acknowledged, 2 cleared. */
  status?: number
  statusName?: string
  firstTime?: string
  lastTime?: string
  occurrences?: number
  ackUserName?: string | null
  ackTime?: string | null
  ackNote?: string | null
  clearUserName?: string | null
  clearTime?: string | null
  clearNote?: string | null
  variable?: string
  variableName?: string
  comparison?: string
}

export const CLEARED = 2

const numOrNull = (v: unknown): number | null => {
  if (v === null || v === undefined || v === '') return null
  const n = Number(v)
  return Number.isFinite(n) ? n : null
}

const truthy = (v: unknown): boolean => v === true || v === 1 || v === '1' || v === 'true'

/** A wire rule → what the form edits (ids as text, enabled as 1/0, numbers as numbers). */
export function settingFromWire(row: AlarmSettingFlex): AlarmSettingFlex {
  return {
    ...row,
    id: row.id === undefined ? undefined : String(row.id),
    stationId:
      row.stationId === undefined || row.stationId === null ? row.stationId : String(row.stationId),
    threshold: numOrNull(row.threshold),
    thresholdHigh: numOrNull(row.thresholdHigh),
    durationSeconds: numOrNull(row.durationSeconds) ?? 0,
    level: numOrNull(row.level) ?? undefined,
    enabled: truthy(row.enabled) ? 1 : 0,
  }
}

/**
 * A form body → the wire body: enabled as a boolean, a single-threshold comparison without
 * `thresholdHigh` (null), numbers as numbers.
 */
export function settingToWire(body: AlarmSettingFlex): AlarmSettingFlex {
  const range = isRange(body.comparison)
  return {
    ...body,
    threshold: numOrNull(body.threshold),
    thresholdHigh: range ? numOrNull(body.thresholdHigh) : null,
    durationSeconds: numOrNull(body.durationSeconds) ?? 0,
    level: numOrNull(body.level) ?? undefined,
    enabled: truthy(body.enabled),
  }
}

const settingBase = '/alarmSettingFlex'

export const alarmSettingFlexApi: CrudApi<AlarmSettingFlex> = entityApi<AlarmSettingFlex>({
  style: 'rest',
  base: settingBase,
  detail: true,
  listRow: settingFromWire,
  fromWire: settingFromWire,
  toWire: settingToWire,
  // One id per call (the contract's `DELETE /{id}`); the first refusal stops and is shown.
  removeEach: true,
})

/** `GET /api/alarmSettingFlex/listVariable`: the tracker metrics a rule may watch. */
export async function listFlexVariables(): Promise<FlexVariable[]> {
  const res = await request.get<Envelope<FlexVariable[] | null>>(`${settingBase}/listVariable`)
  return (res.data.data ?? []).map((v) => ({
    key: String(v.key),
    name: String(v.name ?? v.key),
    unit: v.unit ?? null,
  }))
}

/**
 * The list query of bracket alarms: the console's generic date-range filter
 * on `time` (`time_datege` / `time_datelt`) becomes the contract's `startTime` / `endTime`.
 */
export function alarmDataFlexQuery(query: PageQuery): PageQuery {
  const out: PageQuery = {}
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === '') continue
    if (key === 'time_datege') out.startTime = value
    else if (key === 'time_datelt') out.endTime = value
    else out[key] = value
  }
  return out
}

const dataBase = '/alarmDataFlex'

const idAsText = (row: AlarmDataFlex): AlarmDataFlex => ({ ...row, id: String(row.id) })

const alarmDataFlexRest = entityApi<AlarmDataFlex>({
  style: 'rest',
  base: dataBase,
  detail: true,
  listRow: idAsText,
  fromWire: idAsText,
  // One id per call; an open alarm is refused with the server's message ("请先清除告警"),
  // which the request client shows, and stops the rest.
  removeEach: true,
})

export const alarmDataFlexApi: CrudApi<AlarmDataFlex> = {
  ...alarmDataFlexRest,
  list: (query) => alarmDataFlexRest.list(alarmDataFlexQuery(query)),
  submit() {
    return Promise.reject(new Error('bracket alarms are raised by the server, not edited'))
  },
}

/** `GET /api/alarmData/listAlarmStatus` as select options (status key as a number). */
export async function alarmStatusOptions(): Promise<{ value: number; label: string }[]> {
  const res = await request.get<Envelope<{ dictKey: string; dictValue: string }[] | null>>(
    '/alarmData/listAlarmStatus',
  )
  return (res.data.data ?? []).map((e) => ({ value: Number(e.dictKey), label: e.dictValue }))
}
