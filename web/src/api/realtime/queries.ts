/**
 * Query keys and queries of live data (home map, dashboard, big screen, a station live, inverters
 * live, trackers live). The screens poll them with `useLive` (`hooks/useLive.ts`); every query
 * passes the query's abort signal on, so a screen that goes away cancels its calls.
 */
import { queryOptions } from '@tanstack/react-query'
import { flexRealtime, flexSensorDay } from './flex'
import {
  deviceRealCurve,
  deviceRealList,
  type DeviceCurveQuery,
  type LiveDeviceKind,
} from './deviceReal'
import { fleet, provinceStats, revenueCurrency } from './home'
import {
  inverterRealList,
  waveDay,
  waveNames,
  type CurveQuery,
  type InverterRealQuery,
} from './inverterReal'
import { fleetPowerCurve, remarkClockShifts, stationOverview, stationPowerCurve } from './station'
import type { DeviceLive } from './types'

export const realtimeKeys = {
  all: ['realtime'] as const,
}

const key = (...parts: unknown[]) => [...realtimeKeys.all, ...parts]

/** The fleet's totals and stations (home map, big screen). */
export const fleetQuery = () =>
  queryOptions({ queryKey: key('fleet'), queryFn: ({ signal }) => fleet(signal) })

/** The fleet with its statistics by province (the fleet console). */
export const fleetConsoleQuery = () =>
  queryOptions({
    queryKey: key('fleetConsole'),
    queryFn: async ({ signal }) => {
      const [f, provinces] = await Promise.all([fleet(signal), provinceStats(signal)])
      return { ...f, provinces }
    },
  })

/** One station live (its row, its place on the map, its devices). */
export const stationLiveQuery = (id: string) =>
  queryOptions({
    queryKey: key('station', id),
    queryFn: ({ signal }) => stationOverview(id, signal),
  })

/** A station's power curve of today, from the given inverters. */
export const stationCurveQuery = (id: string, inverters: readonly DeviceLive[]) =>
  queryOptions({
    queryKey: key(
      'stationCurve',
      id,
      inverters.map((d) => d.id),
    ),
    queryFn: ({ signal }) => stationPowerCurve(inverters, undefined, signal),
  })

/** The fleet's power curve of today (W), from its inverters. */
export const fleetCurveQuery = () =>
  queryOptions({
    queryKey: key('fleetCurve'),
    queryFn: ({ signal }) => fleetPowerCurve(signal),
  })

/** One page of inverters live. */
export const inverterLiveQuery = (query: InverterRealQuery) =>
  queryOptions({
    queryKey: key('inverters', query),
    queryFn: ({ signal }) => inverterRealList(query, signal),
  })

/** The metrics a wave chart may offer for the given inverters (or the station's). */
export const waveNamesQuery = (inverterIds: string[], stationId?: string) =>
  queryOptions({
    queryKey: key('waveNames', inverterIds, stationId ?? null),
    queryFn: ({ signal }) => waveNames({ inverterIds, stationId }, signal),
  })

/** Day curves of chosen metrics of chosen inverters. */
export const waveQuery = (query: CurveQuery) =>
  queryOptions({ queryKey: key('wave', query), queryFn: ({ signal }) => waveDay(query, signal) })

/** A station's trackers live. */
export const trackerLiveQuery = (stationId: string) =>
  queryOptions({
    queryKey: key('trackers', stationId),
    queryFn: ({ signal }) => flexRealtime(stationId, signal),
  })

/** A tracker sensor's curves of a day. */
export const sensorDayQuery = (sensorId: string, day?: string) =>
  queryOptions({
    queryKey: key('sensorDay', sensorId, day ?? null),
    queryFn: ({ signal }) => flexSensorDay(sensorId, day, signal),
  })

/**
 * The shifted clocks announced in the stations' remarks: read when a screen opens, not on every
 * refresh nor when the window regains focus (remarks change rarely).
 */
export const clockShiftsQuery = () =>
  queryOptions({
    queryKey: key('clockShifts'),
    queryFn: remarkClockShifts,
    refetchOnWindowFocus: false,
  })

/** A station's weather stations and meters live (all of them, or one kind). */
export const deviceRealQuery = (stationId: string, kind?: LiveDeviceKind) =>
  queryOptions({
    queryKey: key('deviceReal', stationId, kind ?? null),
    queryFn: ({ signal }) => deviceRealList(stationId, kind, signal),
  })

/** Day curves of a weather station's or meter's metrics. */
export const deviceCurveQuery = (query: DeviceCurveQuery) =>
  queryOptions({
    queryKey: key('deviceCurve', query),
    queryFn: ({ signal }) => deviceRealCurve(query, signal),
  })

/**
 * The currency of the revenue figures (a tenant setting): read once a screen needs it, kept for
 * ten minutes.
 */
export const revenueCurrencyQuery = () =>
  queryOptions({
    queryKey: key('revenueCurrency'),
    queryFn: ({ signal }) => revenueCurrency(signal),
    staleTime: 600_000,
    refetchOnWindowFocus: false,
  })
