/**
 * Pure parts of the full-load hours page: the default range, the ranking chart option and the
 * threshold setting's validation.
 */
import type { Dayjs } from 'dayjs'
import type { HdayRow, HdaySetting } from '../../../api/analytics/hdayRate'
import type { MessageKey } from '../../../components/crud/types'

export const FLAGGED_COLOR = '#f5222d'
export const NORMAL_COLOR = '#5b8ff9'

/** The last 7 days, today included. */
export const defaultRange = (today: Dayjs): [Dayjs, Dayjs] => [
  today.subtract(6, 'day').startOf('day'),
  today.startOf('day'),
]

export const formatHours = (v: number | null): string =>
  v === null || !Number.isFinite(v) ? '--' : v.toFixed(2)

export const formatPct = (v: number | null): string =>
  v === null || !Number.isFinite(v) ? '--' : `${v > 0 ? '+' : ''}${v.toFixed(1)}%`

/** The one reference shared by all rows, or null when they differ (or none has one). */
export function commonReference(rows: readonly HdayRow[]): number | null {
  const refs = [...new Set(rows.map((r) => r.refHours).filter((v): v is number => v !== null))]
  return refs.length === 1 ? refs[0] : null
}

export interface RankingLabels {
  hours: string
  reference: (value: string) => string
  referenceSeries: string
}

/**
 * Bars of full-load hours, highest first, flagged ones red; the reference as a dashed line (one
 * mark line when all rows share it, else a line series per bar).
 */
export function rankingOption(
  rows: readonly HdayRow[],
  labels: RankingLabels,
): Record<string, unknown> {
  const sorted = [...rows].sort((a, b) => (b.hours ?? -Infinity) - (a.hours ?? -Infinity))
  const common = commonReference(sorted)
  const perBar = common === null && sorted.some((r) => r.refHours !== null)
  const series: Record<string, unknown>[] = [
    {
      type: 'bar',
      name: labels.hours,
      barMaxWidth: 32,
      data: sorted.map((r) => ({
        value: r.hours,
        itemStyle: { color: r.flagged ? FLAGGED_COLOR : NORMAL_COLOR },
      })),
      markLine:
        common === null
          ? undefined
          : {
              symbol: 'none',
              lineStyle: { type: 'dashed', color: '#595959' },
              label: { formatter: labels.reference(common.toFixed(2)), position: 'insideEndTop' },
              data: [{ yAxis: common }],
            },
    },
  ]
  if (perBar)
    series.push({
      type: 'line',
      name: labels.referenceSeries,
      step: 'middle',
      symbol: 'none',
      lineStyle: { type: 'dashed', color: '#595959' },
      data: sorted.map((r) => r.refHours),
    })
  return {
    tooltip: { trigger: 'axis' },
    grid: { left: 56, right: 32, top: 32, bottom: 64 },
    xAxis: {
      type: 'category',
      data: sorted.map((r) => r.name),
      axisLabel: { interval: 0, rotate: sorted.length > 8 ? 30 : 0 },
    },
    yAxis: { type: 'value', name: 'h' },
    dataZoom:
      sorted.length > 30
        ? [{ type: 'slider', start: 0, end: (30 / sorted.length) * 100 }]
        : undefined,
    series,
  }
}

export interface HdaySettingIssue {
  field: keyof HdaySetting
  message: MessageKey
}

/** As the server checks: a negative threshold, a whole number of days ≥ 0. */
export function validateHdaySetting(
  draft: Partial<Record<keyof HdaySetting, unknown>>,
): HdaySettingIssue[] {
  const issues: HdaySettingIssue[] = []
  const { thresholdPct: th, minDays } = draft
  if (typeof th !== 'number' || !Number.isFinite(th))
    issues.push({ field: 'thresholdPct', message: 'analytics.hday.validation.thresholdRequired' })
  else if (th >= 0)
    issues.push({ field: 'thresholdPct', message: 'analytics.hday.validation.thresholdNegative' })
  if (typeof minDays !== 'number' || !Number.isFinite(minDays))
    issues.push({ field: 'minDays', message: 'analytics.hday.validation.minDaysRequired' })
  else if (!Number.isInteger(minDays) || minDays < 0)
    issues.push({ field: 'minDays', message: 'analytics.hday.validation.minDaysInteger' })
  return issues
}
