/** Query keys and queries of the inspection domain. */
import { queryOptions } from '@tanstack/react-query'
import type { PageQuery } from '../types'
import {
  alarmDayList,
  cyclePeriodList,
  itemList,
  itemPage,
  maintenanceList,
  planDetail,
  planPage,
  recordDetail,
  recordPage,
  taskDetail,
  taskPage,
} from './inspection'

export const inspectionKeys = {
  all: ['inspection'] as const,
  items: ['inspection', 'item'] as const,
  plans: ['inspection', 'plan'] as const,
  tasks: ['inspection', 'task'] as const,
  records: ['inspection', 'record'] as const,
}

export const itemPageQuery = (query: PageQuery) =>
  queryOptions({
    queryKey: [...inspectionKeys.items, 'page', query],
    queryFn: () => itemPage(query),
  })

export const itemListQuery = () =>
  queryOptions({ queryKey: [...inspectionKeys.items, 'list'], queryFn: itemList })

export const planPageQuery = (query: PageQuery) =>
  queryOptions({
    queryKey: [...inspectionKeys.plans, 'page', query],
    queryFn: () => planPage(query),
  })

export const planDetailQuery = (id: string) =>
  queryOptions({ queryKey: [...inspectionKeys.plans, 'detail', id], queryFn: () => planDetail(id) })

export const cyclePeriodQuery = () =>
  queryOptions({
    queryKey: [...inspectionKeys.plans, 'cyclePeriods'],
    queryFn: cyclePeriodList,
    staleTime: Infinity,
  })

export const alarmDayQuery = () =>
  queryOptions({
    queryKey: [...inspectionKeys.plans, 'alarmDays'],
    queryFn: alarmDayList,
    staleTime: Infinity,
  })

export const maintenanceQuery = (stationIds: readonly string[]) =>
  queryOptions({
    queryKey: [...inspectionKeys.plans, 'maintenance', [...stationIds].sort().join(',')],
    queryFn: () => maintenanceList(stationIds),
  })

export const taskPageQuery = (query: PageQuery) =>
  queryOptions({
    queryKey: [...inspectionKeys.tasks, 'page', query],
    queryFn: () => taskPage(query),
  })

export const taskDetailQuery = (id: string) =>
  queryOptions({ queryKey: [...inspectionKeys.tasks, 'detail', id], queryFn: () => taskDetail(id) })

export const recordPageQuery = (query: PageQuery) =>
  queryOptions({
    queryKey: [...inspectionKeys.records, 'page', query],
    queryFn: () => recordPage(query),
  })

export const recordDetailQuery = (id: string) =>
  queryOptions({
    queryKey: [...inspectionKeys.records, 'detail', id],
    queryFn: () => recordDetail(id),
  })
