import { useLayoutStore } from '../stores/layout'
import { isPhone } from '../utils/screen'

/** True below 768 px wide (the layout store follows the window's width). */
export function usePhone(): boolean {
  return useLayoutStore((s) => isPhone(s.screen))
}
