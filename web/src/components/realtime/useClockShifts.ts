import { useQuery } from '@tanstack/react-query'
import { clockShiftsQuery } from '../../api/realtime/queries'
import type { ClockShift } from '../../api/realtime/types'

const empty: ReadonlyMap<string, ClockShift> = new Map()

/**
 * The remark-announced shifted clocks of the caller's stations, loaded when a screen opens. A
 * failure shows nothing: the notice is a courtesy (no remarks, no notice).
 */
export function useClockShifts(enabled = true): ReadonlyMap<string, ClockShift> {
  return useQuery({ ...clockShiftsQuery(), enabled }).data ?? empty
}
