import { useEffect, useState } from 'react'
import { remarkClockShifts } from '../../api/realtime/station'
import type { ClockShift } from '../../api/realtime/types'

const empty: ReadonlyMap<string, ClockShift> = new Map()

/** The remark-announced shifted clocks of the caller's stations, loaded once per screen. */
export function useClockShifts(enabled = true): ReadonlyMap<string, ClockShift> {
  const [shifts, setShifts] = useState<ReadonlyMap<string, ClockShift>>(empty)
  useEffect(() => {
    if (!enabled) return
    let live = true
    remarkClockShifts().then(
      (map) => live && setShifts(map),
      () => undefined, // the notice is a courtesy: no remarks, no notice
    )
    return () => {
      live = false
    }
  }, [enabled])
  return shifts
}
