/**
 * Weather stations and meters live: `GET /api/deviceReal/list` (each device's newest values with
 * labels in the request's language, units and a `plausible` flag) and `GET /api/deviceReal/curve`
 * (5-minute day curves of chosen metrics). Server: `cloud/src/telemetry/api/device_real.rs`.
 *
 * Values keep the unit the server names (kW, kWh, W/m², °C): they are shown as they come, never
 * converted. A value the server marks implausible (outside its physical range) stays marked all
 * the way to the screen.
 */
import request from '../request'
import { displayUnit } from '../../utils/units'
import type { Envelope } from '../types'
import { asList, asRaw, bool, num, str, strOrNull, time, type Raw } from './wire'

export type LiveDeviceKind = 'weather' | 'meter'

/** `meter_role` key of a grid-connection meter (2 generation, 3 consumption). */
export const GRID_METER_ROLE = '1'

export interface LiveReading {
  /** Metric name (`irradiance_poa`, `ac_power`...). */
  name: string
  /** In the request's language. */
  label: string
  unit: string
  /** null when the server sent none or a non-number. */
  value: number | null
  /** false: outside the metric's physical range (sensor or decoding fault). */
  plausible: boolean
}

export interface DeviceReal {
  id: string
  name: string
  sn: string
  kind: LiveDeviceKind
  /** Meters: `meter_role` key; null for weather stations. */
  meterRole: string | null
  online: boolean
  /** Newest sample, epoch ms; null when it never reported. */
  updatedAt: number | null
  values: LiveReading[]
}

export interface DeviceCurveSeries {
  name: string
  label: string
  unit: string
  /** [epoch ms of the 5-minute bucket start, mean]. */
  points: [number, number | null][]
  /** Buckets whose mean is outside the metric's plausible range. */
  implausiblePoints: number
}

export interface DeviceCurves {
  deviceId: string
  /** yyyy-MM-dd, in the station's clock. */
  date: string
  /** The station's clock, `+13:00` (empty when the hub did not say). */
  utcOffset: string
  series: DeviceCurveSeries[]
}

export const kindOf = (value: unknown): LiveDeviceKind =>
  str(value) === 'weather' ? 'weather' : 'meter'

export function toReading(raw: Raw): LiveReading {
  const name = str(raw.name)
  return {
    name,
    label: str(raw.label) || name,
    // As shown (W/m², °C; none for a ratio such as the power factor, whose symbol is "1").
    unit: displayUnit(str(raw.unit)),
    value: num(raw.value),
    // Only an explicit "not plausible" marks a value: an older server sends no flag.
    plausible: bool(raw.plausible) !== false,
  }
}

export function toDeviceReal(raw: Raw): DeviceReal {
  return {
    id: str(raw.id),
    name: str(raw.name),
    sn: str(raw.sn),
    kind: kindOf(raw.kind),
    meterRole: strOrNull(raw.meterRole),
    online: bool(raw.online) === true,
    updatedAt: time(raw.updateTime),
    values: asList(raw.values).map(toReading),
  }
}

export function toCurveSeries(raw: Raw): DeviceCurveSeries {
  const name = str(raw.name)
  const points: [number, number | null][] = []
  for (const p of Array.isArray(raw.points) ? (raw.points as unknown[]) : []) {
    if (!Array.isArray(p)) continue
    const t = time(p[0])
    if (t !== null) points.push([t, num(p[1])])
  }
  points.sort((a, b) => a[0] - b[0])
  return {
    name,
    label: str(raw.label) || name,
    // As shown (W/m², °C; none for a ratio such as the power factor, whose symbol is "1").
    unit: displayUnit(str(raw.unit)),
    points,
    implausiblePoints: num(raw.implausiblePoints) ?? 0,
  }
}

export function toDeviceCurves(raw: Raw): DeviceCurves {
  return {
    deviceId: str(raw.deviceId),
    date: str(raw.date),
    utcOffset: str(raw.utcOffset),
    series: asList(raw.series).map(toCurveSeries),
  }
}

export async function deviceRealList(
  stationId: string,
  kind?: LiveDeviceKind,
  signal?: AbortSignal,
): Promise<DeviceReal[]> {
  const res = await request.get<Envelope<unknown>>('/deviceReal/list', {
    params: { stationId, kind },
    signal,
    silent: true,
  })
  return asList(res.data.data).map(toDeviceReal)
}

export interface DeviceCurveQuery {
  stationId: string
  deviceId: string
  /** Metric names; empty: the server's default (the kind's first three). */
  names: readonly string[]
  /** yyyy-MM-dd; absent: today. */
  date?: string
}

export async function deviceRealCurve(
  { stationId, deviceId, names, date }: DeviceCurveQuery,
  signal?: AbortSignal,
): Promise<DeviceCurves> {
  const res = await request.get<Envelope<unknown>>('/deviceReal/curve', {
    params: {
      stationId,
      deviceId,
      names: names.length > 0 ? names.join(',') : undefined,
      date,
    },
    signal,
    silent: true,
  })
  return toDeviceCurves(asRaw(res.data.data))
}

/**
 * The metrics a device's day chart shows first: irradiance and temperatures for a weather
 * station, power and energy imported / exported for a grid meter, the server's default (power,
 * reactive power, power factor) for other meters.
 */
export function defaultCurveNames(device: Pick<DeviceReal, 'kind' | 'meterRole'>): string[] {
  if (device.kind === 'weather')
    return ['irradiance_poa', 'irradiance_ghi', 'ambient_temperature', 'module_temperature']
  if (device.meterRole === GRID_METER_ROLE) return ['ac_power', 'energy_import', 'energy_export']
  return []
}

/** Decimals a reading is shown with (a power factor needs three). */
export function decimalsOf(name: string, value: number): number {
  if (name === 'power_factor') return 3
  return Math.abs(value) < 100 ? 2 : Math.abs(value) < 1000 ? 1 : 0
}
