/**
 * Accounts on inverter vendors' clouds (`/api/inverterThird`, server
 * `cloud/src/station/device/inverter_third.rs`). The password is write-only: never answered (only
 * `passwordSet`), required when adding, and left out of an update when blank so the stored one stays.
 */
import { entityApi } from '../crud'
import request from '../request'
import type { Envelope } from '../types'
import { withoutBlankSecrets, type DeviceRow } from './device'

export interface InverterThird extends DeviceRow {
  /** Dictionary `inverter_manufacturer`. */
  platform?: string
  account?: string
  /** Write-only. */
  password?: string
  /** Whether a password is stored. */
  passwordSet?: boolean
  apiUrl?: string | null
  /** iSolarCloud: the app key of the developer account. */
  appKey?: string | null
  /** iSolarCloud: the x-access-key; write-only like the password. */
  accessKey?: string
  accessKeySet?: boolean
  remark?: string | null
  /** How polling the account goes (server `vendor::poller`). */
  pollState?: PollState
}

export type PollState = 'ok' | 'auth_failed' | 'throttled' | 'unreachable' | 'idle'

export const thirdSecrets = ['password', 'accessKey'] as const

/** The record for the edit form: the stored password is never shown. */
export const thirdFromWire = (row: InverterThird): InverterThird => {
  const out = { ...row }
  delete out.password
  delete out.accessKey
  return out
}

export const thirdToWire = (body: InverterThird): InverterThird =>
  withoutBlankSecrets(body, thirdSecrets)

export const inverterThirdApi = entityApi<InverterThird>({
  style: 'rest',
  base: '/inverterThird',
  fromWire: thirdFromWire,
  toWire: thirdToWire,
})

export type ThirdAccount = Pick<
  InverterThird,
  'id' | 'platform' | 'account' | 'stationId' | 'stationName' | 'pollState'
>

export async function listThirdAccount(stationId?: string): Promise<ThirdAccount[]> {
  const res = await request.get<Envelope<ThirdAccount[] | null>>(
    '/inverterThird/listThirdAccount',
    {
      params: stationId ? { stationId } : undefined,
    },
  )
  return res.data.data ?? []
}

/** A plant of a vendor account and where it is mapped (`GET /inverterThird/plants`). */
export interface VendorPlant {
  plantId: string
  name: string
  capacityKwp: number | null
  address: string | null
  stationId: string | null
  stationName: string | null
  deviceCount: number
  /** Samples before this time are stored, while mapped. */
  backfilledUntil: string | null
  /** How much of the current mapping's backfill is done, 0 to 100. */
  backfillPercent: number | null
}

/**
 * The account's plants. Without `cached` the server asks the vendor first (plants and devices);
 * with it, it answers what it stored (the dialog's progress refresh).
 */
export async function listVendorPlants(id: string, cached = false): Promise<VendorPlant[]> {
  const res = await request.get<Envelope<VendorPlant[] | null>>('/inverterThird/plants', {
    params: cached ? { id, cached: true } : { id },
  })
  return res.data.data ?? []
}

/** Maps a plant to a station (`null` unmaps: its devices stay, polling stops). */
export async function mapVendorPlant(
  id: string,
  plantId: string,
  stationId: string | null,
): Promise<void> {
  await request.post<Envelope<boolean>>('/inverterThird/map', { id, plantId, stationId })
}

export interface PollStatus {
  state: PollState
  lastOk: string | null
  lastError: string | null
  errorSince: string | null
  pausedUntil: string | null
  requestsToday: number
  limits: { requestsPerMinute: number; requestsPerDay: number | null }
  plants: number
  mappedPlants: number
}

export async function vendorStatus(id: string): Promise<PollStatus> {
  const res = await request.get<Envelope<PollStatus>>('/inverterThird/status', { params: { id } })
  return res.data.data
}
