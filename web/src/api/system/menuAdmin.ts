/** Menu administration and the grant trees (contract "Menus", "Top menus", "Roles"). */
import { arrayList, entityApi, filtersOf, type CrudApi } from '../crud'
import request from '../request'
import type { TreeNode } from '../tree'
import type { Envelope } from '../types'

export interface Menu {
  id?: string
  parentId?: string
  parentName?: string
  code: string
  name: string
  nameEn?: string
  alias?: string
  path?: string
  source?: string
  sort: number
  /** 1 menu, 2 button. */
  category: number
  action?: number
  /** 1 no, 2 yes. */
  isOpen?: number
  remark?: string
  hasChildren?: boolean
  children?: Menu[]
}

const base = '/blade-system/menu'

async function getData<T>(path: string, params?: Record<string, string>): Promise<T> {
  const res = await request.get<Envelope<T>>(path, { params })
  return res.data.data
}

export async function menuLazyList(parentId: string): Promise<Menu[]> {
  return (await getData<Menu[] | null>(`${base}/lazy-list`, { parentId })) ?? []
}

/**
 * Menus: without filters the table starts from the top level and loads children on expand
 * (`lazy-list?parentId=0`); a search asks the whole filtered tree (`list`).
 */
export const menuApi: CrudApi<Menu> = {
  ...entityApi<Menu>({ style: 'blade', base }),
  async list(query) {
    const filters = filtersOf(query)
    const filtered = Object.values(filters).some((value) => value !== undefined && value !== '')
    if (filtered) return arrayList<Menu>(`${base}/list`)(query)
    return arrayList<Menu>(`${base}/lazy-list`)({ parentId: '0' })
  },
}

/** Category-1 menus as tree nodes (parent pickers, package menus). */
export const menuTree = async (): Promise<TreeNode[]> =>
  (await getData<TreeNode[] | null>(`${base}/tree`)) ?? []

export interface GrantTree {
  menu: TreeNode[]
  dataScope: TreeNode[]
  apiScope: TreeNode[]
}

export interface GrantKeys {
  menu: string[]
  dataScope: string[]
  apiScope: string[]
}

export async function grantTree(): Promise<GrantTree> {
  const data = await getData<Partial<GrantTree> | null>(`${base}/grant-tree`)
  return {
    menu: data?.menu ?? [],
    dataScope: data?.dataScope ?? [],
    apiScope: data?.apiScope ?? [],
  }
}

export async function roleTreeKeys(roleIds: readonly string[]): Promise<GrantKeys> {
  const data = await getData<Partial<GrantKeys> | null>(`${base}/role-tree-keys`, {
    roleIds: roleIds.join(','),
  })
  return {
    menu: (data?.menu ?? []).map(String),
    dataScope: (data?.dataScope ?? []).map(String),
    apiScope: (data?.apiScope ?? []).map(String),
  }
}

export async function grantTreeApp(): Promise<TreeNode[]> {
  return (await getData<{ menu?: TreeNode[] } | null>(`${base}/grant-tree-app`))?.menu ?? []
}

export async function roleTreeKeysApp(roleIds: readonly string[]): Promise<string[]> {
  const data = await getData<{ menu?: string[] } | null>(`${base}/role-tree-keys-app`, {
    roleIds: roleIds.join(','),
  })
  return (data?.menu ?? []).map(String)
}

export async function grantTopTree(): Promise<TreeNode[]> {
  return (await getData<TreeNode[] | null>(`${base}/grant-top-tree`)) ?? []
}

export async function topTreeKeys(topMenuIds: readonly string[]): Promise<string[]> {
  const data = await getData<string[] | null>(`${base}/top-tree-keys`, {
    topMenuIds: topMenuIds.join(','),
  })
  return (data ?? []).map(String)
}
