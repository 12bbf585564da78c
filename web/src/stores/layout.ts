import { create } from 'zustand'
import { autoCollapse, screenClass, type ScreenClass } from '../utils/screen'

interface LayoutState {
  screen: ScreenClass
  collapsed: boolean
  /** Menu search panel. */
  searchOpen: boolean
  setScreen: (width: number) => void
  toggleCollapsed: () => void
  setSearchOpen: (open: boolean) => void
}

/** Screen class and sidebar state; the sidebar collapses by itself on small screens. */
export const useLayoutStore = create<LayoutState>()((set, get) => ({
  screen: screenClass(window.innerWidth),
  collapsed: autoCollapse(screenClass(window.innerWidth)),
  searchOpen: false,
  setScreen: (width) => {
    const screen = screenClass(width)
    if (screen === get().screen) return
    set({ screen, collapsed: autoCollapse(screen) })
  },
  toggleCollapsed: () => set({ collapsed: !get().collapsed }),
  setSearchOpen: (searchOpen) => set({ searchOpen }),
}))
