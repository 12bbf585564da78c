/**
 * Inverters (`/api/inverter`, server `cloud/src/station/device/inverter.rs`). Modules per string
 * travel as a list of numbers (answered as an array, accepted as an array or "20,20,18"); the form
 * edits them as comma-separated text.
 */
import { entityApi } from '../crud'
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

export const inverterApi = entityApi<Inverter>({
  style: 'rest',
  base: '/inverter',
  detail: true,
  fromWire: inverterFromWire,
  toWire: inverterToWire,
})

export const listDeviceTypeOptions = () => dictListOptions('/inverter/listDeviceType')
export const listManufacturerOptions = () => dictListOptions('/inverter/listManufacturer')
