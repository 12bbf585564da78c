/** User administration (contract "Users"): users, owners, maintenance staff. */
import { entityKey, wholePage, type CrudApi } from '../crud'
import request from '../request'
import { pageFrom, type Envelope, type Page, type PageQuery } from '../types'

export interface User {
  id?: string
  tenantId?: string
  account: string
  name?: string
  realName: string
  email?: string
  phone?: string
  birthday?: string
  sex?: number
  /** Comma-joined ids. */
  roleId: string
  deptId: string
  postId?: string
  /** Comma-joined names (read). */
  roleName?: string
  deptName?: string
  userType?: number
  /** 1 active, 2 pending approval. */
  status?: number
  companyName?: string
  avatar?: string
  createTime?: string
  /** Plain text on create only; the server checks and hashes them. */
  password?: string
  password2?: string
}

export interface Owner {
  id?: string
  companyName?: string
  account: string
  realName: string
  phone?: string
  avatar?: string
  /** Plain text, longer than 6 characters. */
  password?: string
}

export interface MaintenanceUser {
  id: string
  account: string
  realName: string
  phone?: string
  roleName?: string
}

const base = '/blade-user'

async function page<T>(path: string, query: PageQuery): Promise<Page<T>> {
  const res = await request.get<Envelope<Page<T> | null>>(path, { params: query })
  return pageFrom(res.data.data, query)
}

async function detail<T>(id: string): Promise<T> {
  const res = await request.get<Envelope<T>>(`${base}/detail`, { params: { id } })
  return res.data.data
}

const post = async (path: string, params: Record<string, string>, body: unknown = null) => {
  await request.post<Envelope<unknown>>(`${base}/${path}`, body, { params })
}

async function remove(ids: readonly string[]): Promise<void> {
  await post('remove', { ids: ids.join(',') })
}

/** Users: add is `submit` (with the passwords), edit is `update` (without). */
export const userApi: CrudApi<User> = {
  key: entityKey(base),
  list: (query) => page<User>(`${base}/page`, query),
  detail: (id) => detail<User>(id),
  async submit(user) {
    await request.post<Envelope<unknown>>(`${base}/${user.id ? 'update' : 'submit'}`, user)
  },
  remove,
}

/** Owners (role alias `owner`): `saveOwner` both creates and updates. */
export const ownerApi: CrudApi<Owner> = {
  key: [...entityKey(base), 'owner'],
  list: (query) => page<Owner>(`${base}/pageOwner`, query),
  detail: (id) => detail<Owner>(id),
  async submit(owner) {
    await request.post<Envelope<unknown>>(`${base}/saveOwner`, owner)
  },
  remove,
}

const contains = (value: string | undefined, filter: unknown) =>
  typeof filter !== 'string' ||
  filter === '' ||
  (value ?? '').toLowerCase().includes(filter.toLowerCase())

/**
 * Maintenance staff (role alias `maintenance`): `listMaintenance` answers every one at once, so
 * the search filters and the paging are applied here. Changes go through the user calls.
 */
export const personnelApi: CrudApi<User> = {
  ...userApi,
  key: [...entityKey(base), 'maintenance'],
  async list(query) {
    const res = await request.get<Envelope<MaintenanceUser[] | null>>(`${base}/listMaintenance`)
    const rows = wholePage(res.data.data).records.filter(
      (row) => contains(row.account, query.account) && contains(row.realName, query.realName),
    )
    const size = Number(query.size ?? 10)
    const current = Number(query.current ?? 1)
    return {
      records: rows.slice((current - 1) * size, current * size) as unknown as User[],
      total: rows.length,
      size,
      current,
      pages: Math.ceil(rows.length / size),
    }
  },
}

const ids = (userIds: readonly string[]) => ({ userIds: userIds.join(',') })

export const grantUsers = (userIds: readonly string[], roleIds: readonly string[]) =>
  post('grant', { ...ids(userIds), roleIds: roleIds.join(',') })
export const resetPassword = (userIds: readonly string[]) => post('reset-password', ids(userIds))
export const unlockUsers = (userIds: readonly string[]) => post('unlock', ids(userIds))
export const auditPass = (userIds: readonly string[]) => post('audit-pass', ids(userIds))
export const auditRefuse = (userIds: readonly string[]) => post('audit-refuse', ids(userIds))
