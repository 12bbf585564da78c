/**
 * One station live, for its overview page: its registry row (`GET /api/station/{id}`), its live
 * summary (its entry of `/api/homePage/map`), its inverters live (`/api/inverterReal/list`) and
 * brackets (`/api/FlexData/realTimeData`), and today's power curve: the sum of its inverters'
 * `ac_power` 5-minute means (`/api/inverterReal/listWaveTag`; no station curve call exists).
 */
import { co2AvoidedKg } from '../../utils/units'
import { stationDetail, stationPage } from '../station/station'
import { flexRealtime } from './flex'
import { mapStations, toMapStation } from './home'
import { MAX_WAVE_DEVICES, inverterRealList, waveDay } from './inverterReal'
import type { ClockShift, CurveSeries, DeviceLive, FlexLive, StationLive } from './types'
import request from '../request'
import type { Envelope } from '../types'
import { asRaw, clockShiftFromRemark, clockShiftOf, kilo, num, pick, strOrNull } from './wire'

export interface StationOverview {
  station: StationLive
  brackets: FlexLive[]
}

export async function stationOverview(id: string, signal?: AbortSignal): Promise<StationOverview> {
  const [detail, fleet, inverters, brackets] = await Promise.all([
    stationDetail(id),
    mapStations(signal),
    inverterRealList({ stationId: id, size: 500 }, signal),
    flexRealtime(id, signal).catch(() => [] as FlexLive[]),
  ])
  const raw = asRaw(detail)
  const live = fleet.find((s) => s.id === id) ?? toMapStation({ ...raw, id })
  const remarkShift = [detail.remark1, detail.remark2, detail.remark3]
    .map((r) => clockShiftFromRemark(r))
    .find((s) => s !== null)
  const totalWh = sumOf(inverters.records.map((d) => d.totalWh))
  return {
    station: {
      ...live,
      name: detail.name || live.name,
      capacityWp: live.capacityWp ?? kilo(pick(raw, 'componentCapacity', 'capacity')),
      latitude: live.latitude ?? detail.latitude ?? null,
      longitude: live.longitude ?? detail.longitude ?? null,
      totalWh: live.totalWh ?? totalWh,
      clockShift: live.clockShift ?? clockShiftOf(raw) ?? remarkShift ?? null,
      address: strOrNull(detail.address),
      gridConnectionTime: strOrNull(detail.gridConnectionTime),
      installationStatus: strOrNull(detail.installationStatus),
      co2Kg: co2AvoidedKg(live.totalWh ?? totalWh),
      devices: inverters.records,
    },
    brackets,
  }
}

function sumOf(values: readonly (number | null)[]): number | null {
  const known = values.filter((v): v is number => v !== null)
  return known.length === 0 ? null : known.reduce((a, b) => a + b, 0)
}

/**
 * Adds series point by point (same bucket start): a bucket counts the inverters that reported in
 * it. Output sorted by time.
 */
export function sumSeries(series: readonly CurveSeries[]): [number, number][] {
  const sums = new Map<number, number>()
  for (const s of series) {
    for (const [t, v] of s.points) {
      if (v !== null) sums.set(t, (sums.get(t) ?? 0) + v)
    }
  }
  return [...sums.entries()].sort((a, b) => a[0] - b[0])
}

/** A station's power curve: W per 5-minute bucket, and the day and clock the hub used. */
export interface StationCurve {
  /** `yyyy-MM-dd` in the station's clock. */
  date: string
  /** `+13:00` (empty when the hub did not say). */
  utcOffset: string
  points: [number, number][]
}

/** The station's power curve of `date` (default today in the station's clock), W, from its inverters. */
export async function stationPowerCurve(
  inverters: readonly DeviceLive[],
  date?: string,
  signal?: AbortSignal,
): Promise<StationCurve> {
  const ids = inverters.map((d) => d.id)
  const batches: string[][] = []
  for (let i = 0; i < ids.length; i += MAX_WAVE_DEVICES)
    batches.push(ids.slice(i, i + MAX_WAVE_DEVICES))
  const answers = await Promise.all(
    batches.map((batch) => waveDay({ inverterIds: batch, metrics: ['ac_power'], date }, signal)),
  )
  return {
    date: answers[0]?.date ?? date ?? '',
    utcOffset: answers[0]?.utcOffset ?? '',
    points: sumSeries(answers.flatMap((a) => a.series)),
  }
}

/** The fleet's power of today: W per 5-minute bucket (epoch ms) and the span it covers. */
export interface FleetCurve {
  /** `[start, end)`, epoch ms: the stations' todays. */
  range: [number, number]
  points: [number, number][]
}

/**
 * The fleet's power curve of today (`GET /api/homePage/powerCurve`): the hub adds every live
 * inverter's 5-minute mean power over each station's own today, so a station on a shifted clock
 * lands at its real instant and the axis is the stations' day, not the browser's.
 */
export async function fleetPowerCurve(signal?: AbortSignal): Promise<FleetCurve> {
  const res = await request.get<Envelope<unknown>>('/homePage/powerCurve', {
    signal,
    silent: true,
  })
  return toFleetCurve(res.data.data)
}

/** A `powerCurve` answer: `[epoch ms, W]` points and the span (the points' own without it). */
export function toFleetCurve(data: unknown): FleetCurve {
  const raw = asRaw(data)
  const points = (Array.isArray(raw.points) ? raw.points : []).flatMap((p): [number, number][] => {
    if (!Array.isArray(p)) return []
    const [t, w] = [num(p[0]), num(p[1])]
    return t === null || w === null ? [] : [[t, w]]
  })
  const start = num(raw.start)
  const end = num(raw.end)
  const range: [number, number] =
    start !== null && end !== null
      ? [start, end]
      : [points[0]?.[0] ?? 0, points[points.length - 1]?.[0] ?? 0]
  return { range, points }
}

/**
 * Shifted clocks announced in the stations' remarks (one page of up to 500 stations; remarks
 * change rarely, so screens load this once, not on every refresh).
 */
export async function remarkClockShifts(): Promise<Map<string, ClockShift>> {
  const page = await stationPage({ current: 1, size: 500 })
  const out = new Map<string, ClockShift>()
  for (const s of page.records) {
    const shift = [s.remark1, s.remark2, s.remark3]
      .map((r) => clockShiftFromRemark(r))
      .find((x) => x !== null)
    if (s.id && shift) out.set(s.id, shift)
  }
  return out
}

/** Stations with the remark-announced shifts filled in where the live data says nothing. */
export function withClockShifts<T extends { id: string; clockShift: ClockShift | null }>(
  stations: readonly T[],
  shifts: ReadonlyMap<string, ClockShift>,
): T[] {
  return stations.map((s) =>
    s.clockShift || !shifts.has(s.id) ? s : { ...s, clockShift: shifts.get(s.id) ?? null },
  )
}
