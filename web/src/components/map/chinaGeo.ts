/**
 * The bundled base map: province outlines of China (`assets/geo/china-provinces.json`, see its
 * README for source and licence), loaded on first use as a chunk of its own so pages without a
 * map never download it. Shared by the location picker and the maps of stations.
 */
import type { FeatureCollection, MultiPolygon, Polygon } from 'geojson'

export interface ProvinceProps {
  /** GB/T 2260 code, as the region API and a station's provinceCode. */
  code: string
  name: string
  nameEn: string
}

export type ChinaProvinces = FeatureCollection<Polygon | MultiPolygon, ProvinceProps>

let loading: Promise<ChinaProvinces> | null = null

export function loadChinaProvinces(): Promise<ChinaProvinces> {
  if (!loading) {
    loading = import('../../assets/geo/china-provinces.json').then(
      (module) => module.default as unknown as ChinaProvinces,
    )
    // A failed chunk load may succeed later (the network came back).
    loading.catch(() => {
      loading = null
    })
  }
  return loading
}

/** [south, west], [north, east] of mainland China and its islands, for the initial view. */
export const chinaBounds: [[number, number], [number, number]] = [
  [17, 73],
  [54, 135],
]
