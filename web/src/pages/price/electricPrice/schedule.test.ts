import { describe, expect, it } from 'vitest'
import {
  canAddDate,
  canAddSegment,
  checkDay,
  checkSchedule,
  fromWire,
  newDate,
  newSegment,
  toMinutes,
  toWire,
  validPrice,
  type DateDraft,
  type SegmentDraft,
} from './schedule'

const seg = (start: string, end: string, type = '3', price: number | null = 0.5): SegmentDraft => ({
  start,
  end,
  type,
  price,
})
const day = (date: string | null, ...segments: SegmentDraft[]): DateDraft => ({ date, segments })
const wholeDay = (date: string) => day(date, seg('00:00', '24:00'))
const keys = (issues: { key: string }[]) => issues.map((issue) => issue.key)

describe('times', () => {
  it('reads HH:mm, lets only an end be 24:00 and takes 23:59 as the end of the day', () => {
    expect(toMinutes('00:00', false)).toBe(0)
    expect(toMinutes('08:30', false)).toBe(510)
    expect(toMinutes('24:00', true)).toBe(1440)
    expect(toMinutes('24:00', false)).toBeNull()
    expect(toMinutes('23:59', true)).toBe(1440)
    expect(toMinutes('23:59', false)).toBe(1439)
    expect(toMinutes('24:30', true)).toBeNull()
    expect(toMinutes('08:60', false)).toBeNull()
    expect(toMinutes('8:00', false)).toBeNull()
    expect(toMinutes('', false)).toBeNull()
    expect(toMinutes(undefined, true)).toBeNull()
  })

  it('accepts prices 0–100 with at most 4 decimals', () => {
    expect(validPrice(0)).toBe(true)
    expect(validPrice(0.1234)).toBe(true)
    expect(validPrice(100)).toBe(true)
    expect(validPrice(0.12345)).toBe(false)
    expect(validPrice(-0.1)).toBe(false)
    expect(validPrice(100.01)).toBe(false)
    expect(validPrice(null)).toBe(false)
    expect(validPrice(Number.NaN)).toBe(false)
  })
})

describe('one day', () => {
  it('accepts segments tiling the day in any order', () => {
    expect(checkDay('d', [seg('00:00', '08:00'), seg('08:00', '24:00')])).toEqual([])
    expect(checkDay('d', [seg('08:00', '23:59'), seg('00:00', '08:00')])).toEqual([])
  })

  it('reports an overlap with both segments', () => {
    const issues = checkDay('2025-01-01', [seg('00:00', '09:00'), seg('08:00', '24:00')], 0)
    expect(issues).toEqual([
      {
        key: 'deviceUi.electricPrice.errOverlap',
        values: { date: '2025-01-01', a: '00:00-09:00', b: '08:00-24:00' },
        date: 0,
      },
    ])
  })

  it('reports a gap between segments', () => {
    const [issue] = checkDay('d', [seg('00:00', '07:00'), seg('08:00', '24:00')])
    expect(issue.key).toBe('deviceUi.electricPrice.errGap')
    expect(issue.values).toMatchObject({ from: '07:00', to: '08:00' })
  })

  it('reports a day not starting at 00:00', () => {
    const [issue] = checkDay('d', [seg('01:00', '24:00')])
    expect(issue.key).toBe('deviceUi.electricPrice.errGap')
    expect(issue.values).toMatchObject({ from: '00:00', to: '01:00' })
  })

  it('reports a day ending before 24:00', () => {
    const [issue] = checkDay('d', [seg('00:00', '12:00'), seg('12:00', '22:00')])
    expect(issue.key).toBe('deviceUi.electricPrice.errGap')
    expect(issue.values).toMatchObject({ from: '22:00', to: '24:00' })
  })

  it('takes 5 segments and refuses 6', () => {
    const five = [
      seg('00:00', '06:00', '4'),
      seg('06:00', '10:00', '3'),
      seg('10:00', '14:00', '2'),
      seg('14:00', '18:00', '1'),
      seg('18:00', '24:00', '3'),
    ]
    expect(checkDay('d', five)).toEqual([])
    expect(canAddSegment(day('d', ...five))).toBe(false)
    expect(canAddSegment(day('d', ...five.slice(0, 4)))).toBe(true)
    const six = [...five.slice(0, 4), seg('18:00', '20:00'), seg('20:00', '24:00')]
    expect(keys(checkDay('d', six))).toEqual(['deviceUi.electricPrice.errTooManySegments'])
  })

  it('reports bad times, reversed segments, missing types and bad prices', () => {
    expect(keys(checkDay('d', [seg('00:00', '25:00')]))).toEqual(['deviceUi.electricPrice.errTime'])
    expect(keys(checkDay('d', [seg('10:00', '09:00')]))).toEqual([
      'deviceUi.electricPrice.errOrder',
    ])
    expect(keys(checkDay('d', [seg('00:00', '24:00', '', 0.5)]))).toEqual([
      'deviceUi.electricPrice.errType',
    ])
    expect(keys(checkDay('d', [seg('00:00', '24:00', '3', null)]))).toEqual([
      'deviceUi.electricPrice.errPrice',
    ])
    expect(keys(checkDay('d', []))).toEqual(['deviceUi.electricPrice.errNoSegments'])
  })
})

describe('the schedule', () => {
  const dates = (n: number) =>
    Array.from({ length: n }, (_, i) => wholeDay(`2025-${String(i + 1).padStart(2, '0')}-01`))

  it('takes 10 dates and refuses 11', () => {
    expect(checkSchedule(dates(10))).toEqual([])
    expect(canAddDate(dates(10))).toBe(false)
    expect(canAddDate(dates(9))).toBe(true)
    expect(keys(checkSchedule(dates(11)))).toEqual(['deviceUi.electricPrice.errTooManyDates'])
  })

  it('needs at least one date, each chosen once', () => {
    expect(keys(checkSchedule([]))).toEqual(['deviceUi.electricPrice.errNoDates'])
    const issues = checkSchedule([wholeDay('2025-01-01'), wholeDay('2025-01-01')])
    expect(issues).toEqual([
      {
        key: 'deviceUi.electricPrice.errDateDuplicate',
        values: { date: '2025-01-01' },
        date: 1,
      },
    ])
    expect(checkSchedule([day(null, seg('00:00', '24:00'))])[0]).toMatchObject({
      key: 'deviceUi.electricPrice.errDateMissing',
      values: { n: 1 },
      date: 0,
    })
  })

  it('names the block of each day problem', () => {
    const issues = checkSchedule([wholeDay('2025-01-01'), day('2025-06-01', seg('00:00', '08:00'))])
    expect(issues).toHaveLength(1)
    expect(issues[0]).toMatchObject({ key: 'deviceUi.electricPrice.errGap', date: 1 })
  })
})

describe('drafts', () => {
  it('starts a date with one whole-day segment to fill in', () => {
    expect(newDate()).toEqual({
      date: null,
      segments: [{ start: '00:00', end: '24:00', type: null, price: null }],
    })
  })

  it('continues a new segment where the last one ends', () => {
    expect(newSegment([seg('00:00', '08:00')])).toMatchObject({ start: '08:00', end: '24:00' })
    expect(newSegment([seg('00:00', '24:00')])).toMatchObject({ start: '', end: '' })
    expect(newSegment([])).toMatchObject({ start: '00:00', end: '24:00' })
  })

  it('round-trips the wire form, sorting segments and writing the end of the day as 24:00', () => {
    const wire = toWire([
      day('2025-01-01', seg('08:00', '23:59', '2', 1.1), seg('00:00', '08:00', '4', 0.3)),
    ])
    expect(wire).toEqual([
      {
        effectiveDate: '2025-01-01',
        segments: [
          { startTime: '00:00', endTime: '08:00', type: '4', price: 0.3 },
          { startTime: '08:00', endTime: '24:00', type: '2', price: 1.1 },
        ],
      },
    ])
    expect(fromWire(wire)).toEqual([
      day('2025-01-01', seg('00:00', '08:00', '4', 0.3), seg('08:00', '24:00', '2', 1.1)),
    ])
  })
})
