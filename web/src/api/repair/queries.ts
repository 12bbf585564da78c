/** Query keys and queries of the repair domain. */
import { queryOptions } from '@tanstack/react-query'
import {
  getRepairSetting,
  maintenanceUsers,
  repairDetail,
  repairPage,
  repairStats,
  repairStatusList,
  type RepairQuery,
} from './repair'

export const repairKeys = {
  /** Everything an action on an order can change (pages, details, stats). */
  all: ['repair'] as const,
}

export const repairPageQuery = (query: RepairQuery) =>
  queryOptions({
    queryKey: [...repairKeys.all, 'page', query],
    queryFn: () => repairPage(query),
  })

export const repairDetailQuery = (id: string) =>
  queryOptions({
    queryKey: [...repairKeys.all, 'detail', id],
    queryFn: () => repairDetail(id),
  })

export const repairStatsQuery = (stationId?: string) =>
  queryOptions({
    queryKey: [...repairKeys.all, 'stats', stationId ?? ''],
    queryFn: () => repairStats(stationId),
  })

export const repairStatusQuery = () =>
  queryOptions({
    queryKey: ['repairStatuses'],
    queryFn: repairStatusList,
    staleTime: Infinity,
  })

export const repairSettingQuery = () =>
  queryOptions({ queryKey: [...repairKeys.all, 'setting'], queryFn: getRepairSetting })

export const maintenanceQuery = () =>
  queryOptions({ queryKey: ['maintenanceUsers'], queryFn: maintenanceUsers })
