import { useMemo } from 'react'
import { buildMenu, type MenuNode } from '../router/menu'
import { useSessionStore } from '../stores/session'

/** The current user's menu, filtered by role and shaped for the sidebar and the router. */
export function useMenuNodes(): MenuNode[] {
  const menu = useSessionStore((s) => s.menu)
  const role = useSessionStore((s) => s.userInfo?.role_name)
  return useMemo(() => buildMenu(menu, role), [menu, role])
}
