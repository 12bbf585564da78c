/**
 * Energy meters (`/api/meter`, server `cloud/src/station/device/meter.rs`): role (dictionary
 * `meter_role`: grid, generation, consumption), CT and PT ratios (energy is multiplied by both),
 * register map and bus address.
 */
import { entityApi } from '../crud'
import { type DeviceRow } from './device'

export interface Meter extends DeviceRow {
  name?: string
  meterRole?: string
  sn?: string
  ctRatio?: number
  ptRatio?: number
  gatewayId?: string | null
  mapModel?: string | null
  unitId?: number | null
  modbusAddress?: string | null
  remark?: string | null
}

export const meterApi = entityApi<Meter>({
  style: 'rest',
  base: '/meter',
  detail: true,
})
