/**
 * Tab bar: each visited page a tab; the only tab left cannot be closed. The list logic is pure
 * (tested); the store persists it as `tagList`.
 */
import { create } from 'zustand'
import { website } from '../config/website'
import { getStore, setStore } from '../utils/storage'

export interface Tab {
  /** Shown text: a menu name, or an i18n key when `meta.i18n` is set. */
  label: string
  /** Path of the page. */
  value: string
  params: Record<string, string>
  query: Record<string, string>
  meta: { i18n?: string; keepAlive?: boolean }
  group: string[]
  close: boolean
}

export const homeTab: Tab = {
  label: 'route.home',
  value: website.homePath,
  params: {},
  query: {},
  meta: { i18n: 'route.home' },
  group: [],
  close: false,
}

/** The first tab cannot be closed when it is the only one; otherwise every tab can. */
export function markClosable(list: readonly Tab[]): Tab[] {
  return list.map((tab) => ({ ...tab, close: list.length > 1 }))
}

/** Adds a tab, or updates the one with the same path (its query may differ). */
export function openTab(list: readonly Tab[], tab: Tab): Tab[] {
  const index = list.findIndex((item) => item.value === tab.value)
  const next = index < 0 ? [...list, tab] : list.map((item, i) => (i === index ? tab : item))
  return markClosable(next)
}

/**
 * Closes one tab. Returns the new list and the path to show next when the closed tab was the
 * active one (its right neighbour, else its left one, else home).
 */
export function closeTab(
  list: readonly Tab[],
  value: string,
  active: string,
): { list: Tab[]; next: string } {
  const index = list.findIndex((item) => item.value === value)
  if (index < 0 || (list.length === 1 && !list[0].close)) return { list: [...list], next: active }
  const rest = list.filter((_, i) => i !== index)
  const next =
    value !== active ? active : (rest[index]?.value ?? rest[index - 1]?.value ?? homeTab.value)
  return { list: markClosable(rest.length > 0 ? rest : [homeTab]), next }
}

/** Keeps the home tab and the given one. */
export function closeOtherTabs(list: readonly Tab[], value: string): Tab[] {
  const kept = list.filter((item) => item.value === value || item.value === homeTab.value)
  return markClosable(kept.length > 0 ? kept : [homeTab])
}

/** Back to the home tab alone. */
export const closeAllTabs = (): Tab[] => markClosable([homeTab])

interface TabsState {
  tabs: Tab[]
  setTabs: (tabs: Tab[]) => void
  open: (tab: Tab) => void
  /** Only the home tab (after sign-in and sign-out). */
  reset: () => void
}

const stored = getStore<Tab[]>('tagList')

export const useTabsStore = create<TabsState>()((set) => {
  const save = (tabs: Tab[]) => {
    setStore('tagList', tabs)
    set({ tabs })
  }
  return {
    tabs: Array.isArray(stored) && stored.length > 0 ? stored : closeAllTabs(),
    setTabs: save,
    open: (tab) => save(openTab(useTabsStore.getState().tabs, tab)),
    reset: () => save(closeAllTabs()),
  }
})
