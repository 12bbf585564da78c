/** Tenants and tenant packages (contract "Tenants", "Tenant packages"; platform only). */
import { entityApi } from '../crud'
import request from '../request'
import type { Envelope, Page } from '../types'

export interface Tenant {
  id?: string
  tenantId?: string
  tenantName: string
  domain?: string
  backgroundUrl?: string
  linkman?: string
  contactNumber?: string
  address?: string
  /** -1 = unlimited. */
  accountNumber?: number
  expireTime?: string
  packageId?: string
  packageName?: string
  status?: number
  /** 1: anyone may ask for an account (register-guest); 0 (default): no one. */
  selfRegister?: number
  /** The data source the tenant is bound to (developer tools), if any. */
  datasourceId?: string | null
  createTime?: string
}

export interface TenantPackage {
  id?: string
  packageName: string
  /** Comma-joined menu ids. */
  menuId: string
  remark?: string
}

const tenantBase = '/blade-system/tenant'
export const tenantApi = entityApi<Tenant>({ style: 'blade', base: tenantBase })
export const tenantPackageApi = entityApi<TenantPackage>({
  style: 'blade',
  base: '/blade-system/tenant-package',
})

/** Every live tenant (select boxes). */
export async function tenantSelect(): Promise<{ tenantId: string; tenantName: string }[]> {
  const res = await request.get<Envelope<{ tenantId: string; tenantName: string }[] | null>>(
    `${tenantBase}/select`,
  )
  return res.data.data ?? []
}

/** Account limit (-1 unlimited) and expiry of several tenants at once. */
export async function tenantSetting(
  ids: readonly string[],
  accountNumber: number,
  expireTime: string,
): Promise<void> {
  await request.post<Envelope<unknown>>(`${tenantBase}/setting`, null, {
    params: { ids: ids.join(','), accountNumber, expireTime },
  })
}

/** Binds the tenant to a data source; an empty id unbinds it. */
export async function tenantDatasource(tenantId: string, datasourceId: string): Promise<void> {
  await request.post<Envelope<unknown>>(`${tenantBase}/datasource`, null, {
    params: { tenantId, datasourceId },
  })
}

/** The tenant's package, or null. */
export async function tenantPackageDetail(tenantId: string): Promise<TenantPackage | null> {
  const res = await request.get<Envelope<TenantPackage | null>>(`${tenantBase}/package-detail`, {
    params: { tenantId },
  })
  return res.data.data ?? null
}

/** Sets the tenant's package; an empty id clears it. */
export async function tenantPackageSetting(tenantId: string, packageId: string): Promise<void> {
  await request.post<Envelope<unknown>>(`${tenantBase}/package-setting`, null, {
    params: { tenantId, packageId },
  })
}

/** Every package (the contract has no select call: the list's largest page). */
export async function packageOptions(): Promise<TenantPackage[]> {
  const page: Page<TenantPackage> = await tenantPackageApi.list({ current: 1, size: 200 })
  return page.records
}

export interface Datasource {
  id: string
  name: string
}

/**
 * Data sources to choose from (the developer tools' list, platform only). Silent: the tenant
 * dialog says itself when the list cannot be read.
 */
export async function datasourceOptions(): Promise<Datasource[]> {
  const res = await request.get<Envelope<Page<Datasource> | null>>(
    '/blade-develop/datasource/list',
    {
      params: { current: 1, size: 200 },
      silent: true,
    },
  )
  return res.data.data?.records ?? []
}
