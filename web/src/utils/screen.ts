/** Screen classes and root font scaling (breakpoints 768, 992, 1200; 1920 base, capped at twice). */

/** 3: >= 1200 (large), 2: >= 992, 1: >= 768, 0: smaller. */
export type ScreenClass = 0 | 1 | 2 | 3

export function screenClass(width: number): ScreenClass {
  if (width >= 1200) return 3
  if (width >= 992) return 2
  if (width >= 768) return 1
  return 0
}

/** Phone layout below 768 px: the side menu is a drawer, the top bar keeps the bell and the user menu. */
export const phoneBreakpoint = 768
export const isPhone = (screen: ScreenClass): boolean => screen === 0
export const isPhoneWidth = (width: number): boolean => isPhone(screenClass(width))

/** Smallest touch target on a phone screen, px. */
export const touchTarget = 44

/** The sidebar collapses by itself on small screens: classes 0 and 1 (narrower than 992 px). */
export const autoCollapse = (screen: ScreenClass): boolean => screen <= 1

/** Root font size in px: 16 px at 1920 wide, scaled with the width, never above twice that. */
export const baseFontSize = 16
export function rootFontSize(width: number): number {
  return baseFontSize * Math.min(width / 1920, 2)
}
