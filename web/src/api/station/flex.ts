/**
 * Flexible (tracker) brackets (`/api/flex`, server `cloud/src/station/flex.rs`): at most one per
 * station, keyed by station, with its controller and its sensors (saved as a set with it).
 */
import request from '../request'
import type { Envelope } from '../types'
import type { DeviceRow } from './device'

export const SENSOR_KINDS = [
  'angle',
  'wind',
  'motor',
  'irradiance',
  'temperature',
  'other',
] as const
export type SensorKind = (typeof SENSOR_KINDS)[number]
export const MAX_SENSORS = 32

export interface FlexSensor {
  id?: string
  name: string
  kind: string
  unitId?: number | null
  point?: string | null
}

export interface Flex extends DeviceRow {
  name?: string
  sn?: string
  gatewayId?: string | null
  mapModel?: string
  unitId?: number
  modbusAddress?: string | null
  remark?: string | null
  sensorCount?: number
  sensors?: FlexSensor[]
}

export interface FlexStation {
  id: string
  name: string
  hasFlex: boolean
}

export async function listFlex(stationId?: string): Promise<Flex[]> {
  const res = await request.get<Envelope<Flex[] | null>>('/flex/list', {
    params: stationId ? { stationId } : undefined,
  })
  return res.data.data ?? []
}

/** The station's bracket with its sensors, or null when it has none. */
export async function getFlexEditData(stationId: string): Promise<Flex | null> {
  const res = await request.get<Envelope<Flex | null>>('/flex/getEditData', {
    params: { stationId },
  })
  return res.data.data ?? null
}

export async function listFlexStations(): Promise<FlexStation[]> {
  const res = await request.get<Envelope<FlexStation[] | null>>('/flex/listStationName')
  return (res.data.data ?? []).map((s) => ({ ...s, id: String(s.id) }))
}

export async function listFlexSensors(stationId: string): Promise<FlexSensor[]> {
  const res = await request.get<Envelope<FlexSensor[] | null>>('/flex/sensorList', {
    params: { stationId },
  })
  return res.data.data ?? []
}

/**
 * The body of a save: the bracket's fields and its sensors (ids dropped: the server replaces the
 * set; blank unit ids and points become null).
 */
export function flexBody(flex: Flex, sensors: readonly FlexSensor[]): Record<string, unknown> {
  return {
    stationId: flex.stationId,
    name: flex.name,
    sn: flex.sn,
    gatewayId: flex.gatewayId ?? null,
    mapModel: flex.mapModel,
    unitId: flex.unitId,
    modbusAddress: flex.modbusAddress ?? null,
    remark: flex.remark ?? null,
    sensors: sensors.map((s) => ({
      name: s.name.trim(),
      kind: s.kind,
      unitId: s.unitId ?? null,
      point: s.point?.trim() ? s.point.trim() : null,
    })),
  }
}

export async function createFlex(body: Record<string, unknown>): Promise<string> {
  const res = await request.post<Envelope<string>>('/flex', body)
  return String(res.data.data)
}

export async function updateFlex(body: Record<string, unknown>): Promise<void> {
  await request.put<Envelope<boolean>>('/flex', body)
}

export async function removeFlex(stationId: string): Promise<void> {
  await request.delete<Envelope<boolean>>('/flex/delete', { params: { stationId } })
}
