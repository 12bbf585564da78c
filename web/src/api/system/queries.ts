/** Query keys and queries of the system domain (dictionaries, menus, regions). */
import { queryOptions } from '@tanstack/react-query'
import { formSeed } from '../queryClient'
import request from '../request'
import type { Envelope } from '../types'
import { getDictionary } from './dict'
import {
  grantTopTree,
  grantTree,
  grantTreeApp,
  roleTreeKeys,
  roleTreeKeysApp,
  topTreeKeys,
} from './menuAdmin'
import { getTopMenu } from './menu'
import { datasourceApi } from '../develop/datasource'
import { regionChildren } from './region'
import { roleTree } from './role'
import {
  datasourceOptions,
  packageOptions,
  tenantApi,
  tenantPackageApi,
  tenantPackageDetail,
} from './tenant'

export const systemKeys = {
  dictionaries: ['dictionary'] as const,
  menus: ['menu'] as const,
  regions: ['region'] as const,
}

/**
 * Dictionary entries for select boxes (`GET dict/dictionary?code=`), fetched once per code and
 * page load: the many selects of the admin screens share a handful of dictionaries that change
 * rarely. A failed fetch keeps nothing, so the next use tries again.
 */
export const dictionaryQuery = (code: string) =>
  queryOptions({
    queryKey: [...systemKeys.dictionaries, code],
    queryFn: () => getDictionary(code),
    staleTime: Infinity,
  })

/** The web grant of roles: the trees and what the roles hold. */
export const roleGrantQuery = (roleIds: readonly string[]) =>
  queryOptions({
    queryKey: [...systemKeys.menus, 'grant', roleIds],
    queryFn: () => Promise.all([grantTree(), roleTreeKeys(roleIds)]),
  })

/** The app grant of roles: the app menu tree and what the roles hold. */
export const roleGrantAppQuery = (roleIds: readonly string[]) =>
  queryOptions({
    queryKey: [...systemKeys.menus, 'grantApp', roleIds],
    queryFn: () => Promise.all([grantTreeApp(), roleTreeKeysApp(roleIds)]),
  })

/** The menus top menus may lead to, and what the given top menus hold. */
export const topMenuGrantQuery = (topMenuIds: readonly string[]) =>
  queryOptions({
    queryKey: [...systemKeys.menus, 'grantTop', topMenuIds],
    queryFn: () => Promise.all([grantTopTree(), topTreeKeys(topMenuIds)]),
  })

/** The children of a region (`region/lazy-list`). */
export const regionChildrenQuery = (parentCode: string) =>
  queryOptions({
    queryKey: [...systemKeys.regions, 'children', parentCode],
    queryFn: () => regionChildren(parentCode),
  })

/** The name of a region code (`region/detail`); the code itself when it cannot be read. */
export const regionNameQuery = (code: string) =>
  queryOptions({
    queryKey: [...systemKeys.regions, 'name', code],
    queryFn: () =>
      request
        .get<Envelope<{ name: string }>>('/blade-system/region/detail', {
          params: { code },
          silent: true,
        })
        .then((res) => res.data.data.name)
        .catch(() => code),
  })

/** The role tree to grant from. */
export const roleTreeQuery = () =>
  queryOptions({ queryKey: ['role', 'tree'], queryFn: () => roleTree() })

/** The top menus of the top bar. */
export const topMenuQuery = () =>
  queryOptions({ queryKey: [...systemKeys.menus, 'top'], queryFn: getTopMenu })

/** Every tenant package to choose from (the tenant's package dialog). */
export const packageOptionsQuery = () =>
  queryOptions({ queryKey: [...tenantPackageApi.key, 'options'], queryFn: packageOptions })

/**
 * The package a tenant has, null for none (`tenant/package-detail`): seeds the package dialog,
 * fresh each time it opens. Under the tenant key, so a change of tenants invalidates it.
 */
export const tenantPackageQuery = (tenantId: string) =>
  queryOptions({
    queryKey: [...tenantApi.key, 'package', tenantId],
    queryFn: () => tenantPackageDetail(tenantId),
    ...formSeed,
  })

/** Data sources to choose from; a failure is not toasted (the dialog says there is none). */
export const datasourceOptionsQuery = () =>
  queryOptions({
    // Under the data source list's key: a change on the data source page makes it stale.
    queryKey: [...datasourceApi.key, 'options'],
    queryFn: datasourceOptions,
    meta: { ownErrorState: true },
  })
