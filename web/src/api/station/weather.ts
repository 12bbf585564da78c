/**
 * Weather stations (`/api/weather`, server `cloud/src/station/device/weather.rs`): at most one per
 * station; the server refuses a second with 每个电站最多只能添加一个气象站.
 */
import { entityApi } from '../crud'
import { type DeviceRow } from './device'

export interface Weather extends DeviceRow {
  name?: string
  sn?: string
  gatewayId?: string | null
  mapModel?: string | null
  unitId?: number | null
  modbusAddress?: string | null
  remark?: string | null
}

export const weatherApi = entityApi<Weather>({ style: 'rest', base: '/weather' })
