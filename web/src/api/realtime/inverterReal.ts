/**
 * Inverter realtime: `POST /api/inverterReal/list` (the live table), `GET
 * /api/inverterReal/listWaveName` (chartable metrics) and `GET /api/inverterReal/listWaveTag`
 * (day curves, 5-minute means). Server shapes: `cloud/src/telemetry/api/inverter_real.rs`,
 * `contracts/telemetry-api.md`. Values are turned back into canonical units (W, Wh) here.
 */
import request from '../request'
import type { Envelope } from '../types'
import type { CurveSeries, DeviceLive, PageOf } from './types'
import {
  asList,
  asRaw,
  bool,
  canonicalOf,
  kilo,
  num,
  pick,
  statusOf,
  str,
  strOrNull,
  time,
  type Raw,
} from './wire'

/** The row's figures under their vocabulary names, canonical units (the per-string view reads these). */
function valuesOf(raw: Raw): Record<string, number> {
  const out: Record<string, number> = {}
  const put = (name: string, value: number | null) => {
    if (value !== null) out[name] = value
  }
  put('ac_power', kilo(pick(raw, 'acPowerKw')))
  put('dc_power', kilo(pick(raw, 'dcPowerKw')))
  put('energy_total', kilo(pick(raw, 'totalEnergyKwh')))
  put('efficiency', pick(raw, 'efficiency'))
  put('temperature', pick(raw, 'temperature'))
  put('status_code', pick(raw, 'statusCode'))
  put('fault_code', pick(raw, 'faultCode'))
  put('grid_voltage', pick(raw, 'gridVoltage'))
  put('grid_frequency', pick(raw, 'gridFrequency'))
  put('ac_current', pick(raw, 'acCurrent'))
  const phases = ['a', 'b', 'c']
  if (Array.isArray(raw.gridVoltages)) {
    raw.gridVoltages.forEach((v, i) => i < 3 && put(`grid_voltage_${phases[i]}`, num(v)))
  }
  if (Array.isArray(raw.pvCurrents)) {
    raw.pvCurrents.forEach((v, i) => put(`pv${i + 1}_current`, num(v)))
  }
  if (Array.isArray(raw.pvVoltages)) {
    raw.pvVoltages.forEach((v, i) => put(`pv${i + 1}_voltage`, num(v)))
  }
  return out
}

export function toInverterLive(raw: Raw): DeviceLive {
  const values = valuesOf(raw)
  const powerW = values.ac_power ?? null
  const online = bool(raw.online) ?? false
  return {
    id: str(raw.id),
    name: str(raw.name),
    kind: 'inverter',
    sn: str(raw.sn),
    stationId: str(raw.stationId),
    stationName: str(raw.stationName),
    status: statusOf({ ...raw, online, fault: online && (num(raw.faultCode) ?? 0) !== 0 }, powerW),
    online,
    ts: time(raw.updateTime),
    powerW,
    todayWh: kilo(pick(raw, 'todayEnergyKwh')),
    totalWh: values.energy_total ?? null,
    ratedPowerW: kilo(pick(raw, 'ratedPowerKw')),
    values,
    withheld: strOrNull(raw.withheld),
  }
}

export interface InverterRealQuery {
  current?: number
  size?: number
  stationId?: string
  /** Name or SN contains. */
  keyword?: string
  online?: boolean
}

export async function inverterRealList(
  query: InverterRealQuery,
  signal?: AbortSignal,
): Promise<PageOf<DeviceLive>> {
  const res = await request.post<Envelope<unknown>>(
    '/inverterReal/list',
    {
      current: query.current ?? 1,
      size: query.size ?? 10,
      ...(query.stationId ? { stationId: query.stationId } : {}),
      ...(query.keyword ? { keyword: query.keyword } : {}),
      ...(query.online !== undefined ? { online: query.online } : {}),
    },
    { signal, silent: true },
  )
  const page = asRaw(res.data.data)
  return { records: asList(page.records).map(toInverterLive), total: num(page.total) ?? 0 }
}

export interface WaveName {
  /** Metric name to ask curves for (`ac_power`, `pv1_voltage`...). */
  metric: string
  /** Label in the request's language. */
  label: string
  /** Unit of the curve as sent (kW, V...). */
  unit: string
}

/** Most inverters / metrics one curve request may ask for (the server's limits). */
export const MAX_WAVE_DEVICES = 20
export const MAX_WAVE_METRICS = 10

/** The metrics a wave chart may offer (per-string ones up to the chosen inverters' string count). */
export async function waveNames(
  query: { inverterIds?: string[]; stationId?: string },
  signal?: AbortSignal,
): Promise<WaveName[]> {
  const res = await request.get<Envelope<unknown>>('/inverterReal/listWaveName', {
    params: {
      ...(query.inverterIds?.length ? { inverterIds: query.inverterIds.join(',') } : {}),
      ...(query.stationId ? { stationId: query.stationId } : {}),
    },
    signal,
    silent: true,
  })
  return asList(res.data.data).map((raw) => ({
    metric: str(raw.name),
    label: str(raw.label),
    unit: str(raw.unit),
  }))
}

/** `[time, value]` pairs as sent (time `yyyy-MM-dd HH:mm:ss` local, or epoch ms). */
function toPoints(points: unknown, factor: number): [number, number | null][] {
  if (!Array.isArray(points)) return []
  return points.flatMap((p): [number, number | null][] => {
    const pair = Array.isArray(p) ? p : [asRaw(p).time, asRaw(p).value]
    const t = time(pair[0])
    if (t === null) return []
    const v = num(pair[1])
    return [[t, v === null ? null : v * factor]]
  })
}

/** Series of a WaveDay / SensorDay answer, values in canonical units. */
export function toCurves(data: unknown, fallback: Partial<CurveSeries> = {}): CurveSeries[] {
  const day = asRaw(data)
  return asList(Array.isArray(data) ? data : day.series).map((raw) => {
    const [unit, factor] = canonicalOf(str(raw.unit))
    return {
      deviceId: str(raw.inverterId ?? raw.deviceId ?? day.sensorId) || (fallback.deviceId ?? ''),
      deviceName:
        str(raw.inverterName ?? raw.deviceName ?? day.sensorName) || (fallback.deviceName ?? ''),
      metric: str(raw.name ?? raw.metric),
      label: str(raw.label),
      unit,
      points: toPoints(raw.points, factor),
      ...(str(raw.utcOffset) ? { utcOffset: str(raw.utcOffset) } : {}),
    }
  })
}

export interface CurveQuery {
  inverterIds: string[]
  metrics: string[]
  /** yyyy-MM-dd; empty = today. */
  date?: string
}

/**
 * A day of curves as the hub answered it: the day and the station clock (UTC offset) its times
 * are in, which the chart states.
 */
export interface CurveDay {
  /** `yyyy-MM-dd` in the station's clock (empty when nothing was asked). */
  date: string
  /** `+13:00` (empty when the hub did not say). */
  utcOffset: string
  series: CurveSeries[]
}

/** Day curves of chosen metrics of chosen inverters (one series per inverter and metric). */
export async function waveData(query: CurveQuery, signal?: AbortSignal): Promise<CurveSeries[]> {
  return (await waveDay(query, signal)).series
}

/** The same with the day and the clock the hub used (no `date`: today at the station). */
export async function waveDay(query: CurveQuery, signal?: AbortSignal): Promise<CurveDay> {
  if (query.inverterIds.length === 0 || query.metrics.length === 0)
    return { date: query.date ?? '', utcOffset: '', series: [] }
  const res = await request.get<Envelope<unknown>>('/inverterReal/listWaveTag', {
    params: {
      inverterIds: query.inverterIds.slice(0, MAX_WAVE_DEVICES).join(','),
      names: query.metrics.slice(0, MAX_WAVE_METRICS).join(','),
      ...(query.date ? { date: query.date } : {}),
    },
    signal,
    silent: true,
  })
  const day = asRaw(res.data.data)
  return {
    date: str(day.date),
    utcOffset: str(day.utcOffset),
    series: toCurves(res.data.data),
  }
}
