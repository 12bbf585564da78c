import { describe, expect, it } from 'vitest'
import {
  autoCollapse,
  isPhone,
  isPhoneWidth,
  phoneBreakpoint,
  rootFontSize,
  screenClass,
  touchTarget,
} from './screen'

describe('screenClass', () => {
  it.each([
    [1920, 3],
    [1200, 3],
    [1199, 2],
    [992, 2],
    [991, 1],
    [768, 1],
    [767, 0],
    [320, 0],
  ] as const)('%d px → %d', (width, expected) => {
    expect(screenClass(width)).toBe(expected)
  })

  it('auto-collapses the sidebar only below 992 px', () => {
    expect(autoCollapse(screenClass(1280))).toBe(false)
    expect(autoCollapse(screenClass(992))).toBe(false)
    expect(autoCollapse(screenClass(900))).toBe(true)
    expect(autoCollapse(screenClass(500))).toBe(true)
  })
})

describe('rootFontSize', () => {
  it.each([
    [1920, 16],
    [960, 8],
    [3840, 32],
    [7680, 32],
  ])('%d px wide → %d px', (width, expected) => {
    expect(rootFontSize(width)).toBeCloseTo(expected)
  })
})

describe('phone layout', () => {
  it.each([
    [320, true],
    [390, true],
    [767, true],
    [768, false],
    [1024, false],
    [1920, false],
  ] as const)('%d px wide is a phone: %s', (width, phone) => {
    expect(isPhoneWidth(width)).toBe(phone)
    expect(isPhone(screenClass(width))).toBe(phone)
  })

  it('switches at the 768 px breakpoint with 44 px touch targets', () => {
    expect(phoneBreakpoint).toBe(768)
    expect(isPhoneWidth(phoneBreakpoint - 1)).toBe(true)
    expect(isPhoneWidth(phoneBreakpoint)).toBe(false)
    expect(touchTarget).toBeGreaterThanOrEqual(44)
  })
})
