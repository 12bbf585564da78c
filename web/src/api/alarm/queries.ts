/** Query keys and queries of the alarm domain (alarms, smart warnings, rules, messages). */
import { queryOptions } from '@tanstack/react-query'
import type { PageQuery } from '../types'
import {
  alarmDetail,
  alarmPage,
  getAlarmRule,
  listAlarmStatus,
  warnDetail,
  warnPage,
} from './alarm'
import { messageList } from './message'

export type AlarmKind = 'alarm' | 'warn'

export const alarmKeys = {
  /** Alarms and warnings: what an acknowledgement or a clearance changes. */
  all: ['alarm'] as const,
  messages: ['message'] as const,
}

/** Every cached page of alarms (or warnings). */
export const alarmPagesKey = (kind: AlarmKind) => [...alarmKeys.all, kind, 'page']

export const alarmPageQuery = (kind: AlarmKind, query: PageQuery) =>
  queryOptions({
    queryKey: [...alarmPagesKey(kind), query],
    queryFn: () => (kind === 'warn' ? warnPage(query) : alarmPage(query)),
  })

/** One alarm or warning by id (null: not found or not visible). */
export const alarmDetailQuery = (kind: AlarmKind, id: string) =>
  queryOptions({
    queryKey: [...alarmKeys.all, kind, 'detail', id],
    queryFn: () => (kind === 'warn' ? warnDetail(id) : alarmDetail(id)),
  })

export const alarmStatusQuery = () =>
  queryOptions({ queryKey: [...alarmKeys.all, 'statuses'], queryFn: listAlarmStatus })

/** The tenant's alarm rules. */
export const alarmRuleQuery = () =>
  queryOptions({ queryKey: [...alarmKeys.all, 'rule'], queryFn: getAlarmRule })

export const messagePageQuery = (query: PageQuery) =>
  queryOptions({ queryKey: [...alarmKeys.messages, query], queryFn: () => messageList(query) })
