import { describe, expect, it } from 'vitest'
import { offsetMinutes, siteToday, utcLabel } from './clock'

describe('the station clock', () => {
  it('states offsets the way the hub answers them', () => {
    expect(utcLabel(780)).toBe('UTC+13:00')
    expect(utcLabel(-210)).toBe('UTC-03:30')
    expect(utcLabel('+08:00')).toBe('UTC+08:00')
    expect(offsetMinutes('+13:00')).toBe(780)
    expect(offsetMinutes('-03:30')).toBe(-210)
    expect(offsetMinutes('soon')).toBeNull()
  })

  it("names the station's today, not the browser's", () => {
    // 2026-03-01 12:00 UTC: 20:00 in China, already 01:00 of 2 March at a site on UTC+13.
    const now = Date.UTC(2026, 2, 1, 12)
    expect(siteToday(480, now)).toBe('2026-03-01')
    expect(siteToday(780, now)).toBe('2026-03-02')
    expect(siteToday(-240, now)).toBe('2026-03-01')
    expect(siteToday(-720, Date.UTC(2026, 2, 1, 6))).toBe('2026-02-28')
  })
})
