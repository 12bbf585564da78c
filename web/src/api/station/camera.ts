/**
 * Cameras (`/api/camera`, server `cloud/src/station/device/camera.rs`). The app key is write-only
 * (answered as `appKeySet`; blank on update keeps it). The live view is an address the server
 * builds from the brand's configured template; brands without one are refused with a message.
 */
import { entityApi } from '../crud'
import request from '../request'
import type { Envelope } from '../types'
import { dictListOptions, withoutBlankSecrets, type DeviceRow } from './device'

export interface Camera extends DeviceRow {
  /** Dictionary `camera_brand`. */
  cameraType?: string
  name?: string
  sn?: string
  channel?: number | null
  verificationCode?: string | null
  applicationKey?: string | null
  /** Write-only. */
  appKey?: string
  appKeySet?: boolean
  remark?: string | null
}

export const cameraSecrets = ['appKey'] as const

export const cameraApi = entityApi<Camera>({
  style: 'rest',
  base: '/camera',
  fromWire: (row) => {
    const out = { ...row }
    delete out.appKey
    return out
  },
  toWire: (body) => withoutBlankSecrets(body, cameraSecrets),
})

export const listCameraTypeOptions = () => dictListOptions('/camera/listCameraType')

/**
 * The live-view address of a camera. Silent: a brand without a configured address is a normal
 * answer the live dialog explains itself, not an error toast.
 */
export async function cameraLiveUrl(id: string): Promise<string> {
  const res = await request.get<Envelope<string>>('/camera/live/web/url', {
    params: { id },
    silent: true,
  })
  return res.data.data
}
