/**
 * Live values without reloading the page: runs `task` at once, then every `intervalMs`, one run at
 * a time (a slow answer delays the next run instead of piling calls up). While the tab is hidden it
 * pauses (no calls from a background tab); when the tab shows again it runs at once if the last run
 * is older than the interval, then keeps the rhythm.
 *
 * `task` may change between renders (the newest one runs); changing `intervalMs` or `enabled`
 * reschedules. `refresh()` runs now (a button, a changed filter) and restarts the interval.
 */
import { useCallback, useEffect, useRef, useState } from 'react'

export interface PollingOptions {
  /** false: no runs (no station chosen yet...). Default true. */
  enabled?: boolean
  /** A change (another station, another day) starts over: run at once, then the interval. */
  key?: string
}

export interface Polling {
  /** Runs the task now (unless a run is in flight) and restarts the interval. */
  refresh: () => void
  /** The tab is hidden: no runs until it shows. */
  paused: boolean
  /** Epoch ms the last run finished, null before the first. */
  lastRun: number | null
}

const hidden = () => typeof document !== 'undefined' && document.visibilityState === 'hidden'

export function usePolling(
  task: (signal: AbortSignal) => Promise<unknown> | void,
  intervalMs: number,
  { enabled = true, key = '' }: PollingOptions = {},
): Polling {
  const taskRef = useRef(task)
  useEffect(() => {
    taskRef.current = task
  }, [task])

  const [paused, setPaused] = useState(hidden)
  const [lastRun, setLastRun] = useState<number | null>(null)
  const runNow = useRef<() => void>(() => undefined)

  useEffect(() => {
    if (!enabled) return
    let timer: ReturnType<typeof setTimeout> | undefined
    let running = false
    let disposed = false
    let finishedAt = 0
    const controller = new AbortController()

    const schedule = (delay: number) => {
      clearTimeout(timer)
      timer = undefined
      if (!disposed && !hidden()) timer = setTimeout(run, delay)
    }

    async function run() {
      if (running || disposed) return
      if (hidden()) return // resumed by visibilitychange
      running = true
      try {
        await taskRef.current(controller.signal)
      } catch {
        // The task shows its own failures; polling goes on.
      } finally {
        running = false
        finishedAt = Date.now()
        if (!disposed) {
          setLastRun(finishedAt)
          schedule(intervalMs)
        }
      }
    }

    const onVisibility = () => {
      const nowHidden = hidden()
      setPaused(nowHidden)
      if (nowHidden) {
        clearTimeout(timer)
        timer = undefined
      } else if (!running) {
        const since = Date.now() - finishedAt
        if (since >= intervalMs) void run()
        else schedule(intervalMs - since)
      }
    }

    runNow.current = () => {
      if (running) return
      clearTimeout(timer)
      void run()
    }

    document.addEventListener('visibilitychange', onVisibility)
    void run()
    return () => {
      disposed = true
      clearTimeout(timer)
      controller.abort()
      document.removeEventListener('visibilitychange', onVisibility)
      runNow.current = () => undefined
    }
  }, [intervalMs, enabled, key])

  const refresh = useCallback(() => runNow.current(), [])
  return { refresh, paused, lastRun }
}

/** Refresh period of the live screens (s → ms): 15 s, inside the 10–30 s operators expect. */
export const LIVE_INTERVAL_MS = 15_000

export interface Live<T> extends Polling {
  /** The newest answer for the current key (kept while a later refresh fails). */
  data: T | undefined
  /** The last failure, cleared by the next success. */
  error: unknown
  /** Nothing answered yet for this key. */
  loading: boolean
  /** Epoch ms of the newest answer. */
  updatedAt: number | undefined
}

interface LiveState<T> {
  key: string
  data?: T
  error?: unknown
  at?: number
}

/**
 * Data that refreshes itself: `load` polled with `usePolling`. A new `key` (another station)
 * forgets the old data at once, so a screen never shows one station's figures under another's name.
 */
export function useLive<T>(
  load: (signal: AbortSignal) => Promise<T>,
  {
    key = '',
    intervalMs = LIVE_INTERVAL_MS,
    enabled = true,
  }: PollingOptions & { intervalMs?: number } = {},
): Live<T> {
  const [state, setState] = useState<LiveState<T>>({ key })
  const task = useCallback(
    async (signal: AbortSignal) => {
      try {
        const data = await load(signal)
        if (!signal.aborted) setState({ key, data, at: Date.now() })
      } catch (error) {
        if (!signal.aborted) setState((s) => (s.key === key ? { ...s, error } : { key, error }))
      }
    },
    [load, key],
  )
  const polling = usePolling(task, intervalMs, { enabled, key })
  const current: LiveState<T> = state.key === key ? state : { key }
  return {
    ...polling,
    data: current.data,
    error: current.error,
    loading: enabled && current.data === undefined && current.error === undefined,
    updatedAt: current.at,
  }
}
