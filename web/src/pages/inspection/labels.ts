/** Labels of the contract's codes (the server's names first, the console's fallbacks after). */
import type { TFunction } from 'i18next'

export const verdictLabel = (t: TFunction, code: string, name?: string) =>
  name || (code === '1' || code === '2' ? t(`inspection.verdict.${code}`) : code)

export const taskStatusLabel = (t: TFunction, code: string, name?: string) =>
  name || (code === '0' || code === '1' ? t(`inspection.taskStatus.${code}`) : code)

export const cycleLabel = (t: TFunction, code: string, names: Record<string, string>) =>
  names[code] || (/^[1-6]$/.test(code) ? t(`inspection.cycle.${code as '1'}`) : code)

export const alarmDayLabel = (t: TFunction, days: number | string, names: Record<string, string>) =>
  names[String(days)] ||
  (Number(days) === 0 ? t('inspection.alarmDay.0') : t('inspection.alarmDay.other', { days }))
