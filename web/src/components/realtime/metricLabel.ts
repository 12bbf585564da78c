/** A metric's name in the console's language (`pv3_current` → "PV3 电流"); unknown names as sent. */
import type { TFunction } from 'i18next'
import { parseMetric } from '../../api/realtime/metrics'
import zh from '../../locales/zh'

type MetricKey = keyof typeof zh.realtimeUi.metric
const known = (key: string): key is MetricKey => Object.hasOwn(zh.realtimeUi.metric, key)

export function metricLabel(t: TFunction, name: string): string {
  const { base, n, phase } = parseMetric(name)
  if (n !== undefined) {
    const key = base.replace('{n}', '')
    return known(key) ? t(`realtimeUi.metric.${key}`, { n }) : name
  }
  if (phase !== undefined) {
    const plain = base.replace(/_\{p{1,2}\}$/, '')
    return known(plain)
      ? t('realtimeUi.metric.phase', {
          name: t(`realtimeUi.metric.${plain}`),
          phase: phase.toUpperCase(),
        })
      : name
  }
  return known(base) ? t(`realtimeUi.metric.${base}`) : name
}
