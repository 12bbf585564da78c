import { Empty, Menu, type MenuProps } from 'antd'
import { useMemo } from 'react'
import { useTranslation } from 'react-i18next'
import { useLocation, useNavigate } from 'react-router-dom'
import { MenuIcon } from '../components/MenuIcon'
import { findMenuByPath, flattenMenu, type MenuNode } from '../router/menu'
import { useSessionStore } from '../stores/session'
import { openMenu } from './openMenu'
import { useMenuNodes } from './useMenuNodes'

type Item = Required<MenuProps>['items'][number]

/**
 * A page's name, whole on hover: a long (English) name is cut to the sidebar's width. Group
 * titles stay plain text: antd wraps only a text group title in its title element.
 */
const labelOf = (node: MenuNode) => <span title={node.name}>{node.name}</span>

const toItems = (nodes: MenuNode[]): Item[] =>
  nodes.map((node) =>
    node.children.length > 0
      ? {
          key: node.key,
          icon: <MenuIcon name={node.icon} />,
          label: node.name,
          children: toItems(node.children),
        }
      : { key: node.key, icon: <MenuIcon name={node.icon} />, label: labelOf(node) },
  )

/** Sidebar built from the user's menu tree, collapsible; 暂未分配菜单 when there is none. */
export default function SideMenu({ collapsed, dark }: { collapsed: boolean; dark: boolean }) {
  const { t } = useTranslation()
  const navigate = useNavigate()
  const { pathname } = useLocation()
  const nodes = useMenuNodes()
  const loaded = useSessionStore((s) => s.menuLoaded)
  const items = useMemo(() => toItems(nodes), [nodes])
  const all = useMemo(() => flattenMenu(nodes), [nodes])
  const current = findMenuByPath(nodes, pathname)

  if (loaded && nodes.length === 0) {
    return (
      <Empty
        data-testid="no-menu"
        image={Empty.PRESENTED_IMAGE_SIMPLE}
        description={t('menu.none')}
        style={{ paddingTop: 24, color: dark ? '#fff' : undefined }}
      />
    )
  }

  return (
    <Menu
      data-testid="side-menu"
      mode="inline"
      theme={dark ? 'dark' : 'light'}
      inlineCollapsed={collapsed}
      items={items}
      selectedKeys={current ? [current.key] : []}
      defaultOpenKeys={current ? ancestorKeys(nodes, current.key) : []}
      onClick={({ key }) => {
        const node = all.find((item) => item.key === key)
        if (node) openMenu(node, navigate)
      }}
    />
  )
}

/** Keys of the groups above `key`, outermost first. */
function ancestorKeys(nodes: MenuNode[], key: string, trail: string[] = []): string[] {
  for (const node of nodes) {
    if (node.key === key) return trail
    const found = ancestorKeys(node.children, key, [...trail, node.key])
    if (found.length > 0) return found
  }
  return []
}
