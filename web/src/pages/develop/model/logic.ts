/** The field settings grid's rules, free of React: what is saved and what stops a save. */
import type { Prototype } from '../../../api/develop/model'
import type { MessageKey } from '../../../components/crud/types'

const blank = (text: string | null | undefined) => (text ?? '').trim() === ''

/** Settings as the grid shows them: in `sort` order, then by column. */
export const sortedPrototypes = (rows: readonly Prototype[]): Prototype[] =>
  [...rows].sort((a, b) => a.sort - b.sort || a.jdbcName.localeCompare(b.jdbcName))

/** The first row that cannot be saved and why (the message names its column), or null. */
export function prototypeProblem(
  rows: readonly Prototype[],
): { message: MessageKey; column: string } | null {
  for (const row of rows) {
    if (blank(row.labelZh) || blank(row.labelEn))
      return { message: 'develop.model.labelMissing', column: row.jdbcName }
    if (row.component === 'select' && blank(row.dictCode))
      return { message: 'develop.model.dictMissing', column: row.jdbcName }
  }
  return null
}

const numeric = (row: Prototype) => row.propertyType === 'integer' || row.propertyType === 'number'

/**
 * The rows to save for `modelId`: labels trimmed, and a setting that does not apply to its row
 * cleared (a dictionary only for a select, a length only for text, bounds only for numbers), so
 * what is stored is what the generator will use.
 */
export const prototypesToSave = (rows: readonly Prototype[], modelId: string): Prototype[] =>
  rows.map((row) => ({
    ...row,
    modelId,
    labelZh: row.labelZh.trim(),
    labelEn: row.labelEn.trim(),
    dictCode: row.component === 'select' ? (row.dictCode ?? '').trim() : null,
    maxLength: row.propertyType === 'string' ? (row.maxLength ?? null) : null,
    minValue: numeric(row) ? (row.minValue ?? null) : null,
    maxValue: numeric(row) ? (row.maxValue ?? null) : null,
  }))
