/**
 * Wire records made safe: ids as strings (a server may send numbers), lists never null, numbers
 * as numbers. Pure, so the tests read what the console does with an answer.
 */
import type { InspectItem, InspectPlan, InspectRecord, InspectTask, RecordResult } from './types'

const text = (v: unknown): string =>
  typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : ''
const optionalId = (v: unknown): string | null =>
  v === null || v === undefined || v === '' ? null : text(v)
const ids = (v: unknown): string[] => (Array.isArray(v) ? v.map(text) : [])
const texts = (v: unknown): string[] => (Array.isArray(v) ? v.map(text) : [])

type Wire<T> = { [K in keyof T]?: unknown }

export function itemFromWire(raw: Wire<InspectItem>): InspectItem {
  return {
    id: text(raw.id),
    title: text(raw.title),
    checkItems: texts(raw.checkItems),
    remark: raw.remark == null ? null : text(raw.remark),
    createTime: text(raw.createTime),
    updateTime: text(raw.updateTime),
  }
}

export function planFromWire(raw: Wire<InspectPlan>): InspectPlan {
  return {
    id: text(raw.id),
    name: text(raw.name),
    stationIds: ids(raw.stationIds),
    stationNames: texts(raw.stationNames),
    itemIds: ids(raw.itemIds),
    items: Array.isArray(raw.items)
      ? raw.items.map((i) => itemFromWire(i as Wire<InspectItem>))
      : [],
    maintenanceIds: ids(raw.maintenanceIds),
    maintenanceNames: texts(raw.maintenanceNames),
    cyclePeriod: text(raw.cyclePeriod),
    cyclePeriodName: text(raw.cyclePeriodName),
    alarmDay: Number(raw.alarmDay ?? 0),
    startDate: text(raw.startDate),
    endDate: raw.endDate ? text(raw.endDate) : null,
    status: Number(raw.status) === 1 ? 1 : 0,
    nextDueDate: raw.nextDueDate ? text(raw.nextDueDate) : null,
    remark: raw.remark == null ? null : text(raw.remark),
    createTime: text(raw.createTime),
  }
}

export function taskFromWire(raw: Wire<InspectTask>): InspectTask {
  const items = Array.isArray(raw.items)
    ? raw.items.map((i: Record<string, unknown>) => ({
        itemId: text(i.itemId),
        title: text(i.title),
        checkItems: texts(i.checkItems),
      }))
    : undefined
  return {
    id: text(raw.id),
    planId: text(raw.planId),
    planName: text(raw.planName),
    stationId: text(raw.stationId),
    stationName: text(raw.stationName),
    dueDate: text(raw.dueDate),
    status: text(raw.status),
    statusName: text(raw.statusName),
    overdue: raw.overdue === true || raw.overdue === 1 || raw.overdue === 'true',
    maintenanceIds: ids(raw.maintenanceIds),
    maintenanceNames: texts(raw.maintenanceNames),
    recordId: optionalId(raw.recordId),
    createTime: text(raw.createTime),
    items,
  }
}

export function resultFromWire(raw: Wire<RecordResult>): RecordResult {
  return {
    itemId: text(raw.itemId),
    itemTitle: text(raw.itemTitle),
    check: text(raw.check),
    result: text(raw.result),
    note: raw.note == null ? null : text(raw.note),
    photos: texts(raw.photos),
    repairId: optionalId(raw.repairId),
  }
}

export function recordFromWire(raw: Wire<InspectRecord>): InspectRecord {
  return {
    id: text(raw.id),
    taskId: text(raw.taskId),
    planId: text(raw.planId),
    planName: text(raw.planName),
    stationId: text(raw.stationId),
    stationName: text(raw.stationName),
    dueDate: text(raw.dueDate),
    status: text(raw.status),
    runSituation: text(raw.runSituation),
    runSituationName: text(raw.runSituationName),
    remark: raw.remark == null ? null : text(raw.remark),
    filledBy: text(raw.filledBy),
    filledByName: text(raw.filledByName),
    filledTime: text(raw.filledTime),
    abnormalCount: Number(raw.abnormalCount ?? 0),
    results: Array.isArray(raw.results)
      ? raw.results.map((r) => resultFromWire(r as Wire<RecordResult>))
      : undefined,
  }
}
