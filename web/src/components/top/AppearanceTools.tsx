import {
  FullscreenExitOutlined,
  FullscreenOutlined,
  MoonOutlined,
  SunOutlined,
} from '@ant-design/icons'
import { ColorPicker, Tooltip } from 'antd'
import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { defaultColour, useSettingsStore } from '../../stores/settings'

const presets = [defaultColour, '#1677FF', '#13C2C2', '#52C41A', '#FAAD14', '#F5222D', '#722ED1']

/** Light/dark theme toggle. */
export function ThemeToggle() {
  const { t } = useTranslation()
  const theme = useSettingsStore((s) => s.theme)
  const setTheme = useSettingsStore((s) => s.setTheme)
  const dark = theme === 'theme-dark'
  const Icon = dark ? SunOutlined : MoonOutlined
  return (
    <Tooltip title={`${t('top.theme')}: ${dark ? t('top.themeLight') : t('top.themeDark')}`}>
      <Icon
        data-testid="theme-toggle"
        style={{ fontSize: 18, cursor: 'pointer' }}
        onClick={() => setTheme(dark ? 'theme-white' : 'theme-dark')}
      />
    </Tooltip>
  )
}

/** Primary colour (antd colorPrimary), persisted. */
export function ColourPicker() {
  const { t } = useTranslation()
  const colour = useSettingsStore((s) => s.colour)
  const setColour = useSettingsStore((s) => s.setColour)
  return (
    <Tooltip title={t('top.colour')}>
      <span data-testid="colour-picker">
        <ColorPicker
          size="small"
          value={colour}
          disabledAlpha
          presets={[{ label: t('top.colour'), colors: presets }]}
          onChangeComplete={(value) => setColour(value.toHexString().toUpperCase())}
        />
      </span>
    </Tooltip>
  )
}

/** Full screen toggle. */
export function FullscreenToggle() {
  const { t } = useTranslation()
  const [full, setFull] = useState(() => document.fullscreenElement !== null)
  useEffect(() => {
    const update = () => setFull(document.fullscreenElement !== null)
    document.addEventListener('fullscreenchange', update)
    return () => document.removeEventListener('fullscreenchange', update)
  }, [])
  const Icon = full ? FullscreenExitOutlined : FullscreenOutlined
  return (
    <Tooltip title={full ? t('top.exitFullscreen') : t('top.fullscreen')}>
      <Icon
        data-testid="fullscreen-toggle"
        style={{ fontSize: 18, cursor: 'pointer' }}
        onClick={() => {
          const action = full
            ? document.exitFullscreen()
            : document.documentElement.requestFullscreen()
          void action.catch(() => undefined)
        }}
      />
    </Tooltip>
  )
}
