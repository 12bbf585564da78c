/**
 * The China province map for echarts, from the bundled base map (`components/map/chinaGeo`),
 * registered once under the name `china` on first use.
 */
import { loadChinaProvinces } from '../map/chinaGeo'
import { echarts } from './echarts'

export const CHINA_MAP = 'china'

let registered: Promise<void> | null = null

export function ensureChinaMap(): Promise<void> {
  if (!registered) {
    registered = loadChinaProvinces().then((geo) => {
      echarts.registerMap(CHINA_MAP, geo)
    })
    registered.catch(() => {
      registered = null
    })
  }
  return registered
}
