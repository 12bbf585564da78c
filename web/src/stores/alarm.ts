import { create } from 'zustand'
import { getStore, setStore } from '../utils/storage'

/** One alarm of the live feed (type 1 = station fault, else smart warning). */
export interface Alarm {
  id: string
  stationName: string
  inverter: string
  warningName: string
  /** ISO date-time with "T" (shown with a space). */
  date: string
  /** 1 = station fault, otherwise smart warning. */
  type: number
  /** The alarm's repair order, when the feed names one. */
  repairId?: string | null
  repairStatus?: number | string | null
}

/** One unread work message of the feed: type 3 inspection task, 4 repair order (`bizId`). */
export interface WorkItem {
  /** The message's id. */
  id: string
  type: number
  bizId: string
  title: string
  date: string
}

interface AlarmState {
  count: number
  list: Alarm[]
  workCount: number
  work: WorkItem[]
  /** Each websocket message replaces the count and the list (and the work items when given). */
  replace: (count: number, list: Alarm[], work?: { count: number; list: WorkItem[] }) => void
}

export const useAlarmStore = create<AlarmState>()((set) => ({
  count: getStore<number>('alarmCount') ?? 0,
  list: getStore<Alarm[]>('alarmList') ?? [],
  workCount: getStore<number>('workCount') ?? 0,
  work: getStore<WorkItem[]>('workList') ?? [],
  replace: (count, list, work = { count: 0, list: [] }) => {
    setStore('alarmCount', count)
    setStore('alarmList', list)
    setStore('workCount', work.count)
    setStore('workList', work.list)
    set({ count, list, workCount: work.count, work: work.list })
  },
}))

/** Where a work item leads: its repair order or its inspection task. */
export const workTarget = (item: Pick<WorkItem, 'type' | 'bizId'>): string =>
  Number(item.type) === 3
    ? `/intelligentOperation/inspectionTask-detail?id=${encodeURIComponent(item.bizId)}`
    : `/intelligentOperation/repair-detail?id=${encodeURIComponent(item.bizId)}`

/** Badge text: "99+" above 99. */
export const alarmBadge = (count: number): string => (count > 99 ? '99+' : String(count))

/** Where a clicked alarm leads. */
export const alarmTarget = (alarm: Pick<Alarm, 'id' | 'type'>): string =>
  Number(alarm.type) === 1
    ? `/intelligentOperation/alarmData?id=${encodeURIComponent(alarm.id)}`
    : `/intelligentOperation/intelligentWarning?id=${encodeURIComponent(alarm.id)}`

export const alarmDate = (date: string): string => date.replace('T', ' ')
