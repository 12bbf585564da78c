/**
 * Data sources of the developer tools (`/api/blade-develop/datasource`, docs/develop.md): the
 * databases models read their tables from. Platform only.
 */
import { entityApi } from '../crud'
import request from '../request'
import type { Envelope, Page } from '../types'

/** 1 a SQLite file in the hub's `datasources/` folder, 2 PostgreSQL. */
export type DatasourceCategory = 1 | 2

export interface Datasource {
  id?: string
  name: string
  category: DatasourceCategory
  /** SQLite: a file name (`spare.db`); PostgreSQL: `postgres://host:port/database`. */
  url: string
  username?: string | null
  /** Write-only: never answered; blank on edit keeps the stored one. */
  password?: string | null
  /** Whether a password is stored (answers carry this instead of the password). */
  passwordSet?: boolean
  remark?: string | null
  createTime?: string
}

/** A blank password means "keep the stored one" (or none): it is left out rather than sent empty. */
function withoutBlankPassword(row: Datasource): Datasource {
  const copy = { ...row }
  delete copy.passwordSet
  if (copy.password === undefined || copy.password === null || copy.password === '')
    delete copy.password
  return copy
}

export const datasourceApi = entityApi<Datasource>({
  style: 'blade',
  base: '/blade-develop/datasource',
  toWire: withoutBlankPassword,
})

/** Every data source (selects: the model's, the tenant's): the list's largest page. */
export async function datasourceList(): Promise<Datasource[]> {
  const page: Page<Datasource> = await datasourceApi.list({ current: 1, size: 200 })
  return page.records
}

export interface ConnectionTest {
  id?: string
  category: number
  url: string
  username?: string | null
  password?: string | null
}

export interface ConnectionInfo {
  /** `SQLite 3.46.0`, `PostgreSQL 16.4 …`. */
  version: string
  tables: number
}

export type ConnectionResult = { ok: true; info: ConnectionInfo } | { ok: false; message: string }

/**
 * Tries the connection the form describes (with an `id` and no password, the stored password).
 * Silent: the caller shows the server's own text (`连接失败：…`), success or not.
 */
export async function testConnection(form: ConnectionTest): Promise<ConnectionResult> {
  const body: ConnectionTest = { category: form.category, url: form.url }
  if (form.id) body.id = form.id
  if (form.username) body.username = form.username
  if (form.password) body.password = form.password
  try {
    const res = await request.post<Envelope<ConnectionInfo>>(
      '/blade-develop/datasource/test',
      body,
      { silent: true },
    )
    return { ok: true, info: res.data.data }
  } catch (error) {
    // The envelope's msg (the database's own error), or the network failure's text.
    return { ok: false, message: error instanceof Error ? error.message : String(error) }
  }
}
