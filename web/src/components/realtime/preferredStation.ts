/**
 * The station a station-scoped page opens on (reports, prices, dispersion, realtime): the one the
 * user worked on last in this browser, else their first. Remembered per user in localStorage, so
 * two people sharing a browser each get their own.
 */
import { useQuery } from '@tanstack/react-query'
import { useEffect } from 'react'
import { stationNamesQuery } from '../../api/station/queries'
import { useSessionStore } from '../../stores/session'

const keyOf = (userId: string) => `pv-last-station:${userId}`

export function rememberStation(userId: string | undefined, stationId: string | undefined): void {
  if (!userId || !stationId) return
  try {
    localStorage.setItem(keyOf(userId), stationId)
  } catch {
    // Storage full or blocked: the page just opens on the first station next time.
  }
}

function lastUsed(userId: string | undefined): string | null {
  if (!userId) return null
  try {
    return localStorage.getItem(keyOf(userId))
  } catch {
    return null
  }
}

/** The last used station when it is still one of `ids`, else the first (none: undefined). */
export function preferredStation(
  userId: string | undefined,
  ids: readonly string[],
): string | undefined {
  const last = lastUsed(userId)
  return last !== null && ids.includes(last) ? last : ids[0]
}

/**
 * Picks the preferred station while none is chosen (once the caller's stations are known), and
 * remembers every station chosen. `enabled: false` leaves the page alone (e.g. a station given by
 * its route).
 */
export function usePreferredStation(
  value: string | undefined,
  onChange: (id: string) => void,
  enabled = true,
): void {
  const userId = useSessionStore((s) => s.userInfo?.user_id)
  const { data } = useQuery({ ...stationNamesQuery(), enabled })
  useEffect(() => {
    if (!enabled) return
    if (value) {
      rememberStation(userId, value)
      return
    }
    if (data === undefined) return
    const pick = preferredStation(
      userId,
      data.map((s) => String(s.id)),
    )
    if (pick) onChange(pick)
    // onChange is a setter the page may recreate each render; the pick depends on the data only.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [enabled, value, data, userId])
}
