import { useEffect } from 'react'
import { useTranslation } from 'react-i18next'
import { Navigate, Outlet, useLocation, useMatches } from 'react-router-dom'
import { useSessionStore } from '../stores/session'
import { guardRedirect, type RouteMeta } from './guard'

/** Applies the navigation guard and sets the page title for every route below it. */
export default function RootGuard() {
  const { pathname } = useLocation()
  const matches = useMatches()
  const token = useSessionStore((s) => s.token)
  const { t } = useTranslation()

  // Child meta overrides parent meta.
  const meta = matches.reduce<RouteMeta>(
    (merged, match) => ({ ...merged, ...(match.handle as RouteMeta | undefined) }),
    {},
  )
  const target = guardRedirect({ path: pathname, token, meta })
  const title = meta.title

  useEffect(() => {
    const product = t('app.title')
    document.title = title ? `${t(title)} - ${product}` : product
  }, [title, t])

  return target === null ? <Outlet /> : <Navigate to={target} replace />
}
