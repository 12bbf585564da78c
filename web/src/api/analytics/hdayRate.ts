/**
 * Equivalent full-load ("full-generation") hours deviation (满发小时偏差, contract `alarms.md`
 * "Analytics"): h = E / P0 over a date range; a station against the fleet mean, an inverter against
 * its station's mean; flagged when the deviation is below the tenant's threshold (default −10 %).
 */
import request from '../request'
import { pageFrom, type Envelope, type Page, type PageQuery } from '../types'

export interface HdayRow {
  /** Station id (station tab) or inverter id (inverter tab). */
  id: string
  name: string
  stationName: string
  capacityKwp: number | null
  energyKwh: number | null
  hours: number | null
  refHours: number | null
  deviationPct: number | null
  flagged: boolean
}

export interface HdaySetting {
  /** Negative percentage (default −10). */
  thresholdPct: number
  /** Days of data a unit needs before it is judged. */
  minDays: number
}

export const DEFAULT_HDAY_SETTING: HdaySetting = { thresholdPct: -10, minDays: 1 }

export type HdayScope = 'station' | 'inverter'

export interface HdayFilter {
  scope: HdayScope
  /** `YYYY-MM-DD`, both days included. */
  startDate: string
  endDate: string
  /** Needed for the inverter tab. */
  stationId?: string
  current: number
  size: number
}

/** The query of a page call: the inverter tab adds its station; blank filters are left out. */
export function hdayQuery(filter: HdayFilter): PageQuery {
  const query: PageQuery = {
    current: filter.current,
    size: filter.size,
    startDate: filter.startDate,
    endDate: filter.endDate,
  }
  if (filter.scope === 'inverter' && filter.stationId) query.stationId = filter.stationId
  return query
}

/** Text of an id or name (ids come as JSON strings, some as numbers). */
const text = (v: unknown): string =>
  typeof v === 'string' || typeof v === 'number' ? String(v) : ''

const num = (v: unknown): number | null => {
  if (v === null || v === undefined || v === '') return null
  const n = Number(v)
  return Number.isFinite(n) ? n : null
}

export function toHdayRow(raw: Record<string, unknown>, scope: HdayScope): HdayRow {
  const id = scope === 'station' ? raw.stationId : raw.inverterId
  const name = scope === 'station' ? raw.stationName : raw.inverterName
  return {
    id: text(id),
    name: text(name),
    stationName: text(raw.stationName),
    capacityKwp: num(raw.capacityKwp),
    energyKwh: num(raw.energyKwh),
    hours: num(raw.hours),
    refHours: num(raw.refHours),
    deviationPct: num(raw.deviationPct),
    flagged: raw.flagged === true || raw.flagged === 1 || raw.flagged === '1',
  }
}

/** `GET /api/hdayRate/pageStation` or `/pageInverter` (the latter needs a station). */
export async function hdayPage(filter: HdayFilter): Promise<Page<HdayRow>> {
  const path = filter.scope === 'station' ? '/hdayRate/pageStation' : '/hdayRate/pageInverter'
  const res = await request.get<Envelope<Page<Record<string, unknown>> | null>>(path, {
    params: hdayQuery(filter),
  })
  return pageFrom(res.data.data, filter, (r) => toHdayRow(r, filter.scope))
}

export async function getHdaySetting(): Promise<HdaySetting> {
  const res =
    await request.get<Envelope<Partial<Record<keyof HdaySetting, unknown>> | null>>(
      '/hdayRate/setting',
    )
  const raw = res.data.data ?? {}
  return {
    thresholdPct: num(raw.thresholdPct) ?? DEFAULT_HDAY_SETTING.thresholdPct,
    minDays: num(raw.minDays) ?? DEFAULT_HDAY_SETTING.minDays,
  }
}

export async function putHdaySetting(setting: HdaySetting): Promise<void> {
  await request.put<Envelope<unknown>>('/hdayRate/setting', setting)
}
