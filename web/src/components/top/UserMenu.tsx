import { DownOutlined } from '@ant-design/icons'
import { App, Avatar, Dropdown, Space } from 'antd'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { useNavigate } from 'react-router-dom'
import logo from '../../assets/logo.svg'
import { website } from '../../config/website'
import { signOut } from '../../services/session'
import { useSessionStore } from '../../stores/session'
import SwitchDialog from './SwitchDialog'

/** User name and avatar (built-in logo when empty), with personal info, switch and logout. */
export default function UserMenu() {
  const { t } = useTranslation()
  const { modal } = App.useApp()
  const navigate = useNavigate()
  const userInfo = useSessionStore((s) => s.userInfo)
  const [switching, setSwitching] = useState(false)

  const items = [
    { key: 'info', label: t('top.info') },
    ...(website.switchMode ? [{ key: 'switch', label: t('top.switchDept') }] : []),
    { key: 'logout', label: <span data-testid="logout">{t('layout.logout')}</span> },
  ]

  const onClick = ({ key }: { key: string }) => {
    if (key === 'info') void navigate('/info/index')
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
      <Dropdown menu={{ items, onClick }} trigger={['click', 'hover']}>
        <Space style={{ cursor: 'pointer' }} data-testid="user-menu" aria-label={t('top.userMenu')}>
          <Avatar size="small" src={userInfo?.avatar || logo} />
          <span data-testid="user-name">
            {userInfo?.nick_name || userInfo?.real_name || userInfo?.account}
          </span>
          <DownOutlined />
        </Space>
      </Dropdown>
      {website.switchMode && <SwitchDialog open={switching} onClose={() => setSwitching(false)} />}
    </>
  )
}
