/**
 * What the gateway says of each device's data quality: `GET /api/deviceQuality/list` (whether its
 * values are withheld, why and since when, layout/identity changes, values marked suspect per
 * metric, and the newest sample's marked values). Server:
 * `cloud/src/telemetry/api/device_quality.rs`.
 */
import request from '../request'
import type { Envelope } from '../types'
import { asList, num, str, strOrNull, time, type Raw } from './wire'

/** `withheld`: the device answers but the gateway holds its values back until its layout is confirmed. */
export type QualityState = 'online' | 'withheld' | 'offline'

export interface SuspectCount {
  name: string
  count: number
}

export interface SuspectValue {
  name: string
  unit: string
  value: number | null
}

export interface DeviceQuality {
  id: string
  name: string
  sn: string
  kind: string
  state: QualityState
  /** The gateway's newest status names the device. */
  reported: boolean
  withheld: string | null
  /** Epoch ms the hub first saw it withheld. */
  withheldSince: number | null
  changes: number
  lastChange: string | null
  suspect: SuspectCount[]
  suspectValues: SuspectValue[]
  /** Steps of its energy counters the hub did not count as read, per kind (电量修正). */
  counterSteps: SuspectCount[]
  updatedAt: number | null
}

const stateOf = (value: unknown): QualityState => {
  const s = str(value)
  return s === 'withheld' || s === 'online' ? s : 'offline'
}

export function toDeviceQuality(raw: Raw): DeviceQuality {
  return {
    id: str(raw.id),
    name: str(raw.name),
    sn: str(raw.sn),
    kind: str(raw.kind),
    state: stateOf(raw.state),
    reported: raw.reported === true,
    withheld: strOrNull(raw.withheld),
    withheldSince: time(raw.withheldSince),
    changes: num(raw.changes) ?? 0,
    lastChange: strOrNull(raw.lastChange),
    suspect: asList(raw.suspect)
      .map((s) => ({ name: str(s.name), count: num(s.count) ?? 0 }))
      .filter((s) => s.name !== '' && s.count > 0),
    suspectValues: asList(raw.suspectValues).map((s) => ({
      name: str(s.name),
      unit: str(s.unit),
      value: num(s.value),
    })),
    counterSteps: asList(raw.counterSteps)
      .map((s) => ({ name: str(s.kind), count: num(s.count) ?? 0 }))
      .filter((s) => s.name !== '' && s.count > 0),
    updatedAt: time(raw.updateTime),
  }
}

/** The station's devices (or one of them) with their quality; [] from a hub without the call. */
export async function deviceQualityList(
  stationId: string,
  deviceId?: string,
  signal?: AbortSignal,
): Promise<DeviceQuality[]> {
  const res = await request.get<Envelope<unknown>>('/deviceQuality/list', {
    params: { stationId, deviceId },
    signal,
    silent: true,
  })
  return asList(res.data.data).map(toDeviceQuality)
}
