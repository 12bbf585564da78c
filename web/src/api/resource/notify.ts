/**
 * Notifications that reach people: the caller's own settings (`/api/blade-resource/notify/setting`)
 * and the tenant's notification log (`/api/blade-resource/notify/log/list`).
 */
import { entityApi } from '../crud'
import request from '../request'
import type { Envelope } from '../types'

export const notifyEvents = [
  'alarm_raised',
  'alarm_cleared',
  'smart_warning',
  'gateway_offline',
  'repair_assigned',
  'repair_overdue',
  'repair_returned',
  'inspection_due',
] as const
export type NotifyEvent = (typeof notifyEvents)[number]

/** Events with no bell message (the bell lists open alarms itself). */
export const bellless: readonly string[] = ['alarm_cleared', 'smart_warning']

/** Events whose SMS and e-mail depend on the alarm level. */
export const leveledEvents: readonly string[] = [
  'alarm_raised',
  'alarm_cleared',
  'smart_warning',
  'gateway_offline',
]

export interface NotifySubscription {
  event: string
  bell: boolean
  sms: boolean
  email: boolean
  /** 1 notice … 4 critical: below it, neither SMS nor e-mail. */
  minLevel: number
}

export interface NotifySettings {
  /** 1: quiet hours apply (only critical alarms and overdue orders go out at once). */
  quietEnabled: number
  /** Minutes after midnight. */
  quietStart: number
  quietEnd: number
  /** Alarms below this level wait for the daily digest. */
  digestBelow: number
  digestHour: number
  lang: 'zh' | 'en'
  events: NotifySubscription[]
}

export async function getNotifySettings(): Promise<NotifySettings> {
  const res = await request.get<Envelope<NotifySettings>>('/blade-resource/notify/setting')
  return res.data.data
}

export async function saveNotifySettings(settings: NotifySettings): Promise<void> {
  await request.post<Envelope<boolean>>('/blade-resource/notify/setting', settings)
}

export interface NotifyLogRow {
  id?: string
  userId?: string
  account?: string
  realName?: string
  channel?: string
  event?: string
  level?: number
  title?: string
  content?: string
  /** 0 waiting, 1 sending, 2 sent, 3 failed, 4 skipped, 5 in a digest. */
  status?: number
  attempts?: number
  address?: string
  result?: string
  createTime?: string
  sentTime?: string | null
}

export const notifyLogApi = entityApi<NotifyLogRow>({
  base: '/blade-resource/notify/log',
  style: 'blade',
})
