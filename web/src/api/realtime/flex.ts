/**
 * Flexible bracket (tracker) realtime: `GET /api/FlexData/realTimeData` (each bracket controller
 * with its newest angle, target, mode, stow, wind and its sensors) and `GET
 * /api/FlexReal/dataBySensor` (one sensor's day curve). Server shapes:
 * `cloud/src/telemetry/api/flex_real.rs`, `contracts/telemetry-api.md`.
 */
import request from '../request'
import type { Envelope } from '../types'
import { toCurves, type CurveDay } from './inverterReal'
import type { FlexLive } from './types'
import { asList, asRaw, bool, num, statusOf, str, strOrNull, time, type Raw } from './wire'

export function toFlexLive(raw: Raw): FlexLive {
  const online = bool(raw.online) ?? false
  const fault = online && (num(raw.faultWord) ?? 0) !== 0
  return {
    id: str(raw.flexId ?? raw.id),
    name: str(raw.name),
    sn: str(raw.sn),
    stationId: str(raw.stationId),
    stationName: str(raw.stationName),
    // A tracker produces no power: communicating and fault-free is its "producing".
    status: statusOf({ online, fault }, online ? 2 : null),
    online,
    ts: time(raw.updateTime),
    angle: num(raw.angle),
    targetAngle: num(raw.targetAngle),
    mode: num(raw.mode),
    modeName: strOrNull(raw.modeName),
    stow: bool(raw.stow),
    windSpeed: num(raw.windSpeed),
    motorCurrent: num(raw.motorCurrent),
    sensors: asList(raw.sensors).map((s) => ({
      id: str(s.id),
      name: str(s.name),
      kind: str(s.kind),
      metric: strOrNull(s.metric),
      value: num(s.value),
      unit: str(s.unit),
    })),
  }
}

export async function flexRealtime(stationId: string, signal?: AbortSignal): Promise<FlexLive[]> {
  const res = await request.get<Envelope<unknown>>('/FlexData/realTimeData', {
    params: { stationId },
    signal,
    silent: true,
  })
  return asList(res.data.data).map(toFlexLive)
}

/** A sensor's curves of a day (its metric; an angle sensor also the target angle). */
export async function flexSensorDay(
  sensorId: string,
  date?: string,
  signal?: AbortSignal,
): Promise<CurveDay> {
  const res = await request.get<Envelope<unknown>>('/FlexReal/dataBySensor', {
    params: { sensorId, ...(date ? { date } : {}) },
    signal,
    silent: true,
  })
  const day = asRaw(res.data.data)
  return {
    date: str(day.date) || (date ?? ''),
    utcOffset: str(day.utcOffset),
    series: toCurves(res.data.data),
  }
}
