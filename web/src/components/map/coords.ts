/** Latitude/longitude checks of the location picker (WGS-84 degrees, as the server stores them). */

/** The server keeps 6 decimals (about 0.1 m). */
export const COORD_DECIMALS = 6

export interface LatLng {
  latitude?: number | null
  longitude?: number | null
}

export type CoordProblem = 'latitudeRange' | 'longitudeRange' | 'bothOrNone' | null

const decimalsOf = (value: number) => {
  const text = String(value)
  if (/e/i.test(text)) return COORD_DECIMALS + 1
  const dot = text.indexOf('.')
  return dot < 0 ? 0 : text.length - dot - 1
}

const blank = (v: number | null | undefined): v is null | undefined => v === null || v === undefined

/** A latitude within −90…90 with at most 6 decimals. */
export const validLatitude = (v: number) =>
  Number.isFinite(v) && v >= -90 && v <= 90 && decimalsOf(v) <= COORD_DECIMALS

/** A longitude within −180…180 with at most 6 decimals. */
export const validLongitude = (v: number) =>
  Number.isFinite(v) && v >= -180 && v <= 180 && decimalsOf(v) <= COORD_DECIMALS

/**
 * The first problem of a location: out of range, or only one of the two given (a half location
 * cannot be put on a map). An empty location is fine: it is optional.
 */
export function locationProblem(value: LatLng | undefined | null): CoordProblem {
  const lat = value?.latitude
  const lng = value?.longitude
  if (!blank(lat) && !validLatitude(lat)) return 'latitudeRange'
  if (!blank(lng) && !validLongitude(lng)) return 'longitudeRange'
  if (blank(lat) !== blank(lng)) return 'bothOrNone'
  return null
}

/** A clicked map position → stored degrees (rounded to 6 decimals, longitude wrapped to ±180). */
export function roundedLocation(lat: number, lng: number): Required<LatLng> {
  const wrapped = ((((lng + 180) % 360) + 360) % 360) - 180
  const round = (v: number) => Math.round(v * 10 ** COORD_DECIMALS) / 10 ** COORD_DECIMALS
  return { latitude: round(Math.max(-90, Math.min(90, lat))), longitude: round(wrapped) }
}
