import { DownOutlined } from '@ant-design/icons'
import { App, Button, Dropdown, Tabs } from 'antd'
import { useTranslation } from 'react-i18next'
import { useLocation, useNavigate } from 'react-router-dom'
import { clearCache } from '../api/auth'
import { findMenuByPath } from '../router/menu'
import {
  closeAllTabs,
  closeOtherTabs,
  closeTab,
  homeTab,
  useTabsStore,
  type Tab,
} from '../stores/tabs'
import { useMenuNodes } from './useMenuNodes'

const target = (tab: Tab) => {
  const query = new URLSearchParams(tab.query).toString()
  return query ? `${tab.value}?${query}` : tab.value
}

/** Tab bar: close, close others, close all (back home), clear cache (confirmed, then "cleared"). */
export default function TabBar() {
  const { t } = useTranslation()
  const { modal, message } = App.useApp()
  const navigate = useNavigate()
  const { pathname } = useLocation()
  const tabs = useTabsStore((s) => s.tabs)
  const setTabs = useTabsStore((s) => s.setTabs)
  const nodes = useMenuNodes()

  // Menu pages show the menu's name in the current language; others their i18n title.
  const labelOf = (tab: Tab) =>
    tab.meta.i18n
      ? t(tab.meta.i18n as 'route.home')
      : (findMenuByPath(nodes, tab.value)?.name ?? tab.label)

  const active = tabs.some((tab) => tab.value === pathname) ? pathname : undefined

  const close = (value: string) => {
    const { list, next } = closeTab(tabs, value, pathname)
    setTabs(list)
    if (next !== pathname) {
      const tab = list.find((item) => item.value === next)
      void navigate(tab ? target(tab) : next)
    }
  }

  const onAction = (key: string) => {
    if (key === 'others') {
      setTabs(closeOtherTabs(tabs, active ?? homeTab.value))
    } else if (key === 'all') {
      setTabs(closeAllTabs())
      void navigate(homeTab.value)
    } else if (key === 'cache') {
      modal.confirm({
        title: t('tabs.clearCacheConfirm'),
        onOk: async () => {
          await clearCache()
          void message.success(t('tabs.cleared'))
        },
      })
    }
  }

  return (
    <Tabs
      data-testid="tab-bar"
      type="editable-card"
      hideAdd
      size="small"
      activeKey={active}
      onChange={(key) => {
        const tab = tabs.find((item) => item.value === key)
        if (tab) void navigate(target(tab))
      }}
      onEdit={(key, action) => {
        if (action === 'remove' && typeof key === 'string') close(key)
      }}
      items={tabs.map((tab) => ({
        key: tab.value,
        label: <span data-testid="tab">{labelOf(tab)}</span>,
        closable: tab.close,
      }))}
      tabBarExtraContent={
        <Dropdown
          menu={{
            items: [
              { key: 'others', label: t('tabs.closeOthers') },
              { key: 'all', label: t('tabs.closeAll') },
              { key: 'cache', label: t('tabs.clearCache') },
            ],
            onClick: ({ key }) => onAction(key),
          }}
        >
          <Button size="small" data-testid="tab-actions">
            {t('tabs.actions')} <DownOutlined />
          </Button>
        </Dropdown>
      }
      style={{ marginBottom: 0 }}
    />
  )
}
