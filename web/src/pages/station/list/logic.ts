/** The station form's logic, free of React: image checks, form ↔ wire values, list filters. */
import dayjs, { type Dayjs } from 'dayjs'
import type { Station, StationBody, StationImage } from '../../../api/station/station'
import type { PageQuery } from '../../../api/types'
import { wireDateTime } from '../../../components/crud/logic'
import type { LatLng } from '../../../components/map/coords'

/** Spec §5/§9: a station has at most 5 images, jpg or png. */
export const MAX_IMAGES = 5
const imageTypes = ['image/jpeg', 'image/png']

export type ImageProblem = 'stationUi.image.tooMany' | 'stationUi.image.badType'

/** jpg/jpeg/png by name; a browser that names the type must name one of those too. */
export const isStationImage = (file: { name: string; type: string }) =>
  /\.(jpe?g|png)$/i.test(file.name) && (file.type === '' || imageTypes.includes(file.type))

/**
 * Whether `files` may be added to `current` images: every file must be a jpg/png, and the total
 * stay within 5. A refused selection uploads nothing (the messages are the server's, which checks
 * again on save).
 */
export function checkImages(
  current: number,
  files: readonly { name: string; type: string }[],
): ImageProblem | null {
  if (files.some((file) => !isStationImage(file))) return 'stationUi.image.badType'
  if (current + files.length > MAX_IMAGES) return 'stationUi.image.tooMany'
  return null
}

/** A new station is normal (dictionary station_state 1), as the server defaults it. */
export const DEFAULT_STATE = '1'

/** Fields of the form that are plain values on the wire. */
export const plainFields = [
  'name',
  'address',
  'contact',
  'contactPhone',
  'azimuth',
  'inclination',
  'componentCount',
  'componentCapacity',
  'capacity',
  'utcOffsetMinutes',
  'installer',
  'installerPhone',
  'ownerId',
  'ownerName',
  'ownerPhone',
  'gatewayId',
  'gatewaySn',
  'remark1',
  'remark2',
  'remark3',
  'electricityPriceType',
  'feedInTariff',
  'state',
  'stationType',
  'inverterManufacturer',
  'contributionWay',
  'connectedType',
] as const satisfies readonly (keyof StationBody)[]

export type PlainField = (typeof plainFields)[number]

export type StationFormValues = Partial<Record<PlainField, string | number | null>> & {
  gridConnectionTime?: Dayjs | null
  /** [province, city, district] codes, as far as chosen. */
  region?: string[]
  location?: LatLng
  images?: StationImage[]
}

const blank = (value: unknown) =>
  value === undefined || value === null || (typeof value === 'string' && value.trim() === '')

/** A station from the server → the form's values. */
export function toFormValues(station: Partial<Station> | undefined): StationFormValues {
  const values: StationFormValues = {}
  if (!station) return values
  if (!station.id) values.state = DEFAULT_STATE
  for (const field of plainFields) {
    const value = station[field]
    if (!blank(value)) values[field] = value
  }
  if (station.gridConnectionTime) {
    const time = dayjs(station.gridConnectionTime, wireDateTime)
    if (time.isValid()) values.gridConnectionTime = time
  }
  values.region = [station.provinceCode, station.cityCode, station.districtCode].filter(
    (code): code is string => !blank(code),
  )
  values.location = { latitude: station.latitude ?? null, longitude: station.longitude ?? null }
  values.images = station.images ?? []
  return values
}

/**
 * The form's values → the body of `POST`/`PUT /station`. Every field is sent, empty ones as null,
 * so an update also clears what the user emptied; text is trimmed; images go as attach ids.
 */
export function toBody(values: StationFormValues, id?: string): StationBody {
  const body: Record<string, unknown> = {}
  for (const field of plainFields) {
    const value = values[field]
    body[field] = blank(value) ? null : typeof value === 'string' ? value.trim() : value
  }
  body.gridConnectionTime = values.gridConnectionTime?.isValid()
    ? values.gridConnectionTime.format(wireDateTime)
    : null
  const [province, city, district] = values.region ?? []
  body.provinceCode = province ?? null
  body.cityCode = city ?? null
  body.districtCode = district ?? null
  body.latitude = values.location?.latitude ?? null
  body.longitude = values.location?.longitude ?? null
  body.images = (values.images ?? []).map((image) => image.attachId)
  // The state column cannot be emptied (the server keeps its default, normal): never send null.
  if (body.state === null) delete body.state
  if (id) body.id = id
  return body as StationBody
}

/** The list's search values → filters of `/station/page` (and of the export). */
export function stationFilters(search: Record<string, unknown>): PageQuery {
  const query: PageQuery = {}
  for (const [key, value] of Object.entries(search)) {
    if (key === 'region') {
      const codes = Array.isArray(value) ? (value as string[]) : []
      // The deepest chosen level: regionCode matches a station at any level.
      if (codes.length > 0) query.regionCode = codes[codes.length - 1]
      continue
    }
    if (typeof value === 'string' && value.trim() !== '') query[key] = value.trim()
    else if (typeof value === 'number') query[key] = value
  }
  return query
}

/** Dictionary codes of the station's selects (the `list*` calls answer the same dictionaries). */
export const stationDicts = {
  state: 'station_state',
  stationType: 'station_type',
  inverterManufacturer: 'inverter_manufacturer',
  contributionWay: 'contribution_way',
  connectedType: 'connected_type',
  electricityPriceType: 'electricity_price_type',
} as const
