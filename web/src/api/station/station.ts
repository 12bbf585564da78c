/**
 * Stations (`/api/station`). REST-shaped: `POST` adds,
 * `PUT` changes the fields the body names, `DELETE /{id}` removes (with `?confirm=true` when the
 * station still has devices). Server shapes: `cloud/src/station/station.rs`.
 */
import request, { RequestError } from '../request'
import { pageFrom, type Envelope, type Page, type PageQuery } from '../types'

/** `installationStatus`: a station is created commissioning and switched to running once. */
export const COMMISSIONING = '1'
export const RUNNING = '2'

export interface StationImage {
  attachId: string
  link: string
  originalName: string
}

export interface Station {
  id?: string
  name: string
  address?: string | null
  contact?: string | null
  contactPhone?: string | null
  azimuth?: number | null
  inclination?: number | null
  componentCount?: number | null
  /** kWp */
  componentCapacity?: number | null
  /** Minutes east of UTC of the site clock; empty = the hub's timezone. */
  utcOffsetMinutes?: number | null
  /** kW */
  capacity?: number | null
  /** `yyyy-MM-dd HH:mm:ss` */
  gridConnectionTime?: string | null
  installer?: string | null
  installerPhone?: string | null
  ownerId?: string | null
  ownerName?: string | null
  ownerPhone?: string | null
  gatewayId?: string | null
  gatewaySn?: string | null
  remark1?: string | null
  remark2?: string | null
  remark3?: string | null
  /** Dictionary `electricity_price_type`: 1 fixed, 2 peak/valley. */
  electricityPriceType?: string | null
  feedInTariff?: number | null
  /** Dictionaries station_state, station_type, inverter_manufacturer, contribution_way, connected_type. */
  state?: string | null
  stationType?: string | null
  inverterManufacturer?: string | null
  contributionWay?: string | null
  connectedType?: string | null
  /** WGS-84 degrees. */
  latitude?: number | null
  longitude?: number | null
  /** GB/T 2260 codes of the region API. */
  provinceCode?: string | null
  cityCode?: string | null
  districtCode?: string | null
  installationStatus?: string
  createTime?: string
  updateTime?: string | null
  /** Answered with the detail; sent as attach ids. */
  images?: StationImage[]
}

/** What the forms send: the fields, with images as attach ids (the server checks them again). */
export type StationBody = Omit<
  Station,
  'images' | 'installationStatus' | 'createTime' | 'updateTime'
> & {
  images?: string[]
}

/** A light row of `GET /station/list` (selectors, the archive's station list, maps). */
export interface StationLight {
  id: string
  name: string
  installationStatus: string
  state: string
  stationType?: string | null
  capacity?: number | null
  componentCapacity?: number | null
  /** Minutes east of UTC of the site clock; empty = the hub's timezone. */
  utcOffsetMinutes?: number | null
  latitude?: number | null
  longitude?: number | null
  provinceCode?: string | null
  cityCode?: string | null
  districtCode?: string | null
}

export interface NameAndId {
  id: string
  name: string
}

const base = '/station'

export async function stationPage(query: PageQuery): Promise<Page<Station>> {
  const res = await request.get<Envelope<Page<Station> | null>>(`${base}/page`, { params: query })
  return pageFrom(res.data.data, query)
}

export async function stationDetail(id: string): Promise<Station> {
  const res = await request.get<Envelope<Station>>(`${base}/${encodeURIComponent(id)}`)
  return res.data.data
}

/** Adds a station (commissioning); answers its id. */
export async function createStation(body: StationBody): Promise<string> {
  const res = await request.post<Envelope<string>>(base, body)
  return String(res.data.data)
}

export async function updateStation(body: StationBody & { id: string }): Promise<void> {
  await request.put<Envelope<boolean>>(base, body)
}

/**
 * Removes a station. Without `confirm` the server refuses one that still has devices (HTTP 400
 * with a message counting them); the caller asks again and retries with `confirm`. Silent: the
 * caller decides how a refusal is shown (a second question, not an error toast).
 */
export async function removeStation(id: string, confirm = false): Promise<void> {
  await request.delete<Envelope<boolean>>(`${base}/${encodeURIComponent(id)}`, {
    params: confirm ? { confirm: true } : undefined,
    silent: true,
  })
}

/**
 * Commissioning → running; answers the server's message ("after commissioning the station changes
 * to running").
 */
export async function switchStation(id: string): Promise<string> {
  const res = await request.put<Envelope<boolean>>(
    `${base}/switchStation/${encodeURIComponent(id)}`,
    {},
  )
  return res.data.msg
}

export async function stationList(): Promise<StationLight[]> {
  const res = await request.get<Envelope<StationLight[] | null>>(`${base}/list`)
  return res.data.data ?? []
}

export async function stationNamesAndIds(): Promise<NameAndId[]> {
  const res = await request.get<Envelope<NameAndId[] | null>>(`${base}/listStationNameAndId`)
  return res.data.data ?? []
}

/**
 * Uploads one station image to the server's file storage (`put-file`); the station then refers to
 * it by attach id. The server checks type and count again when the station is saved.
 */
export async function uploadStationImage(file: File): Promise<StationImage> {
  const form = new FormData()
  form.append('file', file)
  const res = await request.post<
    Envelope<{ attachId: string; link: string; originalName: string }>
  >('/blade-resource/oss/endpoint/put-file', form, { upload: true })
  const data = res.data.data
  return { attachId: String(data.attachId), link: data.link, originalName: data.originalName }
}

/** What the first delete's refusal means for the console (pure; see the delete flow). */
export type DeleteOutcome =
  | { kind: 'done' }
  | { kind: 'confirmDevices'; message: string }
  | { kind: 'failed'; message: string }

/**
 * A delete without `confirm` that the server refused with 400 means the station still has devices
 * (the only 400 of a one-id delete): ask again with the server's message. Anything else failed.
 */
export function deleteOutcome(error: unknown, confirmed: boolean): DeleteOutcome {
  if (error === undefined) return { kind: 'done' }
  const message = error instanceof Error ? error.message : JSON.stringify(error)
  if (!confirmed && error instanceof RequestError && error.code === 400) {
    return { kind: 'confirmDevices', message }
  }
  return { kind: 'failed', message }
}
