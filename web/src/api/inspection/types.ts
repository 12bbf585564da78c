/**
 * Wire types of the inspection domain (`/work/notes/om-contract.md` "Inspection"): items, plans,
 * tasks generated from plans, and the records a maintenance user fills in. Ids are strings (64-bit
 * on the server); times `yyyy-MM-dd HH:mm:ss`, dates `yyyy-MM-dd` in the station's clock.
 */

/** A dictionary entry as the inspection lists answer it (`cyclePeriodList`, `alarmDayList`). */
export interface DictOption {
  dictKey: string
  dictValue: string
}

/** A reusable inspection item: a title and at least one check. */
export interface InspectItem {
  id: string
  title: string
  checkItems: string[]
  remark?: string | null
  createTime?: string
  updateTime?: string
}

/** The body of an item save (`POST`/`PUT /inspectItem`, `saveItemAndReturn`). */
export interface InspectItemBody {
  id?: string
  title: string
  checkItems: string[]
  remark?: string
}

/** Plan `status`: 1 enabled, 0 disabled. */
export type PlanStatus = 0 | 1

export interface InspectPlan {
  id: string
  name: string
  stationIds: string[]
  stationNames: string[]
  itemIds: string[]
  items: InspectItem[]
  maintenanceIds: string[]
  maintenanceNames: string[]
  /** "1" daily … "6" yearly. */
  cyclePeriod: string
  cyclePeriodName?: string
  /** Reminder: days before the due date. */
  alarmDay: number
  startDate: string
  endDate: string | null
  status: PlanStatus
  nextDueDate: string | null
  remark?: string | null
  createTime?: string
}

export interface InspectPlanBody {
  id?: string
  name: string
  stationIds: string[]
  itemIds: string[]
  maintenanceIds: string[]
  cyclePeriod: string
  alarmDay: number
  startDate: string
  endDate: string | null
  status: PlanStatus
  remark?: string
}

/** Maintenance staff of the tenant (`maintenanceList`). */
export interface MaintenanceUser {
  id: string
  realName: string
  account: string
  phone?: string | null
}

/** Task `status`: "0" unfilled, "1" filled. */
export const TASK_UNFILLED = '0'
export const TASK_FILLED = '1'

/** One item of a task: a snapshot of the plan's item when the task was generated. */
export interface TaskItem {
  itemId: string
  title: string
  checkItems: string[]
}

export interface InspectTask {
  id: string
  planId: string
  planName: string
  stationId: string
  stationName: string
  dueDate: string
  status: string
  statusName?: string
  overdue: boolean
  maintenanceIds: string[]
  maintenanceNames: string[]
  recordId: string | null
  createTime?: string
  /** Detail only. */
  items?: TaskItem[]
}

/** Result and run situation: "1" normal, "2" abnormal. */
export const NORMAL = '1'
export const ABNORMAL = '2'
export type Verdict = typeof NORMAL | typeof ABNORMAL

export interface RecordResult {
  itemId: string
  itemTitle: string
  check: string
  result: string
  note?: string | null
  photos: string[]
  repairId: string | null
}

export interface InspectRecord {
  id: string
  taskId: string
  planId: string
  planName: string
  stationId: string
  stationName: string
  dueDate: string
  status: string
  runSituation: string
  runSituationName?: string
  remark?: string | null
  filledBy?: string
  filledByName?: string
  filledTime: string
  abnormalCount: number
  /** Detail only. */
  results?: RecordResult[]
}

/** The body of filling a task (`POST /inspectRecord`). */
export interface FillBody {
  taskId: string
  runSituation: Verdict
  remark?: string
  results: {
    itemId: string
    check: string
    result: Verdict
    note?: string
    photos?: string[]
  }[]
}

/** The answer of an upload (`put-image`, like `put-file`). */
export interface Upload {
  link: string
  domain?: string
  name?: string
  originalName?: string
  attachId?: string
}
