import { Spin } from 'antd'
import { useMemo } from 'react'
import { Navigate, useLocation } from 'react-router-dom'
import { buildMenu, findMenuByPath } from '../../router/menu'
import { useSessionStore } from '../../stores/session'
import { NotAvailable } from '../notAvailable'

/**
 * Pages reached through the menu tree. None is built yet (later issues build them), so a known menu
 * path shows the "not available yet" page titled with the menu name; an unknown one goes to /404.
 */
export default function MenuPage() {
  const { pathname } = useLocation()
  const menu = useSessionStore((s) => s.menu)
  const loaded = useSessionStore((s) => s.menuLoaded)
  const role = useSessionStore((s) => s.userInfo?.role_name)
  const node = useMemo(
    () => findMenuByPath(buildMenu(menu, role), pathname),
    [menu, role, pathname],
  )
  if (node) return <NotAvailable name={node.name} />
  if (!loaded) return <Spin style={{ display: 'block', margin: 48 }} />
  return <Navigate to="/404" replace />
}
