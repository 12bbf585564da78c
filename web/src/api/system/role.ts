/** Roles (contract "Roles"; tenant-scoped). */
import { arrayList, entityApi, type CrudApi } from '../crud'
import request from '../request'
import type { TreeNode } from '../tree'
import type { Envelope } from '../types'

export interface Role {
  id?: string
  tenantId?: string
  parentId?: string
  parentName?: string
  roleName: string
  roleAlias: string
  sort: number
  hasChildren?: boolean
  children?: Role[]
}

const base = '/blade-system/role'

/** `role/list` answers the whole (filtered) tree. */
export const roleApi: CrudApi<Role> = {
  ...entityApi<Role>({ style: 'blade', base }),
  list: arrayList<Role>(`${base}/list`),
}

export async function roleTree(tenantId?: string): Promise<TreeNode[]> {
  const res = await request.get<Envelope<TreeNode[] | null>>(`${base}/tree`, {
    params: tenantId ? { tenantId } : undefined,
  })
  return res.data.data ?? []
}

export interface RoleGrant {
  roleIds: string[]
  menuIds: string[]
  dataScopeIds: string[]
  apiScopeIds: string[]
}

/** Replaces the roles' web menus, data scopes and API scopes. */
export async function grantRoles(grant: RoleGrant): Promise<void> {
  await request.post<Envelope<unknown>>(`${base}/grant`, grant)
}

/** Replaces the roles' app menus (the scope lists go empty, as the contract asks). */
export async function grantRolesApp(roleIds: string[], menuIds: string[]): Promise<void> {
  await request.post<Envelope<unknown>>(`${base}/grant-app`, {
    roleIds,
    menuIds,
    dataScopeIds: [],
    apiScopeIds: [],
  })
}
