/**
 * The one factory of entity APIs: the CRUD family behind every generic list/form screen, in the
 * two route styles the hub speaks (docs api-conventions "Paging and list filters"):
 *
 * `blade` (the system admin calls, `/blade-system/param`...):
 * - `GET {base}/list?current&size&...filters` → page `{records, total, size, current, pages}`;
 * - `GET {base}/detail?id=ID` → the entity;
 * - `POST {base}/submit` with the entity as JSON: no `id` inserts, an `id` updates;
 * - `POST {base}/remove?ids=1,2,3` deletes every listed id.
 *
 * `rest` (the station domain's registries, `/meter`...):
 * - `GET {base}/page?current&size&...filters` → the same page;
 * - `GET {base}/{id}` → the entity (only with `detail: true`: camera, weather and third-party
 *   accounts have no such call, so their "detail" is the row the last page answered, which holds
 *   the full record there);
 * - `POST {base}` adds, `PUT {base}` changes the fields the body names;
 * - `DELETE {base}/{ids}` with comma-joined ids (or one call per id with `removeEach`).
 *
 * `base` is relative to the request client's `/api` base (a leading `/api` is accepted and
 * dropped). Ids are strings (64-bit on the server). Each API carries `key`, the root of its query
 * keys: the screens' list queries live under it and a change invalidates it.
 */
import request from './request'
import { pageFrom, type Envelope, type Page, type PageQuery } from './types'

export interface Entity {
  id?: string
}

export interface CrudApi<T extends Entity> {
  /** Root of this entity's query keys (`['entity', base]`). */
  readonly key: readonly unknown[]
  // Function-valued properties, not methods: screens pass them around unbound.
  list: (query: PageQuery) => Promise<Page<T>>
  detail: (id: string) => Promise<T>
  submit: (entity: T) => Promise<void>
  remove: (ids: readonly string[]) => Promise<void>
}

export type RouteStyle = 'blade' | 'rest'

export interface EntityApiOptions<T> {
  style: RouteStyle
  base: string
  /** `rest` only: the registry answers `GET {base}/{id}`. */
  detail?: boolean
  /** A wire record → what the form edits (lists as text...). */
  fromWire?: (row: T) => T
  /** A form body → the wire body. */
  toWire?: (body: T) => T
  /** A listed row → what the table shows (numbers as numbers, ids as text...). */
  listRow?: (row: T) => T
  /** `rest` only: one `DELETE {base}/{id}` per id (the first refusal stops and is shown). */
  removeEach?: boolean
}

/** The query-key root of the entity at `base` (also for hand-written APIs of one entity). */
export const entityKey = (base: string): readonly unknown[] => ['entity', base]

export function entityApi<T extends Entity>(options: EntityApiOptions<T>): CrudApi<T> {
  const same = (row: T) => row
  const { style, fromWire = same, toWire = same, listRow } = options
  const root = options.base.replace(/^\/api(?=\/)/, '').replace(/\/+$/, '')
  const key = entityKey(root)
  if (style === 'blade') {
    return {
      key,
      async list(query) {
        const res = await request.get<Envelope<Page<T> | null>>(`${root}/list`, { params: query })
        return pageFrom(res.data.data, query, listRow)
      },
      async detail(id) {
        const res = await request.get<Envelope<T>>(`${root}/detail`, { params: { id } })
        return fromWire(res.data.data)
      },
      async submit(entity) {
        await request.post<Envelope<unknown>>(`${root}/submit`, toWire(entity))
      },
      async remove(ids) {
        await request.post<Envelope<unknown>>(`${root}/remove`, null, {
          params: { ids: ids.join(',') },
        })
      },
    }
  }
  let lastRows: T[] = []
  return {
    key,
    async list(query) {
      const res = await request.get<Envelope<Page<T> | null>>(`${root}/page`, { params: query })
      const page = pageFrom(res.data.data, query, listRow)
      lastRows = page.records
      return page
    },
    async detail(id) {
      if (options.detail) {
        const res = await request.get<Envelope<T>>(`${root}/${encodeURIComponent(id)}`)
        return fromWire(res.data.data)
      }
      const row = lastRows.find((r) => r.id === id)
      if (!row) throw new Error(`no row ${id} on the page`)
      return fromWire(row)
    },
    async submit(entity) {
      const body = toWire(entity)
      if (body.id) await request.put<Envelope<boolean>>(root, body)
      else await request.post<Envelope<string>>(root, body)
    },
    async remove(ids) {
      if (!options.removeEach) {
        await request.delete<Envelope<boolean>>(`${root}/${ids.map(encodeURIComponent).join(',')}`)
        return
      }
      for (const id of ids)
        await request.delete<Envelope<unknown>>(`${root}/${encodeURIComponent(id)}`)
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
