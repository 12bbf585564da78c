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
}

interface AlarmState {
  count: number
  list: Alarm[]
  /** Each websocket message replaces the count and the list. */
  replace: (count: number, list: Alarm[]) => void
}

export const useAlarmStore = create<AlarmState>()((set) => ({
  count: getStore<number>('alarmCount') ?? 0,
  list: getStore<Alarm[]>('alarmList') ?? [],
  replace: (count, list) => {
    setStore('alarmCount', count)
    setStore('alarmList', list)
    set({ count, list })
  },
}))

/** Badge text: "99+" above 99. */
export const alarmBadge = (count: number): string => (count > 99 ? '99+' : String(count))

/** Where a clicked alarm leads. */
export const alarmTarget = (alarm: Pick<Alarm, 'id' | 'type'>): string =>
  Number(alarm.type) === 1
    ? `/intelligentOperation/alarmData?id=${encodeURIComponent(alarm.id)}`
    : `/intelligentOperation/intelligentWarning?id=${encodeURIComponent(alarm.id)}`

export const alarmDate = (date: string): string => date.replace('T', ' ')
