/**
 * The list/detail/submit/remove family of the system admin calls (spec §7 "System admin",
 * docs api-conventions "Paging and list filters"):
 *
 * - `GET {base}/list?current&size&...filters` → page `{records, total, size, current, pages}`;
 * - `GET {base}/detail?id=ID` → the entity;
 * - `POST {base}/submit` with the entity as JSON: no `id` inserts, an `id` updates;
 * - `POST {base}/remove?ids=1,2,3` deletes every listed id.
 *
 * `base` is relative to the request client's `/api` base, e.g. `/blade-system/param`
 * (a leading `/api` is accepted and dropped). Ids are strings (64-bit on the server).
 */
import request from './request'
import type { Envelope, Page, PageQuery } from './types'

export interface Entity {
  id?: string
}

export interface CrudApi<T extends Entity> {
  // Function-valued properties, not methods: screens pass them around unbound.
  list: (query: PageQuery) => Promise<Page<T>>
  detail: (id: string) => Promise<T>
  submit: (entity: T) => Promise<void>
  remove: (ids: readonly string[]) => Promise<void>
}

const emptyPage = <T>(query: PageQuery): Page<T> => ({
  records: [],
  total: 0,
  size: Number(query.size ?? 10),
  current: Number(query.current ?? 1),
  pages: 0,
})

export function crudApi<T extends Entity>(base: string): CrudApi<T> {
  const root = base.replace(/^\/api(?=\/)/, '').replace(/\/+$/, '')
  return {
    async list(query) {
      const res = await request.get<Envelope<Page<T> | null>>(`${root}/list`, { params: query })
      const page = res.data.data ?? emptyPage<T>(query)
      return { ...page, records: page.records ?? [], total: Number(page.total ?? 0) }
    },
    async detail(id) {
      const res = await request.get<Envelope<T>>(`${root}/detail`, { params: { id } })
      return res.data.data
    },
    async submit(entity) {
      await request.post<Envelope<unknown>>(`${root}/submit`, entity)
    },
    async remove(ids) {
      await request.post<Envelope<unknown>>(`${root}/remove`, null, {
        params: { ids: ids.join(',') },
      })
    },
  }
}

/** An array answer (tree lists, flat lists) as one page holding every row. */
export const wholePage = <T>(rows: readonly T[] | null | undefined): Page<T> => {
  const records = [...(rows ?? [])]
  return { records, total: records.length, size: records.length, current: 1, pages: 1 }
}

/** Drops the paging params a non-paged list call does not take. */
export const filtersOf = (query: PageQuery): PageQuery => {
  const filters = { ...query }
  delete filters.current
  delete filters.size
  return filters
}

/**
 * `GET {path}` answering a plain array (tree lists such as `dept/list`, flat lists), as a page of
 * every row. The search filters are passed on; paging is not.
 */
export function arrayList<T>(path: string): (query: PageQuery) => Promise<Page<T>> {
  return async (query) => {
    const res = await request.get<Envelope<T[] | null>>(path, { params: filtersOf(query) })
    return wholePage(res.data.data)
  }
}
