/**
 * Inverters (`/api/inverter`, server `cloud/src/station/device/inverter.rs`). Modules per string
 * travel as a list of numbers (answered as an array, accepted as an array or "20,20,18"); the form
 * edits them as comma-separated text.
 */
import { entityApi, type CrudApi } from '../crud'
import request from '../request'
import type { Envelope } from '../types'
import { dictListOptions, type DeviceRow } from './device'

export interface Inverter extends DeviceRow {
  name?: string
  /** Dictionary `device_type`. */
  deviceType?: string | null
  /** Dictionary `inverter_manufacturer`. */
  manufacturer?: string | null
  sn?: string
  collectorSn?: string | null
  verificationCode?: string | null
  gatewayId?: string | null
  /** kW, at most 4 decimals. */
  ratedPower?: number | null
  /** 1–64. */
  stringsCount?: number | null
  /** Wire: number[]; form: "20,20,18". */
  modulesPerString?: number[] | string | null
  purchasingCompany?: string | null
  /** A register map id of kind inverter (`firmware-configs`). */
  mapModel?: string | null
  unitId?: number | null
  modbusAddress?: string | null
  remark?: string | null
  /** Live, not stored: `online` / `offline` / `fault` (an open fault alarm); absent when unknown. */
  liveStatus?: InverterLiveStatus
  /** Live, not stored: current AC power, kW (0 when offline). */
  acPowerKw?: number | null
  /** Live, not stored: why the gateway holds the inverter's values back; absent while they flow. */
  withheld?: string | null
}

export type InverterLiveStatus = 'online' | 'offline' | 'fault'

/** Order of the status column: faults first, then offline, then online. */
export const LIVE_STATUS_ORDER: Readonly<Record<InverterLiveStatus, number>> = {
  fault: 0,
  offline: 1,
  online: 2,
}

/** "20, 20,18" → [20, 20, 18]; null when the text is not such a list (blank → []). */
export function parseModules(text: unknown): number[] | null {
  if (Array.isArray(text)) return text.map(Number)
  if (typeof text === 'number') return parseModules(String(text))
  if (typeof text !== 'string') return text === undefined || text === null ? [] : null
  const parts = text
    .split(/[,，]/)
    .map((part) => part.trim())
    .filter((part) => part !== '')
  const numbers = parts.map(Number)
  return numbers.every((n, i) => /^\d+$/.test(parts[i]) && n >= 1 && n <= 10_000) ? numbers : null
}

/** The record as the form edits it. */
export const inverterFromWire = (row: Inverter): Inverter => ({
  ...row,
  modulesPerString: Array.isArray(row.modulesPerString)
    ? row.modulesPerString.join(',')
    : (row.modulesPerString ?? null),
})

/** The form's body as the server takes it (blank modules → null clears them). */
export function inverterToWire(body: Inverter): Inverter {
  const modules = parseModules(body.modulesPerString)
  return {
    ...body,
    // An unparseable text is sent as typed so the server answers with its own message.
    modulesPerString: modules === null ? body.modulesPerString : modules.length ? modules : null,
  }
}

const registry = entityApi<Inverter>({
  style: 'rest',
  base: '/inverter',
  detail: true,
  fromWire: inverterFromWire,
  toWire: inverterToWire,
})

/** An inverter's live status, AC power and, when its gateway holds its values back, why. */
export interface InverterLive {
  status: InverterLiveStatus
  acPowerKw: number | null
  withheld: string | null
}

/** The live status and AC power of chosen inverters, by id (`/api/inverterReal/list?inverterIds=`). */
export async function inverterLive(ids: readonly string[]): Promise<Map<string, InverterLive>> {
  const out = new Map<string, InverterLive>()
  if (ids.length === 0) return out
  const res = await request.post<Envelope<{ records?: Record<string, unknown>[] } | null>>(
    '/inverterReal/list',
    { inverterIds: ids, size: ids.length },
    { silent: true },
  )
  for (const r of res.data.data?.records ?? []) {
    const status = r.status
    if (status !== 'online' && status !== 'offline' && status !== 'fault') continue
    out.set(String(r.id), {
      status,
      acPowerKw: typeof r.acPowerKw === 'number' ? r.acPowerKw : null,
      withheld: typeof r.withheld === 'string' && r.withheld !== '' ? r.withheld : null,
    })
  }
  return out
}

/**
 * The registry list with each row's live status and power: the registry pages, the live view
 * fills in its page's rows (a failed live call leaves the columns empty, never the list).
 */
export const inverterApi: CrudApi<Inverter> = {
  ...registry,
  list: async (query) => {
    const page = await registry.list(query)
    const ids = page.records.map((r) => String(r.id ?? '')).filter((id) => id !== '')
    const live = await inverterLive(ids).catch(() => null)
    if (!live) return page
    return {
      ...page,
      records: page.records.map((r) => {
        const l = live.get(String(r.id ?? ''))
        return l ? { ...r, liveStatus: l.status, acPowerKw: l.acPowerKw, withheld: l.withheld } : r
      }),
    }
  },
}

export const listDeviceTypeOptions = () => dictListOptions('/inverter/listDeviceType')
export const listManufacturerOptions = () => dictListOptions('/inverter/listManufacturer')
