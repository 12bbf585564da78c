/** Session actions shared by the pages and the layout: refresh, menu loading, sign-out. */
import { logoutCall, refreshToken } from '../api/auth'
import { getButtons, getRoutes } from '../api/system/menu'
import { website } from '../config/website'
import { flattenPermissions } from '../router/menu'
import { useSessionStore } from '../stores/session'
import { getStoreEntry } from '../utils/storage'
import { createRefresher } from '../utils/tokenRefresh'

/** Exchanges the refresh token; with switchMode, `deptId`/`roleId` pick the department and role. */
export async function refreshSession(deptId?: string, roleId?: string): Promise<void> {
  const { refreshToken: refresh, tenantId, signIn } = useSessionStore.getState()
  if (!refresh) return
  const data = await refreshToken(refresh, tenantId || website.tenantId, deptId, roleId)
  signIn(data, false)
}

/** The 10 s check of the stored token's age (started by the main layout). */
export const tokenRefresher = createRefresher({
  tokenWrittenAt: () =>
    useSessionStore.getState().token ? getStoreEntry<string>('token')?.datetime : undefined,
  refresh: () => refreshSession(),
  tokenTime: website.tokenTime,
})

/** Loads the menu tree (of a top-menu item when given) and the button permissions. */
export async function loadMenu(topMenuId?: string): Promise<void> {
  const menu = await getRoutes(topMenuId)
  useSessionStore.getState().setMenu(menu)
  const buttons = await getButtons()
  useSessionStore.getState().setPermission(flattenPermissions(buttons))
}

/** GET logout on the server (best effort), then clear everything locally. */
export async function signOut(): Promise<void> {
  try {
    await logoutCall()
  } catch {
    // Signed out locally either way; a dead token already means signed out on the server.
  }
  useSessionStore.getState().logout()
}
