import { useMemo } from 'react'
import CrudPage from '../../../components/crud/CrudPage'
import type { Meter } from '../../../api/station/meter'
import { stationScope, type StationScoped } from '../common/fields'
import { meterConfig } from './config'

/** The meters of every station, or of one (the station archive's devices tab). */
export function MeterList({ stationId }: StationScoped) {
  const config = useMemo(() => meterConfig(stationId), [stationId])
  const { query, fixed } = stationScope(stationId)
  return <CrudPage<Meter> config={config} query={query} fixed={fixed} />
}

/** /station/meter. */
export default function MeterPage() {
  return <MeterList />
}
