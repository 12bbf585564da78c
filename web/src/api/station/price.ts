/**
 * Station price history (`/api/stationPrice`, server `cloud/src/station/price.rs`): a price per
 * kWh from an effective date on; the price in force is the latest effective date not after today.
 */
import { entityApi } from '../crud'
import request from '../request'
import type { Envelope } from '../types'
import { type DeviceRow } from './device'

export interface StationPrice extends DeviceRow {
  /** `yyyy-MM-dd`. */
  effectiveDate?: string
  price?: number
  remark?: string | null
}

export const stationPriceApi = entityApi<StationPrice>({
  style: 'rest',
  base: '/stationPrice',
  detail: true,
})

/** The price in force now, or null when the station has none yet. */
export async function getLastPrice(stationId: string): Promise<StationPrice | null> {
  const res = await request.get<Envelope<StationPrice | null>>('/stationPrice/getLastPrice', {
    params: { stationId },
  })
  return res.data.data ?? null
}
