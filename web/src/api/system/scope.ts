/** Data scopes and API scopes (contract "Data scopes", "API scopes"; platform data). */
import { entityApi } from '../crud'

export interface DataScope {
  id?: string
  menuId: string
  resourceCode: string
  scopeName: string
  /** `create_user` or `create_dept`. */
  scopeColumn: string
  /** 1 all, 2 own rows, 3 own dept, 4 own dept and below, 5 custom (scopeValue). */
  scopeType: number
  /** Comma-joined dept ids (type 5). */
  scopeValue?: string
  remark?: string
}

export interface ApiScope {
  id?: string
  menuId: string
  resourceCode: string
  scopeName: string
  /** `/api/...`; a trailing `/**` matches a prefix. */
  scopePath: string
  /** 1 any method, 2 GET, 3 POST, 4 PUT, 5 DELETE. */
  scopeType: number
  remark?: string
}

export const dataScopeApi = entityApi<DataScope>({
  style: 'blade',
  base: '/blade-system/data-scope',
})
export const apiScopeApi = entityApi<ApiScope>({ style: 'blade', base: '/blade-system/api-scope' })
