/**
 * Electricity price of a station (`PUT /api/electricPrice`, `GET
 * /api/electricPrice/getByStationId/{id}`, server `cloud/src/station/electric_price.rs`): a fixed
 * price, or time-of-use versions by effective date, each covering the whole day with segments.
 */
import request from '../request'
import type { Envelope } from '../types'

/** Dictionary `electricity_price_type`. */
export const FIXED = '1'
export const PEAK_VALLEY = '2'

export interface PriceSegment {
  /** `HH:mm`. */
  startTime: string
  /** `HH:mm`, up to `24:00`. */
  endTime: string
  /** Dictionary `price_segment_type`: 1 sharp, 2 peak, 3 flat, 4 valley. */
  type: string
  price: number
}

export interface DatedSchedule {
  /** `yyyy-MM-dd`. */
  effectiveDate: string
  segments: PriceSegment[]
}

export interface ElectricPrice {
  stationId: string
  priceType?: string | null
  fixedPrice?: number | null
  schedules: DatedSchedule[]
}

export interface ElectricPriceForm {
  stationId: string
  priceType: string
  fixedPrice?: number | null
  effectiveDate?: string | null
  schedules: DatedSchedule[]
}

export async function getElectricPrice(stationId: string): Promise<ElectricPrice> {
  const res = await request.get<Envelope<ElectricPrice>>(
    `/electricPrice/getByStationId/${encodeURIComponent(stationId)}`,
  )
  return { ...res.data.data, schedules: res.data.data.schedules ?? [] }
}

export async function saveElectricPrice(form: ElectricPriceForm): Promise<void> {
  await request.put<Envelope<boolean>>('/electricPrice', form)
}
