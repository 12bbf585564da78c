/**
 * Live values without reloading the page: a query polled every `intervalMs` through the query
 * client (`refetchInterval`), one call at a time. While the tab is hidden it pauses (no calls from
 * a background tab); when the tab shows again it reloads at once if the data is older than the
 * interval (stale after one interval), then keeps the rhythm. A new query key (another station)
 * starts without the old data, so a screen never shows one station's figures under another's
 * name; a failed refresh keeps the data shown and reports `error` (the screen shows its own
 * "stale" hint, so the query client does not toast it).
 */
import { useQuery, type QueryKey, type UseQueryOptions } from '@tanstack/react-query'
import { useSyncExternalStore } from 'react'

/** Refresh period of the live screens (s → ms): 15 s, inside the 10–30 s operators expect. */
export const LIVE_INTERVAL_MS = 15_000

export interface LiveOptions {
  /** false: no calls (no station chosen yet...). Default true. */
  enabled?: boolean
  /** Default `LIVE_INTERVAL_MS`. */
  intervalMs?: number
}

export interface Live<T> {
  /** The newest answer for the current key (kept while a later refresh fails). */
  data: T | undefined
  /** The last failure, cleared by the next success. */
  error: unknown
  /** Nothing answered yet for this key. */
  loading: boolean
  /** Epoch ms of the newest answer. */
  updatedAt: number | undefined
  /** Epoch ms the last call finished (answer or failure), null before the first. */
  lastRun: number | null
  /** The tab is hidden: no calls until it shows. */
  paused: boolean
  /** Loads now (unless a call is in flight). */
  refresh: () => void
}

const hidden = () => typeof document !== 'undefined' && document.visibilityState === 'hidden'
const onVisibility = (change: () => void) => {
  document.addEventListener('visibilitychange', change)
  return () => document.removeEventListener('visibilitychange', change)
}

/** Whether the tab is hidden, following its changes. */
export function usePageHidden(): boolean {
  return useSyncExternalStore(onVisibility, hidden, () => false)
}

export function useLive<T, K extends QueryKey>(
  query: UseQueryOptions<T, Error, T, K>,
  { enabled = true, intervalMs = LIVE_INTERVAL_MS }: LiveOptions = {},
): Live<T> {
  const result = useQuery({
    ...query,
    enabled,
    refetchInterval: intervalMs,
    staleTime: intervalMs,
    meta: { ownErrorState: true },
  })
  const paused = usePageHidden()
  const lastRun = Math.max(result.dataUpdatedAt, result.errorUpdatedAt)
  const { refetch } = result
  return {
    data: result.data,
    error: result.error ?? undefined,
    loading: enabled && result.isPending,
    updatedAt: result.dataUpdatedAt > 0 ? result.dataUpdatedAt : undefined,
    lastRun: lastRun > 0 ? lastRun : null,
    paused,
    refresh: () => void refetch({ cancelRefetch: false }),
  }
}
