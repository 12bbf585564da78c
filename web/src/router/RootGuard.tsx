import { useEffect } from 'react'
import { useTranslation } from 'react-i18next'
import { Navigate, Outlet, useLocation, useMatches } from 'react-router-dom'
import { useSessionStore } from '../stores/session'
import { useMenuNodes } from '../layouts/useMenuNodes'
import { guardRedirect, type RouteMeta } from './guard'
import { findMenuByPath } from './menu'

/** Applies the navigation guard and sets the page title for every route below it. */
export default function RootGuard() {
  const { pathname } = useLocation()
  const matches = useMatches()
  const token = useSessionStore((s) => s.token)
  const locked = useSessionStore((s) => s.isLock)
  const expired = useSessionStore((s) => s.expired)
  const { t } = useTranslation()

  // Child meta overrides parent meta.
  const meta = matches.reduce<RouteMeta>(
    (merged, match) => ({ ...merged, ...(match.handle as RouteMeta | undefined) }),
    {},
  )
  const target = guardRedirect({ path: pathname, token, meta, locked, expired })
  // Menu pages are titled with their menu name (in the language the server answered in).
  const nodes = useMenuNodes()
  const menuName = meta.menuCatchAll ? findMenuByPath(nodes, pathname)?.name : undefined
  const title = menuName ?? (meta.title ? t(meta.title) : undefined)

  useEffect(() => {
    const product = t('app.title')
    document.title = title ? `${title} - ${product}` : product
  }, [title, t])

  return target === null ? <Outlet /> : <Navigate to={target} replace />
}
