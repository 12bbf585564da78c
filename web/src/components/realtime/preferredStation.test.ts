import { beforeEach, describe, expect, it } from 'vitest'
import { preferredStation, rememberStation } from './preferredStation'

describe('preferred station', () => {
  beforeEach(() => localStorage.clear())

  it('opens on the first station until one was used, then on the last used, per user', () => {
    expect(preferredStation('u1', ['10', '20'])).toBe('10')
    rememberStation('u1', '20')
    expect(preferredStation('u1', ['10', '20'])).toBe('20')
    expect(preferredStation('u2', ['10', '20'])).toBe('10')
  })

  it('falls back to the first when the last used station is gone, and to none without stations', () => {
    rememberStation('u1', '30')
    expect(preferredStation('u1', ['10', '20'])).toBe('10')
    expect(preferredStation('u1', [])).toBeUndefined()
  })
})
