import { HomeOutlined } from '@ant-design/icons'
import { Menu } from 'antd'
import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { useNavigate } from 'react-router-dom'
import type { TopMenu as TopMenuItem } from '../api/system/menu'
import { topMenuQuery } from '../api/system/queries'
import { MenuIcon } from '../components/MenuIcon'
import { website } from '../config/website'
import { loadMenu } from '../services/session'

const homeKey = 'home'
const noItems: TopMenuItem[] = []
const bySort = (list: TopMenuItem[]) => [...list].sort((a, b) => (a.sort ?? 0) - (b.sort ?? 0))

/** Top menu: a home item plus the top-menu list; picking one reloads the sidebar for it. */
export default function TopMenu() {
  const { t } = useTranslation()
  const navigate = useNavigate()
  const items = useQuery({ ...topMenuQuery(), select: bySort }).data ?? noItems
  const [selected, setSelected] = useState(homeKey)

  return (
    <Menu
      data-testid="top-menu"
      mode="horizontal"
      selectedKeys={[selected]}
      style={{ flex: 1, minWidth: 120, borderBottom: 'none', background: 'transparent' }}
      items={[
        { key: homeKey, icon: <HomeOutlined />, label: t('menu.home') },
        ...items.map((item) => ({
          key: item.id,
          icon: <MenuIcon name={item.source} />,
          label: item.name,
        })),
      ]}
      onClick={({ key }) => {
        setSelected(key)
        void loadMenu(key === homeKey ? undefined : key).catch(() => undefined)
        if (key === homeKey) void navigate(website.homePath)
      }}
    />
  )
}
