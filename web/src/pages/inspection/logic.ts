/**
 * The inspection pages' logic, free of React: list filters → queries, the item form's checks, the
 * task fill form (its state, what is missing, the body sent), who may fill a task, and the repair
 * link of a record's abnormal result.
 */
import type { Dayjs } from 'dayjs'
import type { PageQuery } from '../../api/types'
import {
  ABNORMAL,
  NORMAL,
  TASK_UNFILLED,
  type FillBody,
  type InspectPlanBody,
  type InspectTask,
  type RecordResult,
  type Verdict,
} from '../../api/inspection/types'

/** Button permission of filling a task (the back-end's `inspectionTask_fill`). */
export const FILL_PERMISSION = 'inspectionTask_fill'

/** Limits of the contract (the server checks them again). */
export const MAX_TITLE = 100
export const MAX_CHECK = 200
export const MAX_CHECKS = 50

/** Check items as typed → what is sent: trimmed, blanks dropped. */
export const cleanChecks = (checks: readonly (string | null | undefined)[]): string[] =>
  checks.map((c) => (c ?? '').trim()).filter((c) => c !== '')

export type ItemFormProblem =
  'titleRequired' | 'titleTooLong' | 'checkRequired' | 'tooManyChecks' | 'checkTooLong'

/** The item form's problems, in the order the contract lists them (none: the form may be sent). */
export function itemFormProblems(
  title: string | undefined,
  checks: readonly (string | undefined)[],
): ItemFormProblem[] {
  const problems: ItemFormProblem[] = []
  const t = (title ?? '').trim()
  if (t === '') problems.push('titleRequired')
  else if (t.length > MAX_TITLE) problems.push('titleTooLong')
  const clean = cleanChecks(checks)
  if (clean.length === 0) problems.push('checkRequired')
  if (clean.length > MAX_CHECKS) problems.push('tooManyChecks')
  if (clean.some((c) => c.length > MAX_CHECK)) problems.push('checkTooLong')
  return problems
}

const defined = (query: Record<string, unknown>): PageQuery => {
  const out: PageQuery = {}
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === '') continue
    out[key] = value as string | number | boolean
  }
  return out
}

export interface PlanFilters {
  name?: string
  stationId?: string
  status?: string | number
}

export const planQuery = (f: PlanFilters, current: number, size: number): PageQuery =>
  defined({ current, size, name: f.name?.trim(), stationId: f.stationId, status: f.status })

export interface TaskFilters {
  stationId?: string
  planId?: string
  status?: string
  overdue?: boolean
  mine?: boolean
}

/** `overdue` and `mine` are sent only when ticked (`true`). */
export const taskQuery = (f: TaskFilters, current: number, size: number): PageQuery =>
  defined({
    current,
    size,
    stationId: f.stationId,
    planId: f.planId,
    status: f.status,
    overdue: f.overdue ? true : undefined,
    mine: f.mine ? true : undefined,
  })

export interface RecordFilters {
  stationId?: string
  planId?: string
  runSituation?: string
  range?: [Dayjs | null, Dayjs | null] | null
}

/**
 * A day range `[from, to]` → `filledTime_gt=<from 00:00:00>` and `filledTime_lt=<the day after
 * to, 00:00:00>`, so the last chosen day is included.
 */
export function recordQuery(f: RecordFilters, current: number, size: number): PageQuery {
  const [from, to] = f.range ?? [null, null]
  return defined({
    current,
    size,
    stationId: f.stationId,
    planId: f.planId,
    runSituation: f.runSituation,
    filledTime_gt: from ? `${from.format('YYYY-MM-DD')} 00:00:00` : undefined,
    filledTime_lt: to ? `${to.add(1, 'day').format('YYYY-MM-DD')} 00:00:00` : undefined,
  })
}

/** Filters of a list without its paging (the export asks for the same rows). */
export const exportFilters = (query: PageQuery): PageQuery => {
  const out = { ...query }
  delete out.current
  delete out.size
  return out
}

// ---- Who may fill a task ----

export interface Caller {
  userId: string
  roleName: string
  permission: Readonly<Record<string, true>>
}

export const isAdministrator = (roleName: string): boolean =>
  roleName
    .split(',')
    .map((r) => r.trim())
    .some((r) => r === 'administrator' || r === 'admin')

/**
 * An unfilled task may be filled by one of its maintenance users, or by an administrator, who
 * holds the fill permission (the server decides again).
 */
export function mayFill(task: InspectTask, caller: Caller): boolean {
  if (task.status !== TASK_UNFILLED) return false
  const admin = isAdministrator(caller.roleName)
  const member = task.maintenanceIds.includes(caller.userId)
  if (!admin && !member) return false
  return admin || caller.permission[FILL_PERMISSION] === true
}

// ---- The fill form ----

export interface Answer {
  result?: Verdict
  note: string
  photos: string[]
}

export interface FillState {
  /** By `answerKey(itemIndex, checkIndex)`. */
  answers: Record<string, Answer>
  /** Unset: follows the answers (abnormal when any check is). */
  runSituation?: Verdict
  remark: string
}

export const answerKey = (itemIndex: number, checkIndex: number) => `${itemIndex}:${checkIndex}`

/** Every check of the task, in order, with its key. */
export function checksOf(
  task: InspectTask,
): { key: string; itemId: string; title: string; check: string }[] {
  return (task.items ?? []).flatMap((item, i) =>
    item.checkItems.map((check, c) => ({
      key: answerKey(i, c),
      itemId: item.itemId,
      title: item.title,
      check,
    })),
  )
}

export const emptyFill = (): FillState => ({ answers: {}, remark: '' })

export const answerOf = (state: FillState, key: string): Answer =>
  state.answers[key] ?? { note: '', photos: [] }

export function withAnswer(state: FillState, key: string, change: Partial<Answer>): FillState {
  return { ...state, answers: { ...state.answers, [key]: { ...answerOf(state, key), ...change } } }
}

/** The run situation shown and sent: as chosen, else abnormal when any check is abnormal. */
export function runSituationOf(state: FillState): Verdict {
  if (state.runSituation) return state.runSituation
  return Object.values(state.answers).some((a) => a.result === ABNORMAL) ? ABNORMAL : NORMAL
}

export interface FillProblems {
  /** Checks without a verdict. */
  unanswered: string[]
  /** Abnormal checks without a note. */
  noteMissing: string[]
}

export function fillProblems(task: InspectTask, state: FillState): FillProblems {
  const unanswered: string[] = []
  const noteMissing: string[] = []
  for (const { key } of checksOf(task)) {
    const a = answerOf(state, key)
    if (!a.result) unanswered.push(key)
    else if (a.result === ABNORMAL && a.note.trim() === '') noteMissing.push(key)
  }
  return { unanswered, noteMissing }
}

export const fillReady = (p: FillProblems) =>
  p.unanswered.length === 0 && p.noteMissing.length === 0

/** The body of `POST /inspectRecord`: every check answered once, in the task's order. */
export function fillBody(task: InspectTask, state: FillState): FillBody {
  const remark = state.remark.trim()
  return {
    taskId: task.id,
    runSituation: runSituationOf(state),
    ...(remark ? { remark } : {}),
    results: checksOf(task).map(({ key, itemId, check }) => {
      const a = answerOf(state, key)
      const note = a.note.trim()
      return {
        itemId,
        check,
        result: a.result ?? NORMAL,
        ...(note ? { note } : {}),
        ...(a.photos.length > 0 ? { photos: [...a.photos] } : {}),
      }
    }),
  }
}

/** How many checks are answered (the progress line of the fill form). */
export const answeredCount = (task: InspectTask, state: FillState) =>
  checksOf(task).filter(({ key }) => answerOf(state, key).result !== undefined).length

// ---- Records ----

/** An abnormal result without an order may open one. */
export const mayOpenRepair = (r: RecordResult) => r.result === ABNORMAL && !r.repairId

export const repairPath = (id: string) =>
  `/intelligentOperation/repair-detail?id=${encodeURIComponent(id)}`
export const taskPath = (id: string) =>
  `/intelligentOperation/inspectionTask-detail?id=${encodeURIComponent(id)}`
export const recordPath = (id: string) =>
  `/intelligentOperation/inspectionRecord-detail?id=${encodeURIComponent(id)}`
export const planPath = (id: string) =>
  `/intelligentOperation/inspectionPlan-detail?id=${encodeURIComponent(id)}`
export const planEditPath = (id?: string) =>
  id
    ? `/intelligentOperation/edit-inspectionPlan?id=${encodeURIComponent(id)}`
    : '/intelligentOperation/edit-inspectionPlan'

/** The page after deleting `removed` rows of the `shown` on page `current` (not past the last). */
export const pageAfterDelete = (current: number, shown: number, removed: number) =>
  current > 1 && removed >= shown ? current - 1 : current

/** Photos: the upload types the server accepts (checked again by content there). */
export const isImageFile = (file: { type: string; name: string }) =>
  /^image\/(jpeg|png|webp)$/.test(file.type) || /\.(jpe?g|png|webp)$/i.test(file.name)

// ---- The plan form ----

/** The plan form's values (dates as day pickers give them). */
export interface PlanFormValues {
  name?: string
  stationIds?: string[]
  itemIds?: string[]
  maintenanceIds?: string[]
  cyclePeriod?: string
  alarmDay?: string
  startDate?: Dayjs | null
  endDate?: Dayjs | null
  enabled?: boolean
  remark?: string
}

/** Form values → the plan body (the server checks every rule again). */
export function planBody(values: PlanFormValues, id?: string): InspectPlanBody {
  const remark = values.remark?.trim()
  return {
    ...(id ? { id } : {}),
    name: (values.name ?? '').trim(),
    stationIds: values.stationIds ?? [],
    itemIds: values.itemIds ?? [],
    maintenanceIds: values.maintenanceIds ?? [],
    cyclePeriod: values.cyclePeriod ?? '',
    alarmDay: Number(values.alarmDay ?? 0),
    startDate: values.startDate ? values.startDate.format('YYYY-MM-DD') : '',
    endDate: values.endDate ? values.endDate.format('YYYY-MM-DD') : null,
    status: values.enabled === false ? 0 : 1,
    ...(remark ? { remark } : {}),
  }
}
