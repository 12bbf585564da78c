/**
 * Alarms and smart warnings (contract `contracts/alarms.md` "Alarms"; the alarm data and smart
 * warning screens). Station faults (type 1) are `alarmData`, every other type `warnData`;
 * both answer the same record. Acknowledging and clearing go through `PUT /alarmData`
 * (button permission `alarmData_handle`). The tenant's alarm rules are `GET/PUT /alarmRule`.
 */
import request from '../request'
import { pageFrom, type Envelope, type Page, type PageQuery } from '../types'

/** `status` of an alarm. */
export const ACTIVE = 0
export const ACKNOWLEDGED = 1
export const CLEARED = 2

export type AlarmCategory = 'fault' | 'comm' | 'threshold' | 'flex' | 'dispersion' | 'hday'

/** Categories of station faults (type 1) and of smart warnings (type ≠ 1). */
export const alarmCategories: readonly AlarmCategory[] = ['fault', 'comm', 'threshold', 'flex']
export const warnCategories: readonly AlarmCategory[] = ['dispersion', 'hday']

export interface AlarmRecord {
  id: string
  stationId: string
  stationName: string
  /** 0 = the station or its gateway itself. */
  deviceId: string
  deviceKind: string
  deviceName: string
  /** The device's serial number (the gateway's for a gateway alarm; empty when unknown). */
  deviceSn?: string
  /** = deviceName (the bell's field name). */
  inverter?: string
  kind: string
  /** An `AlarmCategory` (a newer server may add others). */
  category: string
  /** 1 station fault, otherwise smart warning. */
  type: number
  /** Dictionary `alarm_level`: 1 notice, 2 minor, 3 major, 4 critical. */
  level: number
  code?: string | number | null
  warningName: string
  detail?: string | null
  value?: number | null
  threshold?: number | null
  /** 0 active, 1 acknowledged, 2 cleared. */
  status: number
  statusName?: string
  /** `yyyy-MM-dd HH:mm:ss` */
  firstTime: string
  lastTime: string
  occurrences: number
  ackUserName?: string | null
  ackTime?: string | null
  ackNote?: string | null
  /** "系统" / "system" when cleared automatically. */
  clearUserName?: string | null
  clearTime?: string | null
  clearNote?: string | null
  /** The alarm's repair order, when one exists, and its status (`repair_status`). */
  repairId?: string | null
  repairStatus?: number | null
}

export interface StatusEntry {
  dictKey: string
  dictValue: string
}

export type AlarmAction = 'ack' | 'clear'

/** The tenant's alarm rules (`pv_alarm_rule`). */
export interface AlarmRule {
  temperatureMaxC: number
  gridVoltageMinV: number
  gridVoltageMaxV: number
  gridFrequencyMinHz: number
  gridFrequencyMaxHz: number
  zeroOutputIrradianceWm2: number
  deviceSilenceSeconds: number
  clearHoldSeconds: number
  raiseAfterSamples: number
}

export const alarmRuleFields: readonly (keyof AlarmRule)[] = [
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

/** Ids may come as numbers (64-bit ids as strings): the console keeps them as strings. */
export function normaliseRecord(raw: AlarmRecord): AlarmRecord {
  return {
    ...raw,
    id: String(raw.id),
    stationId: raw.stationId == null ? '' : String(raw.stationId),
    deviceId: raw.deviceId == null ? '' : String(raw.deviceId),
    type: Number(raw.type),
    level: Number(raw.level),
    status: Number(raw.status),
    occurrences: Number(raw.occurrences ?? 0),
    repairId:
      raw.repairId === null || raw.repairId === undefined || String(raw.repairId) === ''
        ? null
        : String(raw.repairId),
    repairStatus:
      raw.repairStatus === null || raw.repairStatus === undefined ? null : Number(raw.repairStatus),
  }
}

function toPage(data: Page<AlarmRecord> | null, query: PageQuery): Page<AlarmRecord> {
  return pageFrom(data, query, normaliseRecord)
}

/** Station faults (type 1), newest `lastTime` first. */
export async function alarmPage(query: PageQuery): Promise<Page<AlarmRecord>> {
  const res = await request.get<Envelope<Page<AlarmRecord> | null>>('/alarmData/page', {
    params: query,
  })
  return toPage(res.data.data, query)
}

/** Smart warnings (type ≠ 1): same filters and record. */
export async function warnPage(query: PageQuery): Promise<Page<AlarmRecord>> {
  const res = await request.get<Envelope<Page<AlarmRecord> | null>>('/warnData/page', {
    params: query,
  })
  return toPage(res.data.data, query)
}

/** One alarm (404 outside the caller's stations). */
export async function alarmDetail(id: string): Promise<AlarmRecord> {
  const res = await request.get<Envelope<AlarmRecord>>(`/alarmData/${encodeURIComponent(id)}`)
  return normaliseRecord(res.data.data)
}

/**
 * One smart warning by id. The contract names no `warnData/{id}`; its page call takes an `id`
 * filter, so the warning is the only record of that page (null when not visible).
 */
export async function warnDetail(id: string): Promise<AlarmRecord | null> {
  const page = await warnPage({ id, current: 1, size: 1 })
  return page.records.find((r) => r.id === id) ?? null
}

export async function listAlarmStatus(): Promise<StatusEntry[]> {
  const res = await request.get<Envelope<StatusEntry[] | null>>('/alarmData/listAlarmStatus')
  return res.data.data ?? []
}

/** Acknowledges (from active) or clears (from active or acknowledged) an alarm with a note. */
export async function handleAlarm(id: string, action: AlarmAction, note: string): Promise<void> {
  await request.put<Envelope<unknown>>('/alarmData', { id, action, note })
}

export async function getAlarmRule(): Promise<AlarmRule> {
  const res = await request.get<Envelope<AlarmRule>>('/alarmRule')
  return res.data.data
}

export async function putAlarmRule(rule: AlarmRule): Promise<void> {
  await request.put<Envelope<unknown>>('/alarmRule', rule)
}
