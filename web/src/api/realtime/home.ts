/**
 * The fleet as the home map, the dashboard and the big screen show it: `GET /api/homePage/data`
 * (totals), `GET /api/homePage/map` (stations with status colour key) and
 * `GET /api/station/getStatisticsByProvince`. Server shapes: `cloud/src/home/mod.rs`,
 * `contracts/telemetry-api.md`.
 */
import { STATUSES, countByStatus, type RunStatus } from '../../components/realtime/status'
import { DEFAULT_CURRENCY } from '../../utils/money'
import { CO2_KG_PER_KWH } from '../../utils/units'
import request from '../request'
import type { Envelope } from '../types'
import type { FleetSummary, MapStation, RevenueFigures } from './types'
import {
  asList,
  asRaw,
  clockShiftOf,
  kilo,
  num,
  pick,
  statusOf,
  str,
  strOrNull,
  time,
  type Raw,
} from './wire'

export function toMapStation(raw: Raw): MapStation {
  const powerW = kilo(pick(raw, 'currentPowerKw', 'acPowerKw', 'powerKw'))
  return {
    id: str(raw.id ?? raw.stationId),
    name: str(raw.name ?? raw.stationName),
    status: statusOf(raw, powerW),
    latitude: num(raw.latitude),
    longitude: num(raw.longitude),
    provinceCode: strOrNull(raw.provinceCode),
    capacityWp: kilo(pick(raw, 'capacityKwp', 'componentCapacity', 'capacityKw', 'capacity')),
    powerW,
    todayWh: kilo(pick(raw, 'todayEnergyKwh', 'todayKwh')),
    totalWh: kilo(pick(raw, 'totalEnergyKwh', 'totalKwh')),
    todayRevenue: pick(raw, 'todayRevenue'),
    monthRevenue: pick(raw, 'monthRevenue'),
    clockShift: clockShiftOf(raw),
    updatedAt: time(raw.updateTime),
  }
}

/**
 * Status counts: from the stations on the map when known (it names each one's colour key),
 * else from the totals' counters (commissioning, fault, offline; the rest producing).
 */
function statusCounts(raw: Raw, stations: readonly MapStation[] | null): Record<RunStatus, number> {
  if (stations) return countByStatus(stations)
  const counts = Object.fromEntries(STATUSES.map((s) => [s, 0])) as Record<RunStatus, number>
  counts.commissioning = num(raw.commissioningCount) ?? 0
  counts.fault = num(raw.faultCount) ?? 0
  counts.offline = Math.max(0, (num(raw.offlineCount) ?? 0) - counts.commissioning)
  counts.producing = Math.max(
    0,
    (num(raw.stationCount) ?? 0) - counts.commissioning - counts.fault - counts.offline,
  )
  return counts
}

/** The ISO 4217 code of the home figures' amounts (CNY unless the server names another). */
export function currencyOf(raw: Raw): string {
  const code = str(raw.currency).trim().toUpperCase()
  return /^[A-Z]{3}$/.test(code) ? code : DEFAULT_CURRENCY
}

export function toFleetSummary(
  raw: Raw,
  stations: readonly MapStation[] | null = null,
): FleetSummary {
  const co2T = pick(raw, 'co2AvoidedT')
  const factor = num(asRaw(raw.factors).co2KgPerKwh) ?? CO2_KG_PER_KWH
  const totalWh = kilo(pick(raw, 'totalEnergyKwh'))
  return {
    stations: num(raw.stationCount) ?? stations?.length ?? 0,
    byStatus: statusCounts(raw, stations),
    capacityWp: kilo(pick(raw, 'capacityKwp', 'capacityKw')),
    powerW: kilo(pick(raw, 'currentPowerKw')),
    todayWh: kilo(pick(raw, 'todayEnergyKwh')),
    monthWh: kilo(pick(raw, 'monthEnergyKwh')),
    yearWh: kilo(pick(raw, 'yearEnergyKwh')),
    totalWh,
    co2Kg: co2T !== null ? co2T * 1000 : totalWh !== null ? (totalWh / 1000) * factor : null,
    co2Factor: factor,
    hoursToday: pick(raw, 'equivalentHoursToday'),
    todayRevenue: pick(raw, 'todayRevenue'),
    monthRevenue: pick(raw, 'monthRevenue'),
    currency: currencyOf(raw),
    updatedAt: time(raw.updateTime),
    repairOpen: num(raw.repairOpen),
    repairOverdue: num(raw.repairOverdue),
    mttrHours: num(raw.mttrHours),
  }
}

/** The fleet's revenue figures (none known yet: empty amounts in the default currency). */
export const fleetRevenue = (summary: FleetSummary | undefined): RevenueFigures => ({
  today: summary?.todayRevenue ?? null,
  month: summary?.monthRevenue ?? null,
  currency: summary?.currency ?? DEFAULT_CURRENCY,
})

export async function homeData(signal?: AbortSignal): Promise<Raw> {
  const res = await request.get<Envelope<unknown>>('/homePage/data', { signal, silent: true })
  return asRaw(res.data.data)
}

export async function mapStations(signal?: AbortSignal): Promise<MapStation[]> {
  const res = await request.get<Envelope<unknown>>('/homePage/map', { signal, silent: true })
  return asList(res.data.data).map(toMapStation)
}

/** The currency of the revenue figures (the tenant's report setting, via the home totals). */
export async function revenueCurrency(signal?: AbortSignal): Promise<string> {
  return currencyOf(await homeData(signal))
}

/** Totals and the stations together (what the home map, dashboard and big screen poll). */
export async function fleet(
  signal?: AbortSignal,
): Promise<{ summary: FleetSummary; stations: MapStation[] }> {
  const [data, stations] = await Promise.all([homeData(signal), mapStations(signal)])
  return { summary: toFleetSummary(data, stations), stations }
}

export interface ProvinceStat {
  provinceCode: string
  provinceName: string
  stations: number
  capacityWp: number | null
  powerW: number | null
  todayWh: number | null
  totalWh: number | null
}

export function toProvinceStat(raw: Raw): ProvinceStat {
  return {
    provinceCode: str(raw.provinceCode ?? raw.code),
    provinceName: str(raw.provinceName ?? raw.name),
    stations: num(raw.stationCount ?? raw.count) ?? 0,
    capacityWp: kilo(pick(raw, 'capacityKwp', 'capacityKw')),
    powerW: kilo(pick(raw, 'currentPowerKw', 'powerKw')),
    todayWh: kilo(pick(raw, 'todayEnergyKwh', 'todayKwh')),
    totalWh: kilo(pick(raw, 'totalEnergyKwh')),
  }
}

export async function provinceStats(signal?: AbortSignal): Promise<ProvinceStat[]> {
  const res = await request.get<Envelope<unknown>>('/station/getStatisticsByProvince', {
    signal,
    silent: true,
  })
  return asList(res.data.data).map(toProvinceStat)
}
