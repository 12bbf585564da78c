import { MenuFoldOutlined, MenuOutlined, MenuUnfoldOutlined } from '@ant-design/icons'
import { Button, Drawer, Flex, Layout, Space, Typography, theme } from 'antd'
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
import { isPhone } from '../utils/screen'
import SideMenu from './SideMenu'
import TabBar from './TabBar'
import TopMenu from './TopMenu'
import { useMenuNodes } from './useMenuNodes'

/**
 * Screen class and auto-collapse follow the window width; below 768 px the page carries the class
 * `pv-phone` (index.css: touch targets of 44 px, content kept within the screen's width).
 */
function useScreen(): boolean {
  const setScreen = useLayoutStore((s) => s.setScreen)
  const phone = useLayoutStore((s) => isPhone(s.screen))
  useEffect(() => {
    const update = () => setScreen(window.innerWidth)
    update()
    window.addEventListener('resize', update)
    return () => window.removeEventListener('resize', update)
  }, [setScreen])
  useEffect(() => {
    document.documentElement.classList.toggle('pv-phone', phone)
    return () => document.documentElement.classList.remove('pv-phone')
  }, [phone])
  return phone
}

/** The phone's menu drawer: open by the hamburger, closed again by any navigation. */
function useMenuDrawer(): [boolean, (open: boolean) => void] {
  const { pathname, search } = useLocation()
  const [openAt, setOpenAt] = useState<string | null>(null)
  const here = pathname + search
  return [openAt === here, (open) => setOpenAt(open ? here : null)]
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
  const english = useSettingsStore((s) => s.language) === 'en'
  const userInfo = useSessionStore((s) => s.userInfo)
  const accessToken = useSessionStore((s) => s.token)
  const [registerDismissed, setRegisterDismissed] = useState(false)

  const phone = useScreen()
  const [drawerOpen, setDrawerOpen] = useMenuDrawer()
  useTabTracking()

  useEffect(() => {
    void loadMenu().catch(() => undefined)
  }, [])

  useEffect(() => tokenRefresher.start(), [])

  // A page opens at its top: the window keeps its scroll across client-side navigation, and a
  // click low in a long page (or the sidebar on a short window) left the next page scrolled past
  // its end, a blank area.
  const { pathname } = useLocation()
  useEffect(() => {
    if (window.scrollY !== 0) window.scrollTo(0, 0)
  }, [pathname])

  // Live alarms: connected while the top bar is shown; each message replaces count and list.
  const userId = userInfo?.user_id
  useEffect(() => {
    if (!userId) return
    return connectAlarms(
      () => {
        const current = useSessionStore.getState().token
        const language = useSettingsStore.getState().language
        return current ? alarmSocketUrl(userId, current, window.location, language) : null
      },
      ({ count, data, work, workCount }) =>
        useAlarmStore.getState().replace(count, data, { count: workCount, list: work }),
    )
  }, [userId])

  // A third-party sign-in without a bound account asks for a registration (after it the user is signed out).
  const unbound =
    accessToken !== '' && userInfo !== null && (!userInfo.user_id || Number(userInfo.user_id) < 0)

  const brand = (wide: boolean) => (
    <Flex align="center" gap={8} style={{ height: 56, paddingInline: 20, overflow: 'hidden' }}>
      <img src={logo} alt="" width={28} height={28} />
      {wide && (
        <Typography.Text
          strong
          ellipsis={{ tooltip: t('app.title') }}
          style={{ color: token.colorText }}
        >
          {t('app.title')}
        </Typography.Text>
      )}
    </Flex>
  )

  return (
    <Layout style={{ minHeight: '100vh' }} data-testid="main-layout" data-phone={phone}>
      {phone ? (
        <Drawer
          open={drawerOpen}
          placement="left"
          size={280}
          onClose={() => setDrawerOpen(false)}
          closable={false}
          styles={{ body: { padding: 0 } }}
          data-testid="menu-drawer"
        >
          {brand(true)}
          <SideMenu collapsed={false} dark={false} />
        </Drawer>
      ) : (
        <Layout.Sider
          collapsible
          collapsed={collapsed}
          trigger={null}
          // English menu names are longer ("Electricity bill settlement"): a wider sidebar.
          width={english ? 248 : 220}
          theme={dark ? 'dark' : 'light'}
          data-testid="side-sider"
          // The sidebar scrolls on its own and stays in view: an expanded menu taller than the
          // window no longer makes the page as tall as the menu.
          style={{
            borderRight: `1px solid ${token.colorBorderSecondary}`,
            position: 'sticky',
            top: 0,
            height: '100vh',
            overflowY: 'auto',
            overflowX: 'hidden',
          }}
        >
          {brand(!collapsed)}
          <SideMenu collapsed={collapsed} dark={dark} />
        </Layout.Sider>
      )}
      <Layout style={{ minWidth: 0 }}>
        <Layout.Header
          style={{
            display: 'flex',
            alignItems: 'center',
            gap: phone ? 4 : 12,
            height: 56,
            lineHeight: '56px',
            paddingInline: phone ? 4 : 12,
            background: token.colorBgContainer,
            borderBottom: `1px solid ${token.colorBorderSecondary}`,
            // The header stays put while the page scrolls.
            position: 'sticky',
            top: 0,
            zIndex: 20,
          }}
        >
          {phone ? (
            <>
              <Button
                type="text"
                aria-label={t('phone.openMenu')}
                data-testid="menu-drawer-toggle"
                icon={<MenuOutlined style={{ fontSize: 20 }} />}
                style={{ width: 44, height: 44 }}
                onClick={() => setDrawerOpen(true)}
              />
              <Typography.Text strong ellipsis style={{ flex: 1, minWidth: 0 }}>
                {t('app.title')}
              </Typography.Text>
              <Space size={4} style={{ lineHeight: 'normal', whiteSpace: 'nowrap' }}>
                <AlarmBell />
                <UserMenu compact />
              </Space>
            </>
          ) : (
            <>
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
            </>
          )}
        </Layout.Header>
        <div
          style={{
            background: token.colorBgContainer,
            paddingInline: phone ? 4 : 12,
            paddingTop: 6,
          }}
        >
          <TabBar />
        </div>
        <Layout.Content style={{ padding: phone ? 8 : 16, minWidth: 0 }}>
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
