/**
 * The rules of a time-of-use (peak/valley) price schedule, free of React so they are tested on
 * their own. They mirror `check_day` / `versions_of` of `cloud/src/station/electric_price.rs`
 * (at most 10 effective dates, at most 5 time segments each; every date's segments
 * cover 00:00–24:00 without overlap or gap). The editor checks before sending so the user sees
 * every problem at its block; the server stays the authority and its message is shown when it
 * refuses.
 */
import type { DatedSchedule, PriceSegment } from '../../../api/station/electricPrice'
import type { MessageKey } from '../../../components/crud/types'

export const MAX_DATES = 10
export const MAX_SEGMENTS = 5
export const DAY_MINUTES = 24 * 60
export const DAY_START = '00:00'
export const DAY_END = '24:00'
/** The price bounds and precision the server takes. */
export const MAX_PRICE = 100
export const PRICE_DECIMALS = 4

/** One segment as the editor holds it (fields may still be blank). */
export interface SegmentDraft {
  start: string
  end: string
  type?: string | null
  price?: number | null
}

/** One effective date (`yyyy-MM-dd`, blank until chosen) and its segments. */
export interface DateDraft {
  date?: string | null
  segments: SegmentDraft[]
}

/** A problem found, as a message key with its values; `date` is the block's index, if any. */
export interface ScheduleIssue {
  key: MessageKey
  values: Record<string, string | number>
  date?: number
}

const TIME = /^(\d{2}):(\d{2})$/

/**
 * `HH:mm` → minutes of the day, or null. An end may be `24:00`; like the server, an end of `23:59`
 * also means the end of the day (some clients send it).
 */
export function toMinutes(text: string | null | undefined, end: boolean): number | null {
  const value = (text ?? '').trim()
  if (end && value === '23:59') return DAY_MINUTES
  const match = TIME.exec(value)
  if (!match) return null
  const hours = Number(match[1])
  const minutes = Number(match[2])
  const total = hours * 60 + minutes
  if (minutes >= 60 || hours > 24 || total > DAY_MINUTES) return null
  if (!end && total === DAY_MINUTES) return null
  return total
}

export const hhmm = (minutes: number): string =>
  `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`

/** Whether a price is one the server takes: 0–100 with at most 4 decimals. */
export function validPrice(price: number | null | undefined): price is number {
  if (price === null || price === undefined || !Number.isFinite(price)) return false
  if (price < 0 || price > MAX_PRICE) return false
  const decimals = String(price).split('.')[1]?.length ?? 0
  return decimals <= PRICE_DECIMALS && !String(price).includes('e')
}

export const canAddDate = (dates: readonly DateDraft[]): boolean => dates.length < MAX_DATES
export const canAddSegment = (date: DateDraft): boolean => date.segments.length < MAX_SEGMENTS

/** The checks of one date's segments; `label` names the date in messages. */
export function checkDay(
  label: string,
  segments: readonly SegmentDraft[],
  index?: number,
): ScheduleIssue[] {
  const issue = (key: MessageKey, values: Record<string, string | number>): ScheduleIssue => ({
    key,
    values: { date: label, ...values },
    date: index,
  })
  if (segments.length === 0) return [issue('deviceUi.electricPrice.errNoSegments', {})]
  if (segments.length > MAX_SEGMENTS) {
    return [issue('deviceUi.electricPrice.errTooManySegments', { max: MAX_SEGMENTS })]
  }
  const issues: ScheduleIssue[] = []
  const timed: { start: number; end: number }[] = []
  for (const segment of segments) {
    const span = { start: segment.start, end: segment.end }
    const start = toMinutes(segment.start, false)
    const end = toMinutes(segment.end, true)
    if (start === null || end === null) {
      issues.push(issue('deviceUi.electricPrice.errTime', span))
      continue
    }
    if (start >= end) {
      issues.push(issue('deviceUi.electricPrice.errOrder', span))
      continue
    }
    if (!segment.type) issues.push(issue('deviceUi.electricPrice.errType', span))
    if (!validPrice(segment.price)) issues.push(issue('deviceUi.electricPrice.errPrice', span))
    timed.push({ start, end })
  }
  // Coverage is only meaningful once every segment has valid times.
  if (timed.length !== segments.length) return issues
  timed.sort((a, b) => a.start - b.start)
  let reached = 0
  for (let i = 0; i < timed.length; i++) {
    const { start, end } = timed[i]
    if (start < reached) {
      const prev = timed[i - 1]
      issues.push(
        issue('deviceUi.electricPrice.errOverlap', {
          a: `${hhmm(prev.start)}-${hhmm(prev.end)}`,
          b: `${hhmm(start)}-${hhmm(end)}`,
        }),
      )
      return issues
    }
    if (start > reached) {
      issues.push(issue('deviceUi.electricPrice.errGap', { from: hhmm(reached), to: hhmm(start) }))
      return issues
    }
    reached = end
  }
  if (reached < DAY_MINUTES) {
    issues.push(issue('deviceUi.electricPrice.errGap', { from: hhmm(reached), to: DAY_END }))
  }
  return issues
}

/** Every problem of a peak/valley schedule (none: it may be sent). */
export function checkSchedule(dates: readonly DateDraft[]): ScheduleIssue[] {
  if (dates.length === 0) return [{ key: 'deviceUi.electricPrice.errNoDates', values: {} }]
  if (dates.length > MAX_DATES) {
    return [{ key: 'deviceUi.electricPrice.errTooManyDates', values: { max: MAX_DATES } }]
  }
  const issues: ScheduleIssue[] = []
  const seen = new Set<string>()
  dates.forEach((draft, index) => {
    const date = draft.date?.trim() ?? ''
    if (date === '') {
      issues.push({
        key: 'deviceUi.electricPrice.errDateMissing',
        values: { n: index + 1 },
        date: index,
      })
    } else if (seen.has(date)) {
      issues.push({ key: 'deviceUi.electricPrice.errDateDuplicate', values: { date }, date: index })
    } else {
      seen.add(date)
    }
    issues.push(...checkDay(date || `#${index + 1}`, draft.segments, index))
  })
  return issues
}

/** A new effective date: one segment over the whole day, to be typed and priced. */
export const newDate = (): DateDraft => ({
  date: null,
  segments: [{ start: DAY_START, end: DAY_END, type: null, price: null }],
})

/**
 * A new segment after the last one: it starts where the last ends. When the last already reaches
 * 24:00 the new one is left blank, since where to split is the user's choice.
 */
export function newSegment(segments: readonly SegmentDraft[]): SegmentDraft {
  const last = segments[segments.length - 1]
  const lastEnd = last ? toMinutes(last.end, true) : 0
  if (lastEnd === null || lastEnd >= DAY_MINUTES)
    return { start: '', end: '', type: null, price: null }
  return { start: hhmm(lastEnd), end: DAY_END, type: null, price: null }
}

/** The server's versions → editor drafts. */
export const fromWire = (schedules: readonly DatedSchedule[]): DateDraft[] =>
  schedules.map((schedule) => ({
    date: schedule.effectiveDate,
    segments: schedule.segments.map((segment) => ({
      start: segment.startTime,
      end: segment.endTime,
      type: segment.type,
      price: segment.price,
    })),
  }))

/**
 * Checked drafts → the body's `schedules`, segments in time order. An end of the day is sent as
 * `24:00` whatever was typed for it.
 */
export const toWire = (dates: readonly DateDraft[]): DatedSchedule[] =>
  dates.map((draft) => ({
    effectiveDate: (draft.date ?? '').trim(),
    segments: [...draft.segments]
      .sort((a, b) => (toMinutes(a.start, false) ?? 0) - (toMinutes(b.start, false) ?? 0))
      .map((segment): PriceSegment => ({
        startTime: segment.start.trim(),
        endTime: toMinutes(segment.end, true) === DAY_MINUTES ? DAY_END : segment.end.trim(),
        type: segment.type ?? '',
        price: segment.price ?? 0,
      })),
  }))
