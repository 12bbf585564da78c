/**
 * A station's gateway (`cloud/src/station/gateway.rs`): its MQTT credentials (the password is
 * answered once, at issue; issuing again rotates it) and the generated edge configuration.
 */
import request from '../request'
import type { Envelope } from '../types'
import { download, type Download } from './excel'

export interface GatewayInfo {
  stationId: string
  stationName: string
  gatewayId?: string | null
  gatewaySn?: string | null
  /** Whether credentials exist for the station's current gateway id. */
  credentialsIssued: boolean
  /** `yyyy-MM-dd HH:mm:ss` */
  issuedAt?: string | null
  /** Where the gateway reads its password. */
  passwordFile: string
  /** Encoding of its newest telemetry, once any arrived. */
  uplinkEncoding?: 'json' | 'binary' | null
  /** Telemetry payload bytes received per sample. */
  uplinkBytesPerSample?: number | null
}

/** The only answer that ever carries the password. */
export interface IssuedCredentials {
  gatewayId: string
  username: string
  password: string
  issuedAt: string
  passwordFile: string
  /** The server's "shown only this once" notice, in the console's language. */
  notice: string
}

export async function gatewayInfo(stationId: string): Promise<GatewayInfo> {
  const res = await request.get<Envelope<GatewayInfo>>('/station/gateway', {
    params: { stationId },
  })
  return res.data.data
}

export async function issueCredentials(stationId: string): Promise<IssuedCredentials> {
  const res = await request.post<Envelope<IssuedCredentials>>(
    '/station/gateway/credentials',
    null,
    {
      params: { stationId },
    },
  )
  return res.data.data
}

/** The gateway's `pv-edge.toml` (never holds the password). */
export const gatewayConfig = (stationId: string): Promise<Download> =>
  download('/station/gateway/config', `pv-edge-${stationId}.toml`, { stationId })
