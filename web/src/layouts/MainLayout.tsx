import { MenuFoldOutlined, MenuUnfoldOutlined } from '@ant-design/icons'
import { Button, Flex, Layout, Space, Typography, theme } from 'antd'
import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Outlet, useLocation, useMatches, useNavigate } from 'react-router-dom'
import logo from '../assets/logo.svg'
import Clock from '../components/Clock'
import LanguageSwitch from '../components/LanguageSwitch'
import RegisterDialog from '../components/RegisterDialog'
import AlarmBell from '../components/top/AlarmBell'
import { ColourPicker, FullscreenToggle, ThemeToggle } from '../components/top/AppearanceTools'
import ErrorLogButton from '../components/top/ErrorLogButton'
import LockButton from '../components/top/LockButton'
import { MenuSearchPanel, TopSearch } from '../components/top/MenuSearch'
import NoticePopover from '../components/top/NoticePopover'
import UserMenu from '../components/top/UserMenu'
import type { RouteMeta } from '../router/guard'
import { findMenuByPath } from '../router/menu'
import { alarmSocketUrl, connectAlarms } from '../services/alarmSocket'
import { loadMenu, signOut, tokenRefresher } from '../services/session'
import { useAlarmStore } from '../stores/alarm'
import { useLayoutStore } from '../stores/layout'
import { useSessionStore } from '../stores/session'
import { useSettingsStore } from '../stores/settings'
import { useTabsStore } from '../stores/tabs'
import SideMenu from './SideMenu'
import TabBar from './TabBar'
import TopMenu from './TopMenu'
import { useMenuNodes } from './useMenuNodes'

/** Screen class and auto-collapse follow the window width. */
function useScreen() {
  const setScreen = useLayoutStore((s) => s.setScreen)
  useEffect(() => {
    const update = () => setScreen(window.innerWidth)
    update()
    window.addEventListener('resize', update)
    return () => window.removeEventListener('resize', update)
  }, [setScreen])
}

const queryOf = (search: string) => {
  const query: Record<string, string> = {}
  new URLSearchParams(search).forEach((value, key) => (query[key] = value))
  return query
}

/** Every visited page becomes a tab, unless its meta says isTab false. */
function useTabTracking() {
  const { pathname, search } = useLocation()
  const matches = useMatches()
  const nodes = useMenuNodes()
  const open = useTabsStore((s) => s.open)
  const meta = matches.reduce<RouteMeta>(
    (merged, match) => ({ ...merged, ...(match.handle as RouteMeta | undefined) }),
    {},
  )
  const menuNode = findMenuByPath(nodes, pathname)
  const label = menuNode?.name ?? (meta.menuCatchAll ? undefined : meta.title)
  const isTab = meta.isTab !== false && !menuNode?.newWindow
  useEffect(() => {
    if (!label || !isTab) return
    open({
      label,
      value: pathname,
      params: {},
      query: queryOf(search),
      meta: menuNode ? {} : { i18n: label },
      group: [],
      close: true,
    })
  }, [label, isTab, pathname, search, menuNode, open])
}

/** Frame of the signed-in area: sidebar, top bar, tabs and the page. */
export default function MainLayout() {
  const { t } = useTranslation()
  const navigate = useNavigate()
  const { token } = theme.useToken()
  const collapsed = useLayoutStore((s) => s.collapsed)
  const toggleCollapsed = useLayoutStore((s) => s.toggleCollapsed)
  const dark = useSettingsStore((s) => s.theme) === 'theme-dark'
  const userInfo = useSessionStore((s) => s.userInfo)
  const accessToken = useSessionStore((s) => s.token)
  const [registerDismissed, setRegisterDismissed] = useState(false)

  useScreen()
  useTabTracking()

  useEffect(() => {
    void loadMenu().catch(() => undefined)
  }, [])

  useEffect(() => tokenRefresher.start(), [])

  // Live alarms: connected while the top bar is shown; each message replaces count and list.
  const userId = userInfo?.user_id
  useEffect(() => {
    if (!userId) return
    return connectAlarms(
      () => {
        const current = useSessionStore.getState().token
        return current ? alarmSocketUrl(userId, current, window.location) : null
      },
      ({ count, data }) => useAlarmStore.getState().replace(count, data),
    )
  }, [userId])

  // A third-party sign-in without a bound account asks for a registration (after it the user is signed out).
  const unbound =
    accessToken !== '' && userInfo !== null && (!userInfo.user_id || Number(userInfo.user_id) < 0)

  return (
    <Layout style={{ minHeight: '100vh' }} data-testid="main-layout">
      <Layout.Sider
        collapsible
        collapsed={collapsed}
        trigger={null}
        width={220}
        theme={dark ? 'dark' : 'light'}
        style={{ borderRight: `1px solid ${token.colorBorderSecondary}` }}
      >
        <Flex align="center" gap={8} style={{ height: 56, paddingInline: 20, overflow: 'hidden' }}>
          <img src={logo} alt="" width={28} height={28} />
          {!collapsed && (
            <Typography.Text strong ellipsis style={{ color: token.colorText }}>
              {t('app.title')}
            </Typography.Text>
          )}
        </Flex>
        <SideMenu collapsed={collapsed} dark={dark} />
      </Layout.Sider>
      <Layout>
        <Layout.Header
          style={{
            display: 'flex',
            alignItems: 'center',
            gap: 12,
            height: 56,
            lineHeight: '56px',
            paddingInline: 12,
            background: token.colorBgContainer,
            borderBottom: `1px solid ${token.colorBorderSecondary}`,
          }}
        >
          <Button
            type="text"
            aria-label={t('menu.collapse')}
            data-testid="collapse-toggle"
            icon={collapsed ? <MenuUnfoldOutlined /> : <MenuFoldOutlined />}
            onClick={toggleCollapsed}
          />
          <TopMenu />
          <Space
            size="middle"
            style={{ color: token.colorText, lineHeight: 'normal', whiteSpace: 'nowrap' }}
          >
            <TopSearch />
            <MenuSearchPanel />
            <Clock />
            <AlarmBell />
            <NoticePopover />
            <ErrorLogButton />
            <ColourPicker />
            <ThemeToggle />
            <LockButton />
            <FullscreenToggle />
            <LanguageSwitch />
            <UserMenu />
          </Space>
        </Layout.Header>
        <div style={{ background: token.colorBgContainer, paddingInline: 12, paddingTop: 6 }}>
          <TabBar />
        </div>
        <Layout.Content style={{ padding: 16 }}>
          <Outlet />
        </Layout.Content>
      </Layout>
      <RegisterDialog
        open={unbound && !registerDismissed}
        resolvedTenantId={userInfo?.tenant_id || null}
        initial={{ name: userInfo?.user_name, account: userInfo?.account }}
        oauthId={userInfo?.oauth_id}
        onClose={() => setRegisterDismissed(true)}
        onSubmitted={() => void signOut().then(() => navigate('/login', { replace: true }))}
      />
    </Layout>
  )
}
