import { useMemo } from 'react'
import CrudPage from '../../../components/crud/CrudPage'
import type { Inverter } from '../../../api/station/inverter'
import { stationScope, type StationScoped } from '../common/fields'
import { inverterConfig } from './config'

/** The inverters of every station, or of one (the station archive's devices tab). */
export function InverterList({ stationId }: StationScoped) {
  const config = useMemo(() => inverterConfig(stationId), [stationId])
  const { query, fixed } = stationScope(stationId)
  return <CrudPage<Inverter> config={config} query={query} fixed={fixed} />
}

/** /station/inverter. */
export default function InverterPage() {
  return <InverterList />
}
