import request from '../request'
import type { Envelope } from '../types'

export interface Health {
  status: string
  version: string
  database: string
  uptimeSeconds: number
  /** The demo's tenant id while the demo runs (the sign-in form offers it). */
  demoTenant?: string
}

/** `GET /api/health`: liveness of the hub and its database. Public (no token needed). */
export async function getHealth(): Promise<Health> {
  const res = await request.get<Envelope<Health>>('/health')
  return res.data.data
}
