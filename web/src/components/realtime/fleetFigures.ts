import { fleetRevenue } from '../../api/realtime/home'
import type { FleetSummary } from '../../api/realtime/types'
import type { FleetFigures } from './Kpis'

/**
 * The fleet KPI row's figures from the home summary (unknown figures empty); `stations` counts
 * when the summary has not answered yet.
 */
export const fleetFigures = (summary: FleetSummary | undefined, stations = 0): FleetFigures => ({
  stations: summary?.stations ?? stations,
  powerW: summary?.powerW ?? null,
  todayWh: summary?.todayWh ?? null,
  totalWh: summary?.totalWh ?? null,
  capacityWp: summary?.capacityWp ?? null,
  co2Kg: summary?.co2Kg ?? null,
  hoursToday: summary?.hoursToday ?? null,
  revenue: fleetRevenue(summary),
})
