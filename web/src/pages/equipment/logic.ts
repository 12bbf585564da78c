/** The overview's pure parts: each device's live page, tag colours, the table's sort wire. */
import type { Equipment, EquipmentSort, EquipmentStatus, KindSummary } from '../../api/equipment'
import { overviewPath } from '../realtime/station/path'

/**
 * Where a device's live values are: inverters on 逆变器实时 (its station, its SN as the search),
 * trackers on 跟踪支架实时, meters, weather stations and cameras on their station's overview.
 */
export function livePath(e: Pick<Equipment, 'kind' | 'stationId' | 'sn'>): string {
  const station = encodeURIComponent(e.stationId)
  switch (e.kind) {
    case 'inverter':
      return `/station/inverterReal?stationId=${station}&keyword=${encodeURIComponent(e.sn)}`
    case 'tracker':
      return `/flex/realTime?stationId=${station}`
    default:
      return overviewPath(e.stationId)
  }
}

export const statusColor: Record<EquipmentStatus, string> = {
  online: 'green',
  offline: 'default',
  fault: 'red',
  withheld: 'orange',
  never: 'default',
  unknown: 'default',
}

/** The statuses a summary card lists: those with devices, in the list's order. */
export function summaryParts(k: KindSummary): [EquipmentStatus, number][] {
  const parts: [EquipmentStatus, number][] = [
    ['online', k.online],
    ['offline', k.offline],
    ['fault', k.fault],
    ['withheld', k.withheld],
    ['never', k.never],
    ['unknown', k.unknown],
  ]
  return parts.filter(([, n]) => n > 0)
}

/** antd's sorter answer → the hub's `sort` / `order` (none: the default order). */
export function sortOf(
  field: unknown,
  order: 'ascend' | 'descend' | null | undefined,
): { sort?: EquipmentSort; order?: 'asc' | 'desc' } {
  if (!order || typeof field !== 'string') return {}
  return { sort: field as EquipmentSort, order: order === 'descend' ? 'desc' : 'asc' }
}
