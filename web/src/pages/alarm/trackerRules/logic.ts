/**
 * Validation of a bracket alarm rule, as the server checks it: a known variable, a comparison, a
 * threshold; for "inside" / "outside" an upper threshold above it; a whole duration ≥ 0.
 */
import { COMPARISONS, isRange, type FlexVariable } from '../../../api/alarm/flex'
import type { FieldOption, MessageKey } from '../../../components/crud/types'

export type FlexSettingField =
  'variable' | 'comparison' | 'threshold' | 'thresholdHigh' | 'durationSeconds'

export interface FlexSettingIssue {
  field: FlexSettingField
  message: MessageKey
}

const blank = (v: unknown) => v === undefined || v === null || v === ''
const asNumber = (v: unknown): number | null => {
  if (blank(v)) return null
  const n = typeof v === 'number' ? v : Number(v)
  return Number.isFinite(n) ? n : null
}

/**
 * The issues of a rule draft, at most one per field. `known` is the variable list
 * (`listVariable`); when it is not loaded yet (null) the variable is only checked for presence.
 */
export function validateFlexSetting(
  draft: Record<string, unknown>,
  known: readonly FlexVariable[] | null,
): FlexSettingIssue[] {
  const issues: FlexSettingIssue[] = []
  const { variable, comparison, threshold, thresholdHigh, durationSeconds } = draft
  if (blank(variable))
    issues.push({ field: 'variable', message: 'analytics.flexSetting.variableRequired' })
  else if (known !== null && !known.some((v) => v.key === variable))
    issues.push({ field: 'variable', message: 'analytics.flexSetting.variableUnknown' })

  if (blank(comparison) || !(COMPARISONS as readonly unknown[]).includes(comparison))
    issues.push({ field: 'comparison', message: 'analytics.flexSetting.comparisonRequired' })

  const low = asNumber(threshold)
  if (blank(threshold))
    issues.push({ field: 'threshold', message: 'analytics.flexSetting.thresholdRequired' })
  else if (low === null)
    issues.push({ field: 'threshold', message: 'analytics.flexSetting.number' })

  if (isRange(comparison)) {
    const high = asNumber(thresholdHigh)
    if (blank(thresholdHigh))
      issues.push({
        field: 'thresholdHigh',
        message: 'analytics.flexSetting.thresholdHighRequired',
      })
    else if (high === null)
      issues.push({ field: 'thresholdHigh', message: 'analytics.flexSetting.number' })
    else if (low !== null && high <= low)
      issues.push({ field: 'thresholdHigh', message: 'analytics.flexSetting.thresholdHighAbove' })
  }

  const duration = asNumber(durationSeconds)
  if (blank(durationSeconds))
    issues.push({ field: 'durationSeconds', message: 'analytics.flexSetting.durationRequired' })
  else if (duration === null || duration < 0 || !Number.isInteger(duration))
    issues.push({ field: 'durationSeconds', message: 'analytics.flexSetting.durationNonNegative' })
  return issues
}

const CMP_KEYS: Readonly<Record<(typeof COMPARISONS)[number], MessageKey>> = {
  '>': 'analytics.flexSetting.cmp.gt',
  '>=': 'analytics.flexSetting.cmp.ge',
  '<': 'analytics.flexSetting.cmp.lt',
  '<=': 'analytics.flexSetting.cmp.le',
  outside: 'analytics.flexSetting.cmp.outside',
  inside: 'analytics.flexSetting.cmp.inside',
}

export const comparisonOptions: readonly FieldOption[] = COMPARISONS.map((c) => ({
  value: c,
  label: CMP_KEYS[c],
}))

/** The message key of a comparison, or null for an unknown one. */
export const comparisonLabel = (c: unknown): MessageKey | null =>
  typeof c === 'string' && Object.hasOwn(CMP_KEYS, c) ? CMP_KEYS[c as keyof typeof CMP_KEYS] : null

/** The option text of a variable: "Wind speed (m/s)". */
export const variableText = (v: FlexVariable): string => (v.unit ? `${v.name} (${v.unit})` : v.name)
