/** Query keys and queries of the analytics domain (string dispersion, generation hours). */
import { queryOptions } from '@tanstack/react-query'
import { formSeed } from '../queryClient'
import { dispersionList, getDispersionSetting } from './discreteRate'
import { getHdaySetting, hdayPage, type HdayFilter } from './hdayRate'

export const analyticsKeys = {
  dispersion: ['dispersion'] as const,
  hday: ['hdayRate'] as const,
}

export const dispersionQuery = (stationId: string, day?: string) =>
  queryOptions({
    queryKey: [...analyticsKeys.dispersion, 'list', stationId, day ?? null],
    queryFn: () => dispersionList(stationId, day),
  })

/**
 * A settings form's seed, read again each time the dialog opens (the dialog stays mounted while
 * closed, so "fresh on open" is a stale query re-enabled).
 */
const settingSeed = { ...formSeed, staleTime: 0 } as const

export const dispersionSettingQuery = () =>
  queryOptions({
    queryKey: [...analyticsKeys.dispersion, 'setting'],
    queryFn: getDispersionSetting,
    ...settingSeed,
  })

export const hdayPageQuery = (filter: HdayFilter) =>
  queryOptions({
    queryKey: [...analyticsKeys.hday, 'page', filter],
    queryFn: () => hdayPage(filter),
  })

export const hdaySettingQuery = () =>
  queryOptions({
    queryKey: [...analyticsKeys.hday, 'setting'],
    queryFn: getHdaySetting,
    ...settingSeed,
  })
