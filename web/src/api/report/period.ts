/**
 * The time part of every report call (`type`, `date`, `start`, `end`), as the hub reads it in the
 * station's own clock: a day by hours, a month by days, a year by months, several years by year,
 * or a range of days. Dates are calendar strings the user picked (never instants): they go to
 * the hub exactly as typed, so a browser in another time zone asks for the same station day.
 */

export const PERIOD_TYPES = ['day', 'month', 'year', 'years', 'range'] as const
export type PeriodType = (typeof PERIOD_TYPES)[number]

export interface Period {
  type: PeriodType
  /** yyyy-MM-dd (day), yyyy-MM (month), yyyy (year); absent = the station's today. */
  date?: string
  /** yyyy (years) or yyyy-MM-dd (range). */
  start?: string
  end?: string
}

/** Longest range of days and most years the hub accepts. */
export const MAX_RANGE_DAYS = 366
export const MAX_YEARS = 30

/** The picker format of each type (dayjs tokens). */
export const PERIOD_FORMAT: Record<PeriodType, string> = {
  day: 'YYYY-MM-DD',
  month: 'YYYY-MM',
  year: 'YYYY',
  years: 'YYYY',
  range: 'YYYY-MM-DD',
}

/** The query params of a period: only the fields its type uses, blanks left out. */
export function periodParams(p: Period): Record<string, string> {
  const out: Record<string, string> = { type: p.type }
  const put = (k: 'date' | 'start' | 'end') => {
    const v = p[k]?.trim()
    if (v) out[k] = v
  }
  if (p.type === 'years' || p.type === 'range') {
    put('start')
    put('end')
  } else put('date')
  return out
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/
const MONTH = /^(\d{4})-(\d{2})/
const YEAR = /^(\d{4})/

/** Days from a to b (yyyy-MM-dd), by the calendar (UTC arithmetic on dates, no clock involved). */
export function daysBetween(a: string, b: string): number | null {
  const ma = DAY.exec(a)
  const mb = DAY.exec(b)
  if (!ma || !mb) return null
  const ta = Date.UTC(+ma[1], +ma[2] - 1, +ma[3])
  const tb = Date.UTC(+mb[1], +mb[2] - 1, +mb[3])
  return Math.round((tb - ta) / 86_400_000)
}

const pad = (n: number) => String(n).padStart(2, '0')

/** The last day of a yyyy-MM month. */
function lastDayOf(year: number, month: number): string {
  const d = new Date(Date.UTC(year, month, 0)).getUTCDate()
  return `${year}-${pad(month)}-${pad(d)}`
}

/**
 * A period of `type` around `anchor` (the date on screen: a period title the hub answered, such as
 * `2026-11-26`, `2026-11`, `2026`, or a range's end), so switching type keeps the user near the
 * day they were looking at: a range becomes that month up to the day, years the last five.
 * Without an anchor the hub's default (the station's today) applies where it has one.
 */
export function switchType(type: PeriodType, anchor: string | undefined): Period {
  const a = (anchor ?? '').trim()
  const y = YEAR.exec(a)?.[1]
  const m = MONTH.exec(a)
  const d = DAY.exec(a)
  switch (type) {
    case 'day':
      return d ? { type, date: a } : { type }
    case 'month':
      return m ? { type, date: `${m[1]}-${m[2]}` } : { type }
    case 'year':
      return y ? { type, date: y } : { type }
    case 'years':
      return y ? { type, start: String(+y - 4), end: y } : { type }
    case 'range':
      if (d) return { type, start: `${d[1]}-${d[2]}-01`, end: a }
      if (m) return { type, start: `${m[1]}-${m[2]}-01`, end: lastDayOf(+m[1], +m[2]) }
      if (y) return { type, start: `${y}-01-01`, end: `${y}-12-31` }
      return { type }
  }
}

/** The last date a period title names (`2026-11-01~2026-11-30` → `2026-11-30`). */
export const anchorOf = (title: string | undefined): string | undefined =>
  title ? (title.split('~').pop() ?? title).trim() : undefined

/**
 * What is wrong with a period before asking the hub (an i18n key under `report.period`), or null.
 * The hub checks the same and answers 400 with its own message; this only spares the call.
 */
export type PeriodProblem = 'pickRange' | 'reversed' | 'rangeTooLong' | 'pickYears' | 'tooManyYears'

export function periodProblem(p: Period): PeriodProblem | null {
  if (p.type === 'range') {
    if (!p.start || !p.end) return 'pickRange'
    const n = daysBetween(p.start, p.end)
    if (n === null) return 'pickRange'
    if (n < 0) return 'reversed'
    if (n + 1 > MAX_RANGE_DAYS) return 'rangeTooLong'
  }
  if (p.type === 'years') {
    if (!p.start || !p.end) return 'pickYears'
    const n = +p.end - +p.start
    if (n < 0) return 'reversed'
    if (n + 1 > MAX_YEARS) return 'tooManyYears'
  }
  return null
}

/**
 * The query to export or reload with: a period without a date is the station's today, which the
 * answer names (`title`); pinning it keeps an export made after midnight on the figures shown.
 */
export function pinned(p: Period, title: string | undefined): Period {
  if (p.date || p.type === 'years' || p.type === 'range' || !title) return p
  return { ...p, date: title }
}
