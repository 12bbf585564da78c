import { Button, Layout, Space, Typography, theme } from 'antd'
import { useTranslation } from 'react-i18next'
import { Outlet, useNavigate } from 'react-router-dom'
import Clock from '../components/Clock'
import LanguageSwitch from '../components/LanguageSwitch'
import { useSessionStore } from '../stores/session'

/** Frame of the signed-in area. Menu, tabs and the alarm bell arrive with later issues. */
export default function MainLayout() {
  const { t } = useTranslation()
  const navigate = useNavigate()
  const logout = useSessionStore((s) => s.logout)
  const { token } = theme.useToken()

  return (
    <Layout style={{ minHeight: '100vh' }}>
      <Layout.Header
        style={{
          display: 'flex',
          alignItems: 'center',
          justifyContent: 'space-between',
          background: token.colorPrimary,
          color: '#fff',
          paddingInline: 24,
        }}
      >
        <Typography.Title level={4} style={{ color: '#fff', margin: 0 }}>
          {t('app.title')}
        </Typography.Title>
        <Space size="large">
          <Clock />
          <LanguageSwitch />
          <Button
            size="small"
            onClick={() => {
              logout()
              void navigate('/login', { replace: true })
            }}
          >
            {t('layout.logout')}
          </Button>
        </Space>
      </Layout.Header>
      <Layout.Content style={{ padding: 24 }}>
        <Outlet />
      </Layout.Content>
    </Layout>
  )
}
