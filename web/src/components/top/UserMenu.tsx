import { DownOutlined } from '@ant-design/icons'
import { App, Avatar, Dropdown, Space } from 'antd'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { useNavigate } from 'react-router-dom'
import logo from '../../assets/logo.svg'
import { website } from '../../config/website'
import { switchLanguage } from '../../locales/i18n'
import { signOut } from '../../services/session'
import { useSessionStore } from '../../stores/session'
import { languages, useSettingsStore, type Language } from '../../stores/settings'
import SwitchDialog from './SwitchDialog'

/**
 * User name and avatar (built-in logo when empty), with personal info, switch and logout.
 * `compact` (phone top bar): the avatar alone, 44 px high, and the language choice in the menu.
 */
export default function UserMenu({ compact = false }: { compact?: boolean }) {
  const { t } = useTranslation()
  const { modal } = App.useApp()
  const navigate = useNavigate()
  const userInfo = useSessionStore((s) => s.userInfo)
  const [switching, setSwitching] = useState(false)
  const language = useSettingsStore((s) => s.language)

  const languageItems = compact
    ? [
        {
          key: 'language',
          type: 'group' as const,
          label: t('phone.language'),
          children: languages.map((value) => ({
            key: `lang-${value}`,
            label: (
              <span data-testid={`menu-lang-${value}`}>
                {t(`language.${value}`)}
                {value === language ? ' ✓' : ''}
              </span>
            ),
          })),
        },
        { type: 'divider' as const },
      ]
    : []

  const items = [
    ...languageItems,
    { key: 'info', label: t('top.info') },
    ...(website.switchMode ? [{ key: 'switch', label: t('top.switchDept') }] : []),
    { key: 'logout', label: <span data-testid="logout">{t('layout.logout')}</span> },
  ]

  const onClick = ({ key }: { key: string }) => {
    if (key.startsWith('lang-')) switchLanguage(key.slice(5) as Language)
    else if (key === 'info') void navigate('/info/index')
    else if (key === 'switch') setSwitching(true)
    else if (key === 'logout') {
      modal.confirm({
        title: t('top.logoutConfirm'),
        okButtonProps: { 'data-testid': 'logout-confirm' },
        onOk: () => signOut().then(() => navigate('/login', { replace: true })),
      })
    }
  }

  return (
    <>
      <Dropdown menu={{ items, onClick }} trigger={compact ? ['click'] : ['click', 'hover']}>
        <Space
          style={{
            cursor: 'pointer',
            ...(compact ? { minWidth: 44, minHeight: 44, justifyContent: 'center' } : {}),
          }}
          data-testid="user-menu"
          aria-label={t('top.userMenu')}
        >
          <Avatar size={compact ? 32 : 'small'} src={userInfo?.avatar || logo} />
          <span data-testid="user-name" hidden={compact}>
            {userInfo?.nick_name || userInfo?.real_name || userInfo?.account}
          </span>
          {!compact && <DownOutlined />}
        </Space>
      </Dropdown>
      {website.switchMode && <SwitchDialog open={switching} onClose={() => setSwitching(false)} />}
    </>
  )
}
