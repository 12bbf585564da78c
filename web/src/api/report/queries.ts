/** Query keys and queries of the report domain. */
import { queryOptions } from '@tanstack/react-query'
import { formSeed } from '../queryClient'
import { fetchReport, getReportSetting, stationInverters, type ReportRequest } from './report'

export const reportKeys = {
  all: ['report'] as const,
  setting: ['report', 'setting'] as const,
}

/** One report answer, keyed by exactly what is asked (path and params). */
export const reportQuery = <T>(r: ReportRequest) =>
  queryOptions({
    queryKey: [...reportKeys.all, r.path, r.params],
    queryFn: () => fetchReport<T>(r),
  })

export const reportSettingQuery = () =>
  queryOptions({ queryKey: reportKeys.setting, queryFn: getReportSetting })

/** The settings form's seed, read fresh each time it opens. */
export const reportSettingSeedQuery = () =>
  queryOptions({
    queryKey: [...reportKeys.setting, 'form'],
    queryFn: getReportSetting,
    ...formSeed,
    staleTime: 0,
  })

export const stationInvertersQuery = (stationId: string) =>
  queryOptions({
    queryKey: [...reportKeys.all, 'inverters', stationId],
    queryFn: () => stationInverters(stationId),
  })
