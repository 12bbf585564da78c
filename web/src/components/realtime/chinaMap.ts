/**
 * The China province map for echarts, from the bundled base map (`components/map/chinaGeo`),
 * registered once under the name `china` on first use (a failed load is tried again next time).
 */
import { queryOptions } from '@tanstack/react-query'
import { queryClient } from '../../api/queryClient'
import { chinaProvincesQuery } from '../map/chinaGeo'
import { echarts } from './echarts'

export const CHINA_MAP = 'china'

export const chinaMapQuery = () =>
  queryOptions({
    queryKey: ['map', 'echartsChina'],
    queryFn: async () => {
      echarts.registerMap(CHINA_MAP, await queryClient.fetchQuery(chinaProvincesQuery()))
      return CHINA_MAP
    },
    staleTime: Infinity,
    refetchOnWindowFocus: false,
  })
