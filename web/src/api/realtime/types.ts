/**
 * What the realtime screens work with, in canonical units (W, Wh, Wp, kg; epoch ms). The modules
 * of this folder turn the server's answers (kW / kWh / kWp on the wire, see
 * `contracts/telemetry-api.md`) into these, so pages and charts never convert units themselves.
 */
import type { RunStatus } from '../../components/realtime/status'

/** The site clock of a station differs from real time (demo stations on a shifted clock). */
export interface ClockShift {
  /** Site clock minus real time, ms (positive: the site is ahead). */
  offsetMs: number
  /** Free text the server gave (a station remark), shown as is. */
  note?: string
}

export interface FleetSummary {
  stations: number
  byStatus: Record<RunStatus, number>
  capacityWp: number | null
  powerW: number | null
  todayWh: number | null
  monthWh: number | null
  yearWh: number | null
  totalWh: number | null
  /** From the server, else computed from totalWh with the stated coefficient. */
  co2Kg: number | null
  /** kg CO2 per kWh the figure uses (the server's parameter, else the console's default). */
  co2Factor: number
  /** Full-load hours today (kWh/kWp), as the server computes it over stations with a capacity. */
  hoursToday: number | null
  /**
   * Revenue of today and of this month so far: each station's electricity bill (time-of-use
   * tariff, grid-connection type, contract discount) from hour rollups, in `currency`.
   */
  todayRevenue: number | null
  monthRevenue: number | null
  /** ISO 4217 code of the amounts (CNY when the server names none). */
  currency: string
  /** Newest sample time of the fleet, epoch ms. */
  updatedAt: number | null
  /** Repair orders still open and those past a deadline; null when the hub does not say. */
  repairOpen: number | null
  repairOverdue: number | null
  /** Mean time to repair, hours (orders finished in the last 90 days). */
  mttrHours: number | null
}

/** Revenue (the electricity bill) of today and this month so far. */
export interface RevenueFigures {
  today: number | null
  month: number | null
  /** ISO 4217 code. */
  currency: string
}

export interface MapStation {
  id: string
  name: string
  status: RunStatus
  latitude: number | null
  longitude: number | null
  provinceCode: string | null
  capacityWp: number | null
  powerW: number | null
  todayWh: number | null
  totalWh: number | null
  /** The station's bill today and this month so far, in the fleet's currency. */
  todayRevenue: number | null
  monthRevenue: number | null
  clockShift: ClockShift | null
  updatedAt: number | null
}

export type DeviceKind = 'inverter' | 'meter' | 'weather' | 'flex'

export interface DeviceLive {
  id: string
  name: string
  kind: DeviceKind
  sn: string
  stationId: string
  stationName: string
  status: RunStatus
  online: boolean
  /** Sample time, epoch ms (the device's clock via its gateway). */
  ts: number | null
  powerW: number | null
  todayWh: number | null
  totalWh: number | null
  ratedPowerW: number | null
  /** Newest values by metric name (canonical units). */
  values: Record<string, number | string>
  /** Why the gateway holds the device's values back (inverter table only). */
  withheld?: string | null
}

export interface FlexSensor {
  id: string
  name: string
  /** angle, wind, motor, irradiance, temperature or other. */
  kind: string
  metric: string | null
  value: number | null
  unit: string
}

/** A flexible bracket (tracker) controller live, with its sensors. */
export interface FlexLive {
  id: string
  name: string
  sn: string
  stationId: string
  stationName: string
  status: RunStatus
  online: boolean
  ts: number | null
  /** Degrees. */
  angle: number | null
  targetAngle: number | null
  mode: number | null
  modeName: string | null
  stow: boolean | null
  /** m/s */
  windSpeed: number | null
  /** A */
  motorCurrent: number | null
  sensors: FlexSensor[]
}

export interface StationLive extends MapStation {
  address: string | null
  gridConnectionTime: string | null
  installationStatus: string | null
  co2Kg: number | null
  devices: DeviceLive[]
}

/** One metric of one device over a day. */
export interface CurveSeries {
  deviceId: string
  deviceName: string
  metric: string
  /** Canonical unit of the values (W, Wh, V...). */
  unit: string
  /** Label from the server in the request's language. */
  label: string
  /** [epoch ms, value in the canonical unit]; buckets without data are absent or null. */
  points: [number, number | null][]
  /** The UTC offset (`-12:00`) of this series' times: its own station's clock, when the hub says. */
  utcOffset?: string
}

export interface PageOf<T> {
  records: T[]
  total: number
}
