import { describe, expect, it } from 'vitest'
import {
  STATUSES,
  STATUS_COLOURS,
  countByStatus,
  deriveStatus,
  parseStatus,
  statusColour,
  worstStatus,
} from './status'

describe('status colours', () => {
  it('gives every status its own colour', () => {
    const colours = STATUSES.map(statusColour)
    expect(new Set(colours).size).toBe(STATUSES.length)
    expect(statusColour('producing')).toBe('#52c41a')
    expect(statusColour('fault')).toBe('#f5222d')
    expect(statusColour('offline')).toBe('#8c8c8c')
    expect(statusColour('commissioning')).toBe('#fa8c16')
    expect(Object.keys(STATUS_COLOURS).sort()).toEqual([...STATUSES].sort())
  })
})

describe('deriving a status', () => {
  it('puts commissioning before everything, then fault, then offline', () => {
    expect(deriveStatus({ commissioning: true, fault: true, online: false })).toBe('commissioning')
    expect(deriveStatus({ fault: true, online: false })).toBe('fault')
    expect(deriveStatus({ online: false, powerW: 5000 })).toBe('offline')
  })

  it('tells producing from standby by the output', () => {
    expect(deriveStatus({ online: true, powerW: 3200 })).toBe('producing')
    expect(deriveStatus({ online: true, powerW: 0 })).toBe('standby')
    expect(deriveStatus({ online: true, powerW: 0.4 })).toBe('standby')
    expect(deriveStatus({ online: true, powerW: null })).toBe('standby')
    expect(deriveStatus({})).toBe('offline')
  })

  it('reads server wording case-insensitively', () => {
    expect(parseStatus('PRODUCING')).toBe('producing')
    expect(parseStatus('normal')).toBe('producing')
    expect(parseStatus('disconnected')).toBe('offline')
    expect(parseStatus('faulty')).toBe('fault')
    expect(parseStatus('bogus')).toBeUndefined()
    expect(parseStatus(3)).toBeUndefined()
  })

  it('counts every status and picks the worst', () => {
    const counts = countByStatus([
      { status: 'producing' },
      { status: 'producing' },
      { status: 'fault' },
    ])
    expect(counts).toEqual({ producing: 2, standby: 0, offline: 0, commissioning: 0, fault: 1 })
    expect(worstStatus(['producing', 'offline', 'standby'])).toBe('offline')
    expect(worstStatus(['producing', 'fault', 'offline'])).toBe('fault')
    expect(worstStatus([])).toBeUndefined()
  })
})
