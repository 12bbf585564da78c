import { Segmented } from 'antd'
import { useTranslation } from 'react-i18next'
import { switchLanguage } from '../locales/i18n'
import { languages, useSettingsStore, type Language } from '../stores/settings'

/** Chinese / English; choosing one persists it and reloads the page. */
export default function LanguageSwitch() {
  const { t } = useTranslation()
  const language = useSettingsStore((s) => s.language)
  return (
    <Segmented<Language>
      data-testid="language-switch"
      aria-label={t('language.label')}
      size="small"
      value={language}
      options={languages.map((value) => ({ value, label: t(`language.${value}`) }))}
      onChange={switchLanguage}
    />
  )
}
