/**
 * The bundled base map: province outlines of China (`assets/geo/china-provinces.json`, see its
 * README for source and licence), loaded on first use as a chunk of its own so pages without a
 * map never download it. Shared by the location picker and the maps of stations.
 */
import { queryOptions } from '@tanstack/react-query'
import type { FeatureCollection, MultiPolygon, Polygon } from 'geojson'

export interface ProvinceProps {
  /** GB/T 2260 code, as the region API and a station's provinceCode. */
  code: string
  name: string
  nameEn: string
}

export type ChinaProvinces = FeatureCollection<Polygon | MultiPolygon, ProvinceProps>

/**
 * The bundled outlines (their own chunk), loaded once per page load; a failed chunk load is
 * tried again at the next use (the network came back).
 */
export const chinaProvincesQuery = () =>
  queryOptions({
    queryKey: ['map', 'chinaProvinces'],
    queryFn: () =>
      import('../../assets/geo/china-provinces.json').then(
        (module) => module.default as unknown as ChinaProvinces,
      ),
    staleTime: Infinity,
    refetchOnWindowFocus: false,
  })

/** [south, west], [north, east] of mainland China and its islands, for the initial view. */
export const chinaBounds: [[number, number], [number, number]] = [
  [17, 73],
  [54, 135],
]
