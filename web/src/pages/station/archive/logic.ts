import type { StationLight } from '../../../api/station/station'

/** Stations whose name contains `text` (case-insensitive); all for an empty text. */
export const matchStations = (stations: readonly StationLight[], text: string) => {
  const wanted = text.trim().toLowerCase()
  return wanted === ''
    ? [...stations]
    : stations.filter((s) => s.name.toLowerCase().includes(wanted))
}
