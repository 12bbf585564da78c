/** Names of statuses, levels, categories and device kinds in the console's language. */
import type { TFunction } from 'i18next'
import { zh } from '../../../locales/domains/alarm'

const ui = zh.alarmUi
const has = <T extends object>(table: T, key: string): key is Extract<keyof T, string> =>
  Object.hasOwn(table, key)

/** The server's status names (listAlarmStatus) win; else the console's own. */
export function statusLabel(
  t: TFunction,
  status: number | string,
  server: Readonly<Record<string, string>> = {},
): string {
  const key = String(status)
  return server[key] ?? (has(ui.status, key) ? t(`alarmUi.status.${key}`) : key)
}

/** Dictionary `alarm_level` names win; else the console's own. */
export function levelLabel(
  t: TFunction,
  level: number | string,
  dict: Readonly<Record<string, string>> = {},
): string {
  const key = String(level)
  return dict[key] ?? (has(ui.level, key) ? t(`alarmUi.level.${key}`) : key)
}

export function categoryLabel(t: TFunction, category: string): string {
  return has(ui.category, category) ? t(`alarmUi.category.${category}`) : category
}

export function deviceKindLabel(t: TFunction, kind: string): string {
  return has(ui.deviceKind, kind) ? t(`alarmUi.deviceKind.${kind}`) : kind
}
