/** OAuth clients (contract "Clients"; platform only). */
import { entityApi } from '../crud'

export interface Client {
  id?: string
  clientId: string
  /** Write-only: sent when set, never answered. */
  clientSecret?: string
  scope?: string
  authorizedGrantTypes: string
  webServerRedirectUri?: string
  accessTokenValidity: number
  refreshTokenValidity: number
}

export const clientApi = entityApi<Client>({ style: 'blade', base: '/blade-system/client' })
