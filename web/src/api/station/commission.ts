/**
 * Commissioning a station's gateway (`cloud/src/commission/`): each call asks the running
 * gateway over the downlink and answers its report — its buses and maps, a bus scan, a probe
 * of one unit with a map (decoded live values), adding the device to the station and gateway.
 */
import request from '../request'
import type { Envelope } from '../types'

export interface BusDevice {
  id: string
  unit: number
  map: string
}

export interface GatewayBus {
  name: string
  /** `rtu`, `tcp` or `rtu-over-tcp` */
  transport: string
  address: string
  devices: BusDevice[]
}

export interface MapChoice {
  id: string
  /** `inverter`, `meter`, `weather`, `tracker`; absent when the hub does not know the map. */
  kind?: string
  manufacturer?: string
  model?: string
}

export interface GatewayBuses {
  gatewayId: string
  buses: GatewayBus[]
  maps: MapChoice[]
}

export interface FoundUnit {
  unit: number
  manufacturer?: string
  model?: string
  serial?: string
  firmware?: string
  identifiedVia?: string
  suggestedMaps: string[]
  detail: string
}

export interface ScanResult {
  bus: string
  from: number
  to: number
  elapsedMs: number
  units: FoundUnit[]
  /** Unit ids that did not answer at all (timeout); 0 from a hub that does not count them. */
  silent: number
  /** Unit ids the gateway reported absent (Modbus exception 0x0A/0x0B): not devices. */
  gatewayAbsent: number
}

export interface ProbedValue {
  metric: string
  value?: number
  text?: string
  unit: string
}

export interface ProbeResult {
  unit: number
  map: string
  fits: boolean
  missing: string[]
  status?: string
  warnings: string[]
  values: ProbedValue[]
}

export interface AddedDevice {
  deviceId: string
  kind: string
  sn: string
  message: string
}

export interface AddDeviceRequest {
  stationId: string
  bus: string
  unit: number
  map: string
  name: string
  sn: string
  intervalMs?: number
  /** The registry's other fields (a meter's `meterRole`, `ctRatio`, `ptRatio`). */
  fields?: Record<string, unknown>
}

/** A scan waits for every silent unit id's timeouts: give it the server's own limit. */
export const scanTimeoutMs = (from: number, to: number) =>
  Math.min(15 * 60, 25 + 3 * (to - from + 1)) * 1000

export async function gatewayBuses(stationId: string): Promise<GatewayBuses> {
  const res = await request.get<Envelope<GatewayBuses>>('/station/gateway/commission/buses', {
    params: { stationId },
  })
  return res.data.data
}

export async function scanBus(
  stationId: string,
  bus: string,
  from: number,
  to: number,
): Promise<ScanResult> {
  const res = await request.post<Envelope<ScanResult>>(
    '/station/gateway/commission/scan',
    { stationId, bus, from, to },
    { timeout: scanTimeoutMs(from, to) },
  )
  const s = res.data.data
  return { ...s, silent: s.silent ?? 0, gatewayAbsent: s.gatewayAbsent ?? 0 }
}

export async function probeUnit(
  stationId: string,
  bus: string,
  unit: number,
  map: string,
): Promise<ProbeResult> {
  const res = await request.post<Envelope<ProbeResult>>('/station/gateway/commission/probe', {
    stationId,
    bus,
    unit,
    map,
  })
  return res.data.data
}

export async function addDevice(body: AddDeviceRequest): Promise<AddedDevice> {
  const res = await request.post<Envelope<AddedDevice>>('/station/gateway/commission/device', body)
  return res.data.data
}
