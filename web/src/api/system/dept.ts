/** Departments (contract "Departments"; tenant-scoped). */
import { arrayList, entityApi, type CrudApi } from '../crud'
import request from '../request'
import type { TreeNode } from '../tree'
import type { Envelope } from '../types'

export interface Dept {
  id?: string
  tenantId?: string
  parentId?: string
  parentName?: string
  deptName: string
  fullName: string
  /** Dictionary org_category: 1 company, 2 department, 3 team. */
  deptCategory: number
  sort: number
  remark?: string
  hasChildren?: boolean
  children?: Dept[]
}

const base = '/blade-system/dept'

/** `dept/list` answers the whole (filtered) tree. */
export const deptApi: CrudApi<Dept> = {
  ...entityApi<Dept>({ style: 'blade', base }),
  list: arrayList<Dept>(`${base}/list`),
}

export async function deptTree(tenantId?: string): Promise<TreeNode[]> {
  const res = await request.get<Envelope<TreeNode[] | null>>(`${base}/tree`, {
    params: tenantId ? { tenantId } : undefined,
  })
  return res.data.data ?? []
}
