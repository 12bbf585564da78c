/** Query keys and queries of the station domain (stations, gateways, prices, brackets). */
import { queryOptions } from '@tanstack/react-query'
import type { PageQuery } from '../types'
import { pageAssignment } from './assignment'
import { listMapModels, type MapModelKind } from './device'
import { getElectricPrice } from './electricPrice'
import { getFlexEditData, listFlex, listFlexStations } from './flex'
import { gatewayInfo } from './gateway'
import { getLastPrice } from './price'
import { stationDetail, stationList, stationNamesAndIds, stationPage } from './station'

export const stationKeys = {
  /** Everything about stations: a change of one reloads what shows them. */
  all: ['station'] as const,
  prices: ['price'] as const,
  flex: ['flex'] as const,
  assignments: ['stationAssignment'] as const,
}

const key = (...parts: unknown[]) => [...stationKeys.all, ...parts]

export const stationPageQuery = (query: PageQuery) =>
  queryOptions({ queryKey: key('page', query), queryFn: () => stationPage(query) })

export const stationListQuery = () => queryOptions({ queryKey: key('list'), queryFn: stationList })

export const stationDetailQuery = (id: string) =>
  queryOptions({ queryKey: key('detail', id), queryFn: () => stationDetail(id) })

/** The caller's stations by name (selects). */
export const stationNamesQuery = () =>
  queryOptions({ queryKey: key('namesAndIds'), queryFn: stationNamesAndIds })

export const gatewayQuery = (stationId: string) =>
  queryOptions({ queryKey: key('gateway', stationId), queryFn: () => gatewayInfo(stationId) })

export const electricPriceQuery = (stationId: string) =>
  queryOptions({
    queryKey: [...stationKeys.prices, 'electric', stationId],
    queryFn: () => getElectricPrice(stationId),
  })

export const lastPriceQuery = (stationId: string) =>
  queryOptions({
    queryKey: [...stationKeys.prices, 'last', stationId],
    queryFn: () => getLastPrice(stationId),
  })

/** The bracket of one station (null: none yet). */
export const flexEditQuery = (stationId: string) =>
  queryOptions({
    queryKey: [...stationKeys.flex, 'edit', stationId],
    queryFn: () => getFlexEditData(stationId),
  })

/** Every bracket, with the stations that may have one. */
export const flexOverviewQuery = () =>
  queryOptions({
    queryKey: [...stationKeys.flex, 'overview'],
    queryFn: () => Promise.all([listFlexStations(), listFlex()]),
  })

/** The register maps a device of this kind may name. */
export const mapModelsQuery = (kind: MapModelKind) =>
  queryOptions({ queryKey: ['mapModel', kind], queryFn: () => listMapModels(kind) })

export const assignmentPageQuery = (query: PageQuery) =>
  queryOptions({
    queryKey: [...stationKeys.assignments, query],
    queryFn: () => pageAssignment(query),
  })
