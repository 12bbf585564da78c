/**
 * What the device and price registries of the station domain share (`cloud/src/station/device`):
 * REST-shaped calls (`entityApi({ style: 'rest' })` of `../crud`), write-only secrets
 * (answered only as `{name}Set`, blank on update = keep), the dictionary lists behind the select
 * boxes and the register maps a device may name.
 */
import type { Entity } from '../crud'
import request from '../request'
import type { Envelope } from '../types'
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
