import { useMemo, useState } from 'react'
import CrudPage from '../../../components/crud/CrudPage'
import type { Meter } from '../../../api/station/meter'
import {
  DeviceLiveDrawer,
  type DeviceLiveTarget,
} from '../../../components/realtime/StationDevicesLive'
import { stationScope, type StationScoped } from '../common/fields'
import { liveTarget } from '../common/live'
import { meterConfig } from './config'

/**
 * The meters of every station, or of one (the station archive's devices tab). "Live values" on a
 * row opens its readings and day curve in a drawer.
 */
export function MeterList({ stationId }: StationScoped) {
  const [live, setLive] = useState<DeviceLiveTarget | null>(null)
  const config = useMemo(
    () => meterConfig(stationId, (row) => setLive(liveTarget(row, 'meter'))),
    [stationId],
  )
  const { query, fixed } = stationScope(stationId)
  return (
    <>
      <CrudPage<Meter> config={config} query={query} fixed={fixed} />
      <DeviceLiveDrawer target={live} onClose={() => setLive(null)} />
    </>
  )
}

/** /station/meter. */
export default function MeterPage() {
  return <MeterList />
}
