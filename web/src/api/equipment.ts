/**
 * 设备总览 (`cloud/src/equipment`, docs/equipment.md): every device of the caller's stations with
 * its status and last-day communication quality, a page, the counts by kind and status under the
 * same filters, and the workbook of the same rows.
 */
import { queryOptions } from '@tanstack/react-query'
import request from './request'
import { download, type Download } from './station/excel'
import { pageFrom, type Envelope, type Page } from './types'

export const equipmentKinds = ['inverter', 'meter', 'weather', 'tracker', 'camera'] as const
export type EquipmentKind = (typeof equipmentKinds)[number]
export const equipmentSources = ['gateway', 'vendor'] as const
export type EquipmentSource = (typeof equipmentSources)[number]
export const equipmentStatuses = [
  'online',
  'offline',
  'fault',
  'withheld',
  'never',
  'unknown',
] as const
export type EquipmentStatus = (typeof equipmentStatuses)[number]
export const equipmentSorts = [
  'station',
  'kind',
  'name',
  'sn',
  'model',
  'source',
  'status',
  'lastSample',
  'missedPolls',
  'suspectValues',
  'counterRebases',
] as const
export type EquipmentSort = (typeof equipmentSorts)[number]

export interface Equipment {
  id: string
  name: string
  stationId: string
  stationName: string
  kind: EquipmentKind
  model: string
  sn: string
  firmware: string
  source: EquipmentSource
  status: EquipmentStatus
  /** `yyyy-MM-dd HH:mm:ss`; null when it never reported. */
  lastSample: string | null
  /** Failed polls its gateway's statuses reported over the window; null when no gateway reports it. */
  missedPolls: number | null
  /** Samples with suspect marks since the start of the hour 24 h ago. */
  suspectValues: number
  /** Counter rebases over the same window. */
  counterRebases: number
  gatewayId: string
}

export interface KindSummary {
  kind: EquipmentKind | 'all'
  total: number
  online: number
  offline: number
  fault: number
  withheld: number
  never: number
  unknown: number
}

export interface EquipmentSummary {
  kinds: KindSummary[]
  all: KindSummary
}

export interface EquipmentFilters {
  stationId?: string
  kind?: EquipmentKind
  source?: EquipmentSource
  status?: EquipmentStatus
  keyword?: string
}

export interface EquipmentQuery extends EquipmentFilters {
  current?: number
  size?: number
  sort?: EquipmentSort
  order?: 'asc' | 'desc'
}

type Wire = Record<string, unknown>

const str = (v: unknown): string =>
  typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : ''
const num = (v: unknown): number => (Number.isFinite(Number(v)) ? Number(v) : 0)
const oneOf = <T extends string>(all: readonly T[], v: unknown, fallback: T): T =>
  (all as readonly string[]).includes(str(v)) ? (str(v) as T) : fallback

/** A wire row made safe: ids as strings, counts as numbers, unknown codes mapped to a known one. */
export function toEquipment(raw: Wire): Equipment {
  return {
    id: str(raw.id),
    name: str(raw.name),
    stationId: str(raw.stationId),
    stationName: str(raw.stationName),
    kind: oneOf(equipmentKinds, raw.kind, 'inverter'),
    model: str(raw.model),
    sn: str(raw.sn),
    firmware: str(raw.firmware),
    source: oneOf(equipmentSources, raw.source, 'gateway'),
    status: oneOf(equipmentStatuses, raw.status, 'unknown'),
    lastSample:
      raw.lastSample === null || raw.lastSample === undefined ? null : str(raw.lastSample),
    missedPolls:
      raw.missedPolls === null || raw.missedPolls === undefined ? null : num(raw.missedPolls),
    suspectValues: num(raw.suspectValues),
    counterRebases: num(raw.counterRebases),
    gatewayId: str(raw.gatewayId),
  }
}

function toKindSummary(raw: Wire | undefined, kind: KindSummary['kind']): KindSummary {
  const r = raw ?? {}
  return {
    kind,
    total: num(r.total),
    online: num(r.online),
    offline: num(r.offline),
    fault: num(r.fault),
    withheld: num(r.withheld),
    never: num(r.never),
    unknown: num(r.unknown),
  }
}

/** Query params without the empty ones (the hub refuses unknown values, not absent ones). */
export function equipmentParams(q: EquipmentQuery): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(q)) {
    if (v !== undefined && v !== null && String(v).trim() !== '') out[k] = String(v).trim()
  }
  return out
}

export async function equipmentPage(q: EquipmentQuery): Promise<Page<Equipment>> {
  const res = await request.get<Envelope<Page<Wire>>>('/equipment/page', {
    params: equipmentParams(q),
  })
  return pageFrom(res.data.data, q, toEquipment)
}

export async function equipmentSummary(f: EquipmentFilters): Promise<EquipmentSummary> {
  const res = await request.get<Envelope<{ kinds?: Wire[]; all?: Wire }>>('/equipment/summary', {
    params: equipmentParams(f),
  })
  const data = res.data.data ?? {}
  const kinds = equipmentKinds.map((k) =>
    toKindSummary(
      (data.kinds ?? []).find((w) => w.kind === k),
      k,
    ),
  )
  return { kinds, all: toKindSummary(data.all, 'all') }
}

/** The workbook of the rows the same filters and sort list. */
export const exportEquipment = (q: EquipmentQuery): Promise<Download> => {
  const params = equipmentParams({ ...q, current: undefined, size: undefined })
  return download('/equipment/export', 'equipment.xlsx', params)
}

export const equipmentKeys = { all: ['equipment'] as const }

export const equipmentPageQuery = (q: EquipmentQuery) =>
  queryOptions({
    queryKey: [...equipmentKeys.all, 'page', q],
    queryFn: () => equipmentPage(q),
  })

export const equipmentSummaryQuery = (f: EquipmentFilters) =>
  queryOptions({
    queryKey: [...equipmentKeys.all, 'summary', f],
    queryFn: () => equipmentSummary(f),
  })
