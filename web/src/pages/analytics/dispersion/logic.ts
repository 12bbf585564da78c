/**
 * Pure parts of the dispersion page: level colours and bounds, the setting's validation (mirroring
 * the server's), the weak strings of an inverter and the per-string bar chart option.
 */
import type {
  DispersionLevel,
  DispersionRecord,
  DispersionSetting,
  StringFigure,
} from '../../../api/analytics/discreteRate'
import type { MessageKey } from '../../../components/crud/types'

/** Colours of the levels (green → red; grey without a figure). */
export const LEVEL_COLORS: Readonly<Record<DispersionLevel, string>> = {
  excellent: '#52c41a',
  good: '#1677ff',
  attention: '#faad14',
  poor: '#f5222d',
  none: '#bfbfbf',
}

export const levelColor = (level: string): string =>
  Object.hasOwn(LEVEL_COLORS, level) ? LEVEL_COLORS[level as DispersionLevel] : LEVEL_COLORS.none

/**
 * The level of a rate under the bounds, as the server grades: ≤ excellentMax excellent,
 * ≤ goodMax good, ≤ attentionMax attention, above poor; no rate → none.
 */
export function gradeRate(rate: number | null, s: DispersionSetting): DispersionLevel {
  if (rate === null || !Number.isFinite(rate)) return 'none'
  if (rate <= s.excellentMax) return 'excellent'
  if (rate <= s.goodMax) return 'good'
  if (rate <= s.attentionMax) return 'attention'
  return 'poor'
}

export interface LegendBand {
  level: DispersionLevel
  /** Message key of the range text and its values. */
  range: MessageKey
  values: { min?: number; max?: number }
}

/** The legend: each level with its bounds, in order. */
export function legendBands(s: DispersionSetting): LegendBand[] {
  return [
    {
      level: 'excellent',
      range: 'analytics.levelRange.excellent',
      values: { max: s.excellentMax },
    },
    {
      level: 'good',
      range: 'analytics.levelRange.good',
      values: { min: s.excellentMax, max: s.goodMax },
    },
    {
      level: 'attention',
      range: 'analytics.levelRange.attention',
      values: { min: s.goodMax, max: s.attentionMax },
    },
    { level: 'poor', range: 'analytics.levelRange.poor', values: { min: s.attentionMax } },
    { level: 'none', range: 'analytics.levelRange.none', values: {} },
  ]
}

/** Rate as shown: "12.3%" or "--". */
export const formatRate = (rate: number | null): string =>
  rate === null || !Number.isFinite(rate) ? '--' : `${rate.toFixed(1)}%`

/** Signed deviation: "+1.2%", "-15.0%" or "--". */
export const formatDeviation = (pct: number | null): string =>
  pct === null || !Number.isFinite(pct) ? '--' : `${pct > 0 ? '+' : ''}${pct.toFixed(1)}%`

export type SettingField = keyof DispersionSetting

export interface SettingIssue {
  field: SettingField
  message: MessageKey
  /** Interpolation: the field label's key, translated by the caller. */
  label?: MessageKey
}

export const SETTING_LABELS: Readonly<Record<SettingField, MessageKey>> = {
  excellentMax: 'analytics.discrete.excellentMax',
  goodMax: 'analytics.discrete.goodMax',
  attentionMax: 'analytics.discrete.attentionMax',
  minIrradianceWm2: 'analytics.discrete.minIrradianceWm2',
  minPowerRatio: 'analytics.discrete.minPowerRatio',
  shadingTolerant: 'analytics.discrete.shadingTolerant',
  poorDays: 'analytics.discrete.poorDays',
}

const NUMBER_FIELDS: readonly Exclude<SettingField, 'shadingTolerant'>[] = [
  'excellentMax',
  'goodMax',
  'attentionMax',
  'minIrradianceWm2',
  'minPowerRatio',
  'poorDays',
]

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v)

/**
 * The issues of a setting draft, one per field at most, as the server checks them:
 * 0 < excellentMax < goodMax < attentionMax ≤ 100; the others present and non-negative,
 * poorDays a whole number.
 */
export function validateSetting(draft: Partial<Record<SettingField, unknown>>): SettingIssue[] {
  const issues: SettingIssue[] = []
  const has = new Set<SettingField>()
  const push = (issue: SettingIssue) => {
    if (has.has(issue.field)) return
    has.add(issue.field)
    issues.push(issue)
  }
  for (const field of NUMBER_FIELDS) {
    if (!isNum(draft[field]))
      push({
        field,
        message: 'analytics.discrete.validation.required',
        label: SETTING_LABELS[field],
      })
  }
  const { excellentMax: e, goodMax: g, attentionMax: a } = draft
  if (isNum(e) && e <= 0)
    push({ field: 'excellentMax', message: 'analytics.discrete.validation.excellentPositive' })
  if (isNum(g) && isNum(e) && g <= e)
    push({ field: 'goodMax', message: 'analytics.discrete.validation.goodAboveExcellent' })
  if (isNum(a) && a > 100)
    push({ field: 'attentionMax', message: 'analytics.discrete.validation.attentionMax100' })
  if (isNum(a) && isNum(g) && a <= g)
    push({ field: 'attentionMax', message: 'analytics.discrete.validation.attentionAboveGood' })
  for (const field of ['minIrradianceWm2', 'minPowerRatio', 'poorDays'] as const) {
    const v = draft[field]
    if (isNum(v) && v < 0)
      push({
        field,
        message: 'analytics.discrete.validation.nonNegative',
        label: SETTING_LABELS[field],
      })
  }
  if (isNum(draft.poorDays) && !Number.isInteger(draft.poorDays))
    push({
      field: 'poorDays',
      message: 'analytics.discrete.validation.integer',
      label: SETTING_LABELS.poorDays,
    })
  return issues
}

/** Mean of the known normalised currents, or null. */
export function inverterMean(strings: readonly StringFigure[]): number | null {
  const known = strings.map((s) => s.normalisedA).filter(isNum)
  return known.length === 0 ? null : known.reduce((a, b) => a + b, 0) / known.length
}

/** The deviation of a string: the server's figure, else computed from the mean. */
export function deviationOf(s: StringFigure, mean: number | null): number | null {
  if (isNum(s.deviationPct)) return s.deviationPct
  if (!isNum(s.normalisedA) || mean === null || mean === 0) return null
  return ((s.normalisedA - mean) / mean) * 100
}

/**
 * The weak strings of an inverter (string indexes, weakest first): those more than
 * `boundPct` below the inverter mean (the "excellent" bound: a string that alone would take the
 * inverter out of "excellent"), at most `max` of them.
 */
export function weakStrings(strings: readonly StringFigure[], boundPct: number, max = 3): number[] {
  const mean = inverterMean(strings)
  return strings
    .map((s) => ({ index: s.index, dev: deviationOf(s, mean) }))
    .filter(
      (s): s is { index: number; dev: number } => s.dev !== null && s.dev < -Math.abs(boundPct),
    )
    .sort((a, b) => a.dev - b.dev)
    .slice(0, max)
    .map((s) => s.index)
}

export interface StringChartLabels {
  title: string
  normalised: string
  mean: (value: string) => string
  string: string
  deviation: string
  modules: string
  current: string
}

/** Bar chart of an inverter's normalised string currents, mean line, weak bars red. */
export function stringChartOption(
  record: DispersionRecord,
  weak: readonly number[],
  labels: StringChartLabels,
): Record<string, unknown> {
  const mean = inverterMean(record.strings)
  const weakSet = new Set(weak)
  return {
    title: { text: labels.title, left: 'center', textStyle: { fontSize: 14 } },
    tooltip: {
      trigger: 'item',
      formatter: (p: { dataIndex: number }) => {
        const s = record.strings[p.dataIndex]
        if (!s) return ''
        return [
          `${labels.string} PV${s.index}`,
          `${labels.normalised}: ${s.normalisedA === null ? '--' : s.normalisedA.toFixed(2)}`,
          `${labels.current}: ${s.currentA === null ? '--' : s.currentA.toFixed(2)}`,
          `${labels.modules}: ${s.modules ?? '--'}`,
          `${labels.deviation}: ${formatDeviation(deviationOf(s, mean))}`,
        ].join('<br/>')
      },
    },
    grid: { left: 56, right: 32, top: 48, bottom: 32 },
    xAxis: { type: 'category', data: record.strings.map((s) => `PV${s.index}`) },
    yAxis: { type: 'value', name: labels.normalised },
    series: [
      {
        type: 'bar',
        name: labels.normalised,
        barMaxWidth: 36,
        data: record.strings.map((s) => ({
          value: s.normalisedA,
          itemStyle: { color: weakSet.has(s.index) ? LEVEL_COLORS.poor : '#5b8ff9' },
        })),
        label: {
          show: true,
          position: 'top',
          formatter: (p: { dataIndex: number }) => {
            const s = record.strings[p.dataIndex]
            return s ? formatDeviation(deviationOf(s, mean)) : ''
          },
        },
        markLine:
          mean === null
            ? undefined
            : {
                symbol: 'none',
                lineStyle: { type: 'dashed', color: '#595959' },
                label: { formatter: labels.mean(mean.toFixed(2)), position: 'insideEndTop' },
                data: [{ yAxis: mean }],
              },
      },
    ],
  }
}
