/**
 * What the device and price registries of the station domain share (`cloud/src/station/device`):
 * REST-shaped calls (`GET {base}/page`, `GET {base}/{id}`, `POST {base}` adds, `PUT {base}` changes
 * the fields the body names, `DELETE {base}/{ids}` with comma-joined ids), write-only secrets
 * (answered only as `{name}Set`, blank on update = keep), the dictionary lists behind the select
 * boxes and the register maps a device may name.
 */
import type { CrudApi, Entity } from '../crud'
import request from '../request'
import type { Envelope, Page, PageQuery } from '../types'
import type { TextOption } from '../../components/crud/types'
import i18n from '../../locales/i18n'

/** The fields every device row carries (`to_json` of the server). */
export interface DeviceRow extends Entity {
  stationId?: string | null
  stationName?: string | null
  createTime?: string
  updateTime?: string | null
}

/** A dictionary entry as the `list*` calls answer it. */
export interface DictItem {
  dictKey: string
  dictValue: string
  dictValueEn?: string | null
}

/** The label of an entry in the console's language (the English text when it has one). */
export const dictLabel = (item: DictItem, language: string = i18n.language): string =>
  language === 'en' && item.dictValueEn ? item.dictValueEn : item.dictValue

export const dictItemOptions = (items: readonly DictItem[], language?: string): TextOption[] =>
  items.map((item) => ({ value: item.dictKey, label: dictLabel(item, language) }))

/** `GET {path}` answering dictionary entries (`/inverter/listDeviceType`...), as options. */
export async function dictListOptions(path: string): Promise<TextOption[]> {
  const res = await request.get<Envelope<DictItem[] | null>>(path)
  return dictItemOptions(res.data.data ?? [])
}

/** A register map a device may name (`GET /station/listMapModel?kind=`). */
export interface MapModel {
  id: string
  kind: string
  manufacturer: string
  model: string
}

export type MapModelKind = 'inverter' | 'meter' | 'weather' | 'tracker'

export async function listMapModels(kind: MapModelKind): Promise<MapModel[]> {
  const res = await request.get<Envelope<MapModel[] | null>>('/station/listMapModel', {
    params: { kind },
  })
  return res.data.data ?? []
}

/** Register maps as options: the id is what the server checks; the label says what it is. */
export const mapModelOptions = (maps: readonly MapModel[]): TextOption[] =>
  maps.map((map) => ({ value: map.id, label: `${map.manufacturer} ${map.model} (${map.id})` }))

export const loadMapModelOptions = (kind: MapModelKind) => async () =>
  mapModelOptions(await listMapModels(kind))

/**
 * A submit body without the write-only fields left blank: the server keeps the stored secret when
 * the field is absent, whereas a blank value would be refused or, worse, taken as a new value.
 */
export function withoutBlankSecrets<T extends object>(body: T, secrets: readonly string[]): T {
  const out = { ...body } as Record<string, unknown>
  for (const name of secrets) {
    const value = out[name]
    if (value === undefined || value === null || (typeof value === 'string' && value.trim() === ''))
      delete out[name]
  }
  return out as T
}

export interface RestApiOptions<T> {
  /** The registry answers `GET {base}/{id}`; without it a row of the last page is the record. */
  detail?: boolean
  /** A wire record → what the form edits (lists as text...). */
  fromWire?: (row: T) => T
  /** A form body → the wire body. */
  toWire?: (body: T) => T
}

const emptyPage = <T>(query: PageQuery): Page<T> => ({
  records: [],
  total: 0,
  size: Number(query.size ?? 10),
  current: Number(query.current ?? 1),
  pages: 0,
})

/**
 * A REST-shaped registry as the generic CRUD screen's API family. Camera, weather and third-party
 * accounts have no single-record call on the server, so their "detail" is the row the page
 * answered (the page rows are the full records there).
 */
export function restApi<T extends Entity>(
  base: string,
  options: RestApiOptions<T> = {},
): CrudApi<T> {
  const { fromWire = (row: T) => row, toWire = (body: T) => body } = options
  let lastRows: T[] = []
  return {
    async list(query) {
      const res = await request.get<Envelope<Page<T> | null>>(`${base}/page`, { params: query })
      const data = res.data.data ?? emptyPage<T>(query)
      lastRows = data.records ?? []
      return { ...data, records: lastRows, total: Number(data.total ?? 0) }
    },
    async detail(id) {
      if (options.detail) {
        const res = await request.get<Envelope<T>>(`${base}/${encodeURIComponent(id)}`)
        return fromWire(res.data.data)
      }
      const row = lastRows.find((r) => r.id === id)
      if (!row) throw new Error(`no row ${id} on the page`)
      return fromWire(row)
    },
    async submit(entity) {
      const body = toWire(entity)
      if (body.id) await request.put<Envelope<boolean>>(base, body)
      else await request.post<Envelope<string>>(base, body)
    },
    async remove(ids) {
      await request.delete<Envelope<boolean>>(`${base}/${ids.map(encodeURIComponent).join(',')}`)
    },
  }
}
