/**
 * Repair orders (contract `/work/notes/om-contract.md` "Repair"): the page, one order with its
 * timeline, the state machine's actions (each answers the order as it is now, with its timeline),
 * creation by hand or from an alarm, the deadline settings, the statistics, the maintenance staff
 * to assign and the photo upload (`put-image`: JPEG, PNG or WebP checked by content).
 */
import request, { notifyError } from '../request'
import { pageFrom, type Envelope, type Page, type PageQuery } from '../types'

/** `status` (dictionary `repair_status`). */
export const SUBMITTED = 1
export const TO_ACCEPT = 2
export const ACCEPTED = 3
export const TO_REPAIR = 4
export const REPAIRED = 5
export const TO_EVALUATE = 6
export const COMPLETED = 7
export const CANCELED = 8
export const repairStatuses = [1, 2, 3, 4, 5, 6, 7, 8] as const

/** What the caller may do now, as the order's `actions` names it. */
export type RepairAction =
  'assign' | 'accept' | 'transfer' | 'start' | 'finish' | 'verify' | 'evaluate' | 'cancel'
export const repairActions: readonly RepairAction[] = [
  'assign',
  'accept',
  'transfer',
  'start',
  'finish',
  'verify',
  'evaluate',
  'cancel',
]

/** `source`: 1 by hand, 2 from an alarm, 3 from an inspection. */
export type RepairSource = '1' | '2' | '3'

export interface RepairLog {
  action: string
  fromStatus: number | null
  toStatus: number | null
  userId: string
  userName: string
  note: string
  /** `yyyy-MM-dd HH:mm:ss` */
  createTime: string
}

export interface RepairOrder {
  id: string
  code: string
  title: string
  description: string
  stationId: string
  stationName: string
  deviceId: string | null
  deviceName: string
  alarmId: string | null
  alarmName: string
  alarmLevel: number | null
  inspectRecordId: string | null
  source: string
  sourceName: string
  /** alarm_level: 1 notice … 4 critical. */
  level: number
  levelName: string
  status: number
  statusName: string
  assigneeId: string | null
  assigneeName: string
  creatorId: string
  creatorName: string
  photos: string[]
  workDone: string
  parts: string
  finishPhotos: string[]
  rating: number | null
  evaluation: string
  responseDeadline: string
  repairDeadline: string
  responseOverdue: boolean
  repairOverdue: boolean
  createTime: string
  acceptTime: string
  finishTime: string
  completeTime: string
  /** Dispatch approval (workflow): 0 not needed, 1 pending, 2 approved, 3 rejected. */
  approval: number
  approvalInstance: string | null
  approvalComment: string
  actions: RepairAction[]
  /** Detail only. */
  logs: RepairLog[]
}

type Wire = Record<string, unknown>

/** A scalar as text ('' for anything else: null, undefined, objects). */
const str = (v: unknown): string =>
  typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : ''
const idOrNull = (v: unknown): string | null => {
  const text = str(v)
  return text === '' || text === '0' ? null : text
}
const numOrNull = (v: unknown): number | null =>
  v === null || v === undefined || v === '' || Number.isNaN(Number(v)) ? null : Number(v)
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(str).filter(Boolean) : [])
const flag = (v: unknown): boolean => v === true || v === 1 || v === '1' || v === 'true'

export function toLog(raw: Wire): RepairLog {
  return {
    action: str(raw.action),
    fromStatus: numOrNull(raw.fromStatus),
    toStatus: numOrNull(raw.toStatus),
    userId: str(raw.userId),
    userName: str(raw.userName),
    note: str(raw.note),
    createTime: str(raw.createTime),
  }
}

/** A wire order made safe: ids as strings, numbers as numbers, lists as lists, unknown actions dropped. */
export function toOrder(raw: Wire): RepairOrder {
  const actions = Array.isArray(raw.actions) ? raw.actions.map(str) : []
  return {
    id: str(raw.id),
    code: str(raw.code),
    title: str(raw.title),
    description: str(raw.description),
    stationId: str(raw.stationId),
    stationName: str(raw.stationName),
    deviceId: idOrNull(raw.deviceId),
    deviceName: str(raw.deviceName),
    alarmId: idOrNull(raw.alarmId),
    alarmName: str(raw.alarmName),
    alarmLevel: numOrNull(raw.alarmLevel),
    inspectRecordId: idOrNull(raw.inspectRecordId),
    source: str(raw.source),
    sourceName: str(raw.sourceName),
    level: Number(raw.level ?? 0),
    levelName: str(raw.levelName),
    status: Number(raw.status ?? 0),
    statusName: str(raw.statusName),
    assigneeId: idOrNull(raw.assigneeId),
    approval: Number(raw.approval ?? 0),
    approvalInstance: idOrNull(raw.approvalInstance),
    approvalComment: str(raw.approvalComment),
    assigneeName: str(raw.assigneeName),
    creatorId: str(raw.creatorId),
    creatorName: str(raw.creatorName),
    photos: strings(raw.photos),
    workDone: str(raw.workDone),
    parts: str(raw.parts),
    finishPhotos: strings(raw.finishPhotos),
    rating: numOrNull(raw.rating),
    evaluation: str(raw.evaluation),
    responseDeadline: str(raw.responseDeadline),
    repairDeadline: str(raw.repairDeadline),
    responseOverdue: flag(raw.responseOverdue),
    repairOverdue: flag(raw.repairOverdue),
    createTime: str(raw.createTime),
    acceptTime: str(raw.acceptTime),
    finishTime: str(raw.finishTime),
    completeTime: str(raw.completeTime),
    actions: actions.filter((a): a is RepairAction => repairActions.includes(a as RepairAction)),
    logs: Array.isArray(raw.logs) ? (raw.logs as Wire[]).map(toLog) : [],
  }
}

export interface RepairQuery extends PageQuery {
  stationId?: string
  status?: string
  level?: string
  source?: string
  keyword?: string
  mine?: boolean
  overdue?: boolean
}

export async function repairPage(query: RepairQuery): Promise<Page<RepairOrder>> {
  const res = await request.get<Envelope<Page<Wire> | null>>('/repair/page', { params: query })
  return pageFrom(res.data.data, query, toOrder)
}

export async function repairDetail(id: string): Promise<RepairOrder> {
  const res = await request.get<Envelope<Wire>>(`/repair/${encodeURIComponent(id)}`)
  return toOrder(res.data.data)
}

export interface NewRepair {
  title?: string
  description?: string
  stationId?: string
  deviceId?: string
  alarmId?: string
  inspectRecordId?: string
  inspectResultIndex?: number
  level?: number
  photos?: string[]
  assigneeId?: string
}

export async function createRepair(order: NewRepair): Promise<RepairOrder> {
  const res = await request.post<Envelope<Wire>>('/repair', order)
  return toOrder(res.data.data)
}

/**
 * An order for an alarm, in one click. One open order per alarm: when the alarm already has one
 * the hub refuses (400 `该告警已有工单`) naming that order's id in `data`; that order is the answer.
 */
export async function createRepairFromAlarm(alarmId: string): Promise<{ id: string }> {
  try {
    const res = await request.post<Envelope<Wire>>('/repair', { alarmId }, { silent: true })
    return { id: str(res.data.data.id) }
  } catch (error) {
    const existing = existingOrderId(error)
    if (existing) return { id: existing }
    if (error instanceof Error) notifyError(error.message)
    throw error
  }
}

/** The existing order's id a "this alarm already has an order" refusal carries, if any. */
export function existingOrderId(error: unknown): string | null {
  const response = (error as { response?: { data?: unknown } } | null)?.response
  const body = response?.data as { data?: unknown } | undefined
  const data = body?.data
  if (data === null || data === undefined || data === '') return null
  if (typeof data === 'object') return idOrNull((data as Wire).id)
  return idOrNull(data)
}

export interface ActionBody {
  assign: { id: string; assigneeId: string; note?: string }
  accept: { id: string; note?: string }
  transfer: { id: string; assigneeId: string; reason: string }
  start: { id: string; note?: string }
  finish: { id: string; workDone: string; parts?: string; photos?: string[] }
  verify: { id: string; note?: string }
  evaluate: { id: string; rating: number; comment?: string }
  cancel: { id: string; reason: string }
}

/** One step of the state machine; answers the order as it is now, with its timeline. */
export async function repairAct<A extends RepairAction>(
  action: A,
  body: ActionBody[A],
): Promise<RepairOrder> {
  const res = await request.post<Envelope<Wire>>(`/repair/${action}`, body)
  return toOrder(res.data.data)
}

export interface StatusEntry {
  dictKey: string
  dictValue: string
}

export async function repairStatusList(): Promise<StatusEntry[]> {
  const res = await request.get<Envelope<StatusEntry[] | null>>('/repair/statusList')
  return (res.data.data ?? []).map((e) => ({ dictKey: str(e.dictKey), dictValue: e.dictValue }))
}

export interface StationRepairStats {
  stationId: string
  stationName: string
  open: number
  overdue: number
  mttrHours: number | null
}

export interface RepairStats {
  open: number
  overdue: number
  completed30d: number
  mttrHours: number | null
  stations: StationRepairStats[]
}

export function toStats(raw: Wire | null | undefined): RepairStats {
  const r = raw ?? {}
  return {
    open: Number(r.open ?? 0),
    overdue: Number(r.overdue ?? 0),
    completed30d: Number(r.completed30d ?? 0),
    mttrHours: numOrNull(r.mttrHours),
    stations: Array.isArray(r.stations)
      ? (r.stations as Wire[]).map((s) => ({
          stationId: str(s.stationId),
          stationName: str(s.stationName),
          open: Number(s.open ?? 0),
          overdue: Number(s.overdue ?? 0),
          mttrHours: numOrNull(s.mttrHours),
        }))
      : [],
  }
}

export async function repairStats(stationId?: string): Promise<RepairStats> {
  const res = await request.get<Envelope<Wire | null>>('/repair/stats', {
    params: stationId ? { stationId } : {},
  })
  return toStats(res.data.data)
}

/** Hours per alarm level ("1".."4"). */
export type LevelHours = Record<'1' | '2' | '3' | '4', number>

export interface RepairSetting {
  responseHours: LevelHours
  repairHours: LevelHours
}

export async function getRepairSetting(): Promise<RepairSetting> {
  const res = await request.get<Envelope<RepairSetting>>('/repair/setting')
  return res.data.data
}

export async function putRepairSetting(setting: RepairSetting): Promise<void> {
  await request.put<Envelope<unknown>>('/repair/setting', setting)
}

export interface MaintenanceUser {
  id: string
  account: string
  realName: string
  phone?: string
}

/** The tenant's maintenance staff (a list, or a page of them). */
export async function maintenanceUsers(): Promise<MaintenanceUser[]> {
  const res = await request.get<Envelope<Wire[] | Page<Wire> | null>>('/blade-user/listMaintenance')
  const data = res.data.data
  const rows = Array.isArray(data) ? data : (data?.records ?? [])
  return rows.map((u) => ({
    id: str(u.id),
    account: str(u.account),
    realName: str(u.realName ?? u.name),
    phone: u.phone === undefined ? undefined : str(u.phone),
  }))
}

export interface UploadedImage {
  link: string
  name: string
  originalName: string
  attachId: string
}

/** Uploads a photo (JPEG, PNG or WebP by content, ≤ 10 MiB). */
export async function putImage(file: Blob, filename?: string): Promise<UploadedImage> {
  const body = new FormData()
  body.append('file', file, filename)
  const res = await request.post<Envelope<UploadedImage>>(
    '/blade-resource/oss/endpoint/put-image',
    body,
    { upload: true },
  )
  return res.data.data
}
