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
  remark?: string | null
}

export const thirdSecrets = ['password'] as const

/** The record for the edit form: the stored password is never shown. */
export const thirdFromWire = (row: InverterThird): InverterThird => {
  const out = { ...row }
  delete out.password
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
  'id' | 'platform' | 'account' | 'stationId' | 'stationName'
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
