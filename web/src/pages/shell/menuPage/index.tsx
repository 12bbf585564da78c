import { Spin } from 'antd'
import { Suspense, createElement, useMemo } from 'react'
import { Navigate, useLocation } from 'react-router-dom'
import { buildMenu, findMenuByPath } from '../../../router/menu'
import { useSessionStore } from '../../../stores/session'
import { NotAvailable } from '../notAvailable'
import { builtPageOf } from '../../../router/menuPages'

const spinner = <Spin style={{ display: 'block', margin: 48 }} />

/**
 * Pages reached through the menu tree. A known menu path shows its built page (see `router/menuPages.ts`),
 * else the "not available yet" page titled with the menu name; an unknown one goes to /404.
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
  if (node) {
    // The built pages are module-level lazy components, looked up by path (not made here).
    const page = builtPageOf(node.path)
    return page ? (
      <Suspense fallback={spinner}>{createElement(page, { key: node.path })}</Suspense>
    ) : (
      <NotAvailable name={node.name} />
    )
  }
  if (!loaded) return spinner
  return <Navigate to="/404" replace />
}
