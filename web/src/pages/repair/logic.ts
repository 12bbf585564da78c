/** Pure rules of the repair screens: labels, colours, overdue, list queries, action forms. */
import type { TFunction } from 'i18next'
import type { ActionBody, RepairAction, RepairOrder, RepairQuery } from '../../api/repair/repair'
import { zh } from '../../locales/domains/repair'

const has = <T extends object>(table: T, key: string): key is Extract<keyof T, string> =>
  Object.hasOwn(table, key)

/** The route of one order. */
export const repairDetailPath = (id: string): string =>
  `/intelligentOperation/repair-detail?id=${encodeURIComponent(id)}`
export const repairListPath = '/intelligentOperation/repair'
/** The route of one inspection task (the inspection pages). */
export const inspectionTaskPath = (id: string): string =>
  `/intelligentOperation/inspectionTask-detail?id=${encodeURIComponent(id)}`

/** The contract's status names in the console's language; the server's name for unknown ones. */
export function repairStatusLabel(t: TFunction, status: number | string, server = ''): string {
  const key = String(status)
  return has(zh.repair.status, key) ? t(`repair.status.${key}`) : server || key
}

export function repairSourceLabel(t: TFunction, source: string, server = ''): string {
  return has(zh.repair.source, source) ? t(`repair.source.${source}`) : server || source
}

/** Tag colour of a status: waiting states warm, working blue, done green, canceled grey. */
export function repairStatusColor(status: number | string): string {
  switch (Number(status)) {
    case 1:
      return 'gold'
    case 2:
      return 'orange'
    case 3:
      return 'cyan'
    case 4:
      return 'blue'
    case 5:
      return 'geekblue'
    case 6:
      return 'purple'
    case 7:
      return 'green'
    default:
      return 'default'
  }
}

/** A deadline has passed on an order still open. */
export const isOverdue = (order: Pick<RepairOrder, 'responseOverdue' | 'repairOverdue'>): boolean =>
  order.responseOverdue || order.repairOverdue

/** Open: neither completed nor canceled. */
export const isOpen = (status: number): boolean => status >= 1 && status <= 6

export interface RepairFilters {
  stationId?: string
  status?: string
  level?: string
  keyword?: string
  mine?: boolean
  overdue?: boolean
}

/** The page query of the list: empty filters left out, switches only when on. */
export function buildRepairQuery(
  filters: RepairFilters,
  current: number,
  size: number,
): RepairQuery {
  const query: RepairQuery = { current, size }
  if (filters.stationId) query.stationId = filters.stationId
  if (filters.status) query.status = String(filters.status)
  if (filters.level) query.level = String(filters.level)
  const keyword = filters.keyword?.trim()
  if (keyword) query.keyword = keyword
  if (filters.mine) query.mine = true
  if (filters.overdue) query.overdue = true
  return query
}

/** Filters from the list's URL (`?overdue=true&mine=true&status=2`, from the home page's figures). */
export function filtersFromSearch(params: URLSearchParams): RepairFilters {
  const filters: RepairFilters = {}
  const status = params.get('status')
  if (status) filters.status = status
  const stationId = params.get('stationId')
  if (stationId) filters.stationId = stationId
  if (params.get('overdue') === 'true') filters.overdue = true
  if (params.get('mine') === 'true') filters.mine = true
  return filters
}

/** The order in which action buttons show: the next step of the flow first, cancel last. */
const actionOrder: readonly RepairAction[] = [
  'accept',
  'start',
  'finish',
  'verify',
  'evaluate',
  'assign',
  'transfer',
  'cancel',
]
export const sortedActions = (actions: readonly RepairAction[]): RepairAction[] =>
  actionOrder.filter((a) => actions.includes(a))

/** The action leading the flow is the primary button; cancel is dangerous. */
export const primaryAction = (actions: readonly RepairAction[]): RepairAction | undefined =>
  sortedActions(actions).find((a) => a !== 'cancel' && a !== 'transfer')

/** What each action's dialog asks for. */
export interface ActionNeeds {
  user?: 'required'
  reason?: 'required'
  note?: 'optional'
  work?: true
  rating?: true
}

export function actionNeeds(action: RepairAction): ActionNeeds {
  switch (action) {
    case 'assign':
      return { user: 'required', note: 'optional' }
    case 'transfer':
      return { user: 'required', reason: 'required' }
    case 'finish':
      return { work: true }
    case 'evaluate':
      return { rating: true }
    case 'cancel':
      return { reason: 'required' }
    default:
      return { note: 'optional' }
  }
}

/** The dialog's values. */
export interface ActionValues {
  assigneeId?: string
  note?: string
  reason?: string
  workDone?: string
  parts?: string
  photos?: string[]
  rating?: number
  comment?: string
}

const text = (v: string | undefined): string | undefined => {
  const trimmed = v?.trim()
  return trimmed ? trimmed : undefined
}

/** The request body of `action` from the dialog's values (optional fields left out when blank). */
export function actionBody<A extends RepairAction>(
  action: A,
  id: string,
  values: ActionValues,
): ActionBody[A] {
  const note = text(values.note)
  const withNote = note ? { id, note } : { id }
  switch (action) {
    case 'assign':
      return { ...withNote, assigneeId: values.assigneeId ?? '' } as ActionBody[A]
    case 'transfer':
      return {
        id,
        assigneeId: values.assigneeId ?? '',
        reason: text(values.reason) ?? '',
      } as ActionBody[A]
    case 'finish': {
      const parts = text(values.parts)
      return {
        id,
        workDone: text(values.workDone) ?? '',
        ...(parts ? { parts } : {}),
        ...(values.photos && values.photos.length > 0 ? { photos: values.photos } : {}),
      } as ActionBody[A]
    }
    case 'evaluate': {
      const comment = text(values.comment)
      return { id, rating: values.rating ?? 0, ...(comment ? { comment } : {}) } as ActionBody[A]
    }
    case 'cancel':
      return { id, reason: text(values.reason) ?? '' } as ActionBody[A]
    default:
      return withNote as ActionBody[A]
  }
}

/** Hours with one decimal ("--" when unknown). */
export const formatHours = (hours: number | null | undefined): string =>
  hours === null || hours === undefined || Number.isNaN(hours) ? '--' : hours.toFixed(1)

/**
 * A repair time as people read it: minutes under an hour (a one-minute repair read "0.0 h"),
 * hours with one decimal above. `value` "--" and no unit when unknown.
 */
export function formatDuration(hours: number | null | undefined): { value: string; unit: string } {
  if (hours === null || hours === undefined || Number.isNaN(hours)) return { value: '--', unit: '' }
  if (hours < 1)
    return { value: String(Math.max(hours > 0 ? 1 : 0, Math.round(hours * 60))), unit: 'min' }
  return { value: hours.toFixed(1), unit: 'h' }
}

/** `formatDuration` as one text ("12 min", "2.3 h", "--"). */
export const durationText = (hours: number | null | undefined): string => {
  const d = formatDuration(hours)
  return d.unit ? `${d.value} ${d.unit}` : d.value
}

/** A timeline row's action name in the console's language (the server's word otherwise). */
export function logActionLabel(t: TFunction, action: string): string {
  return has(zh.repair.log, action) ? t(`repair.log.${action}`) : action
}
