import i18n from 'i18next'
import { initReactI18next } from 'react-i18next'
import { useSettingsStore, type Language } from '../stores/settings'
import en from './en'
import zh, { type Messages } from './zh'

declare module 'i18next' {
  interface CustomTypeOptions {
    resources: { translation: Messages }
  }
}

export const resources = { zh: { translation: zh }, en: { translation: en } } as const

void i18n.use(initReactI18next).init({
  resources,
  lng: useSettingsStore.getState().language,
  fallbackLng: 'zh',
  interpolation: { escapeValue: false }, // React escapes
  initAsync: false,
})

/** Persists the language and reloads the page, as the spec asks of the language switch. */
export function switchLanguage(language: Language): void {
  if (language === useSettingsStore.getState().language) return
  useSettingsStore.getState().setLanguage(language)
  window.location.reload()
}

export default i18n
