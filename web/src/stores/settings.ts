import { create } from 'zustand'
import { getStore, setStore } from '../utils/storage'

export const languages = ['zh', 'en'] as const
export type Language = (typeof languages)[number]
export const themes = ['theme-white', 'theme-dark'] as const
export type Theme = (typeof themes)[number]

export const defaultColour = '#409EFF'

const pick = <T extends string>(allowed: readonly T[], value: unknown, fallback: T): T =>
  allowed.includes(value as T) ? (value as T) : fallback

interface SettingsState {
  language: Language
  theme: Theme
  colour: string
  /** Persists the language. Callers reload the page afterwards (spec: the switch reloads). */
  setLanguage: (language: Language) => void
  setTheme: (theme: Theme) => void
  setColour: (colour: string) => void
}

const storedColour = getStore<string>('colour')

export const useSettingsStore = create<SettingsState>()((set) => ({
  language: pick(languages, getStore('language'), 'zh'),
  theme: pick(themes, getStore('theme'), 'theme-white'),
  colour: typeof storedColour === 'string' && storedColour !== '' ? storedColour : defaultColour,
  setLanguage: (language) => {
    setStore('language', language)
    set({ language })
  },
  setTheme: (theme) => {
    setStore('theme', theme)
    set({ theme })
  },
  setColour: (colour) => {
    setStore('colour', colour)
    set({ colour })
  },
}))
