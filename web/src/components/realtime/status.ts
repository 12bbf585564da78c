/**
 * Operating status of a station or a device, one vocabulary and one colour each everywhere (map
 * dots, tags, table rows, the big screen, chart legends):
 *
 * - producing: communicating and feeding power;
 * - standby: communicating, no output (night, grid-side stop): not a fault;
 * - offline: no data (gateway or device silent);
 * - commissioning: not yet switched to running (a switch call does it): shown, not judged;
 * - fault: a device reports a fault code / active station-fault alarm.
 *
 * Priority when deriving: commissioning > fault > offline > producing / standby.
 */

export const STATUSES = ['producing', 'standby', 'offline', 'commissioning', 'fault'] as const
export type RunStatus = (typeof STATUSES)[number]

/** Colours (antd palette: green-6, blue-6, grey-6, orange-6, red-6). */
export const STATUS_COLOURS: Readonly<Record<RunStatus, string>> = {
  producing: '#52c41a',
  standby: '#1677ff',
  offline: '#8c8c8c',
  commissioning: '#fa8c16',
  fault: '#f5222d',
}

/** antd Tag / Badge preset of each status. */
export const STATUS_TAG: Readonly<Record<RunStatus, string>> = {
  producing: 'success',
  standby: 'processing',
  offline: 'default',
  commissioning: 'warning',
  fault: 'error',
}

export const statusColour = (status: RunStatus): string => STATUS_COLOURS[status]

export const isRunStatus = (value: unknown): value is RunStatus =>
  typeof value === 'string' && (STATUSES as readonly string[]).includes(value)

/** Numeric / wording variants a server may send for the same statuses. */
const ALIASES: Readonly<Record<string, RunStatus>> = {
  normal: 'producing',
  running: 'producing',
  online: 'producing',
  generating: 'producing',
  idle: 'standby',
  stopped: 'standby',
  sleeping: 'standby',
  disconnected: 'offline',
  'no-data': 'offline',
  nodata: 'offline',
  alarm: 'fault',
  faulty: 'fault',
  error: 'fault',
}

/** A status as sent by the server (case-insensitive, a few synonyms); unknown → undefined. */
export function parseStatus(value: unknown): RunStatus | undefined {
  if (typeof value !== 'string') return undefined
  const key = value.trim().toLowerCase()
  return isRunStatus(key) ? key : ALIASES[key]
}

export interface StatusInput {
  /** Not yet switched to running. */
  commissioning?: boolean
  /** A fault code or an active fault alarm. */
  fault?: boolean
  /** Communicating (data fresh). */
  online?: boolean
  /** Current output, W. */
  powerW?: number | null
}

/** Output above this many W counts as producing (noise of a sleeping inverter stays standby). */
export const PRODUCING_THRESHOLD_W = 1

/** The status from the facts, when the server does not name one. */
export function deriveStatus({ commissioning, fault, online, powerW }: StatusInput): RunStatus {
  if (commissioning) return 'commissioning'
  if (fault) return 'fault'
  if (online === false) return 'offline'
  if (typeof powerW === 'number' && powerW > PRODUCING_THRESHOLD_W) return 'producing'
  return online ? 'standby' : 'offline'
}

/** Count per status, every status present (0 when none): legends and KPI chips. */
export function countByStatus(items: readonly { status: RunStatus }[]): Record<RunStatus, number> {
  const counts = Object.fromEntries(STATUSES.map((s) => [s, 0])) as Record<RunStatus, number>
  for (const item of items) counts[item.status]++
  return counts
}

/** The worst status of a set of devices: what a station shows. */
const SEVERITY: Readonly<Record<RunStatus, number>> = {
  producing: 0,
  standby: 1,
  commissioning: 2,
  offline: 3,
  fault: 4,
}
export function worstStatus(statuses: readonly RunStatus[]): RunStatus | undefined {
  return statuses.reduce<RunStatus | undefined>(
    (worst, s) => (worst === undefined || SEVERITY[s] > SEVERITY[worst] ? s : worst),
    undefined,
  )
}
